"""The remapper's folding and fusion beyond BiasAdd + activation: Pad into Conv2D, constant per-channel affine
chains (Keras's inference batch norm) into the weights, residual Add, depthwise fusion, GELU, FusedBatchNorm,
and the constant-weights mark. Each rewrite must give the unfused graph's numbers."""

from __future__ import annotations

import math

import numpy as np

from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.passes.remapper import Remapper
from modtensor.grappler.validation import validate

from .support import apply_pass, build, const, node, op, ops, placeholder, same_numbers

RNG = np.random.default_rng(7)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def conv(x, name: str, f: np.ndarray, **attrs):  # noqa: ANN001, ANN201
    attrs.setdefault("strides", [1, 1, 1, 1])
    attrs.setdefault("padding", "SAME")
    return op("Conv2D", name, input=x, filter=const(f, name + "/w"), **attrs)


def test_keras_batch_norm_after_conv_folds_into_the_weights_and_fuses_with_relu() -> None:
    f, b = rand(3, 3, 4, 6), rand(6)
    scale, shift = rand(6), rand(1, 1, 1, 6)

    def model():
        x = placeholder("x", [2, 7, 7, 4])
        y = op("BiasAdd", "ba", value=conv(x, "c", f), bias=const(b, "b"))
        y = op("Mul", "bn/mul", x=y, y=const(scale, "s"))
        y = op("AddV2", "bn/add", x=y, y=const(shift, "t"))
        y = op("Sub", "bn/sub", x=y, y=const(0.5, "half"))
        op("Relu", "out", features=y)

    before = build(model)
    after = apply_pass(Remapper, before, ["out:0"])
    out = node(after, "out")
    assert out.op == "_FusedConv2D" and list(out.attr["fused_ops"].list.s) == [b"BiasAdd", b"Relu"]
    assert {"c", "ba", "bn/mul", "bn/add", "bn/sub"}.isdisjoint(ops(after))
    assert out.attr["_modtensor_const_weights"].b
    assert validate(after, GrapplerItem(after, fetches=("out:0",))) == []
    same_numbers(before, after, ["out:0"], {"x:0": rand(2, 7, 7, 4)}, rtol=1e-5)


def test_affine_folding_into_depthwise_and_matmul_weights() -> None:
    fd, fm = rand(3, 3, 5, 2), rand(8, 3)

    def model():
        x = placeholder("x", [1, 6, 6, 5])
        d = op("DepthwiseConv2dNative", "dw", input=x, filter=const(fd, "fd"), strides=[1, 1, 1, 1], padding="VALID")
        d = op("Mul", "dw/mul", x=const(rand(10), "ds"), y=d)  # the constant first
        op("Relu6", "dout", features=op("AddV2", "dw/add", x=d, y=const(rand(10), "dt")))
        a = placeholder("a", [4, 8])
        m = op("MatMul", "mm", a=a, b=const(fm, "fm"))
        op("AddV2", "mout", x=op("Mul", "mm/mul", x=m, y=const(rand(3), "ms")), y=const(rand(3), "mt"))

    before = build(model)
    after = apply_pass(Remapper, before, ["dout:0", "mout:0"])
    assert node(after, "dout").op == "_FusedDepthwiseConv2dNative"
    assert list(node(after, "dout").attr["fused_ops"].list.s) == [b"BiasAdd", b"Relu6"]
    assert node(after, "mout").op == "_FusedMatMul"
    same_numbers(before, after, ["dout:0", "mout:0"], {"x:0": rand(1, 6, 6, 5), "a:0": rand(4, 8)}, rtol=1e-5)


