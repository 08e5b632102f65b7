"""``modtensor.Variable`` behaves as TensorFlow 2.21's ``tf.Variable``: eagerly, in functions, in v1 Sessions.

Golden values, reprs and error texts come from tests/golden/variables/cases.json
(tools/make_golden_variables.py); the structural tests check what TF's own code does
(automatic control dependencies, names of v1 graph nodes, per-session state).
"""

from __future__ import annotations

import gc
import json
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import errors
from modtensor.framework.protos import types_pb2
from modtensor.runtime.kernel_registry import global_kernel_registry

GOLDEN = json.loads((Path(__file__).resolve().parent.parent / "golden" / "variables" / "cases.json").read_text())
CASES = {c["name"]: c for c in GOLDEN["variables"]}
OPS = {c["name"]: c for c in GOLDEN["variable_ops"]}
ANONYMOUS = "cd2c89b7-88b7-44c8-ad83-06c2a9158347"


def array(entry: dict) -> np.ndarray:
    return np.array(entry["values"], dtype=entry["dtype"]).reshape(entry["shape"])


def outcome(fn: Any) -> dict[str, Any]:
    try:
        value = fn()
    except Exception as exc:  # noqa: BLE001 - compared with what TF raised
        return {"error": {"type": type(exc).__name__, "message": str(getattr(exc, "message", exc))}}
    if isinstance(value, (tf.Variable, tf.Tensor)) and value.dtype != tf.resource:
        return {"repr": repr(value), "value": value.numpy()}
    return {"repr": repr(value)}


def check(name: str, got: dict[str, Any], table: dict[str, dict] = CASES) -> None:
    want = table[name]
    if "error" in want:
        assert "error" in got, f"{name}: TF raised {want['error']}, modtensor returned {got}"
        assert got["error"]["type"] == want["error"]["type"], name
        assert _core(got["error"]["message"]) == _core(want["error"]["message"]), name
        return
    assert "error" not in got, f"{name}: modtensor raised {got.get('error')}"
    if "value" in want:
        np.testing.assert_array_equal(got["value"], array(want["value"]), err_msg=name)
    assert _core(got["repr"]) == _core(want["repr"]), name


def _core(text: str) -> str:
    """A message without TF's eager wrapping, and the one class name that differs (TF's ResourceVariable)."""
    text = text.split("}} ", 1)[-1].split(" [Op:")[0]
    return text.replace("'ResourceVariable'", "'Variable'").replace("ResourceVariable.", "Variable.")


# ----------------------------------------------------------------------------------------------- eager


def test_eager_variable_api_matches_tensorflow() -> None:
    v = tf.Variable(1.0)
    with tf.name_scope("s"):
        u = tf.Variable([1, 2], name="w")
    m = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="m")
    cases = {
        "default_name": lambda: v,
        "scoped_name": lambda: u.name,
        "handle_str": lambda: str(u.handle).split("name=")[0],
        "none_initial": lambda: tf.Variable(None),
        "dtype_python": lambda: tf.Variable(1.0, dtype=tf.int32),
        "dtype_tensor": lambda: tf.Variable(tf.constant(1.0), dtype=tf.int32),
        "dtype_cast": lambda: tf.Variable(3, dtype=tf.float64),
        "shape_mismatch": lambda: tf.Variable([1.0], shape=[2]),
        "shape_none": lambda: tf.Variable(1.0, shape=tf.TensorShape(None)).shape,
        "callable": lambda: tf.Variable(lambda: tf.ones([2])),
        "assign_shape": lambda: v.assign([1.0, 2.0]),
        "assign_int": lambda: tf.Variable(2.5).assign(1),
        "assign_string": lambda: v.assign("a"),
        "convert_dtype": lambda: tf.convert_to_tensor(v, dtype=tf.int32),
        "hash": lambda: hash(v),
        "initial_value": lambda: v.initial_value,
        "len": lambda: len(u),
        "getitem": lambda: m[1, 0],
        "add": lambda: m + 1,
        "radd": lambda: 1 + m,
        "matmul": lambda: m @ m,
        "rmatmul": lambda: tf.constant([[1.0, 0.0]]) @ m,
        "neg": lambda: -m,
        "eq": lambda: u == u,
        "ne": lambda: u != [1, 3],
        "bool": lambda: bool(v),
        "assign_add": lambda: tf.Variable([1, 2]).assign_add([1, 1]),
        "assign_sub_no_read": lambda: tf.Variable([1, 2]).assign_sub([1, 1], read_value=False),
        "sparse_read": lambda: m.sparse_read([1]),
        "gather_nd": lambda: m.gather_nd([[1, 1]]),
        "value": lambda: m.value(),
        "read_value": lambda: m.read_value(),
        "numpy": lambda: u.numpy(),
        "trainable_false": lambda: tf.Variable([1.0], trainable=False).trainable,
        "str": lambda: str(m),
        "read_raw_op_variable": lambda: tf.raw_ops.ReadVariableOp(resource=u, dtype=tf.int32),
        "tf_matmul": lambda: tf.matmul(m, m),
        "tf_add_list": lambda: tf.add_n([m, m, tf.ones((2, 2))]),
        "reduce_sum": lambda: tf.reduce_sum(m),
        "device_scope_cpu": lambda: _device_variable(),
        "in_function_create": lambda: _function_created_variable(),
    }
    for name, fn in cases.items():
        got = outcome(fn)
        if name == "numpy":
            got = {"repr": repr(fn())}
        check(name, got)


