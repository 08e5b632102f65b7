"""Golden TensorFlow-exported models: parse, import, static shapes and round trip.

The fixtures under ``examples/models`` were written by TensorFlow itself
(``tools/make_golden_models.py`` and ``tools/make_golden_rnn_models.py``, see
``tests/golden/README.md``): frozen inference GraphDefs in binary and text form (the five starter
models and Keras LSTM/GRU models with their loops lowered or functional), TF's static shape and
dtype for every node output, and the manifest. TensorFlow is not imported here; these tests hold modtensor to what
TensorFlow recorded: a GraphDef TF exports parses, imports into a ``Graph`` with TF's
static shapes, and survives ``as_graph_def()`` and re-import with no semantic change.
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from google.protobuf import text_format

from modtensor.framework import errors
from modtensor.framework.protos import attr_value_pb2, graph_pb2, node_def_pb2, types_pb2

GOLDEN = Path(__file__).resolve().parents[1] / "examples" / "models"
MANIFEST = json.loads((GOLDEN / "manifest.json").read_text())
MODELS = sorted(MANIFEST["models"])
# The five models of issue 2 that cover the starter op set; the rest (Keras RNNs, issue 10) use more ops.
STARTER_MODELS = ("mlp", "small_cnn", "mobilenet_block", "transformer_encoder", "scopes_and_control")
# Issue 2, "Starter op set".
_STARTER_OPS_TEXT = """
Const Placeholder PlaceholderWithDefault Identity IdentityN NoOp StopGradient AddV2 Add Sub Mul RealDiv Div
FloorDiv FloorMod Maximum Minimum Neg Abs Square Sqrt Rsqrt Exp Log Tanh Sigmoid Erf Erfc Pow SquaredDifference
Less LessEqual Greater GreaterEqual Equal NotEqual LogicalAnd LogicalOr LogicalNot Select SelectV2 Cast MatMul
BatchMatMulV2 BiasAdd Relu Relu6 Elu Softmax LogSoftmax Conv2D DepthwiseConv2dNative MaxPool AvgPool Sum Mean
Max Min Prod All Any ArgMax ArgMin Reshape Transpose ConcatV2 Pack Unpack Squeeze ExpandDims Shape Size Rank
Fill ZerosLike OnesLike Range Tile Pad Slice StridedSlice GatherV2 OneHot RandomStandardNormal RandomUniform
"""
STARTER_OPS = frozenset(_STARTER_OPS_TEXT.split())


# --------------------------------------------------------------------------- helpers


@functools.cache
def _mt() -> SimpleNamespace:
    """The graph layer, imported on first use so the fixture-only tests run without it."""
    importlib.import_module("modtensor.ops")  # registers the standard ops
    from modtensor.framework import graph, graph_io, importer, op_registry, tensor_proto

    return SimpleNamespace(
        graph=graph, graph_io=graph_io, importer=importer, op_registry=op_registry, tensor_proto=tensor_proto
    )


def _golden_graph_def(name: str) -> graph_pb2.GraphDef:
    return graph_pb2.GraphDef.FromString((GOLDEN / f"{name}.pb").read_bytes())


def _import(graph_def: graph_pb2.GraphDef, **kwargs):
    """Import into a fresh modtensor Graph, as TF users do: ``with g.as_default(): import_graph_def(...)``."""
    mt = _mt()
    g = mt.graph.Graph()
    with g.as_default():
        returned = mt.importer.import_graph_def(graph_def, **kwargs)
    return g, returned


@functools.cache
def _imported(name: str):
    graph, _ = _import(_golden_graph_def(name), name="")
    return graph


def _static(tensor) -> dict:
    """A tensor's static shape and dtype in the form of ``NAME.shapes.json``."""
    shape = tensor.shape
    return {"shape": None if shape.rank is None else list(shape.as_list()), "dtype": tensor.dtype.name}


def _shape_mismatches(graph, expected: dict[str, dict]) -> list[str]:
    got = {}
    for op in graph.get_operations():
        for i, out in enumerate(op.outputs):
            got[f"{op.name}:{i}"] = _static(out)
    problems = [
        f"{key}: TF {expected[key]}, modtensor {got.get(key)}" for key in expected if got.get(key) != expected[key]
    ]
    problems += [f"{key}: not in TF's graph, modtensor {got[key]}" for key in got.keys() - expected.keys()]
    return sorted(problems)


def _split_inputs(node: node_def_pb2.NodeDef) -> tuple[list[str], set[str]]:
    """Data inputs in order (``x:0`` written as ``x``, the same tensor) and the set of control inputs."""
    data = [i[:-2] if i.endswith(":0") else i for i in node.input if not i.startswith("^")]
    control = {i for i in node.input if i.startswith("^")}
    return data, control