def test_a_constant_that_broadcasts_beyond_the_channels_or_a_shared_node_stops_the_folding() -> None:
    f = rand(1, 1, 3, 4)

    def model():
        x = placeholder("x", [1, 5, 5, 3])
        y = op("Mul", "m1", x=conv(x, "c1", f), y=const(rand(5, 1, 4), "s1"))  # varies along W: not per channel
        op("Identity", "o1", input=y)
        c2 = conv(x, "c2", f)
        op("Identity", "o2", input=op("Mul", "m2", x=c2, y=const(rand(4), "s2")))
        op("Identity", "o3", input=c2)  # c2 has two readers

    before = build(model)
    after = apply_pass(Remapper, before, ["o1:0", "o2:0", "o3:0"])
    assert ops(after)["m1"] == "Mul" and ops(after)["m2"] == "Mul"
    same_numbers(before, after, ["o1:0", "o2:0", "o3:0"], {"x:0": rand(1, 5, 5, 3)})


def test_zero_pad_folds_into_an_explicitly_padded_conv() -> None:
    f = rand(3, 3, 2, 4)

    def model():
        x = placeholder("x", [1, 6, 5, 2])
        p = op("Pad", "pad", input=x, paddings=const([[0, 0], [1, 2], [3, 0], [0, 0]], "pads", np.int32))
        op("Relu", "out", features=op("BiasAdd", "ba", value=conv(p, "c", f, strides=[1, 2, 1, 1], padding="VALID"),
                                       bias=const(rand(4), "b")))  # fmt: skip
        q = op("Pad", "pad2", input=x, paddings=const([[0, 0], [1, 1], [1, 1], [1, 0]], "pads2", np.int32))
        op("Identity", "out2", input=conv(q, "c2", rand(3, 3, 3, 4), padding="VALID"))  # pads channels: kept

    before = build(model)
    after = apply_pass(Remapper, before, ["out:0", "out2:0"])
    out = node(after, "out")
    assert "pad" not in ops(after) and out.op == "_FusedConv2D" and out.attr["padding"].s == b"EXPLICIT"
    assert list(out.attr["explicit_paddings"].list.i) == [0, 0, 1, 2, 3, 0, 0, 0]
    assert ops(after)["pad2"] == "Pad"
    same_numbers(before, after, ["out:0", "out2:0"], {"x:0": rand(1, 6, 5, 2)}, rtol=1e-5)


def test_zero_pad_folds_into_the_depthwise_half_of_a_separable_conv_only() -> None:
    """NASNet's padded stride-2 separable convolutions: the Pad becomes the depthwise convolution's EXPLICIT
    padding; before a depthwise convolution that fuses with its bias and activation (MobileNetV2) it stays."""

    def depthwise(x, name: str, f: np.ndarray, **attrs):  # noqa: ANN001, ANN202
        return op("DepthwiseConv2dNative", name, input=x, filter=const(f, name + "/w"), strides=[1, 2, 2, 1],
                  padding="VALID", **attrs)  # fmt: skip

    pads = [[0, 0], [1, 2], [2, 1], [0, 0]]

    def model():
        x = placeholder("x", [2, 9, 8, 3])
        sep = depthwise(op("Pad", "pad", input=x, paddings=const(pads, "pads", np.int32)), "dw", rand(5, 5, 3, 1))
        op("Identity", "out", input=conv(sep, "pw", rand(1, 1, 3, 4)))
        alone = depthwise(op("Pad", "pad2", input=x, paddings=const(pads, "pads2", np.int32)), "dw2", rand(3, 3, 3, 1))
        op("Relu6", "out2", features=op("BiasAdd", "ba", value=alone, bias=const(rand(3), "b")))

    before = build(model)
    after = apply_pass(Remapper, before, ["out:0", "out2:0"])
    dw = node(after, "dw")
    assert "pad" not in ops(after) and dw.op == "DepthwiseConv2dNative" and dw.attr["padding"].s == b"EXPLICIT"
    assert list(dw.attr["explicit_paddings"].list.i) == [0, 0, 1, 2, 2, 1, 0, 0]
    assert ops(after)["pad2"] == "Pad" and ops(after)["out2"] == "_FusedDepthwiseConv2dNative"
    same_numbers(before, after, ["out:0", "out2:0"], {"x:0": rand(2, 9, 8, 3)}, rtol=1e-5)