def _device_variable() -> Any:
    with tf.device("/CPU:0"):
        return tf.Variable(2.0).device


def _function_created_variable() -> Any:
    holder: list[Any] = []

    @tf.function
    def f() -> Any:
        if not holder:
            holder.append(tf.Variable(5.0))
        holder[0].assign_add(1.0)
        return holder[0].read_value()

    return [f().numpy().item(), f().numpy().item(), holder[0].numpy().item()]


def test_raw_variable_ops_match_tensorflow() -> None:
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    iv = tf.Variable([10, 20, 30, 40])
    h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[2], shared_name=ANONYMOUS, debug_name="q/")
    cases = {
        "uninitialized_is_initialized": lambda: tf.raw_ops.VarIsInitializedOp(resource=h),
        "uninitialized_read": lambda: tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32),
        "uninitialized_assign_add": lambda: tf.raw_ops.AssignAddVariableOp(resource=h, value=[1.0, 2.0]),
        "read_wrong_dtype": lambda: tf.raw_ops.ReadVariableOp(resource=v.handle, dtype=tf.int32),
        "assign_wrong_dtype": lambda: tf.raw_ops.AssignVariableOp(resource=v.handle, value=[1, 2]),
        "assign_validate_shape": lambda: tf.raw_ops.AssignVariableOp(
            resource=v.handle, value=tf.ones((2, 2)), validate_shape=True
        ),
        "assign_add_shape": lambda: tf.raw_ops.AssignAddVariableOp(resource=v.handle, value=[1.0, 2.0]),
        "gather": lambda: tf.raw_ops.ResourceGather(resource=v.handle, indices=[2, 0, 2], dtype=tf.float32),
        "gather_2d_indices": lambda: tf.raw_ops.ResourceGather(
            resource=v.handle, indices=[[1], [0]], dtype=tf.float32
        ),
        "gather_bad_index": lambda: tf.raw_ops.ResourceGather(resource=v.handle, indices=[5], dtype=tf.float32),
        "gather_nd": lambda: tf.raw_ops.ResourceGatherNd(resource=v.handle, indices=[[2, 1], [0, 0]], dtype=tf.float32),
        "variable_shape": lambda: tf.raw_ops.VariableShape(input=v.handle),
        "variable_shape_int64": lambda: tf.raw_ops.VariableShape(input=v.handle, out_type=tf.int64),
        "scatter_add_bad_index": lambda: tf.raw_ops.ResourceScatterAdd(resource=iv.handle, indices=[5], updates=[1]),
        "scatter_updates_shape": lambda: tf.raw_ops.ResourceScatterAdd(
            resource=iv.handle, indices=[0, 1], updates=[1, 2, 3]
        ),
    }
    for name, fn in cases.items():
        check(name, outcome(fn), OPS)
    handle_repr = repr(h)
    want = OPS["handle_repr"]["repr"]
    assert handle_repr.split('name="')[0] == want.split('name="')[0]
    assert handle_repr.split('", device=')[1] == want.split('", device=')[1]  # all but TF's unique number
    assert 'name="q/' in handle_repr


