"""Session: TF v1 semantics of run() (fetch structures, feeds, conversions), TF 2.21's error texts, compile
caching, RunOptions/RunMetadata, ConfigProto, lifetime, and the golden TensorFlow-exported models.

The error texts below were recorded from TensorFlow 2.21's ``tf.compat.v1.Session`` on the same graph
(x: float32 [None, 3] placeholder, i: int32 scalar placeholder, y = x + 1, z = reduce_sum(y), op = NoOp).
"""

from __future__ import annotations

import collections
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from modtensor.framework import errors, importer, op_def_library
from modtensor.framework.graph import Graph, get_default_graph
from modtensor.framework.graph_io import read_graph_def
from modtensor.framework.protos import config_pb2
from modtensor.runtime import session as session_lib
from modtensor.runtime.session import Session, get_default_session

from . import fake_device

testdev = fake_device.testdev  # the TESTDEV fixture, used by name

MODELS = Path(__file__).resolve().parents[2] / "examples" / "models"
MANIFEST = json.loads((MODELS / "manifest.json").read_text())["models"]
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


def apply(op_type: str, name: str | None = None, **kwargs):
    return op_def_library.apply_op_outputs(op_type, name=name, **kwargs)


@pytest.fixture
def g():
    """TF's recorded test graph."""
    graph = Graph()
    with graph.as_default():
        graph.x = apply("Placeholder", "x", dtype="float32", shape=[None, 3])
        graph.i = apply("Placeholder", "i", dtype="int32", shape=[])
        graph.y = apply("AddV2", "y", x=graph.x, y=op_def_library.constant(1.0, name="one"))
        graph.z = apply("Sum", "z", input=graph.y, reduction_indices=op_def_library.constant([0, 1], name="axes"))
        graph.op = op_def_library.apply_op("NoOp", name="op")
    return graph


ONES = np.ones((1, 3), np.float32)


# --------------------------------------------------------------------------- fetch structures and feeds


def test_fetch_structures_follow_tensorflow(g) -> None:
    sess = Session(graph=g)
    nested = sess.run({"a": [g.y, (g.z, g.op)], "b": "z:0"}, {g.x: ONES})
    assert set(nested) == {"a", "b"}
    np.testing.assert_array_equal(nested["a"][0], [[2, 2, 2]])
    assert isinstance(nested["a"][1], tuple) and nested["a"][1][1] is None
    assert nested["a"][1][0] == nested["b"] == 6.0 and isinstance(nested["b"], np.float32)  # 0-d: numpy scalar
    pair = collections.namedtuple("pair", "a b")
    got = sess.run(pair(g.y, g.z), {"x:0": ONES})
    assert type(got) is pair and got.b == 6.0
    defaults = sess.run(collections.defaultdict(list, {"z": g.z}), {g.x: ONES})
    assert isinstance(defaults, collections.defaultdict) and defaults["missing"] == []
    assert sess.run(g.op) is None and sess.run("op") is None
    assert sess.run([]) == []
    assert sess.run([g.y, g.y], {g.x: ONES})[1].shape == (1, 3)


def test_repeated_flat_fetches_are_parsed_once_and_stay_correct(g) -> None:
    sess = Session(graph=g)
    fetches = ["z:0", g.y, g.op]
    first = sess.run(fetches, {g.x: ONES})
    structure = sess._fetch_structure(fetches)
    assert sess._fetch_structure(list(fetches)) is structure  # the same flat list: parsed once
    again = sess.run(fetches, {g.x: 2 * ONES})
    assert first[0] == 6.0 and again[0] == 9.0 and again[2] is None
    as_tuple = sess.run(tuple(fetches), {g.x: ONES})  # a tuple is its own entry: the result is a tuple
    assert isinstance(as_tuple, tuple) and as_tuple[0] == 6.0
    other = Graph()  # a same-named tensor of another graph is still refused
    with other.as_default():
        foreign = apply("Placeholder", "y", dtype="float32", shape=[None, 3])
    with pytest.raises(ValueError, match="cannot be interpreted as a Tensor"):
        sess.run([foreign], {g.x: ONES})
    with g.as_default():  # the graph grows: new names resolve
        w = apply("Mul", "w", x=g.y, y=op_def_library.constant(2.0, name="two"))
    np.testing.assert_array_equal(sess.run(["w:0"], {g.x: ONES})[0], [[4, 4, 4]])
    assert sess.run(["w:0", w], {g.x: ONES})[1].shape == (1, 3)


