"""Auto mixed precision: allow-listed ops and what follows them run in low precision, casts at the boundaries."""

from __future__ import annotations

import numpy as np
import pytest

from modtensor.framework.protos import types_pb2
from modtensor.grappler import meta_optimizer
from modtensor.grappler.device_traits import register_device_traits, unregister_device_traits
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.passes.auto_mixed_precision import AutoMixedPrecision, AutoMixedPrecisionOneDnnBfloat16

from .support import RC, build, const, context, node, op, placeholder, same_numbers

HALFDEV = "HALFDEV"  # a device type declaring float16; the graphs still run on the CPU kernels
RNG = np.random.default_rng(5)
X = RNG.standard_normal((4, 8)).astype(np.float32)
FEEDS = {"x:0": X}


@pytest.fixture
def half_device():
    register_device_traits(HALFDEV, mixed_precision_dtype="float16")
    yield HALFDEV
    unregister_device_traits(HALFDEV)


def mlp() -> None:
    x = placeholder("x", [4, 8])
    h = op("MatMul", "mm1", a=x, b=const(RNG.standard_normal((8, 6)) * 0.3, "w1"))
    h = op("BiasAdd", "ba1", value=h, bias=const(RNG.standard_normal(6) * 0.1, "b1"))
    h = op("Relu", "relu1", features=h)
    logits = op("MatMul", "mm2", a=h, b=const(RNG.standard_normal((6, 3)) * 0.3, "w2"))
    op("Softmax", "probs", logits=logits)  # deny list: stays float32
    op("Identity", "y", input=op("AddV2", "out", x=logits, y=const(np.ones(3), "one")))


def optimize(graph_def, device_types, cls=AutoMixedPrecision):
    item = GrapplerItem(graph_def, fetches=("probs:0", "y:0"), device_types=device_types)
    return cls().optimize(item, context())


def test_allow_list_and_what_follows_run_in_float16_with_casts_at_the_boundaries(half_device) -> None:
    before = build(mlp)
    after = optimize(before, ("CPU", half_device))
    half = {n.name for n in after.node if "T" in n.attr and n.attr["T"].type == types_pb2.DT_HALF}
    assert half == {"mm1", "ba1", "relu1", "mm2", "out"}
    assert node(after, "probs").attr["T"].type == types_pb2.DT_FLOAT  # deny list
    assert list(node(after, "mm1").input) == ["x-0-CastToFp16-AutoMixedPrecision", "w1-0-CastToFp16-AutoMixedPrecision"]
    assert list(node(after, "relu1").input) == ["ba1"]  # no cast inside the low-precision region
    assert list(node(after, "probs").input) == ["mm2-0-CastToFp32-AutoMixedPrecision"]
    assert list(node(after, "y").input) == ["out-0-CastToFp32-AutoMixedPrecision"]
    casts = [n for n in after.node if n.op == "Cast"]
    assert len(casts) == 7  # in: x, w1, b1, w2, one; out: mm2 (for Softmax), out (for y)
    same_numbers(before, after, ["probs:0", "y:0"], FEEDS, rtol=1e-2)


def test_cpu_and_undeclared_device_types_stay_float32_unless_onednn_bfloat16_is_on(half_device) -> None:
    before = build(mlp)
    assert optimize(before, ("CPU",)) == before
    assert optimize(before, ("CPU", "OTHERDEV")) == before  # declares nothing
    for n in before.node:
        n.device = "/device:CPU:0"
    assert optimize(before, ("CPU", half_device)) == before  # placed on CPU
    after = optimize(before, ("CPU",), AutoMixedPrecisionOneDnnBfloat16)
    assert node(after, "mm1").attr["T"].type == types_pb2.DT_BFLOAT16
    assert node(after, "probs").attr["T"].type == types_pb2.DT_FLOAT
    for n in (*before.node, *after.node):
        n.device = ""
    same_numbers(before, after, ["probs:0", "y:0"], FEEDS, rtol=5e-2)


def test_meta_optimizer_runs_the_pass_only_when_turned_on(half_device) -> None:
    before = build(mlp)
    item = GrapplerItem(before, fetches=("probs:0", "y:0"), device_types=("CPU", half_device))
    default = meta_optimizer.optimize(item, RC(), host_evaluator=context().host_evaluator)
    assert "auto_mixed_precision" not in {s.name for s in default.stats}  # off by default, as in TF's config
    on = meta_optimizer.optimize(item, RC(auto_mixed_precision=RC.ON), host_evaluator=context().host_evaluator)
    stats = [s for s in on.stats if s.name == "auto_mixed_precision"]
    assert stats[0].status == "ran" and "auto_mixed_precision" not in meta_optimizer.NOT_BUILT
    same_numbers(before, on.graph_def, ["probs:0", "y:0"], FEEDS, rtol=1e-2)