@pytest.mark.parametrize(
    "case", [c for c in GOLDEN["variable_ops"] if "result" in c], ids=lambda c: c["name"]
)
def test_scatter_and_assign_updates_match_tensorflow(case: dict) -> None:
    if "base" not in case:  # AssignAdd/AssignSub
        var = tf.Variable(np.array([1.5, -2.0], np.float32))
        getattr(tf.raw_ops, case["name"])(resource=var.handle, value=[0.25, 4.0])
        np.testing.assert_array_equal(var.numpy(), array(case["result"]))
        return
    base, updates = array(case["base"]), array(case["updates"])
    var = tf.Variable(base)
    getattr(tf.raw_ops, case["op"])(resource=var.handle, indices=case["indices"], updates=updates)
    np.testing.assert_array_equal(var.numpy(), array(case["result"]))
    scalar = tf.Variable(base)
    getattr(tf.raw_ops, case["op"])(resource=scalar.handle, indices=[1, 3], updates=np.array(3, base.dtype))
    np.testing.assert_array_equal(scalar.numpy(), array(case["scalar_result"]))


def test_a_read_value_never_changes_under_its_reader() -> None:
    v = tf.Variable([1.0, 2.0])
    before = v.read_value()
    held = before.numpy()
    v.assign_add([10.0, 10.0])
    tf.raw_ops.ResourceApplyGradientDescent(var=v.handle, alpha=1.0, delta=[1.0, 1.0])
    np.testing.assert_array_equal(before.numpy(), held)  # copy-on-write: the update copied the shared buffer
    np.testing.assert_array_equal(v.numpy(), [10.0, 11.0])
    source = np.array([5.0, 6.0], np.float32)
    w = tf.Variable(source)
    w.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(source, [5.0, 6.0])  # the caller's array is untouched


def test_an_eager_variable_dies_with_its_last_handle() -> None:
    v = tf.Variable([1.0, 2.0])
    var = v.handle._value[()].resource
    ref = weakref.ref(var)
    del v, var
    gc.collect()
    assert ref() is None


def test_variable_on_a_named_device_keeps_its_ops_there_and_the_handle_says_so() -> None:
    with tf.device("/CPU:0"):
        v = tf.Variable([1.0, 2.0])
    assert v.device.endswith("device:CPU:0") and v.handle.device == v.device
    handle = v.handle._value[()]
    assert handle.device == v.device and handle.container == "Anonymous"
    assert handle.to_proto().dtypes_and_shapes[0].dtype == types_pb2.DT_FLOAT


def test_device_agnostic_variable_kernels_are_registered_for_default_as_tensorflow() -> None:
    registry = global_kernel_registry()
    for op in ("VarHandleOp", "ReadVariableOp", "AssignVariableOp", "VarIsInitializedOp", "VariableShape",
               "DestroyResourceOp"):  # fmt: skip
        (ours,) = [k for k in registry.kernels_for_op(op) if k.kernel_def.device_type == "DEFAULT"]
        tf_def = GOLDEN["kernel_defs"][op]["DEFAULT"]
        assert set(ours.kernel_def.host_memory) == set(tf_def["host_memory"]), op
        for attr, tf_types in tf_def["constraints"].items():
            ours_types = {types_pb2.DataType.Name(t) for t in ours.kernel_def.allowed(attr)}
            known = {t for t in tf_types if t not in ("DT_INT2", "DT_UINT2", "DT_INT4", "DT_UINT4")}
            assert ours_types == known, (op, attr)


def test_variable_cpu_kernels_take_tensorflows_types() -> None:
    registry = global_kernel_registry()
    skip = {"DT_VARIANT", "DT_RESOURCE", "DT_QINT8", "DT_QUINT8", "DT_QINT32", "DT_QINT16", "DT_QUINT16"}
    for op in ("AssignAddVariableOp", "AssignSubVariableOp", "ResourceGather", "ResourceGatherNd",
               "ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterMul", "ResourceScatterDiv",
               "ResourceScatterMin", "ResourceScatterMax", "ResourceScatterUpdate", "SoftmaxCrossEntropyWithLogits",
               "SparseSoftmaxCrossEntropyWithLogits", "L2Loss", "IsFinite"):  # fmt: skip
        (ours,) = [k for k in registry.kernels_for_op(op) if k.kernel_def.device_type == "CPU"]
        for attr, tf_types in GOLDEN["kernel_defs"][op]["CPU"]["constraints"].items():
            ours_types = {types_pb2.DataType.Name(t) for t in ours.kernel_def.allowed(attr)}
            assert ours_types == set(tf_types) - skip, (op, attr)


# ----------------------------------------------------------------------------------------------- functions