def test_feed_values_are_converted_to_the_tensors_dtype(g) -> None:
    sess = Session(graph=g)
    np.testing.assert_array_equal(sess.run(g.y, {g.x: [[1, 2, 3]]}), [[2, 3, 4]])
    np.testing.assert_array_equal(sess.run(g.y, {g.x: np.ones((1, 3), np.float64)}), [[2, 2, 2]])
    fed = sess.run(g.i, {g.i: 1.5})  # TF: array(1, dtype=int32), the converted feed itself
    assert fed.dtype == np.int32 and fed == 1 and isinstance(fed, np.ndarray)
    assert sess.run(g.z, {g.y: np.ones((2, 3))}) == 6.0  # feeding a non-placeholder tensor


@pytest.mark.parametrize(
    ("fetch", "feed", "error", "message"),
    [
        (
            "y",
            {"x": ONES[:, :2]},
            ValueError,
            "Cannot feed value of shape (1, 2) for Tensor x:0, which has shape (None, 3)",
        ),
        (
            "y",
            {"i": [1, 2], "x": ONES},
            ValueError,
            "Cannot feed value of shape (2,) for Tensor i:0, which has shape ()",
        ),
        (
            "i",
            {"i": 2**40},
            TypeError,
            "Type of feed value 1099511627776 with type <class 'int'> is not compatible with Tensor type "
            "<class 'numpy.int32'>. Try explicitly setting the type of the feed tensor to a larger type (e.g. int64).",
        ),
        (
            "nope:0",
            {},
            ValueError,
            "Argument `fetch` = nope:0 cannot be interpreted as a Tensor. (\"The name 'nope:0' refers to a Tensor "
            "which does not exist. The operation, 'nope', does not exist in the graph.\")",
        ),
        (
            "nope",
            {},
            ValueError,
            "Argument `fetch` = nope cannot be interpreted as a Tensor. "
            "(\"The name 'nope' refers to an Operation not in the graph.\")",
        ),
        (None, {}, TypeError, 'Argument `fetch` = None has invalid type "NoneType". Cannot be None'),
        (
            3,
            {},
            TypeError,
            'Argument `fetch` = 3 has invalid type "int" must be a string or Tensor. '
            "(Can not convert a int into a Tensor or Operation.)",
        ),
        (
            "y",
            {"x-by-op-name": ONES},
            TypeError,
            "Cannot interpret feed_dict key as Tensor: The name 'x' refers to an Operation, not a Tensor. Tensor "
            'names must be of the form "<op_name>:<output_index>".',
        ),
        (
            "y",
            {"q:0": ONES},
            TypeError,
            "Cannot interpret feed_dict key as Tensor: The name 'q:0' refers to a Tensor which does not exist. "
            "The operation, 'q', does not exist in the graph.",
        ),
        (
            "y",
            {"x:1": ONES},
            TypeError,
            "Cannot interpret feed_dict key as Tensor: The name 'x:1' refers to a Tensor which does not exist. "
            "The operation, 'x', exists but only has 1 outputs.",
        ),
    ],
)
def test_errors_are_tensorflows(g, fetch, feed, error, message) -> None:
    names = {"y": g.y, "i": g.i}
    keys = {"x": g.x, "i": g.i, "x-by-op-name": "x"}
    feed_dict = {keys.get(k, k): v for k, v in feed.items()}
    with pytest.raises(error) as info:
        Session(graph=g).run(names.get(fetch, fetch), feed_dict)
    assert str(info.value) == message


