"""import_graph_def of nodes that call a library function directly (``op`` = the function's name), as TF's
``function.Defun`` graphs do: the signature is the OpDef, and Session runs them (the function inliner expands them).
Golden graph and value: tools/make_golden_direct_call.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format

import modtensor.ops  # noqa: F401  (registers the standard ops)
from modtensor.compat import v1
from modtensor.framework import dtypes
from modtensor.framework.graph import Graph
from modtensor.framework.protos import graph_pb2

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "direct_call"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text())


def _graph_def() -> graph_pb2.GraphDef:
    return text_format.Parse((GOLDEN / "graph.pbtxt").read_text(), graph_pb2.GraphDef())


def _function_name(graph_def: graph_pb2.GraphDef) -> str:
    return graph_def.library.function[0].signature.name


@pytest.mark.parametrize("prefix", ["", "imported"])
def test_session_runs_an_imported_direct_call_graph_like_tensorflow(prefix: str) -> None:
    g = Graph()
    with g.as_default():
        v1.import_graph_def(_graph_def(), name=prefix)
    scope = f"{prefix}/" if prefix else ""
    feed = {f"{scope}{k}": np.asarray(v, np.float32) for k, v in EXPECTED["feed"].items()}
    with v1.Session(graph=g) as sess:
        value = sess.run(scope + EXPECTED["fetch"], feed_dict=feed)
    np.testing.assert_allclose(value, EXPECTED["value"], rtol=1e-6)


def test_call_nodes_take_their_outputs_from_the_signature_and_export_unchanged() -> None:
    graph_def = _graph_def()
    name = _function_name(graph_def)
    g = Graph()
    with g.as_default():
        v1.import_graph_def(graph_def, name="")
    call = g.get_operation_by_name("second")
    assert call.type == name
    assert [t.dtype for t in call.outputs] == [dtypes.float32, dtypes.float32]
    assert [t.name for t in call.inputs] == ["first:0", "first:1"]
    exported = {n.name: n for n in g.as_graph_def().node}
    assert exported["first"].op == name and list(exported["second"].input) == ["first", "first:1"]
    assert [f.signature.name for f in g.as_graph_def().library.function] == [name]


def test_a_call_that_does_not_match_the_signature_is_rejected() -> None:
    graph_def = _graph_def()
    node = next(n for n in graph_def.node if n.name == "first")
    del node.input[1:]
    g = Graph()
    with g.as_default(), pytest.raises(ValueError) as info:
        v1.import_graph_def(graph_def, name="")
    name = _function_name(graph_def)
    assert str(info.value) == (  # TF 2.21's text
        "NodeDef expected inputs 'float, float' do not match 1 inputs specified; "
        f"Op<name={name}; signature=x:float, y:float -> add:float, sub:float>; NodeDef: {{{{node first}}}}"
    )
    assert g.get_operations() == []  # the failed import left the graph as it was


def test_a_call_of_a_function_already_in_the_graph_imports_without_a_library() -> None:
    graph_def = _graph_def()
    g = Graph()
    with g.as_default():
        v1.import_graph_def(graph_def, name="one")
        del graph_def.library.function[:]
        v1.import_graph_def(graph_def, name="two")
    feed = {"two/x:0": np.asarray(EXPECTED["feed"]["x:0"], np.float32)}
    with v1.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run("two/out:0", feed_dict=feed), EXPECTED["value"], rtol=1e-6)