def test_residual_add_fuses_into_the_conv_with_its_activation() -> None:
    f1, f2 = rand(1, 1, 4, 4), rand(3, 3, 4, 4)

    def model():
        x = placeholder("x", [2, 5, 5, 4])
        a = op("Relu", "a", features=op("BiasAdd", "a/ba", value=conv(x, "a/c", f1), bias=const(rand(4), "a/b")))
        y = op("BiasAdd", "ba", value=conv(a, "c", f2), bias=const(rand(4), "b"))
        op("Relu", "out", features=op("AddV2", "add", x=x, y=y))

    before = build(model)
    after = apply_pass(Remapper, before, ["out:0"])
    out = node(after, "out")
    assert out.op == "_FusedConv2D" and list(out.attr["fused_ops"].list.s) == [b"BiasAdd", b"Add", b"Relu"]
    assert list(out.input)[2:] == ["b", "x"] and out.attr["num_args"].i == 2
    assert list(out.attr["TArgs"].list.type) == [1, 1]
    same_numbers(before, after, ["out:0"], {"x:0": rand(2, 5, 5, 4)}, rtol=1e-5)


def test_an_add_whose_operand_would_broadcast_the_output_up_is_not_fused() -> None:
    def model():
        x = placeholder("x", [1, 4, 4, 2])
        y = op("BiasAdd", "ba", value=conv(x, "c", rand(1, 1, 2, 3)), bias=const(rand(3), "b"))
        op("AddV2", "out", x=y, y=placeholder("big", [5, 4, 4, 3]))

    after = apply_pass(Remapper, build(model), ["out:0"])
    assert ops(after)["out"] == "AddV2" and list(node(after, "ba").attr["fused_ops"].list.s) == [b"BiasAdd"]


def test_keras_gelu_after_a_dense_layer_fuses_as_gelu_exact() -> None:
    w = rand(6, 5)

    def model():
        h = op("BiasAdd", "ba", value=op("MatMul", "mm", a=placeholder("x", [3, 6]), b=const(w, "w")),
               bias=const(rand(5), "b"))  # fmt: skip
        half = op("Mul", "gelu/mul", x=const(0.5, "gelu/half"), y=h)
        neg = op("Neg", "gelu/neg", x=h)
        scaled = op("Mul", "gelu/mul_1", x=neg, y=const(1 / math.sqrt(2), "gelu/c"))
        op("Mul", "out", x=half, y=op("Erfc", "gelu/erfc", x=scaled))
        h2 = op("BiasAdd", "ba2", value=op("MatMul", "mm2", a=placeholder("x2", [3, 6]), b=const(w, "w2")),
                bias=const(rand(5), "b2"))  # fmt: skip
        e = op("Erf", "g2/erf", x=op("Mul", "g2/scale", x=h2, y=const(1 / math.sqrt(2), "g2/c")))
        one_plus = op("AddV2", "g2/add", x=const(1.0, "g2/one"), y=e)
        op("Mul", "out2", x=op("Mul", "g2/half", x=h2, y=const(0.5, "g2/h")), y=one_plus)

    before = build(model)
    after = apply_pass(Remapper, before, ["out:0", "out2:0"])
    for name in ("out", "out2"):
        fused = node(after, name)
        assert fused.op == "_FusedMatMul" and list(fused.attr["fused_ops"].list.s) == [b"BiasAdd", b"GeluExact"]
    assert not any(n.op in ("Erfc", "Erf", "Neg") for n in after.node)
    same_numbers(before, after, ["out:0", "out2:0"], {"x:0": rand(3, 6), "x2:0": rand(3, 6)}, rtol=1e-5)


