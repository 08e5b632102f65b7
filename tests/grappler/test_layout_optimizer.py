"""Layout optimization: NHWC conv nets become NCHW with boundary transposes on an NCHW-preferring device type."""

from __future__ import annotations

import numpy as np
import pytest

from modtensor.grappler import meta_optimizer
from modtensor.grappler.device_traits import register_device_traits, unregister_device_traits
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.passes.layout_optimizer import LayoutOptimizer

from .support import RC, build, const, context, node, op, placeholder, same_numbers

NCHWDEV = "NCHWDEV"  # a device type preferring NCHW; the graphs still run on the CPU kernels
RNG = np.random.default_rng(3)
X = RNG.standard_normal((2, 6, 6, 3)).astype(np.float32)
FEEDS = {"x:0": X}


@pytest.fixture
def nchw_device():
    register_device_traits(NCHWDEV, preferred_layout="NCHW")
    yield NCHWDEV
    unregister_device_traits(NCHWDEV)


def conv_net() -> None:
    x = placeholder("x", [2, 6, 6, 3])
    w = const(RNG.standard_normal((3, 3, 3, 4)), "w")
    conv = op("Conv2D", "conv", input=x, filter=w, strides=[1, 1, 1, 1], padding="SAME")
    bias = op("BiasAdd", "bias", value=conv, bias=const([0.1, -0.2, 0.3, 0.0], "b"))
    relu = op("Relu", "relu", features=bias)
    pool = op("MaxPool", "pool", input=relu, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    dw = const(RNG.standard_normal((3, 3, 4, 2)), "dw")
    depth = op("DepthwiseConv2dNative", "depth", input=pool, filter=dw, strides=[1, 1, 1, 1], padding="SAME")
    avg = op("AvgPool", "avg", value=depth, ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1], padding="SAME")
    summed = op("AddV2", "sum", x=avg, y=depth)
    op("Identity", "y", input=summed)
    op("Shape", "shape", input=relu)  # an NHWC reader inside the region


def optimize(graph_def, device_types, fetches=("y:0", "shape:0")):
    item = GrapplerItem(graph_def, fetches=tuple(fetches), device_types=device_types)
    return LayoutOptimizer().optimize(item, context())


def test_conv_net_becomes_nchw_with_transposes_only_at_the_boundaries(nchw_device) -> None:
    before = build(conv_net)
    after = optimize(before, ("CPU", nchw_device))
    for name in ("conv", "bias", "pool", "depth", "avg"):
        assert node(after, name).attr["data_format"].s == b"NCHW", name
    assert list(node(after, "pool").attr["ksize"].list.i) == [1, 1, 2, 2]
    assert list(node(after, "pool").attr["strides"].list.i) == [1, 1, 2, 2]
    transposes = sorted(n.name for n in after.node if n.op == "Transpose")
    # in: x; out: relu (for Shape) and sum (for the fetched Identity); none between converted nodes
    assert transposes == [
        "relu-0-TransposeNCHWToNHWC-LayoutOptimizer",
        "sum-0-TransposeNCHWToNHWC-LayoutOptimizer",
        "x-0-TransposeNHWCToNCHW-LayoutOptimizer",
    ]
    assert list(node(after, "bias").input) == ["conv", "b"] and list(node(after, "sum").input) == ["avg", "depth"]
    assert node(after, "y").input[0] == "sum-0-TransposeNCHWToNHWC-LayoutOptimizer"
    same_numbers(before, after, ["y:0", "shape:0"], FEEDS, rtol=1e-5)


def test_placed_nodes_follow_their_device_type_and_nhwc_devices_are_untouched(nchw_device) -> None:
    before = build(conv_net)
    assert optimize(before, ("CPU",)) == before  # CPU prefers NHWC
    for n in before.node:
        n.device = "/device:CPU:0"
    assert optimize(before, ("CPU", nchw_device)) == before  # placed on CPU: not converted
    node(before, "conv").device = f"/device:{nchw_device}:0"
    after = optimize(before, ("CPU", nchw_device))
    assert node(after, "conv").attr["data_format"].s == b"NCHW" and node(after, "pool").attr["data_format"].s == b"NHWC"
    assert node(after, "x-0-TransposeNHWCToNCHW-LayoutOptimizer").device == f"/device:{nchw_device}:0"


def test_fetched_conv_keeps_nhwc_and_meta_optimizer_reports_the_pass(nchw_device) -> None:
    before = build(conv_net)
    after = optimize(before, ("CPU", nchw_device), fetches=("conv:0",))
    assert node(after, "conv").attr["data_format"].s == b"NHWC"  # a fetched output keeps its layout
    assert node(after, "bias").attr["data_format"].s == b"NHWC"  # a BiasAdd of unknown rank is not converted alone
    item = GrapplerItem(before, fetches=("y:0", "shape:0"), device_types=("CPU", nchw_device))
    result = meta_optimizer.optimize(item, RC(), host_evaluator=context().host_evaluator)
    stats = [s for s in result.stats if s.name == "layout_optimizer"]
    assert stats[0].status == "ran" and "layout_optimizer" not in meta_optimizer.NOT_BUILT
    same_numbers(before, result.graph_def, ["y:0", "shape:0"], FEEDS, rtol=1e-5)