def _attr_equal(a: attr_value_pb2.AttrValue, b: attr_value_pb2.AttrValue) -> bool:
    """AttrValues equal in meaning: tensors by dtype, shape and bytes of the values, not by encoding."""
    if a.WhichOneof("value") == "tensor" and b.WhichOneof("value") == "tensor":
        make_ndarray = _mt().tensor_proto.make_ndarray
        x, y = make_ndarray(a.tensor), make_ndarray(b.tensor)
        return a.tensor.dtype == b.tensor.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
    return a == b


def _attr_default(op_type: str, attr: str) -> attr_value_pb2.AttrValue | None:
    registration = _mt().op_registry.global_registry().lookup(op_type)
    if registration is None:
        return None
    for attr_def in registration.op_def.attr:
        if attr_def.name == attr and attr_def.HasField("default_value"):
            return attr_def.default_value
    return None


def _node_differences(want: node_def_pb2.NodeDef, got: node_def_pb2.NodeDef) -> list[str]:
    """How ``got`` differs in meaning from ``want`` (an attr left out only if it holds the OpDef default)."""
    where = f"node {want.name!r}"
    diffs = []
    if want.op != got.op:
        diffs.append(f"{where}: op {want.op!r} became {got.op!r}")
    if _split_inputs(want) != _split_inputs(got):
        diffs.append(f"{where}: inputs {list(want.input)} became {list(got.input)}")
    if want.device != got.device:
        diffs.append(f"{where}: device {want.device!r} became {got.device!r}")
    for key in sorted(set(want.attr) | set(got.attr)):
        if key in want.attr and key in got.attr:
            if not _attr_equal(want.attr[key], got.attr[key]):
                diffs.append(f"{where}: attr {key!r} {want.attr[key]} became {got.attr[key]}".replace("\n", " "))
            continue
        present = want.attr[key] if key in want.attr else got.attr[key]
        default = _attr_default(want.op, key)
        if default is None or not _attr_equal(present, default):
            side = "dropped" if key in want.attr else "added"
            diffs.append(f"{where}: attr {key!r} {side} ({present})".replace("\n", " "))
    return diffs


def _graph_def_differences(want: graph_pb2.GraphDef, got: graph_pb2.GraphDef) -> list[str]:
    """Semantic differences between two GraphDefs; node order must match, as in TF's own round trip."""
    want_names, got_names = [n.name for n in want.node], [n.name for n in got.node]
    if want_names != got_names:
        missing, extra = set(want_names) - set(got_names), set(got_names) - set(want_names)
        if missing or extra:
            return [f"nodes missing: {sorted(missing)}, nodes added: {sorted(extra)}"]
        first = next(i for i, (a, b) in enumerate(zip(want_names, got_names, strict=True)) if a != b)
        return [f"node order differs from position {first}: {want_names[first]!r} vs {got_names[first]!r}"]
    diffs = []
    for a, b in zip(want.node, got.node, strict=True):
        diffs += _node_differences(a, b)
    if len(want.library.function) != len(got.library.function):
        diffs.append("function library changed")
    return diffs


def _fmt(problems: list[str], limit: int = 25) -> str:
    more = f"\n... and {len(problems) - limit} more" if len(problems) > limit else ""
    return "\n".join(problems[:limit]) + more


# --------------------------------------------------------------------------- fixtures only


def test_manifest_lists_five_models_covering_the_starter_op_set():
    assert set(STARTER_MODELS) <= set(MODELS)
    used = set().union(*(set(MANIFEST["models"][m]["op_types"]) for m in STARTER_MODELS))
    assert used <= STARTER_OPS, f"ops outside the starter set: {sorted(used - STARTER_OPS)}"
    assert used == STARTER_OPS, f"starter ops no golden model uses: {sorted(STARTER_OPS - used)}"