def test_float64_graphs_fuse_onto_the_numpy_kernels() -> None:
    f = RNG.standard_normal((3, 3, 2, 3))

    def model():
        x = placeholder("x", [1, 5, 5, 2], dtype="float64")
        y = op("Conv2D", "c", input=x, filter=const(f, "w", np.float64), strides=[1, 1, 1, 1], padding="SAME")
        y = op("Mul", "m", x=y, y=const(rand(3), "s", np.float64))
        op("Elu", "out", features=op("AddV2", "a", x=y, y=const(rand(3), "t", np.float64)))

    before = build(model)
    after = apply_pass(Remapper, before, ["out:0"])
    assert node(after, "out").op == "_FusedConv2D"
    same_numbers(before, after, ["out:0"], {"x:0": RNG.standard_normal((1, 5, 5, 2))}, rtol=1e-12)


def test_swish_after_conv_and_depthwise_fuses_as_mkl_swish() -> None:
    def model():
        x = placeholder("x", [1, 6, 6, 3])
        y = op("BiasAdd", "ba", value=conv(x, "c", rand(3, 3, 3, 4)), bias=const(rand(4), "b"))
        op("Mul", "out", x=op("Sigmoid", "sig", x=y), y=y)
        d = op("DepthwiseConv2dNative", "dw", input=x, filter=const(rand(3, 3, 3, 1), "dwf"), strides=[1, 2, 2, 1],
               padding="SAME")  # fmt: skip
        d = op("BiasAdd", "dba", value=d, bias=const(rand(3), "db"))
        op("Mul", "dout", x=d, y=op("Sigmoid", "dsig", x=d))

    before = build(model)
    after = apply_pass(Remapper, before, ["out:0", "dout:0"])
    assert list(node(after, "out").attr["fused_ops"].list.s) == [b"BiasAdd", b"_MklSwish"]
    assert node(after, "dout").op == "_FusedDepthwiseConv2dNative"
    assert list(node(after, "dout").attr["fused_ops"].list.s) == [b"BiasAdd", b"_MklSwish"]
    assert "sig" not in ops(after) and "dsig" not in ops(after)
    same_numbers(before, after, ["out:0", "dout:0"], {"x:0": rand(1, 6, 6, 3)}, rtol=1e-5)


def test_keras_swish_wrapped_in_identity_n_fuses_too() -> None:
    def model():
        x = placeholder("x", [1, 5, 5, 2])
        y = op("BiasAdd", "ba", value=conv(x, "c", rand(1, 1, 2, 3)), bias=const(rand(3), "b"))
        beta = const(1.0, "beta")
        sig = op("Sigmoid", "act/sig", x=op("Mul", "act/beta_x", x=beta, y=y))  # Keras: sigmoid(beta * x)
        mul = op("Mul", "act/mul", x=y, y=sig)
        outs = op("IdentityN", "act/IdentityN", input=[mul, y, beta])
        op("Identity", "out", input=outs[0])

    before = build(model)
    after = apply_pass(Remapper, before, ["out:0"])
    assert "act/IdentityN" not in ops(after) and list(node(after, "out").input) == ["act/mul"]
    assert list(node(after, "act/mul").attr["fused_ops"].list.s) == [b"BiasAdd", b"_MklSwish"]
    same_numbers(before, after, ["out:0"], {"x:0": rand(1, 5, 5, 2)}, rtol=1e-5)


