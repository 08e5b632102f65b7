"""Global front-end state restored around every test: eager mode, default graph, eager scopes, seeds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from modtensor.framework import graph as graph_lib
from modtensor.runtime import context as runtime_context

from .fake_device import fake_device  # noqa: F401 - a fixture for the tests here


@pytest.fixture(autouse=True)
def restore_front_end_state() -> Iterator[None]:
    """Each test starts eager, outside any graph and scope, and leaves the process that way."""
    runtime_context.enable_eager_execution()
    runtime_context.set_eager_device_scope(None)
    runtime_context.set_eager_name_scope("")
    yield
    runtime_context.enable_eager_execution()
    runtime_context.set_eager_device_scope(None)
    runtime_context.set_eager_name_scope("")
    runtime_context.set_global_seed(None)
    del graph_lib._default_graph_stack()[:]
    graph_lib.reset_default_graph()