def test_function_programs_with_variables_give_tensorflows_results() -> None:
    cases = {c["name"]: c for c in GOLDEN["functions"]}
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def step(x: Any) -> Any:
        v.assign_add(x)
        a = v.read_value() * 2
        v.assign(x * 3)
        b = v.value()
        v.assign_sub([1.0, 1.0])
        return a, b

    results = [[r.numpy().tolist() for r in step(tf.constant([1.0, 1.0]))] for _ in range(3)]
    assert results == cases["program_order"]["results"]
    assert v.numpy().tolist() == cases["program_order"]["final"]

    counter = tf.Variable(0)

    @tf.function
    def count() -> None:
        counter.assign_add(1)
        counter.assign_add(2)

    for _ in range(4):
        count()
    assert int(counter.numpy()) == cases["side_effects_without_outputs"]["final"]

    acc = tf.Variable(0.0)

    @tf.function
    def loop_sum(xs: Any) -> Any:
        for i in range(3):
            acc.assign_add(xs[i])
        return acc.read_value()

    assert float(loop_sum(tf.constant([1.0, 2.0, 3.0]))) == cases["python_loop"]["result"]


def test_automatic_control_dependencies_order_a_resource_and_gate_the_outputs() -> None:
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f(x: Any) -> Any:
        v.assign_add(x)
        a = v.read_value()
        v.assign(x)
        return a

    graph = f.get_concrete_function(tf.constant([1.0, 1.0])).graph
    ops = {op.name: op for op in graph.get_operations()}
    control = {name: sorted(c.name for c in op.control_inputs) for name, op in ops.items()}
    assert control["Read/ReadVariableOp"] == ["AssignAddVariableOp"]  # read after the write before it
    assert control["AssignVariableOp"] == ["AssignAddVariableOp", "Read/ReadVariableOp"]  # write after the read
    assert control["Identity_1"] == ["NoOp"]  # the output waits for every side effect
    assert set(control["NoOp"]) == {"AssignAddVariableOp", "Read/ReadVariableOp", "AssignVariableOp"}
    assert graph.control_outputs and all(op.op_def.is_stateful for op in graph.control_outputs)


def test_stateless_functions_get_no_control_edges() -> None:
    @tf.function
    def f(x: Any) -> Any:
        return x * 2

    graph = f.get_concrete_function(tf.constant(1.0)).graph
    assert all(not op.control_inputs for op in graph.get_operations())
    assert "NoOp" not in [op.type for op in graph.get_operations()]


def test_a_function_uses_the_variable_it_captured_on_the_variables_device() -> None:
    v = tf.Variable([3.0, 4.0])

    @tf.function
    def f() -> Any:
        return v * 2

    np.testing.assert_array_equal(f().numpy(), [6.0, 8.0])
    v.assign([1.0, 1.0])
    np.testing.assert_array_equal(f().numpy(), [2.0, 2.0])  # read at call time, not trace time
    graph = f.get_concrete_function().graph
    reads = [op for op in graph.get_operations() if op.type == "ReadVariableOp"]
    assert reads and all(op.device == v.device for op in reads)


# ----------------------------------------------------------------------------------------------- v1 graphs


