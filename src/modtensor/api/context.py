"""Execution mode of the front end: eager by default, graph building inside ``Graph.as_default()``."""

from __future__ import annotations

from modtensor.framework import graph as graph_lib
from modtensor.runtime import context as runtime_context

__all__ = ["executing_eagerly"]


def executing_eagerly() -> bool:
    """True when ops run immediately: eager is enabled and no graph is being built on this thread."""
    return runtime_context.eager_enabled() and not graph_lib._default_graph_stack()
