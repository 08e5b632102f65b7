"""The training ops (ResourceApply*, ResourceSparseApply*) give TensorFlow 2.21's numbers, checks and texts.

Cases come from tests/golden/variables/cases.json (tools/make_golden_variables.py): random
variables, slots and gradients, the values TF's CPU kernels left after 1 and 3 applications
(float32, float64, float16; with and without nesterov/update_slots), and TF's eager errors.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import dtypes, errors
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import types_pb2
from modtensor.kernels.cpu.training_ops import TRAINING_OPS
from modtensor.runtime import eager
from modtensor.runtime.kernel_registry import global_kernel_registry

GOLDEN = json.loads((Path(__file__).resolve().parent.parent / "golden" / "variables" / "cases.json").read_text())
ANONYMOUS = "cd2c89b7-88b7-44c8-ad83-06c2a9158347"
# TF's ApplyAdagrad computes accum.rsqrt() with Eigen's fast approximation: equal to a few ulps, not bit for bit.
APPROXIMATE = {"ResourceApplyAdagrad"}


def array(entry: dict) -> np.ndarray:
    return np.array(entry["values"], dtype=entry["dtype"]).reshape(entry["shape"])


def variable(value: np.ndarray) -> eager.EagerTensor:
    handle = eager.execute(
        "VarHandleOp", [], {"dtype": value.dtype, "shape": list(value.shape), "shared_name": ANONYMOUS}
    )[0]
    eager.execute("AssignVariableOp", [handle, tf.constant(value)])
    return handle


def read(handle: eager.EagerTensor, dtype: np.dtype) -> np.ndarray:
    return eager.execute("ReadVariableOp", [handle], {"dtype": dtypes.as_dtype(dtype)})[0].numpy()


def case_id(case: dict) -> str:
    attrs = ",".join(f"{k}={v}" for k, v in sorted(case["attrs"].items()))
    return f"{case['op']}-{case['dtype']}" + (f"-{attrs}" if attrs else "")


@pytest.mark.parametrize("case", GOLDEN["training"], ids=case_id)
def test_training_op_matches_tensorflow(case: dict) -> None:
    op = case["op"]
    dtype = np.dtype(case["dtype"])
    handles = {"var": variable(array(case["var"]))}
    handles.update({name: variable(array(slot)) for name, slot in case["slots"].items()})
    op_def = global_registry().get(op).op_def
    for step, grad in enumerate(case["grads"]):
        inputs = []
        for arg in op_def.input_arg:
            if arg.name in handles:
                inputs.append(handles[arg.name])
            elif arg.name in ("grad", "delta"):
                inputs.append(tf.constant(array(grad)))
            elif arg.name == "indices":
                inputs.append(tf.constant(np.array(case["indices"], np.int32)))
            else:
                inputs.append(tf.constant(case["scalars"][arg.name], dtype=dtype))
        eager.execute(op, inputs, dict(case["attrs"]))
        if step in (0, 2):
            expected = case["after_1" if step == 0 else "after_3"]
            for name, handle in handles.items():
                got = read(handle, dtype)
                want = array(expected[name])
                if op in APPROXIMATE or dtype == np.float16:
                    tol = 2e-3 if dtype == np.float16 else 1e-6
                    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"{name} after step {step + 1}")
                else:
                    np.testing.assert_array_equal(got, want, err_msg=f"{name} after step {step + 1}")


@pytest.mark.parametrize("case", GOLDEN["training_errors"], ids=lambda c: c["name"])
def test_training_op_errors_match_tensorflow(case: dict) -> None:
    v = variable(np.ones((2, 3), np.float32))
    a = variable(np.ones((2, 3), np.float32))
    small = variable(np.ones((3,), np.float32))
    uninit = eager.execute("VarHandleOp", [], {"dtype": tf.float32, "shape": [2, 3], "shared_name": ANONYMOUS})[0]
    g = tf.ones((2, 3))
    run = {
        "alpha_not_scalar": lambda: tf.raw_ops.ResourceApplyGradientDescent(var=v, alpha=[0.1], delta=g),
        "delta_shape": lambda: tf.raw_ops.ResourceApplyGradientDescent(var=v, alpha=0.1, delta=tf.ones(3)),
        "accum_shape": lambda: tf.raw_ops.ResourceApplyMomentum(var=v, accum=small, lr=0.1, grad=g, momentum=0.9),
        "uninitialized_empty": lambda: tf.raw_ops.ResourceApplyGradientDescent(var=uninit, alpha=0.1, delta=g),
        "sparse_index_range": lambda: tf.raw_ops.ResourceSparseApplyAdagradV2(
            var=v, accum=a, lr=0.1, epsilon=1e-7, grad=tf.ones((1, 3)), indices=[5]
        ),
        "sparse_indices_rank": lambda: tf.raw_ops.ResourceSparseApplyMomentum(
            var=v, accum=a, lr=0.1, grad=tf.ones((1, 3)), indices=[[0]], momentum=0.9
        ),
        "sparse_grad_rows": lambda: tf.raw_ops.ResourceSparseApplyMomentum(
            var=v, accum=a, lr=0.1, grad=tf.ones((2, 3)), indices=[0], momentum=0.9
        ),
        "sparse_grad_inner": lambda: tf.raw_ops.ResourceSparseApplyRMSProp(
            var=v, ms=a, mom=a, lr=0.1, rho=0.9, momentum=0.0, epsilon=1e-7, grad=tf.ones((1, 2)), indices=[0]
        ),
    }[case["name"]]
    with pytest.raises(errors.OpError) as info:
        run()
    assert type(info.value).__name__ == case["error"]["type"]
    assert _core(str(info.value.message)) == _core(case["error"]["message"])


def _core(message: str) -> str:
    """The kernel's own text, without TF's eager prefix/suffix (`{{function_node ...}}`, `[Op:...] name:`)."""
    text = message.split("}} ", 1)[-1]
    return text.split(" [Op:")[0]


def test_every_training_op_has_a_cpu_kernel_with_tensorflows_types() -> None:
    registry = global_kernel_registry()
    for op in TRAINING_OPS:
        (ours,) = [k for k in registry.kernels_for_op(op) if k.kernel_def.device_type == "CPU"]
        for attr, tf_types in GOLDEN["kernel_defs"][op]["CPU"]["constraints"].items():
            assert {types_pb2.DataType.Name(t) for t in ours.kernel_def.allowed(attr)} == set(tf_types), (op, attr)