@pytest.mark.parametrize("name", MODELS)
def test_fixture_files_are_present_small_and_consistent(name):
    info = MANIFEST["models"][name]
    for fname in info["files"]:
        assert (GOLDEN / fname).is_file(), f"missing fixture {fname}; regenerate with tools/make_golden_models.py"
    assert (GOLDEN / f"{name}.pb").stat().st_size < 300_000
    graph_def = _golden_graph_def(name)
    assert sorted({n.op for n in graph_def.node}) == info["op_types"]
    # The fed placeholders; a lowered loop also keeps unread ``unused_control_flow_input_N`` placeholders.
    read = {i.split(":")[0].lstrip("^") for n in graph_def.node for i in n.input}
    placeholders = {n.name for n in graph_def.node if n.op == "Placeholder" and n.name in read}
    assert {i["name"].split(":")[0] for i in info["inputs"]} == placeholders
    for i in info["inputs"]:  # inputs are fed with any batch size
        assert i["shape"][0] is None, f"{name} input {i['name']} must have batch dimension None"
    arrays = np.load(GOLDEN / f"{name}.io.npz")
    for batch in info["batches"]:
        for t in info["inputs"]:
            assert arrays[f"b{batch}/in/{t['name']}"].shape[0] == batch
            assert arrays[f"b{batch}/in/{t['name']}"].dtype == np.dtype(t["dtype"])
        for t in info["outputs"]:
            assert arrays[f"b{batch}/out/{t['name']}"].dtype == np.dtype(t["dtype"])


@pytest.mark.parametrize("name", MODELS)
def test_binary_and_text_fixtures_parse_to_the_same_graph_def(name):
    binary = _golden_graph_def(name)
    text = text_format.Parse((GOLDEN / f"{name}.pbtxt").read_text(), graph_pb2.GraphDef())
    assert binary == text
    assert binary.versions.producer > 0


# --------------------------------------------------------------------------- graph layer


@pytest.mark.parametrize("name", MODELS)
def test_graph_io_reads_pb_and_pbtxt_to_equal_messages(name):
    read_graph_def = _mt().graph_io.read_graph_def
    from_pb = read_graph_def(GOLDEN / f"{name}.pb")
    from_pbtxt = read_graph_def(str(GOLDEN / f"{name}.pbtxt"))
    assert from_pb == from_pbtxt == _golden_graph_def(name)


@pytest.mark.parametrize("name", MODELS)
def test_import_gives_tensorflows_static_shapes_and_dtypes(name):
    graph = _imported(name)
    graph_def = _golden_graph_def(name)
    assert [op.name for op in graph.get_operations()] == [n.name for n in graph_def.node]
    for node in graph_def.node:
        assert graph.get_operation_by_name(node.name).type == node.op
    expected = json.loads((GOLDEN / f"{name}.shapes.json").read_text())
    problems = _shape_mismatches(graph, expected)
    assert not problems, f"{name}: static shapes differ from TensorFlow's:\n{_fmt(problems)}"


def _fed_placeholders(fed: dict) -> graph_pb2.GraphDef:
    """A GraphDef of fully defined placeholders named ``fed/<input>`` (what the generator fed TF)."""
    inputs = {t["name"]: t for t in MANIFEST["models"][fed["name"]]["inputs"]}
    graph_def = graph_pb2.GraphDef()
    for tname, dims in fed["input_map"].items():
        node = graph_def.node.add(name=fed["placeholder_prefix"] + tname.split(":")[0], op="Placeholder")
        node.attr["dtype"].type = types_pb2.DataType.Value("DT_" + _TYPE_ENUM[inputs[tname]["dtype"]])
        for d in dims:
            node.attr["shape"].shape.dim.add(size=d)
    return graph_def


_TYPE_ENUM = {"float32": "FLOAT", "int32": "INT32", "int64": "INT64", "bool": "BOOL"}


@pytest.mark.parametrize("name", MODELS)
def test_import_with_input_map_refines_shapes_as_tensorflow_does(name):
    fed = json.loads((GOLDEN / f"{name}.fed_shapes.json").read_text()) | {"name": name}
    mt = _mt()
    g = mt.graph.Graph()
    with g.as_default():
        mt.importer.import_graph_def(_fed_placeholders(fed), name="")
        input_map = {t: g.get_tensor_by_name(fed["placeholder_prefix"] + t) for t in fed["input_map"]}
        outputs = [t["name"] for t in MANIFEST["models"][name]["outputs"]]
        returned = mt.importer.import_graph_def(
            _golden_graph_def(name), input_map=input_map, return_elements=outputs, name=fed["import_name"]
        )
    assert [t.name for t in returned] == [f"{fed['import_name']}/{t}" for t in outputs]
    problems = _shape_mismatches(g, fed["shapes"])
    assert not problems, f"{name} with input_map: static shapes differ from TensorFlow's:\n{_fmt(problems)}"