def test_keras_dense_on_rank_3_inputs_fuses_bias_scale_and_gelu_through_its_reshapes() -> None:
    w1, w2 = rand(6, 8), rand(8, 6)

    def model():
        x = placeholder("x", [2, 3, 6])
        flat = op("Reshape", "d1/flat", tensor=x, shape=const([6, 6], "d1/s", np.int32))
        h = op("Reshape", "d1/back", tensor=op("MatMul", "d1/mm", a=flat, b=const(w1, "w1")),
               shape=const([2, 3, 8], "d1/s2", np.int32))  # fmt: skip
        h = op("BiasAdd", "d1/ba", value=h, bias=const(rand(8), "b1"))
        half = op("Mul", "g/mul", x=const(0.5, "g/half"), y=h)
        erfc = op("Erfc", "g/erfc", x=op("Mul", "g/mul_1", x=op("Neg", "g/neg", x=h), y=const(1 / math.sqrt(2), "g/c")))
        g = op("Mul", "g/out", x=half, y=erfc)
        flat2 = op("Reshape", "d2/flat", tensor=g, shape=const([6, 8], "d2/s", np.int32))
        y = op("Reshape", "d2/back", tensor=op("MatMul", "d2/mm", a=flat2, b=const(w2, "w2")),
               shape=const([2, 3, 6], "d2/s2", np.int32))  # fmt: skip
        y = op("Mul", "scale", x=op("BiasAdd", "d2/ba", value=y, bias=const(rand(6), "b2")), y=const(rand(6), "gamma"))
        op("AddV2", "out", x=x, y=y)

    before = build(model)
    after = apply_pass(Remapper, before, ["out:0"])
    kinds = ops(after)
    assert kinds["d1/back"] == "_FusedMatMul" and kinds["g/out"] == "Reshape"
    assert list(node(after, "d1/back").attr["fused_ops"].list.s) == [b"BiasAdd", b"GeluExact"]
    assert kinds["d2/ba"] == "_FusedMatMul" and kinds["scale"] == "Reshape"  # gamma folded into the weights
    assert not any(k in ("Erfc", "Neg", "BiasAdd", "Mul") for k in kinds.values())
    same_numbers(before, after, ["out:0"], {"x:0": rand(2, 3, 6)}, rtol=1e-5)


def test_constants_read_through_identity_fold_and_fuse() -> None:
    """A frozen Keras graph reads weights and batch-norm factors through Identity (ReadVariableOp) nodes."""
    from modtensor.grappler.passes.constant_folding import ConstantFolding

    from .support import context

    def model():
        x = placeholder("x", [1, 5, 5, 2])
        w = op("Identity", "w/read", input=const(rand(3, 3, 2, 4), "w"))
        y = op("Conv2D", "c", input=x, filter=w, strides=[1, 1, 1, 1], padding="SAME")
        var = op("Identity", "var/read", input=const(np.abs(rand(4)) + 0.5, "var"))
        scale = op("Mul", "bn/mul", x=op("Rsqrt", "bn/rsqrt", x=var), y=const(rand(4), "gamma"))
        op("Relu", "out", features=op("Mul", "bn/mul_1", x=y, y=scale))

    before = build(model)
    item = GrapplerItem(before, fetches=("out:0",))
    folded = ConstantFolding().optimize(item, context())
    assert ops(folded)["bn/mul"] == "Const"
    after = apply_pass(Remapper, folded, ["out:0"])
    assert node(after, "out").op == "_FusedConv2D" and node(after, "out").attr["_modtensor_const_weights"].b
    same_numbers(before, after, ["out:0"], {"x:0": rand(1, 5, 5, 2)}, rtol=1e-5)


def test_folded_weights_keep_the_control_inputs_of_the_constants_they_come_from() -> None:
    """A constant in a while loop's body is in the loop's frame through its control edge (TF's pivot): the
    folded weights and bias made from such constants carry those edges, so they stay in the frame."""
    fm = rand(8, 3)

    def model():
        a = placeholder("a", [4, 8])
        op("Identity", "pivot", input=a)
        m = op("MatMul", "mm", a=a, b=const(fm, "fm"))
        op("AddV2", "mout", x=op("Mul", "mm/mul", x=m, y=const(rand(3), "ms")), y=const(rand(3), "mt"))

    before = build(model)
    for n in before.node:
        if n.name in ("fm", "ms", "mt"):
            n.input.append("^pivot")
    after = apply_pass(Remapper, before, ["mout:0"])
    assert node(after, "mout").op == "_FusedMatMul"
    folded = [node(after, t.split(":")[0]) for t in node(after, "mout").input[1:] if not t.startswith("^")]
    assert folded and all(n.op == "Const" and "^pivot" in n.input for n in folded), folded
    same_numbers(before, after, ["mout:0"], {"a:0": rand(4, 8)}, rtol=1e-5)
