"""Helpers for the grappler tests: build graphs with the op library, run GraphDefs without optimization."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from modtensor.framework import op_def_library
from modtensor.framework.graph import Graph
from modtensor.framework.protos import graph_pb2, rewriter_config_pb2
from modtensor.grappler.config import OptimizerOptions
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import OptimizerContext
from modtensor.runtime import graph_execution

RC = rewriter_config_pb2.RewriterConfig


def op(op_type: str, name: str | None = None, **kwargs: Any) -> Any:
    """Add one op to the default graph; returns its output tensor(s)."""
    return op_def_library.apply_op_outputs(op_type, name=name, **kwargs)


def const(value: Any, name: str, dtype: Any = np.float32) -> Any:
    return op_def_library.constant(np.asarray(value, dtype), name=name)


def placeholder(name: str, shape: Sequence[int | None] | None = None, dtype: str = "float32") -> Any:
    return op("Placeholder", name, dtype=dtype, shape=shape)


def build(fn: Any) -> graph_pb2.GraphDef:
    """The GraphDef of the ops ``fn()`` adds to a fresh graph."""
    graph = Graph()
    with graph.as_default():
        fn()
    return graph.as_graph_def()


def run(graph_def: graph_pb2.GraphDef, fetches: Sequence[str], feeds: Mapping[str, Any] | None = None) -> list[Any]:
    """Run ``graph_def`` as it is (no graph optimizer) and return the fetched values."""
    feeds = dict(feeds or {})
    options = graph_execution.ExecutionOptions(optimize_graph=False)
    compiled = graph_execution.compile_graph(graph_def, list(feeds), fetches, options=options)
    try:
        return compiled.run(list(feeds.values()))
    finally:
        compiled.close()


def context(**options: Any) -> OptimizerContext:
    """A pass context with the runtime's host evaluator."""
    return OptimizerContext(options=OptimizerOptions(**options), host_evaluator=graph_execution.host_evaluator())


def apply_pass(pass_cls: Any, graph_def: graph_pb2.GraphDef, fetches: Sequence[str], **kwargs: Any) -> Any:
    """Run one pass on ``graph_def`` with ``fetches`` (tensor names) kept."""
    item = GrapplerItem(graph_def, fetches=tuple(fetches), **kwargs)
    return pass_cls().optimize(item, context())


def ops(graph_def: graph_pb2.GraphDef) -> dict[str, str]:
    """Node name -> op type."""
    return {n.name: n.op for n in graph_def.node}


def node(graph_def: graph_pb2.GraphDef, name: str) -> Any:
    (found,) = [n for n in graph_def.node if n.name == name]
    return found


def same_numbers(
    before: graph_pb2.GraphDef,
    after: graph_pb2.GraphDef,
    fetches: Sequence[str],
    feeds: Mapping[str, Any] | None = None,
    rtol: float = 1e-6,
) -> None:
    """Both graphs give the same fetched values (within ``rtol``)."""
    want = run(before, fetches, feeds)
    got = run(after, fetches, feeds)
    for w, g, name in zip(want, got, fetches, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape, name
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6, err_msg=name)
