"""The runtime's pass-through and control-flow kernels are registered as TensorFlow 2.21 registers them.

They serve every device type through DEVICE_DEFAULT with TF's memory types
(tests/golden/tf_default_kernels.json, from tools/dump_tf_default_kernels.py), and CPU
has its own kernel exactly where TF has one - so a plugin's own CPU kernel for NoOp
(Intel's ITEX registers one) serves CPU nodes instead of meeting a same-priority duplicate.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework.protos import types_pb2
from modtensor.runtime.kernel_registry import DEFAULT_DEVICE_TYPE, global_kernel_registry
from modtensor.runtime.kernels.plumbing import NoOpKernel

from .support import make_node, op_def

GOLDEN = json.loads((Path(__file__).resolve().parent.parent / "golden" / "tf_default_kernels.json").read_text())
TF_OPS = GOLDEN["ops"]
# Documented deviations (docs/runtime.md, "Kernel registry"): variant values are host-side Python objects here;
# the v1 control-flow kernels stay DEFAULT-only, as in the TF 2.15 that ITEX's CPU kernels were built against.
VARIANT_HOST = {
    "Const": ["output"],
    "Identity": ["input", "output"],
    "StopGradient": ["input", "output"],
    "PlaceholderWithDefault": ["input", "output"],
    "Switch": ["data", "output_false", "output_true", "pred"],
    "Merge": ["inputs", "output", "value_index"],
    "Enter": ["data", "output"],
    "Exit": ["data", "output"],
    "NextIteration": ["data", "output"],
}
CONTROL_FLOW = {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "ControlTrigger"}
TYPE_ATTR = {"Const": "dtype", "Placeholder": "dtype", "PlaceholderWithDefault": "dtype"}
UNKNOWN_DEVICE_TYPE = "SOME_ACCELERATOR"  # any device type without kernels of its own falls back to DEFAULT


def _node(op: str, type_name: str):
    dtype = types_pb2.DT_FLOAT if type_name == "*" else types_pb2.DataType.Value(type_name)
    attrs: dict = {}
    if op == "IdentityN":
        attrs["T"] = [dtype]
    elif op not in ("NoOp", "ControlTrigger", "LoopCond"):
        attrs[TYPE_ATTR.get(op, "T")] = dtype
    if op == "Merge":
        attrs["N"] = 2
    if op == "Enter":
        attrs["frame_name"] = "loop"
    if op in ("Const", "Placeholder", "PlaceholderWithDefault"):
        attrs["shape" if op != "Const" else "value"] = (
            [] if op != "Const" else tf.constant(np.zeros((), dtype=np.float32)).numpy()
        )
    if op == "Const":
        attrs.pop("value")  # a value attr is not needed to choose a kernel
    return make_node(op, **attrs)


@pytest.mark.parametrize("op", sorted(TF_OPS))
def test_default_kernels_take_tf_types_with_tf_memory_types(op: str) -> None:
    registry = global_kernel_registry()
    for type_name, tf_host_memory in TF_OPS[op]["default"].items():
        if type_name in ("DT_STRING", "DT_RESOURCE") and op == "Const":
            continue  # TF has no DEFAULT Const for them either (the loop never meets them)
        node = _node(op, type_name)
        found = registry.find_kernel(node, op_def(op), UNKNOWN_DEVICE_TYPE)
        assert found.kernel_def.device_type == DEFAULT_DEVICE_TYPE, (op, type_name)
        expected = VARIANT_HOST[op] if type_name == "DT_VARIANT" and op in VARIANT_HOST else tf_host_memory
        assert sorted(found.kernel_def.host_memory) == sorted(expected), (op, type_name)


@pytest.mark.parametrize("op", sorted(TF_OPS))
def test_cpu_has_its_own_kernel_where_tensorflow_does(op: str) -> None:
    registry = global_kernel_registry()
    own_cpu = any(r.kernel_def.device_type == "CPU" for r in registry.kernels_for_op(op) if "itex" not in r.source)
    assert own_cpu == (TF_OPS[op]["cpu"] and op not in CONTROL_FLOW)


def test_a_plugins_cpu_noop_serves_cpu_nodes_without_a_duplicate() -> None:
    """ITEX registers NoOp for CPU; TF has only a DEFAULT NoOp, so the plugin's kernel is the one used."""

    class PluginNoOp(NoOpKernel):
        runs = 0

        def compute(self, ctx) -> None:
            type(self).runs += 1

    registry = global_kernel_registry()
    registration = registry.register("NoOp", "CPU", PluginNoOp, source="a plugin's CPU kernels")
    try:
        assert registry.find_kernel(_node("NoOp", "*"), op_def("NoOp"), "CPU") is registration

        graph = tf.Graph()
        with graph.as_default():
            x = tf.compat.v1.placeholder(tf.float32, [])
            done = tf.raw_ops.NoOp()
            with graph.control_dependencies([done]):
                y = x + 1.0
        with tf.compat.v1.Session(graph=graph) as session:
            assert session.run([y, done], {x: 1.0}) == [2.0, None]
        assert PluginNoOp.runs == 1
    finally:
        registry.remove(registration)
