"""The remapper's LayerNorm fusion: Keras's LayerNormalization subgraph -> TF's ``_MklLayerNorm``.

The pattern is fused in the golden Keras models (transformer encoder, ConvNeXt) with TF's outputs
kept; fused and unfused graphs give the same numbers; the graph is left alone when a condition fails
(an intermediate read elsewhere or fetched, a reduction over another axis or without keep_dims,
gamma that is not per last-axis channel, float64, another device). The OpDef is TF 2.21's, byte for byte.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from modtensor.framework import errors
from modtensor.framework.graph import get_default_graph
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import graph_pb2, rewriter_config_pb2
from modtensor.grappler import meta_optimizer
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.passes.remapper import Remapper
from modtensor.grappler.validation import validate
from modtensor.runtime import graph_execution

from .support import apply_pass, build, const, node, op, ops, placeholder, run, same_numbers

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import keras_golden  # noqa: E402

RNG = np.random.default_rng(13)

# TF 2.21's OpDef of _MklLayerNorm (op_def_registry.get("_MklLayerNorm").SerializeToString()).
TF_OP_DEF = (
    b'\n\r_MklLayerNorm\x12\x06\n\x01x"\x01T\x12\n\n\x05scale"\x01T\x12\x0b\n\x06offset"\x01T\x1a\x06\n\x01y"\x01T'
    b'"\x12\n\x01T\x12\x04type:\x07\n\x052\x03\x01\x0e\x13"\x17\n\x07epsilon\x12\x05float\x1a\x05%o\x12\x83:'
)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def keras_layer_norm(
    x,
    name: str,
    channels: int,
    rank: int,
    *,
    axis: int = -1,
    gamma=True,
    beta=True,
    tf_form=False,  # noqa: ANN001
    keep_dims: bool = True,
    dtype=np.float32,
    stop_gradient: bool = True,  # noqa: ANN001
):  # noqa: ANN201
    """What Keras 3 exports for LayerNormalization (``tf_form``: the shift as ``beta - inv * mean``)."""
    axes = const([axis], name + "/axes", np.int32)
    mean = op("Mean", name + "/mean", input=x, reduction_indices=axes, keep_dims=keep_dims)
    ref = op("StopGradient", name + "/sg", input=mean) if stop_gradient else mean
    sqd = op("SquaredDifference", name + "/sqd", x=x, y=ref)
    var = op("Mean", name + "/variance", input=sqd, reduction_indices=axes, keep_dims=keep_dims)
    add = op("AddV2", name + "/add", x=var, y=const(1e-6, name + "/eps", dtype))
    inv = op("Rsqrt", name + "/rsqrt", x=add)
    shape = [1] * (rank - 1) + [channels]
    if gamma:
        inv = op("Mul", name + "/mul", x=inv, y=const(rand(*shape).astype(dtype), name + "/gamma", dtype))
    scaled = op("Mul", name + "/mul_2", x=x, y=inv)
    beta_value = rand(*shape).astype(dtype)
    if tf_form:
        shift = op(
            "Sub",
            name + "/sub",
            x=const(beta_value, name + "/beta", dtype),
            y=op("Mul", name + "/mul_1", x=inv, y=mean),
        )
    else:
        shift = op("Mul", name + "/mul_1", x=op("Neg", name + "/neg", x=mean), y=inv)
        if beta:
            shift = op("AddV2", name + "/add_1", x=shift, y=const(beta_value, name + "/beta", dtype))
    return op("AddV2", name + "/out", x=scaled, y=shift)


def test_op_def_is_tensorflows_byte_for_byte() -> None:
    ours = global_registry().get("_MklLayerNorm")
    assert ours.op_def.SerializeToString(deterministic=True) == TF_OP_DEF
    assert ours.shape_fn is not None


@pytest.mark.parametrize(
    "form",
    [{}, {"tf_form": True}, {"gamma": False}, {"beta": False}, {"stop_gradient": False}, {"axis": 2}],
    ids=["keras", "tf-form", "no-gamma", "no-beta", "no-stop-gradient", "positive-axis"],
)
def test_the_keras_pattern_fuses_and_gives_the_unfused_numbers(form: dict) -> None:
    def model():
        x = placeholder("x", [4, 5, 32])
        op("Identity", "out", input=keras_layer_norm(op("Relu", "r", features=x), "ln", 32, 3, **form))

    before = build(model)
    after = apply_pass(Remapper, before, ["out:0"])
    fused = node(after, "ln/out")
    assert fused.op == "_MklLayerNorm"
    assert fused.attr["epsilon"].f == pytest.approx(1e-6)
    assert fused.input[0] == "r"
    assert not {n for n in ops(after) if n.startswith("ln/") and ops(after)[n] not in ("Const", "_MklLayerNorm")}
    assert validate(after, GrapplerItem(after, fetches=("out:0",))) == []
    same_numbers(before, after, ["out:0"], {"x:0": rand(4, 5, 32) * 3 + 1}, rtol=1e-5)


def test_rank_four_and_unknown_static_shapes_fuse() -> None:
    def model():
        x = placeholder("x", [2, 3, 3, 16])
        op("Identity", "o4", input=keras_layer_norm(x, "a", 16, 4))
        y = placeholder("y")  # unknown rank: the constants give the size, checked at run time
        op("Identity", "ou", input=keras_layer_norm(y, "b", 16, 3))

    before = build(model)
    after = apply_pass(Remapper, before, ["o4:0", "ou:0"])
    assert node(after, "a/out").op == "_MklLayerNorm" and node(after, "b/out").op == "_MklLayerNorm"
    feeds = {"x:0": rand(2, 3, 3, 16), "y:0": rand(2, 7, 16)}
    same_numbers(before, after, ["o4:0", "ou:0"], feeds, rtol=1e-5)


def test_a_wrong_last_dimension_fails_at_run_time_when_the_shape_was_unknown() -> None:
    def model():
        y = placeholder("y")
        op("Identity", "ou", input=keras_layer_norm(y, "b", 16, 2))

    after = apply_pass(Remapper, build(model), ["ou:0"])
    assert node(after, "b/out").op == "_MklLayerNorm"
    with pytest.raises(errors.InvalidArgumentError, match="last dimension 8, got 16"):
        run(after, ["ou:0"], {"y:0": rand(3, 8)})


def _not_fused(model, fetches: list[str]) -> None:  # noqa: ANN001
    before = build(model)
    after = apply_pass(Remapper, before, fetches)
    assert "_MklLayerNorm" not in ops(after).values()


def test_not_fused_when_an_intermediate_has_another_reader() -> None:
    def model():
        x = placeholder("x", [4, 8])
        keras_layer_norm(x, "ln", 8, 2)
        op("Identity", "peek", input=get_default_graph().get_tensor_by_name("ln/mean:0"))

    _not_fused(model, ["ln/out:0", "peek:0"])

    def model_rsqrt():
        x = placeholder("x", [4, 8])
        keras_layer_norm(x, "ln", 8, 2)
        op("Identity", "peek", input=get_default_graph().get_tensor_by_name("ln/rsqrt:0"))

    _not_fused(model_rsqrt, ["ln/out:0", "peek:0"])


def test_not_fused_when_an_intermediate_is_fetched() -> None:
    def model():
        keras_layer_norm(placeholder("x", [4, 8]), "ln", 8, 2)

    _not_fused(model, ["ln/out:0", "ln/variance:0"])


def test_not_fused_when_the_axis_is_not_the_last_or_dims_are_not_kept() -> None:
    def first_axis():
        keras_layer_norm(placeholder("x", [8, 8]), "ln", 8, 2, axis=0)

    _not_fused(first_axis, ["ln/out:0"])

    def middle_axis():
        keras_layer_norm(placeholder("x", [2, 8, 8]), "ln", 8, 3, axis=1)

    _not_fused(middle_axis, ["ln/out:0"])

    def no_keep_dims():
        keras_layer_norm(placeholder("x", [8, 8]), "ln", 8, 2, keep_dims=False)

    _not_fused(no_keep_dims, ["ln/out:0"])


def test_not_fused_for_float64_or_a_gamma_that_is_not_per_channel() -> None:
    def double():
        keras_layer_norm(placeholder("x", [4, 8], "float64"), "ln", 8, 2, dtype=np.float64)

    _not_fused(double, ["ln/out:0"])

    def full_gamma():
        x = placeholder("x", [4, 8])
        mean = op("Mean", "ln/mean", input=x, reduction_indices=const([-1], "ax", np.int32), keep_dims=True)
        sqd = op("SquaredDifference", "ln/sqd", x=x, y=mean)
        var = op("Mean", "ln/var", input=sqd, reduction_indices=const([-1], "ax2", np.int32), keep_dims=True)
        inv = op(
            "Mul",
            "ln/mul",
            x=op("Rsqrt", "ln/rsqrt", x=op("AddV2", "ln/add", x=var, y=const(1e-3, "eps"))),
            y=const(rand(4, 8), "gamma"),
        )  # varies along the rows: not a layer norm's gamma
        shift = op("AddV2", "ln/add_1", x=op("Mul", "ln/mul_1", x=op("Neg", "ln/neg", x=mean), y=inv),
                   y=const(rand(8), "beta"))  # fmt: skip
        op("AddV2", "ln/out", x=op("Mul", "ln/mul_2", x=x, y=inv), y=shift)

    _not_fused(full_gamma, ["ln/out:0"])


def test_not_fused_on_another_device() -> None:
    def model():
        keras_layer_norm(placeholder("x", [4, 8]), "ln", 8, 2)

    before = build(model)
    for n in before.node:
        n.device = "/device:GPU:0"
    after = apply_pass(Remapper, before, ["ln/out:0"], device_types=("CPU", "GPU"))
    assert "_MklLayerNorm" not in ops(after).values()


# ------------------------------------------------------------------ the golden Keras models


def _optimized(name: str, remapping: bool) -> tuple[graph_pb2.GraphDef, list[str], list[str]]:
    graph_def = keras_golden.full_graph_def(name, graph_pb2.GraphDef)
    info = keras_golden.manifest()["models"][name]
    outputs = [t["name"] for t in info["outputs"]]
    feeds = [t["name"] for t in info["inputs"]]
    config = rewriter_config_pb2.RewriterConfig()
    if not remapping:
        config.remapping = rewriter_config_pb2.RewriterConfig.OFF
    result = meta_optimizer.optimize_graph_def(
        graph_def, outputs, feeds, config=config, host_evaluator=graph_execution.host_evaluator()
    )
    return result.graph_def, outputs, feeds


@pytest.mark.parametrize("name,count", [("transformer_encoder", 4), ("convnext_tiny", 23)])
def test_every_layer_norm_of_the_golden_keras_models_is_fused(name: str, count: int) -> None:
    before = keras_golden.full_graph_def(name, graph_pb2.GraphDef)
    assert sum(n.op == "Rsqrt" for n in before.node) == count  # one per LayerNormalization
    after, _, _ = _optimized(name, remapping=True)
    found = ops(after)
    assert sum(v == "_MklLayerNorm" for v in found.values()) == count
    assert not {"Rsqrt", "SquaredDifference", "Neg"} & set(found.values())


def test_the_fused_transformer_gives_the_unfused_numbers_and_tensorflows() -> None:
    name = "transformer_encoder"
    fused, outputs, feeds = _optimized(name, remapping=True)
    unfused, _, _ = _optimized(name, remapping=False)
    assert "_MklLayerNorm" in ops(fused).values() and "_MklLayerNorm" not in ops(unfused).values()
    for batch in keras_golden.manifest()["models"][name]["batches"]:
        inputs = keras_golden.inputs(name, batch)
        values = {f if ":" in f else f + ":0": v for f, v in inputs.items()}
        assert set(values) == {f if ":" in f else f + ":0" for f in feeds}
        got = run(fused, outputs, values)
        want = run(unfused, outputs, values)
        golden = keras_golden.outputs(name, batch)
        for tensor, g, w in zip(outputs, got, want, strict=True):
            assert keras_golden.relative_error(g, w) <= 1e-5, (batch, tensor)
            assert keras_golden.relative_error(g, golden[tensor]) <= 1e-5, (batch, tensor)
