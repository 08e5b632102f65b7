"""Dump TensorFlow's CPU kernel registrations for modtensor's standard op set to tests/golden.

Run with the TensorFlow scratch venv (TensorFlow is never imported by modtensor):

    /tmp/tfvenv/bin/python tools/dump_tf_cpu_kernel_constraints.py

Writes ``tests/golden/tf_cpu_kernel_constraints.json``: for every op of
``tests/golden/tf_op_defs.pbtxt``, the list of TensorFlow 2.21's CPU
KernelDefs as ``{"constraints": {attr: [DT_...]}, "host_memory": [...],
"label": str, "priority": int}``, in TensorFlow's order. Tests check that
modtensor's CPU kernels accept at least the dtypes TensorFlow's do.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import tensorflow as tf
from tensorflow.core.framework import types_pb2
from tensorflow.python.framework import kernels

ROOT = Path(__file__).resolve().parent.parent
OP_DEFS = ROOT / "tests" / "golden" / "tf_op_defs.pbtxt"
OUT = ROOT / "tests" / "golden" / "tf_cpu_kernel_constraints.json"


def main() -> None:
    ops = sorted(set(re.findall(r'^  name: "(\w+)"$', OP_DEFS.read_text(), flags=re.M)))
    result: dict[str, list[dict]] = {}
    for op in ops:
        entries = []
        for kdef in kernels.get_registered_kernels_for_op(op).kernel:
            if kdef.device_type != "CPU":
                continue
            entries.append(
                {
                    "constraints": {
                        c.name: [types_pb2.DataType.Name(t) for t in c.allowed_values.list.type]
                        for c in kdef.constraint
                    },
                    "host_memory": list(kdef.host_memory_arg),
                    "label": kdef.label,
                    "priority": kdef.priority,
                }
            )
        result[op] = entries
    header = {"generated_by": "tools/dump_tf_cpu_kernel_constraints.py", "tensorflow": tf.__version__}
    OUT.write_text(json.dumps({"meta": header, "kernels": result}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({len(result)} ops)")


if __name__ == "__main__":
    main()