def test_missing_feed_is_tensorflows_invalid_argument(g) -> None:
    with pytest.raises(errors.InvalidArgumentError) as info:
        Session(graph=g).run(g.y)
    assert str(info.value).startswith(
        "You must feed a value for placeholder tensor 'x' with dtype float and shape [?,3]\n\t [[{{node x}}]]"
    )


def test_fetch_from_another_graph_and_tensor_feed_values_are_rejected(g) -> None:
    other = Graph()
    with other.as_default():
        w = op_def_library.constant(1.0, name="w")
    with pytest.raises(ValueError) as info:
        Session(graph=g).run(w)
    assert str(info.value) == (
        'Argument `fetch` = Tensor("w:0", shape=(), dtype=float32) cannot be interpreted as a Tensor. '
        '(Tensor Tensor("w:0", shape=(), dtype=float32) is not an element of this graph.)'
    )
    with pytest.raises(TypeError) as info:
        Session(graph=g).run(g.y, {g.x: w})
    assert str(info.value) == (
        "The value of a feed cannot be a tf.Tensor object. Acceptable feed values include Python scalars, strings, "
        'lists, numpy ndarrays, or TensorHandles. For reference, the tensor object was Tensor("w:0", shape=(), '
        'dtype=float32) which was passed to the argument `feed_dict` with key Tensor("x:0", shape=(None, 3), '
        "dtype=float32)."
    )


# --------------------------------------------------------------------------- compiling, options, lifetime


def test_signatures_compile_once_and_again_when_the_graph_grows(g, monkeypatch) -> None:
    compiled = []
    original = session_lib.compile_graph
    monkeypatch.setattr(session_lib, "compile_graph", lambda *a, **k: compiled.append(a[1:4]) or original(*a, **k))
    sess = Session(graph=g)
    for _ in range(3):
        sess.run(g.z, {g.x: ONES})
    assert compiled == [(("x:0",), ("z:0",), ())]
    sess.run([g.y, g.op], {g.x: ONES})
    assert len(compiled) == 2 and compiled[1] == (("x:0",), ("y:0",), ("op",))
    with g.as_default():
        doubled = apply("Mul", "doubled", x=g.y, y=op_def_library.constant(2.0, name="two"))
    np.testing.assert_array_equal(sess.run(doubled, {g.x: ONES}), [[4, 4, 4]])
    sess.run(g.z, {g.x: ONES})
    assert len(compiled) == 4  # the graph grew: signatures compile again


def test_random_ops_continue_their_stream_across_signatures() -> None:
    graph = Graph()
    with graph.as_default():
        shape = op_def_library.constant([4], name="shape")
        r = apply("RandomUniform", "r", shape=shape, dtype="float32", seed=3, seed2=4)
        twice = apply("Mul", "twice", x=r, y=op_def_library.constant(2.0, name="two"))
    one = Session(graph=graph)
    first, second = one.run(r), one.run(r)
    other = Session(graph=graph)
    assert np.array_equal(other.run(r), first)
    doubled, again = other.run([twice, r])  # a new signature, the same kernel: the stream goes on
    np.testing.assert_array_equal(again, second)
    np.testing.assert_allclose(doubled, 2 * second)


def test_run_options_fill_partition_graphs_and_step_stats(g) -> None:
    sess = Session(graph=g)
    options = config_pb2.RunOptions(output_partition_graphs=True, trace_level=config_pb2.RunOptions.FULL_TRACE)
    metadata = config_pb2.RunMetadata()
    assert sess.run(g.z, {g.x: ONES}, options=options, run_metadata=metadata) == 6.0
    (partition,) = metadata.partition_graphs
    assert {n.name for n in partition.node} == {"_recv_x_0", "one", "y", "axes", "z", "_send_z_0"}
    assert all(n.device == CPU0 for n in partition.node)
    (dev_stats,) = metadata.step_stats.dev_stats
    assert dev_stats.device == CPU0
    assert {s.node_name for s in dev_stats.node_stats} == {n.name for n in partition.node}
    plain = config_pb2.RunMetadata()
    sess.run(g.z, {g.x: ONES}, run_metadata=plain)
    assert not plain.partition_graphs and not plain.step_stats.dev_stats


