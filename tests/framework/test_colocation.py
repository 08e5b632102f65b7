"""Graph.colocate_with / tf.compat.v1.colocate_with: the ``_class`` groups and devices TF gives (golden GraphDef from
tools/make_golden_colocation.py), the error and eager forms, and that the placer puts colocated nodes together."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format

import modtensor.ops  # noqa: F401  (registers the standard ops)
from modtensor.compat import v1
from modtensor.framework import dtypes, graph_io, tensor_proto
from modtensor.framework.graph import Graph
from modtensor.framework.op_def_library import apply_op_outputs as apply_op
from modtensor.framework.protos import graph_pb2
from modtensor.runtime import device_factory
from modtensor.runtime.placer import place

TESTS = Path(__file__).resolve().parent.parent
GOLDEN = TESTS / "golden" / "construction" / "colocation.pbtxt"
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


def _load_fake_device():
    """tests/runtime/fake_device.py (a second device type, TESTDEV), loaded by path: tests/ is not a package."""
    if "runtime.fake_device" in sys.modules:
        return sys.modules["runtime.fake_device"]
    spec = importlib.util.spec_from_file_location("_colocation_fake_device", TESTS / "runtime" / "fake_device.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


fake_device = _load_fake_device()
testdev = fake_device.testdev  # the TESTDEV fixture, used by name


def _const(value: float, name: str):
    return apply_op("Const", value=tensor_proto.make_tensor_proto(np.float32(value)), dtype=dtypes.float32, name=name)


def test_colocate_with_builds_tensorflows_graph_def() -> None:
    """The program of tools/make_golden_colocation.py, built the same way."""
    g = Graph()
    with g.as_default():
        with g.device(CPU0):
            a = _const(1.0, "a")
        b = _const(2.0, "b")
        with v1.colocate_with(a):
            c = apply_op("AddV2", x=a, y=b, name="c")
            with v1.colocate_with(b):
                apply_op("AddV2", x=c, y=b, name="d")
            with v1.colocate_with(b, ignore_existing=True):
                apply_op("AddV2", x=c, y=b, name="e")
        with g.device("/device:CPU:0"):
            with g.colocate_with(b):
                apply_op("Identity", input=b, name="f")
            apply_op("Identity", input=b, name="g")
        with g.colocate_with(c.op):
            h = apply_op("Identity", input=c, name="h")
    expected = text_format.Parse(GOLDEN.read_text(), graph_pb2.GraphDef())
    assert graph_io.graph_def_diff(g.as_graph_def(), expected, compare_versions=False) == []
    assert h.op.colocation_groups() == [b"loc:@a"]
    assert g.get_operation_by_name("d").colocation_groups() == [b"loc:@a", b"loc:@b"]


def test_reset_without_ignore_existing_is_an_error_and_none_clears() -> None:
    g = Graph()
    with g.as_default():
        a = _const(1.0, "a")
        with pytest.raises(ValueError, match="ignore_existing is not True"), g.colocate_with(None):
            pass
        with g.colocate_with(a):
            with g.colocate_with(None, ignore_existing=True):
                free = apply_op("Identity", input=a, name="free")
            bound = apply_op("Identity", input=a, name="bound")
    assert "_class" not in free.op.node_def.attr
    assert list(bound.op.node_def.attr["_class"].list.s) == [b"loc:@a"]


def test_colocate_with_rejects_non_graph_values() -> None:
    g = Graph()
    with g.as_default(), pytest.raises(TypeError, match="colocate_with expects"), g.colocate_with(3.0):
        pass


def test_eager_colocate_with_uses_the_tensors_device() -> None:
    x = modtensor.constant([1.0, 2.0])
    with v1.colocate_with(x):
        y = modtensor.identity(x)
    assert y.device == x.device


def test_placer_puts_a_colocated_node_on_its_targets_device(testdev) -> None:
    """``w`` is pinned to TESTDEV:1; ``r`` (colocated with it, no device of its own) must follow it there."""
    g = Graph()
    with g.as_default():
        x = apply_op("Placeholder", dtype=dtypes.float32, shape=[2], name="x")
        w = _const(1.0, "w")
        with g.colocate_with(w):
            r = apply_op("Identity", input=w, name="r")
        apply_op("AddV2", x=x, y=r, name="a")
    graph_def = g.as_graph_def()
    graph_def.node[1].device = "/device:TESTDEV:1"  # pin only the target, after colocation was recorded
    placed = {n.name: n.device for n in place(graph_def, device_factory.device_set()).graph_def.node}
    assert placed["r"] == placed["w"] == "/job:localhost/replica:0/task:0/device:TESTDEV:1"
    assert placed["a"] == "/job:localhost/replica:0/task:0/device:TESTDEV:0"