@pytest.mark.parametrize("name", MODELS)
def test_round_trip_through_as_graph_def_changes_nothing(name, tmp_path):
    golden = _golden_graph_def(name)
    exported = _imported(name).as_graph_def()
    problems = _graph_def_differences(golden, exported)
    assert not problems, f"{name}: as_graph_def() after import differs from TF's GraphDef:\n{_fmt(problems)}"

    # The exported GraphDef is a fixed point: importing it again and exporting gives the same graph,
    # with TF's static shapes.
    again_graph, _ = _import(exported, name="")
    again = again_graph.as_graph_def()
    assert not _graph_def_differences(exported, again)
    expected = json.loads((GOLDEN / f"{name}.shapes.json").read_text())
    assert not _shape_mismatches(again_graph, expected)

    # Re-serialized, in both file formats, it parses back to an equal message.
    assert graph_pb2.GraphDef.FromString(exported.SerializeToString()) == exported
    io = _mt().graph_io
    for fname in (f"{name}.pb", f"{name}.pbtxt"):
        io.write_graph_def(exported, tmp_path / fname)
        assert io.read_graph_def(tmp_path / fname) == exported, f"{fname} written by modtensor reads back different"
    text = text_format.Parse((tmp_path / f"{name}.pbtxt").read_text(), graph_pb2.GraphDef())
    assert text == exported


def test_round_trip_keeps_scopes_control_inputs_devices_and_internal_attrs():
    exported = {n.name: n for n in _imported("scopes_and_control").as_graph_def().node}
    # Re-entered "scope/", the uniquified "scope/inner_1" and the fresh "scope_1".
    assert {"scope/after_barrier", "scope/inner_1/ids_float", "scope_1/concat"} <= exported.keys()
    assert list(exported["scope/after_barrier"].input) == ["scope/inner/scaled", "^scope/inner/barrier"]
    assert list(exported["scope/inner/barrier"].input) == ["^scope/inner/scaled"]
    assert exported["scope_1/gather"].device == "/device:CPU:0"
    assert exported["scope/table/read"].attr["_class"].list.s == [b"loc:@scope/table"]
    assert exported["scope/inner/barrier"].attr["_has_manual_control_dependencies"].b is True
    graph = _imported("scopes_and_control")
    barrier = graph.get_operation_by_name("scope/inner/barrier")
    assert [op.name for op in graph.get_operation_by_name("scope/after_barrier").control_inputs] == [barrier.name]
    assert graph.get_operation_by_name("scope_1/gather").device == "/device:CPU:0"


def test_import_under_a_name_prefixes_nodes_inputs_and_colocation():
    graph, returned = _import(_golden_graph_def("mlp"), name="net", return_elements=["probs:0", "dense/MatMul"])
    probs, matmul = returned
    assert probs.name == "net/probs:0" and matmul.name == "net/dense/MatMul"
    nodes = {n.name: n for n in graph.as_graph_def().node}
    assert list(nodes["net/dense/MatMul"].input) == ["net/x", "net/dense/kernel/read"]
    assert nodes["net/dense/kernel/read"].attr["_class"].list.s == [b"loc:@net/dense/kernel"]


def test_unknown_op_fails_naming_the_op_and_the_node():
    graph_def = _golden_graph_def("mlp")
    bad = next(n for n in graph_def.node if n.name == "probs")
    bad.op = "MyCustomSoftmax"
    with pytest.raises(errors.NotFoundError) as info:
        _import(graph_def, name="")
    message = str(info.value)
    assert "MyCustomSoftmax" in message, message
    assert "probs" in message, message


def test_import_is_atomic_when_a_node_fails():
    """A failed import leaves the target graph as it was (TF imports all or nothing)."""
    graph_def = copy.deepcopy(_golden_graph_def("small_cnn"))
    next(n for n in graph_def.node if n.name == "probs").op = "NotAnOp"
    mt = _mt()
    g = mt.graph.Graph()
    with g.as_default():
        mt.importer.import_graph_def(_golden_graph_def("mlp"), name="first")
        before = [op.name for op in g.get_operations()]
        with pytest.raises(errors.NotFoundError):
            mt.importer.import_graph_def(graph_def, name="second")
    assert [op.name for op in g.get_operations()] == before


def test_shape_error_during_import_is_tensorflows_value_error_and_leaves_graph_empty():
    graph_def = _golden_graph_def("mlp")
    matmul = next(n for n in graph_def.node if n.name == "dense_1/MatMul")
    matmul.input[1] = "dense/kernel/read"  # a [20, 32] kernel where [32, 16] belongs
    mt = _mt()
    g = mt.graph.Graph()
    with g.as_default(), pytest.raises(ValueError) as info:
        mt.importer.import_graph_def(graph_def, name="")
    assert str(info.value) == (
        "Dimensions must be equal, but are 32 and 20 for '{{node dense_1/MatMul}} = MatMul[T=DT_FLOAT, "
        "grad_a=false, grad_b=false, transpose_a=false, transpose_b=false](dense/Relu, dense/kernel/read)' "
        "with input shapes: [?,32], [20,32]."
    )
    assert g.get_operations() == []
