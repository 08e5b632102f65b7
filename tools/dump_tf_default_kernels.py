"""Dump TensorFlow 2.21's kernel registrations of the runtime's pass-through and control-flow ops.

Run with the TensorFlow scratch venv (TensorFlow is never imported by modtensor):

    /work/tfvenv/bin/python tools/dump_tf_default_kernels.py

Writes ``tests/golden/tf_default_kernels.json``: for each op, whether TF has a CPU kernel
and, per DEVICE_DEFAULT registration, the accepted types with the host-memory args. The
test ``tests/runtime/test_default_kernels.py`` holds the runtime's DEFAULT kernels to it.
"""

from __future__ import annotations

import json
from pathlib import Path

import tensorflow as tf  # noqa: F401 - registers the kernels
from tensorflow.core.framework import types_pb2
from tensorflow.python.framework import kernels

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "tf_default_kernels.json"
OPS = (
    "Const", "Placeholder", "PlaceholderWithDefault", "Identity", "StopGradient", "IdentityN", "NoOp",
    "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "ControlTrigger",
)  # fmt: skip


def main() -> None:
    result = {}
    for op in OPS:
        defs = kernels.get_registered_kernels_for_op(op).kernel
        default = {}
        for kdef in defs:
            if kdef.device_type != "DEFAULT":
                continue
            types = [types_pb2.DataType.Name(t) for c in kdef.constraint for t in c.allowed_values.list.type]
            for name in types or ["*"]:
                default[name] = sorted(kdef.host_memory_arg)
        result[op] = {"cpu": any(k.device_type == "CPU" for k in defs), "default": dict(sorted(default.items()))}
    OUT.write_text(json.dumps({"tensorflow": tf.__version__, "ops": result}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