def test_config_logs_placement_and_allows_soft_placement(testdev, capsys) -> None:
    graph = Graph()
    with graph.as_default(), graph.device("/device:TESTDEV:0"):
        x = apply("Placeholder", "x", dtype="float32", shape=[2])
        e = apply("Exp", "e", x=x)
    with pytest.raises(errors.InvalidArgumentError, match="Could not satisfy explicit device specification"):
        Session(graph=graph).run(e, {x: [0, 0]})
    config = config_pb2.ConfigProto(allow_soft_placement=True, log_device_placement=True)
    np.testing.assert_array_equal(Session(graph=graph, config=config).run(e, {x: [0, 0]}), [1, 1])
    assert capsys.readouterr().out == f"e: (Exp): {CPU0}\n"


def test_lifetime_defaults_and_devices(g) -> None:
    with Session(graph=g) as sess:
        assert get_default_session() is sess
        assert get_default_graph() is g
        assert sess.graph is g and len(sess.graph_def.node) == len(g.get_operations())
    assert get_default_session() is None
    with pytest.raises(RuntimeError, match="^Attempted to use a closed Session.$"):
        sess.run(g.op)
    other = Session(graph=g)
    with other.as_default():
        assert get_default_session() is other
    assert other.run(g.op) is None  # as_default() does not close
    (cpu,) = other.list_devices()
    assert repr(cpu) == f"_DeviceAttributes({CPU0}, CPU, 268435456, {cpu.incarnation})"
    with pytest.raises(RuntimeError, match="The Session graph is empty"):
        Session(graph=Graph()).run([])
    with pytest.raises(TypeError, match="config must be a tf.ConfigProto"):
        Session(graph=g, config="nope")
    with pytest.raises(errors.UnimplementedError):
        Session("grpc://localhost:2222", graph=g)
    with g.as_default():
        assert Session().graph is g


# --------------------------------------------------------------------------- golden models


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_golden_models_match_tensorflow(name: str) -> None:
    info = MANIFEST[name]
    graph = Graph()
    with graph.as_default():
        importer.import_graph_def(read_graph_def(MODELS / f"{name}.pb"), name="")
    arrays = np.load(MODELS / f"{name}.io.npz")
    inputs = [t["name"] for t in info["inputs"]]
    outputs = [t["name"] for t in info["outputs"]]
    with Session(graph=graph) as sess:
        for batch in info["batches"]:
            got = sess.run(outputs, {t: arrays[f"b{batch}/in/{t}"] for t in inputs})
            for tensor, value in zip(outputs, got, strict=True):
                want = arrays[f"b{batch}/out/{tensor}"]
                value = np.asarray(value)
                assert value.dtype == want.dtype and value.shape == want.shape, (name, batch, tensor)
                scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
                error = float(np.max(np.abs(value.astype(np.float64) - want))) if want.size else 0.0
                assert error <= 1e-4 * scale, f"{name} b{batch} {tensor}: max abs error {error}"


def test_placement_log_goes_to_stdout_like_tensorflows_printf(g, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    config = config_pb2.ConfigProto(log_device_placement=True)
    Session(graph=g, config=config).run(g.z, {g.x: ONES})
    lines = sys.stdout.getvalue().splitlines()
    assert lines == [f"y: (AddV2): {CPU0}", f"z: (Sum): {CPU0}", f"one: (Const): {CPU0}", f"axes: (Const): {CPU0}"]