def test_v1_graph_variables_run_in_sessions_as_tensorflow() -> None:
    want = GOLDEN["session"]
    g = tf.Graph()
    with g.as_default():
        v = tf.compat.v1.Variable([1.0, 2.0], name="w")
        a = v.assign([3.0, 4.0])
        b = v.assign_add([1.0, 1.0], read_value=False)
        init = tf.compat.v1.global_variables_initializer()
        assert [f"{n.name}:{n.op}" for n in g.as_graph_def().node] == want["nodes"]
        names = {
            "name": v.name, "op": v.op.name, "initializer": v.initializer.name, "initial_value": v.initial_value.name,
            "graph_element": v._as_graph_element().name, "init": init.name,
            "init_inputs": [c.name for c in init.control_inputs], "assign_name": a.name, "assign_add_op": b.name,
        }  # fmt: skip
        assert names == want["names"]
        assert repr(v) == want["repr"]
        with tf.compat.v1.variable_scope("scope"):
            gv = tf.compat.v1.get_variable("g", shape=[2, 3], initializer=np.full((2, 3), 0.5, np.float32))
        assert gv.name == want["get_variable_name"]
        with tf.compat.v1.variable_scope("scope", reuse=True):
            assert (tf.compat.v1.get_variable("g") is gv) == want["reuse_same"]
        with pytest.raises(ValueError) as exists, tf.compat.v1.variable_scope("scope"):
            tf.compat.v1.get_variable("g", shape=[2, 3])
        assert str(exists.value) == want["exists_error"]
        with pytest.raises(ValueError) as missing, tf.compat.v1.variable_scope("scope", reuse=True):
            tf.compat.v1.get_variable("nope", shape=[2])
        assert str(missing.value) == want["missing_error"]
        init2 = tf.compat.v1.global_variables_initializer()
        assert [x.name for x in tf.compat.v1.global_variables()] == want["globals"]
        with tf.compat.v1.Session() as sess:
            with pytest.raises(errors.FailedPreconditionError) as uninitialized:
                sess.run(v)
            assert want["uninitialized_error"]["message"] in uninitialized.value.message
            assert bool(sess.run(v.is_initialized())) == want["is_initialized_before"]
            sess.run(init2)
            runs = [sess.run(v).tolist(), sess.run(a).tolist(), sess.run(v).tolist(), sess.run(b),
                    sess.run(v).tolist(), sess.run(gv).tolist()]  # fmt: skip
            assert runs == want["runs"]
            assert v.eval().tolist() == want["runs"][-2]
        with tf.compat.v1.Session() as sess2:  # a new session has its own, uninitialized variables
            assert bool(sess2.run(v.is_initialized())) == want["second_session_initialized"]


def test_closing_a_session_frees_its_variables() -> None:
    g = tf.Graph()
    with g.as_default():
        v = tf.compat.v1.Variable(np.zeros(4, np.float32), name="w")
        sess = tf.compat.v1.Session()
        sess.run(v.initializer)
        (manager,) = sess._resources.values()
        assert manager.names() == [("localhost", "N10tensorflow3VarE", "w")]
        sess.close()
        assert manager.names() == []


def test_v1_variable_collections_expected_shape_and_use_resource_as_tensorflow(caplog: Any) -> None:
    """TF 1's constructor: ``collections`` replaces the global variables (trainable ones still join the trainable
    collection), ``expected_shape`` is ignored, ``use_resource`` is accepted (False: a resource variable and a
    warning, modtensor having no reference variables); results checked against TF 2.21."""
    g = tf.Graph()
    with g.as_default():
        a = tf.compat.v1.Variable(1.0, name="a")
        b = tf.compat.v1.Variable(2.0, name="b", collections=["mine"])
        c = tf.compat.v1.Variable(3.0, name="c", collections=("mine",), trainable=False)
        d = tf.compat.v1.Variable(4.0, name="d", use_resource=True, expected_shape=[7])
        with caplog.at_level("WARNING", logger="modtensor"):
            e = tf.compat.v1.Variable(5.0, name="e", use_resource=False)
        assert "no reference variables" in caplog.text and "e is a resource variable" in caplog.text
        f = tf.compat.v1.get_variable("f", shape=[2], collections=["mine", tf.compat.v1.GraphKeys.GLOBAL_VARIABLES])
        assert [v.name for v in tf.compat.v1.global_variables()] == ["a:0", "d:0", "e:0", "f:0"]
        assert [v.name for v in tf.compat.v1.trainable_variables()] == ["a:0", "b:0", "d:0", "e:0", "f:0"]
        assert [v.name for v in g.get_collection("mine")] == ["b:0", "c:0", "f:0"]
        assert e.op.type == "VarHandleOp" and isinstance(e, tf.Variable)
        with tf.compat.v1.Session() as sess:
            sess.run([v.initializer for v in (a, b, c, d, e, f)])
            assert sess.run([a, b, c, d, e]) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert not isinstance(tf.Variable(1.0), tf.compat.v1.Variable)  # as TF: a v2 variable is not a VariableV1
    with pytest.raises(ValueError, match="must be a list, tuple, or set. Got mine of type <class 'str'>"):
        tf.compat.v1.Variable(1.0, collections="mine")


def test_get_variable_default_initializers() -> None:
    g = tf.Graph()
    with g.as_default():
        w = tf.compat.v1.get_variable("w", shape=[30, 20])
        n = tf.compat.v1.get_variable("n", shape=[3], dtype=tf.int32)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            values = sess.run(w)
            assert np.abs(values).max() <= np.sqrt(6.0 / 50) and values.std() > 0.1  # Glorot uniform
            assert sess.run(n).tolist() == [0, 0, 0]
