"""Graph construction: names, scopes, control dependencies, devices, create_op, lookups and export.

Expected names, messages and GraphDefs are TensorFlow 2.21's (graph mode), from
``tests/golden/construction/`` (written by ``tools/make_golden_graph_construction.py``)
or quoted from TF where noted.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from google.protobuf import text_format

import modtensor.ops  # noqa: F401  (registers the standard ops)
from modtensor.framework import dtypes, errors, graph_io
from modtensor.framework import graph as graph_lib
from modtensor.framework.device_spec import DeviceSpec
from modtensor.framework.graph import Graph, Operation, OperatorNotAllowedInGraphError, SymbolicTensor
from modtensor.framework.op_def_library import apply_op, apply_op_outputs
from modtensor.framework.protos import attr_value_pb2, graph_pb2
from modtensor.framework.tensor import Tensor

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "construction"


def placeholder(shape=None, dtype=dtypes.float32, name="Placeholder"):
    return apply_op_outputs("Placeholder", dtype=dtype, shape=shape, name=name)


def identity(x, name=None):
    return apply_op_outputs("Identity", input=x, name=name)


def add(x, y, name=None):
    return apply_op_outputs("AddV2", x=x, y=y, name=name)


@pytest.fixture
def g():
    graph = Graph()
    with graph.as_default():
        yield graph


# ------------------------------------------------------------------------------ names


def test_name_scopes_and_unique_names_replay_tensorflows_answers():
    steps = json.loads((GOLDEN / "names.json").read_text())["steps"]
    graph = Graph()
    scopes = []
    with graph.as_default():
        for entry in steps:
            step, expected = entry["step"], entry["result"]
            kind = step[0]
            if kind == "scope":
                cm = graph.name_scope(step[1])
                got = cm.__enter__()
                scopes.append(cm)
            elif kind == "end":
                scopes.pop().__exit__(None, None, None)
                got = None
            elif kind == "unique":
                got = graph.unique_name(step[1], mark_as_used=step[2])
            elif kind == "get_name_scope":
                got = graph.get_name_scope()
            else:
                try:
                    got = apply_op("NoOp", name=step[1]).name
                except ValueError as e:
                    got = {"error": "ValueError", "message": str(e)}
            assert got == expected, f"step {step}"


def test_invalid_scope_and_node_names_are_rejected(g):
    with pytest.raises(ValueError, match=r"'_bad' is not a valid root scope name. A root scope name has to match"):
        g.name_scope("_bad").__enter__()
    with pytest.raises(ValueError, match="'bad name' is not a valid root scope name"):
        g.name_scope("bad name").__enter__()
    with g.name_scope("ok"), pytest.raises(ValueError, match="'a b' is not a valid scope name"):
        g.name_scope("a b").__enter__()
    with pytest.raises(ValueError, match="`-x` is not a valid node name"):
        g.create_op("NoOp", [], name="-x/")


def test_name_scope_is_per_thread(g):
    seen = {}

    def worker():
        seen["scope"] = g.get_name_scope()

    with g.name_scope("main_thread"):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen["scope"] == ""


# ------------------------------------------------------------------------------ tensors and ops


def test_tensor_and_operation_basics(g):
    x = placeholder([2, 3], name="x")
    assert isinstance(x, SymbolicTensor) and isinstance(x, Tensor)
    assert repr(x) == "<tf.Tensor 'x:0' shape=(2, 3) dtype=float32>"
    assert str(x) == 'Tensor("x:0", shape=(2, 3), dtype=float32)'
    assert repr(x.op) == "<tf.Operation 'x' type=Placeholder>"
    assert (x.name, x.value_index, x.dtype, x.graph, x.device) == ("x:0", 0, dtypes.float32, g, "")
    assert x.shape.as_list() == [2, 3] and x.get_shape() == x.shape and x.ndim == 2
    assert x.op.outputs == [x] and x.op.values() == (x,) and x.op.inputs == ()
    a = add(x, x, name="add")
    b = identity(a)
    assert x.consumers() == [a.op, a.op] and a.consumers() == [b.op]  # one entry per edge, as TF
    assert a.op.inputs == (x, x) and list(a.op.node_def.input) == ["x", "x"]
    assert hash(x) == id(x) and {x: 1}[x] == 1
    z = placeholder(None, name="z")
    assert repr(z) == "<tf.Tensor 'z:0' shape=<unknown> dtype=float32>"


def test_symbolic_tensors_refuse_python_value_operators(g):
    x = placeholder([2, 3], name="x")
    with pytest.raises(OperatorNotAllowedInGraphError, match="Using a symbolic `tf.Tensor` as a Python `bool`"):
        bool(x)
    with pytest.raises(OperatorNotAllowedInGraphError, match="Iterating over a symbolic `tf.Tensor` is not allowed"):
        iter(x)
    with pytest.raises(TypeError, match=r"len is not well defined for a symbolic Tensor \(x:0\)"):
        len(x)
    assert issubclass(OperatorNotAllowedInGraphError, TypeError)


def test_set_shape_merges_and_reports_conflicts_as_tensorflow(g):
    y = placeholder([None, 3], name="y")
    y.set_shape([5, None])
    assert y.shape.as_list() == [5, 3]
    with pytest.raises(ValueError, match=r"^Shapes must be equal rank, but are 2 and 1$"):
        y.set_shape([5])
    x = placeholder([2, 3], name="x")
    with pytest.raises(
        ValueError, match=r"Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes are \[2,3\] and \[2,4\]."
    ):
        x.set_shape([2, 4])


def test_get_attr(g):
    x = placeholder([2, 3], name="x")
    assert x.op.get_attr("dtype") == dtypes.float32
    assert [d.size for d in x.op.get_attr("shape").dim] == [2, 3]
    with pytest.raises(ValueError, match=r"^Operation 'x' has no attr named 'nope'.$"):
        x.op.get_attr("nope")
    m = apply_op_outputs("MatMul", a=x, b=x, transpose_b=True)
    assert m.op.get_attr("transpose_b") is True and m.op.get_attr("transpose_a") is False  # defaults added


def test_operator_overload_hook_installs_on_every_tensor_class(g):
    x = placeholder([2], name="x")
    previous = Tensor.__dict__.get("__add__")  # the API layer's operator, when `import modtensor` installed it
    try:
        Tensor._override_operator("__add__", lambda a, b: add(a, b))
        assert (x + x).op.type == "AddV2"
    finally:
        if previous is None:
            del Tensor.__add__
        else:
            Tensor.__add__ = previous
    with pytest.raises(ValueError, match="Overriding __foo__ is disallowed"):
        Tensor._override_operator("__foo__", lambda a: a)


# ------------------------------------------------------------------------------ control dependencies


def test_control_dependencies_follow_tensorflow(g):
    x = placeholder([2, 3], name="x")
    a = add(x, x, name="a")
    ph = placeholder([4], name="ph")
    with g.control_dependencies([ph]):
        d = identity(x, name="d")
        with g.control_dependencies([a]):
            e = identity(x, name="e")
            with g.control_dependencies(None):
                f = identity(x, name="f")
                with g.control_dependencies([ph.op]):
                    h = identity(x, name="h")
        k = identity(ph, name="k")  # ph is already an input
        after = identity(d, name="after")  # d was created in this scope
    assert [o.name for o in d.op.control_inputs] == ["ph"]
    assert [o.name for o in e.op.control_inputs] == ["ph", "a"]
    assert f.op.control_inputs == []
    assert [o.name for o in h.op.control_inputs] == ["ph"]
    assert k.op.control_inputs == [] and after.op.control_inputs == []
    assert list(d.op.node_def.input) == ["x", "^ph"]
    # TF marks ops used as manual control inputs.
    assert ph.op.get_attr("_has_manual_control_dependencies") is True


def test_control_dependencies_reject_non_graph_elements(g):
    with pytest.raises(TypeError, match="Can not convert a int into a Tensor or Operation."):
        g.control_dependencies([3]).__enter__()


def test_add_control_input_dedupes_and_updates_node_def(g):
    x = placeholder([1], name="x")
    n = apply_op("NoOp", name="n")
    y = identity(x, name="y")
    y.op._add_control_input(n)
    y.op._add_control_input(n)
    assert list(y.op.node_def.input) == ["x", "^n"]
    with pytest.raises(TypeError, match="op must be an Operation"):
        y.op._add_control_input(x)


# ------------------------------------------------------------------------------ devices


@pytest.mark.parametrize(
    ("spec", "recorded"),
    [
        ("/GPU:0", "/device:GPU:0"),
        ("/gpu:0", "/device:GPU:0"),
        ("GPU:1", "/device:GPU:1"),
        ("/cpu:0", "/device:CPU:0"),
        ("/job:worker/task:1", "/job:worker/task:1"),
        ("", ""),
        ("cpu", "/device:CPU:*"),
        (DeviceSpec(device_type="GPU", device_index=2), "/device:GPU:2"),
    ],
)
def test_device_scope_records_tensorflows_device_string(g, spec, recorded):
    with g.device(spec):
        x = placeholder(name="p")
    assert x.op.device == recorded and x.op.node_def.device == recorded and x.device == recorded


def test_device_scopes_nest_and_merge_as_tensorflow(g):
    with g.device("/job:worker"):
        with g.device("/GPU:0"):
            assert placeholder().device == "/job:worker/device:GPU:0"
        with g.device("/job:ps/CPU:1"):
            assert placeholder().device == "/job:ps/device:CPU:1"
        with g.device(None):
            assert placeholder().device == ""
        with g.device(""):
            assert placeholder().device == "/job:worker"
        with g.device(lambda op: "/GPU:3" if op.type == "Placeholder" else None):
            assert placeholder().device == "/job:worker/device:GPU:3"
            assert apply_op("NoOp").device == "/job:worker"
    with g.device("/GPU:0"):
        with g.device("/task:1"):
            assert placeholder().device == "/task:1/device:GPU:0"
        with g.device("/device:CPU:*"):
            assert placeholder().device == "/device:CPU:0"
    with g.device(lambda op: "/GPU:3"):
        assert placeholder().device == "/GPU:3"  # a function's string is recorded as given
    with pytest.raises(ValueError, match="Unknown attribute 'foo'"):
        g.device("/foo:1").__enter__()


# ------------------------------------------------------------------------------ create_op


def test_create_op_infers_type_attrs_and_fills_defaults(g):
    x = placeholder([2, 3], name="x")
    op = g.create_op("AddV2", [x, x], name="add")
    assert isinstance(op, Operation)
    assert op.get_attr("T") == dtypes.float32 and op.outputs[0].shape.as_list() == [2, 3]
    assert g.create_op("AddV2", [x, x]).name == "AddV2"
    c = g.create_op("ConcatV2", [x, x, apply_op_outputs("Const", value=_int_tensor(0), dtype=dtypes.int32)])
    assert c.get_attr("N") == 2 and c.outputs[0].shape.as_list() == [4, 3]
    assert g.create_op("MatMul", [x, x], attrs={"transpose_b": True}).outputs[0].shape.as_list() == [2, 2]
    assert g.version == len(g.get_operations())


def _int_tensor(value):
    from modtensor.framework.tensor_proto import make_tensor_proto

    return make_tensor_proto(value, dtype=dtypes.int32)


def test_create_op_errors_read_as_tensorflows(g):
    x = placeholder([2, 3], name="x")
    q = placeholder([], dtype=dtypes.int32, name="q")
    with pytest.raises(ValueError, match=r"^Inconsistent values for attr 'T' DT_FLOAT vs. DT_INT32 while building "
                       r"NodeDef 'AddV2' using Op<name=AddV2; signature=x:T, y:T -> z:T"):  # fmt: skip
        g.create_op("AddV2", [x, q])
    with pytest.raises(ValueError, match="Inconsistent values for attr 'T' DT_FLOAT vs. DT_INT32"):
        g.create_op("AddV2", [x, x], attrs={"T": attr_value_pb2.AttrValue(type=dtypes.int32.as_datatype_enum)})
    with pytest.raises(TypeError, match=r"In op 'AddV2_2', input types \(\[tf.float32, tf.float32\]\) are not "):
        g.create_op("AddV2", [x, x], input_types=[dtypes.int32, dtypes.int32])
    with pytest.raises(TypeError, match=r"^Input #1 is not a tensor: 3$"):
        g.create_op("AddV2", [x, 3])
    with pytest.raises(errors.NotFoundError, match="Op type not registered 'Nope'"):
        g.create_op("Nope", [x])
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 3 and 2 for '\{\{node MatMul\}\} = "
                       r"MatMul\[T=DT_FLOAT, grad_a=false, grad_b=false, transpose_a=false, transpose_b=false\]"
                       r"\(x, x\)' with input shapes: \[2,3\], \[2,3\]."):  # fmt: skip
        g.create_op("MatMul", [x, x])
    with pytest.raises(ValueError, match="NodeDef missing attr 'dtype'"):
        g.create_op("Placeholder", [])
    with pytest.raises(ValueError, match="Duplicate node name in graph: 'x'"):
        g.create_op("NoOp", [], name="x/")
    other = Graph()
    with other.as_default():
        y = placeholder([2, 3], name="y")
    with pytest.raises(ValueError, match="is from a different graph"):
        g.create_op("AddV2", [x, y])
    # Failed creations add nothing to the graph.
    assert [op.name for op in g.get_operations()] == ["x", "q"]


def test_create_op_without_shape_inference_leaves_shapes_unknown(g):
    x = placeholder([2, 3], name="x")
    op = g.create_op("MatMul", [x, x], compute_shapes=False)
    assert op.outputs[0].shape.rank is None


# ------------------------------------------------------------------------------ lookups


def test_get_tensor_and_operation_by_name_errors_match_tensorflow(g):
    x = placeholder([2, 3], name="x")
    assert g.get_tensor_by_name("x:0") is x and g.get_operation_by_name("x") is x.op
    assert g.as_graph_element("x") is x.op and g.as_graph_element(x) is x
    cases = [
        (lambda: g.get_tensor_by_name("x"), ValueError,
         "The name 'x' refers to an Operation, not a Tensor. Tensor names must be of the form \"<op_name>:"),
        (lambda: g.get_tensor_by_name("x:1"), KeyError,
         "The name 'x:1' refers to a Tensor which does not exist. The operation, 'x', exists but only has 1 outputs."),
        (lambda: g.get_tensor_by_name("nope:0"), KeyError,
         "The name 'nope:0' refers to a Tensor which does not exist. The operation, 'nope', does not exist in the"),
        (lambda: g.get_tensor_by_name("x:a"), ValueError,
         "The name 'x:a' looks a like a Tensor name, but is not a valid one."),
        (lambda: g.get_tensor_by_name("nope"), ValueError,
         "The name 'nope' looks like an (invalid) Operation name, not a Tensor."),
        (lambda: g.get_operation_by_name("x:0"), ValueError, "Name 'x:0' appears to refer to a Tensor, not a"),
        (lambda: g.get_operation_by_name("nope"), KeyError, "The name 'nope' refers to an Operation not in the graph."),
        (lambda: g.get_operation_by_name(3), TypeError, "Operation names are strings (or similar), not int."),
        (lambda: g.get_tensor_by_name(3), TypeError, "Tensor names are strings (or similar), not int."),
        (lambda: g.as_graph_element("x:0:1"), ValueError, "The name 'x:0:1' looks a like a Tensor name"),
        (lambda: g.as_graph_element(3), TypeError, "Can not convert a int into a Tensor or Operation."),
    ]  # fmt: skip
    for call, error, message in cases:
        with pytest.raises(error) as info:
            call()
        text = info.value.args[0]
        assert text.startswith(message), text
    other = Graph()
    with other.as_default():
        y = placeholder(name="y")
    with pytest.raises(ValueError, match="is not an element of this graph"):
        g.as_graph_element(y)


# ------------------------------------------------------------------------------ graph state


def test_default_graph_stack():
    outer = graph_lib.get_default_graph()
    g1, g2 = Graph(), Graph()
    with g1.as_default():
        assert graph_lib.get_default_graph() is g1
        with g2.as_default():
            assert graph_lib.get_default_graph() is g2
        assert graph_lib.get_default_graph() is g1
        with pytest.raises(AssertionError, match="Do not use tf.reset_default_graph"):
            graph_lib.reset_default_graph()
    assert graph_lib.get_default_graph() is outer
    graph_lib.reset_default_graph()
    assert graph_lib.get_default_graph() is not outer


def test_finalize_blocks_new_ops(g):
    x = placeholder(name="x")
    g.finalize()
    assert g.finalized
    with pytest.raises(RuntimeError, match="Graph is finalized and cannot be modified."):
        identity(x)


def test_collections(g):
    x = placeholder(name="x")
    g.add_to_collection("c", 1)
    g.add_to_collections(["c", "d"], x)
    assert g.get_collection("c") == [1, x] and g.get_collection("d") == [x]
    assert g.get_all_collection_keys() == ["c", "d"]
    assert g.get_collection("c", scope="x") == [x] and g.get_collection("c", scope="y") == []
    g.get_collection_ref("e").append(2)
    assert g.get_collection("e") == [2]
    g.clear_collection("e")
    assert g.get_collection("e") == []


def test_as_graph_def_versions_order_and_shapes(g):
    x = placeholder([2, 3], name="x")
    identity(x, name="y")
    apply_op("NoOp", name="n")
    graph_def = g.as_graph_def()
    assert graph_def.versions.producer == 2474 and graph_def.versions.min_consumer == 0  # TF 2.21
    assert g.graph_def_versions.producer == 2474
    assert [n.name for n in graph_def.node] == ["x", "y", "n"]
    assert "_output_shapes" not in graph_def.node[0].attr
    with_shapes = g.as_graph_def(add_shapes=True)
    assert [d.size for d in with_shapes.node[1].attr["_output_shapes"].list.shape[0].dim] == [2, 3]
    assert "_output_shapes" not in with_shapes.node[2].attr  # no outputs, no attr (as TF)
    assert [n.name for n in g.as_graph_def(from_version=1).node] == ["y", "n"]


def _golden(name: str) -> graph_pb2.GraphDef:
    return text_format.Parse((GOLDEN / f"{name}.pbtxt").read_text(), graph_pb2.GraphDef())


def test_graph_built_like_tensorflow_exports_tensorflows_graph_def():
    """tools/make_golden_graph_construction.py:scopes_control_devices, built the same way here."""
    g = Graph()
    with g.as_default():
        x = placeholder([2, 3], name="x")
        a = add(x, x)
        b = add(x, x)
        with g.name_scope("block"):
            c = identity(a)
            with g.name_scope("inner"):
                add(c, 1.5)
        with g.name_scope("block"):
            e = identity(b)
        with g.control_dependencies([a, b]):
            f = identity(x, name="f")
            with g.control_dependencies([e.op]):
                identity(a, name="h")
            with g.control_dependencies(None):
                identity(x, name="k")
            identity(f, name="after_f")
        with g.control_dependencies([f]):
            apply_op("NoOp", name="noop")
        with g.device("/GPU:0"):
            apply_op("MatMul", a=x, b=x, transpose_b=True)
        with g.device("/job:worker/task:1"):
            with g.device("/device:CPU:0"):
                identity(x, name="on_cpu")
            with g.device(None):
                identity(x, name="no_device")
        apply_op("Pack", values=[x, x, x], axis=1)
        apply_op("IdentityN", input=[x, a])
    expected = _golden("scopes_control_devices")
    assert graph_io.graph_def_diff(g.as_graph_def(add_shapes=True), expected) == []
    assert [n.name for n in g.as_graph_def().node] == [n.name for n in expected.node]
