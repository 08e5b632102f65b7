"""Build the five golden TensorFlow models and export them as frozen inference GraphDefs.

Run with the TensorFlow scratch venv (TensorFlow is never a modtensor dependency):

    /tmp/tfvenv/bin/python tools/make_golden_models.py [--out examples/models]

Each model is built in a TF1-style ``tf.Graph`` from ``tf.raw_ops`` calls whose op
types all lie in the starter op set of issue 2, with weights held in variables that
are then frozen into ``Const`` nodes by TensorFlow's own ``convert_variables_to_constants``
(so the files look like what TF users export). For every model ``NAME`` it writes:

- ``NAME.pb``: the binary GraphDef (deterministic serialization),
- ``NAME.pbtxt``: TensorFlow's text format of the same GraphDef (``tf.io.write_graph``),
- ``NAME.shapes.json``: TF's static shape and dtype of every node output after
  importing the GraphDef into a fresh graph, ``{"node:idx": {"shape": [..] | null, "dtype": "float32"}}``,
- ``NAME.fed_shapes.json``: the same after importing under ``model/`` with every input
  mapped (``input_map``) to a fully defined placeholder ``fed/<input>`` (batch 8),
- ``NAME.io.npz``: the inputs at batch 1 and batch 8 and TensorFlow's outputs for them,

plus ``manifest.json`` (inputs, outputs, npz keys, op types per model). The script
fails if any exported node uses an op outside the starter set, and it is
deterministic: running it twice produces identical files.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

raw = tf.raw_ops
v1 = tf.compat.v1

# Issue 2, "Starter op set": the only op types a golden model may contain.
_STARTER_OPS_TEXT = """
Const Placeholder PlaceholderWithDefault Identity IdentityN NoOp StopGradient AddV2 Add Sub Mul
RealDiv Div FloorDiv FloorMod Maximum Minimum Neg Abs Square Sqrt Rsqrt Exp Log Tanh Sigmoid Erf
Erfc Pow SquaredDifference Less LessEqual Greater GreaterEqual Equal NotEqual LogicalAnd LogicalOr
LogicalNot Select SelectV2 Cast MatMul BatchMatMulV2 BiasAdd Relu Relu6 Elu Softmax LogSoftmax
Conv2D DepthwiseConv2dNative MaxPool AvgPool Sum Mean Max Min Prod All Any ArgMax ArgMin Reshape
Transpose ConcatV2 Pack Unpack Squeeze ExpandDims Shape Size Rank Fill ZerosLike OnesLike Range
Tile Pad Slice StridedSlice GatherV2 OneHot RandomStandardNormal RandomUniform
"""
STARTER_OPS = frozenset(_STARTER_OPS_TEXT.split())

# Each model's weights and inputs come from its own generator seeded by this number plus
# a per-model offset, so changing one model never changes another model's fixtures.
BASE_SEED = 20240601
BATCHES = (1, 8)


@dataclass
class ModelSpec:
    """What a model builder returns: its feeds (with input makers) and fetched outputs."""

    inputs: list[tf.Tensor]
    outputs: list[tf.Tensor]
    # batch -> {input tensor name: value}; called once per batch size.
    make_feeds: Callable[[int, np.random.Generator], dict[str, np.ndarray]]
    notes: str = ""
    extra: dict = field(default_factory=dict)


class Weights:
    """Creates named weights as TF variables from a seeded numpy generator."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def normal(self, name: str, shape: tuple[int, ...], scale: float | None = None) -> tf.Tensor:
        if scale is None:
            fan_in = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
            scale = 1.0 / np.sqrt(max(fan_in, 1))
        value = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        return self.variable(name, value)

    def uniform(self, name: str, shape: tuple[int, ...], low: float, high: float) -> tf.Tensor:
        return self.variable(name, self.rng.uniform(low, high, shape).astype(np.float32))

    def variable(self, name: str, value: np.ndarray) -> tf.Tensor:
        # A TF1 ref variable reads through its "<name>/read" Identity, which freezing keeps.
        var = v1.Variable(value, name=name, use_resource=False)
        return var.value()


# --------------------------------------------------------------------------- models


def dense(x: tf.Tensor, w: Weights, name: str, n_in: int, n_out: int) -> tf.Tensor:
    """MatMul + BiasAdd under a ``name`` scope, Keras-style names (kernel, bias)."""
    with tf.name_scope(name):
        kernel = w.normal("kernel", (n_in, n_out))
        bias = w.normal("bias", (n_out,), scale=0.1)
        y = raw.MatMul(a=x, b=kernel, name="MatMul")
        return raw.BiasAdd(value=y, bias=bias, name="BiasAdd")


def build_mlp(w: Weights) -> ModelSpec:
    x = v1.placeholder(tf.float32, [None, 20], name="x")
    h = raw.Relu(features=dense(x, w, "dense", 20, 32), name="dense/Relu")
    h = raw.Relu(features=dense(h, w, "dense_1", 32, 16), name="dense_1/Relu")
    logits = dense(h, w, "dense_2", 16, 5)
    probs = raw.Softmax(logits=logits, name="probs")

    def feeds(batch: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return {"x:0": rng.standard_normal((batch, 20)).astype(np.float32)}

    return ModelSpec([x], [probs], feeds, "3 dense layers (MatMul+BiasAdd+Relu), Softmax head")


def conv(x: tf.Tensor, w: Weights, name: str, k: int, c_in: int, c_out: int, padding: str) -> tf.Tensor:
    with tf.name_scope(name):
        kernel = w.normal("kernel", (k, k, c_in, c_out))
        bias = w.normal("bias", (c_out,), scale=0.1)
        y = raw.Conv2D(input=x, filter=kernel, strides=[1, 1, 1, 1], padding=padding, name="Conv2D")
        return raw.BiasAdd(value=y, bias=bias, name="BiasAdd")


def build_small_cnn(w: Weights) -> ModelSpec:
    x = v1.placeholder(tf.float32, [None, 16, 16, 3], name="image")
    h = raw.Relu(features=conv(x, w, "conv1", 3, 3, 8, "SAME"), name="conv1/Relu")
    h = raw.MaxPool(input=h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID", name="pool1")
    h = raw.Relu6(features=conv(h, w, "conv2", 3, 8, 16, "VALID"), name="conv2/Relu6")
    h = raw.AvgPool(value=h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID", name="pool2")
    with tf.name_scope("flatten"):
        # Keras Flatten: reshape to [tf.shape(x)[0], -1]; TF infers the -1 from the known dims.
        shape = raw.Shape(input=h, out_type=tf.int32, name="Shape")
        batch = shape[0]
        new_shape = raw.Pack(values=[batch, tf.constant(-1, name="minus_one")], axis=0, name="Pack")
        flat = raw.Reshape(tensor=h, shape=new_shape, name="Reshape")
    logits = dense(flat, w, "dense", 3 * 3 * 16, 10)
    probs = raw.Softmax(logits=logits, name="probs")
    with tf.name_scope("grouped"):
        # A Pack of (dynamic batch, constants): TF's partial shape evaluation gives [?, 2, 5].
        groups = raw.Pack(values=[batch, tf.constant(2), tf.constant(5)], axis=0, name="shape")
        grouped = raw.Softmax(logits=raw.Reshape(tensor=logits, shape=groups, name="Reshape"), name="probs")

    def feeds(batch: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return {"image:0": rng.uniform(0.0, 1.0, (batch, 16, 16, 3)).astype(np.float32)}

    return ModelSpec(
        [x], [probs, grouped], feeds, "Conv2D SAME/VALID, MaxPool, AvgPool, computed-shape Reshapes, Softmax"
    )


def folded_bn(x: tf.Tensor, w: Weights, channels: int) -> tf.Tensor:
    """Inference batch-norm folded to x * scale + offset (what freezing tools produce)."""
    scale = w.uniform("bn/scale", (channels,), 0.5, 1.5)
    offset = w.normal("bn/offset", (channels,), scale=0.1)
    return raw.AddV2(x=raw.Mul(x=x, y=scale, name="bn/mul"), y=offset, name="bn/add")


def inverted_residual(x: tf.Tensor, w: Weights, name: str, c_in: int, expand: int, c_out: int, stride: int):
    with tf.name_scope(name):
        hidden = c_in * expand
        k = w.normal("expand/kernel", (1, 1, c_in, hidden))
        h = raw.Conv2D(input=x, filter=k, strides=[1, 1, 1, 1], padding="SAME", name="expand/Conv2D")
        with tf.name_scope("expand"):
            h = folded_bn(h, w, hidden)
        h = raw.Relu6(features=h, name="expand/Relu6")
        dk = w.normal("depthwise/depthwise_kernel", (3, 3, hidden, 1), scale=1.0 / 3.0)
        h = raw.DepthwiseConv2dNative(
            input=h, filter=dk, strides=[1, stride, stride, 1], padding="SAME", name="depthwise/depthwise"
        )
        with tf.name_scope("depthwise"):
            h = folded_bn(h, w, hidden)
        h = raw.Relu6(features=h, name="depthwise/Relu6")
        pk = w.normal("project/kernel", (1, 1, hidden, c_out))
        h = raw.Conv2D(input=h, filter=pk, strides=[1, 1, 1, 1], padding="SAME", name="project/Conv2D")
        with tf.name_scope("project"):
            h = folded_bn(h, w, c_out)
        if stride == 1 and c_in == c_out:
            h = raw.AddV2(x=x, y=h, name="add")
        return h


def build_mobilenet_block(w: Weights) -> ModelSpec:
    x = v1.placeholder(tf.float32, [None, 16, 16, 8], name="input")
    h = inverted_residual(x, w, "block_1", 8, 3, 8, 1)
    h = inverted_residual(h, w, "block_2", 8, 6, 16, 2)
    pooled = raw.Mean(input=h, axis=tf.constant([1, 2], name="pool/axes"), keep_dims=False, name="pool/Mean")
    logits = dense(pooled, w, "classifier", 16, 10)
    probs = raw.Softmax(logits=logits, name="probs")

    def feeds(batch: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return {"input:0": rng.standard_normal((batch, 16, 16, 8)).astype(np.float32)}

    return ModelSpec(
        [x],
        [probs, pooled],
        feeds,
        "inverted residual stride 1 (residual AddV2) and stride 2, folded BN, depthwise 3x3, Mean pooling",
    )


D_MODEL, HEADS, D_FF = 32, 4, 64
D_HEAD = D_MODEL // HEADS


def layer_norm(x: tf.Tensor, w: Weights, name: str) -> tf.Tensor:
    """Keras LayerNormalization over the last axis from Mean/SquaredDifference/Rsqrt."""
    with tf.name_scope(name):
        gamma = w.uniform("gamma", (D_MODEL,), 0.8, 1.2)
        beta = w.normal("beta", (D_MODEL,), scale=0.1)
        axis = tf.constant([-1], name="axis")
        mean = raw.Mean(input=x, axis=axis, keep_dims=True, name="mean")
        var = raw.Mean(
            input=raw.SquaredDifference(x=x, y=mean, name="SquaredDifference"), axis=axis, keep_dims=True, name="var"
        )
        inv = raw.Rsqrt(x=raw.AddV2(x=var, y=tf.constant(1e-6, name="epsilon"), name="add_eps"), name="Rsqrt")
        normed = raw.Mul(x=raw.Sub(x=x, y=mean, name="sub"), y=inv, name="normed")
        return raw.AddV2(x=raw.Mul(x=normed, y=gamma, name="scale"), y=beta, name="shift")


def build_transformer_encoder(w: Weights) -> ModelSpec:
    x = v1.placeholder(tf.float32, [None, None, D_MODEL], name="x")
    lengths = v1.placeholder(tf.int32, [None], name="lengths")
    with tf.name_scope("encoder"):
        shape = raw.Shape(input=x, out_type=tf.int32, name="Shape")
        batch, seq = shape[0], shape[1]
        with tf.name_scope("mask"):
            positions = raw.Range(start=tf.constant(0), limit=seq, delta=tf.constant(1), name="positions")
            lens = raw.ExpandDims(input=lengths, axis=tf.constant(1), name="lengths_col")
            valid = raw.Less(x=positions, y=lens, name="valid")  # [b, s]
            valid = raw.Reshape(
                tensor=valid, shape=raw.Pack(values=[batch, 1, 1, seq], axis=0, name="shape"), name="valid_4d"
            )
        with tf.name_scope("attention"):
            x2d = raw.Reshape(tensor=x, shape=tf.constant([-1, D_MODEL], name="flat_shape"), name="x_2d")
            heads_shape = raw.Pack(values=[batch, seq, HEADS, D_HEAD], axis=0, name="heads_shape")
            perm = tf.constant([0, 2, 1, 3], name="perm")

            def split_heads(t: tf.Tensor, nm: str) -> tf.Tensor:
                t = raw.Reshape(tensor=t, shape=heads_shape, name=nm + "/split")
                return raw.Transpose(x=t, perm=perm, name=nm + "/transpose")

            # Q and V through 2-D MatMul (Keras Dense on a reshaped input), K through a
            # broadcasting BatchMatMulV2 on the rank-3 input (Keras EinsumDense lowered).
            q = dense(x2d, w, "query", D_MODEL, D_MODEL)
            k = raw.BatchMatMulV2(x=x, y=w.normal("key/kernel", (D_MODEL, D_MODEL)), name="key/BatchMatMulV2")
            k = raw.AddV2(x=k, y=w.normal("key/bias", (D_MODEL,), scale=0.1), name="key/add")
            v = dense(x2d, w, "value", D_MODEL, D_MODEL)
            q, k, v = split_heads(q, "query"), split_heads(k, "key"), split_heads(v, "value")
            scores = raw.BatchMatMulV2(x=q, y=k, adj_x=False, adj_y=True, name="scores")
            scores = raw.Mul(x=scores, y=tf.constant(1.0 / np.sqrt(D_HEAD), tf.float32, name="scale"), name="scaled")
            scores = raw.SelectV2(
                condition=valid, t=scores, e=tf.constant(-1e9, tf.float32, name="neg_inf"), name="masked"
            )
            attn = raw.Softmax(logits=scores, name="weights")
            ctx = raw.BatchMatMulV2(x=attn, y=v, name="context")
            ctx = raw.Transpose(x=ctx, perm=perm, name="merge/transpose")
            ctx = raw.Reshape(tensor=ctx, shape=tf.constant([-1, D_MODEL], name="merge/shape"), name="merge/reshape")
            out = dense(ctx, w, "output", D_MODEL, D_MODEL)
            out = raw.Reshape(
                tensor=out, shape=raw.Pack(values=[batch, seq, D_MODEL], axis=0, name="out_shape"), name="output_3d"
            )
        h = layer_norm(raw.AddV2(x=x, y=out, name="residual_1"), w, "ln_1")
        with tf.name_scope("ffn"):
            h2d = raw.Reshape(tensor=h, shape=tf.constant([-1, D_MODEL], name="flat_shape"), name="h_2d")
            f = dense(h2d, w, "dense_1", D_MODEL, D_FF)
            with tf.name_scope("gelu"):  # exact GELU: 0.5 * x * (1 + erf(x / sqrt(2)))
                erf = raw.Erf(x=raw.Mul(x=f, y=tf.constant(1.0 / np.sqrt(2.0), tf.float32, name="c"), name="mul"))
                f = raw.Mul(
                    x=raw.Mul(x=tf.constant(0.5, name="half"), y=f, name="mul_half"),
                    y=raw.AddV2(x=tf.constant(1.0, name="one"), y=erf, name="add_one"),
                    name="gelu",
                )
            f = dense(f, w, "dense_2", D_FF, D_MODEL)
            f = raw.Reshape(tensor=f, shape=raw.Pack(values=[batch, seq, D_MODEL], axis=0, name="shape"), name="ffn_3d")
        y = layer_norm(raw.AddV2(x=h, y=f, name="residual_2"), w, "ln_2")
        y = raw.Identity(input=y, name="output")

    def feeds(batch: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        seq = 5 if batch == 1 else 7
        return {
            "x:0": rng.standard_normal((batch, seq, D_MODEL)).astype(np.float32),
            "lengths:0": rng.integers(1, seq + 1, (batch,)).astype(np.int32),
        }

    return ModelSpec(
        [x, lengths],
        [y, attn],
        feeds,
        "one encoder block, dynamic batch and seq: MatMul and BatchMatMulV2 projections, 4 heads, "
        "SelectV2 length mask, Softmax, residuals, layer-norms (Mean/SquaredDifference/Rsqrt), GELU via Erf",
    )


def build_scopes_and_control(w: Weights) -> ModelSpec:
    x = v1.placeholder(tf.float32, [None, 4], name="x")
    ids = v1.placeholder(tf.int32, [None], name="ids")
    gain = raw.PlaceholderWithDefault(input=tf.constant(1.5, name="gain_default"), shape=[], name="gain")
    outputs: list[tf.Tensor] = []
    with tf.name_scope("scope"):
        with tf.name_scope("inner"):
            a = raw.Mul(x=x, y=gain, name="scaled")
            with tf.control_dependencies([a.op]):
                barrier = raw.NoOp(name="barrier")
        with tf.name_scope("inner"):  # reopening a name scope in TF1 uniquifies it: inner_1
            b = raw.Cast(x=ids, DstT=tf.float32, name="ids_float")
    with tf.name_scope("scope/"):  # re-enter "scope/" exactly
        with tf.control_dependencies([barrier]):
            after = raw.Identity(input=a, name="after_barrier")
        pair = raw.IdentityN(input=[after, b], name="pair")
        table = w.normal("table", (10, 4))
    with tf.name_scope("scope"):  # a fresh "scope_1"
        with tf.device("/device:CPU:0"):
            gathered = raw.GatherV2(params=table, indices=ids, axis=tf.constant(0), batch_dims=0, name="gather")
        hot = raw.OneHot(
            indices=ids,
            depth=tf.constant(10),
            on_value=tf.constant(1.0),
            off_value=tf.constant(0.0),
            axis=-1,
            name="one_hot",
        )
        both = raw.ConcatV2(values=[pair[0], gathered, hot], axis=tf.constant(1), name="concat")  # [b, 18]
    with tf.name_scope("shapes"):
        n = raw.Size(input=x, out_type=tf.int32, name="size")
        r = raw.Rank(input=x, name="rank")
        rng_ = raw.Range(start=tf.constant(0), limit=raw.Add(x=r, y=tf.constant(3), name="lim"), delta=tf.constant(1))
        filled = raw.Fill(dims=raw.Pack(values=[r, tf.constant(3)], axis=0), value=tf.constant(0.25), name="fill")
        tiled = raw.Tile(input=x, multiples=tf.constant([1, 2]), name="tile")  # [b, 8]
        padded = raw.Pad(input=tiled, paddings=tf.constant([[0, 0], [1, 1]]), name="pad")  # [b, 10]
        sliced = raw.Slice(input=padded, begin=tf.constant([0, 2]), size=tf.constant([-1, 6]), name="slice")  # [b, 6]
        expanded = raw.ExpandDims(input=sliced, axis=tf.constant(-1), name="expand")  # [b, 6, 1]
        squeezed = raw.Squeeze(input=expanded, axis=[2], name="squeeze")
        parts = raw.Unpack(value=filled, num=2, axis=0, name="unstack")
        repacked = raw.Pack(values=parts, axis=1, name="stack")  # [3, 2]
        # Random ops scaled by zero: their shapes are inferred, their values never matter.
        noise = raw.RandomUniform(shape=tf.constant([3, 2]), dtype=tf.float32, seed=1, seed2=2, name="uniform")
        repacked = raw.AddV2(x=repacked, y=raw.Mul(x=noise, y=tf.constant(0.0)), name="stack_plus_noise")
        outputs += [raw.Cast(x=raw.Add(x=n, y=rng_[-1]), DstT=tf.float32, name="count"), repacked]
    with tf.name_scope("logic"):
        pos = raw.Greater(x=squeezed, y=tf.constant(0.0), name="positive")
        small = raw.LessEqual(x=raw.Abs(x=squeezed), y=tf.constant(1.0), name="small")
        both_true = raw.LogicalAnd(x=pos, y=small, name="and")
        either = raw.LogicalOr(x=raw.LogicalNot(x=pos), y=raw.Equal(x=squeezed, y=tf.constant(0.0)), name="or")
        picked = raw.Select(condition=both_true, x=squeezed, y=raw.Neg(x=squeezed), name="select")
        outputs += [
            raw.All(input=both_true, axis=tf.constant([1]), keep_dims=True, name="all"),
            raw.Any(input=either, axis=tf.constant(1), keep_dims=False, name="any"),
            raw.ArgMax(input=both, dimension=tf.constant(1), output_type=tf.int64, name="argmax"),
            raw.ArgMin(input=picked, dimension=tf.constant(-1), output_type=tf.int32, name="argmin"),
        ]
    with tf.name_scope("reduce"):
        positive = raw.Add(x=raw.Square(x=both), y=tf.constant(0.5), name="positive")
        outputs += [
            raw.Sum(input=both, axis=tf.constant([1]), keep_dims=True, name="sum"),
            raw.Max(input=both, axis=tf.constant([0, 1]), keep_dims=False, name="max"),
            raw.Min(input=both, axis=tf.constant(0), keep_dims=True, name="min"),
            raw.Prod(input=raw.Sqrt(x=positive), axis=tf.constant(1), keep_dims=False, name="prod"),
        ]
    with tf.name_scope("math"):
        # Ops not used elsewhere, so every starter op appears in some fixture.
        t = raw.Tanh(x=squeezed)
        s = raw.Sigmoid(x=squeezed)
        e = raw.Elu(features=raw.Sub(x=t, y=s))
        lg = raw.Log(x=raw.Add(x=raw.Exp(x=t), y=s))
        pw = raw.Pow(x=raw.Maximum(x=s, y=tf.constant(0.1)), y=tf.constant(1.5))
        dv = raw.RealDiv(x=raw.Minimum(x=e, y=lg), y=raw.Add(x=pw, y=tf.constant(1.0)))
        erfc = raw.Erfc(x=raw.StopGradient(input=dv))
        zeros = raw.ZerosLike(x=erfc)
        ones = raw.OnesLike(x=erfc)
        mix = raw.AddV2(x=raw.AddV2(x=erfc, y=zeros), y=ones)
        normal = raw.RandomStandardNormal(shape=raw.Shape(input=mix), dtype=tf.float32, seed=3, seed2=4)
        mix = raw.AddV2(x=mix, y=raw.Mul(x=normal, y=tf.constant(0.0)), name="mix")
        ls = raw.LogSoftmax(logits=mix, name="log_softmax")
        ints = raw.Cast(x=raw.Mul(x=raw.Abs(x=ls), y=tf.constant(10.0)), DstT=tf.int32)
        q = raw.FloorDiv(x=ints, y=tf.constant(3))
        m = raw.FloorMod(x=ints, y=tf.constant(3))
        d = raw.Div(x=q, y=tf.constant(2))
        flags = raw.LogicalAnd(
            x=raw.NotEqual(x=m, y=tf.constant(1)), y=raw.GreaterEqual(x=d, y=tf.constant(0)), name="flags"
        )
        outputs += [ls, raw.Cast(x=flags, DstT=tf.int32, name="flags_int")]
    with tf.control_dependencies([barrier]):
        result = raw.Identity(input=raw.Sum(input=both, axis=tf.constant(-1), keep_dims=False), name="result")
    outputs.insert(0, result)
    outputs.append(pair[1])

    def feeds(batch: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return {
            "x:0": rng.standard_normal((batch, 4)).astype(np.float32),
            "ids:0": rng.integers(0, 10, (batch,)).astype(np.int32),
        }

    return ModelSpec(
        [x, ids],
        outputs,
        feeds,
        "nested and re-entered name scopes, control deps (NoOp, ^inputs), device string, "
        "PlaceholderWithDefault, IdentityN, array/shape/logic/reduction ops, the remaining math ops",
    )


MODELS: dict[str, tuple[int, Callable[[Weights], ModelSpec]]] = {
    "mlp": (1, build_mlp),
    "small_cnn": (2, build_small_cnn),
    "mobilenet_block": (3, build_mobilenet_block),
    "transformer_encoder": (4, build_transformer_encoder),
    "scopes_and_control": (5, build_scopes_and_control),
}

# --------------------------------------------------------------------------- export


def freeze(graph: tf.Graph, spec: ModelSpec) -> tf.compat.v1.GraphDef:
    """Freeze variables into Const nodes with TensorFlow's own converter, keep only what outputs need."""
    with v1.Session(graph=graph) as sess:
        sess.run(v1.global_variables_initializer())
        keep = sorted({t.op.name for t in spec.outputs} | {t.op.name for t in spec.inputs})
        return v1.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), keep)


def check_ops(name: str, graph_def: tf.compat.v1.GraphDef) -> list[str]:
    """Fail loudly if a node uses an op outside the starter set; return the op types used."""
    bad = sorted({f"{n.op} (node {n.name})" for n in graph_def.node if n.op not in STARTER_OPS})
    if bad:
        raise SystemExit(f"model {name!r} uses ops outside the starter op set: {', '.join(bad)}")
    if graph_def.library.function:
        raise SystemExit(f"model {name!r} has a function library; golden models must be plain graphs")
    return sorted({n.op for n in graph_def.node})


def static_shapes(graph_def: tf.compat.v1.GraphDef) -> tuple[dict[str, dict], tf.Graph]:
    """TF's static shape and dtype of every node output after import into a fresh graph."""
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    shapes: dict[str, dict] = {}
    for op in graph.get_operations():
        for i, out in enumerate(op.outputs):
            dims = out.shape.as_list() if out.shape.rank is not None else None
            shapes[f"{op.name}:{i}"] = {"shape": dims, "dtype": out.dtype.name}
    return shapes, graph


def fed_shapes(graph_def: tf.compat.v1.GraphDef, spec: ModelSpec) -> dict:
    """TF's static shapes when every input is mapped (input_map) to a fully defined placeholder.

    The placeholders are named ``fed/<input>`` and the model is imported under ``model/``,
    so this records how static shapes propagate through ``import_graph_def(input_map=...)``.
    """
    example = spec.make_feeds(BATCHES[-1], np.random.default_rng(0))
    graph = tf.Graph()
    with graph.as_default():
        input_map = {}
        for tname, value in example.items():
            op_name = tname.split(":")[0]
            input_map[tname] = v1.placeholder(tf.as_dtype(value.dtype), value.shape, name=f"fed/{op_name}")
        tf.graph_util.import_graph_def(graph_def, input_map=input_map, name="model")
    shapes = {}
    for op in graph.get_operations():
        for i, out in enumerate(op.outputs):
            dims = out.shape.as_list() if out.shape.rank is not None else None
            shapes[f"{op.name}:{i}"] = {"shape": dims, "dtype": out.dtype.name}
    inputs = {tname: list(value.shape) for tname, value in example.items()}
    return {"input_map": inputs, "import_name": "model", "placeholder_prefix": "fed/", "shapes": shapes}


def check_tf_round_trip(name: str, graph_def: tf.compat.v1.GraphDef, imported: tf.Graph) -> None:
    """TF's own import -> as_graph_def must keep every node and their order; the tests rely on it."""
    again = imported.as_graph_def()
    if [n.name for n in again.node] != [n.name for n in graph_def.node]:
        raise SystemExit(f"model {name!r}: TF's round trip reorders nodes; the golden tests assume it does not")
    changed = [n.name for n, m in zip(again.node, graph_def.node, strict=True) if n != m]
    if changed:
        raise SystemExit(f"model {name!r}: TF's round trip changes nodes {changed[:5]}")


def run_model(graph: tf.Graph, spec: ModelSpec, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Feed inputs at each batch size into the imported graph; npz keys are 'b{batch}/{in|out}/{tensor}'."""
    arrays: dict[str, np.ndarray] = {}
    out_names = [t.name for t in spec.outputs]
    with v1.Session(graph=graph) as sess:
        for batch in BATCHES:
            feeds = spec.make_feeds(batch, rng)
            results = sess.run(out_names, feed_dict=feeds)
            for tname, value in feeds.items():
                arrays[f"b{batch}/in/{tname}"] = value
            for tname, value in zip(out_names, results, strict=True):
                arrays[f"b{batch}/out/{tname}"] = np.asarray(value)
    return arrays


def tensor_info(t: tf.Tensor) -> dict:
    dims = t.shape.as_list() if t.shape.rank is not None else None
    return {"name": t.name, "dtype": t.dtype.name, "shape": dims}


def export_model(name: str, out_dir: Path) -> dict:
    offset, builder = MODELS[name]
    rng = np.random.default_rng(BASE_SEED + offset)
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(BASE_SEED + offset)
        spec = builder(Weights(rng))
    graph_def = freeze(graph, spec)
    op_types = check_ops(name, graph_def)

    (out_dir / f"{name}.pb").write_bytes(graph_def.SerializeToString(deterministic=True))
    tf.io.write_graph(graph_def, str(out_dir), f"{name}.pbtxt", as_text=True)
    shapes, imported = static_shapes(graph_def)
    check_tf_round_trip(name, graph_def, imported)
    (out_dir / f"{name}.shapes.json").write_text(json.dumps(shapes, indent=1, sort_keys=True) + "\n")
    fed = fed_shapes(graph_def, spec)
    (out_dir / f"{name}.fed_shapes.json").write_text(json.dumps(fed, indent=1, sort_keys=True) + "\n")
    arrays = run_model(imported, spec, rng)
    with open(out_dir / f"{name}.io.npz", "wb") as f:
        np.savez_compressed(f, **arrays)
    # Zip entries carry timestamps; normalise them so re-running gives identical bytes.
    _normalise_zip(out_dir / f"{name}.io.npz")

    return {
        "description": spec.notes,
        "files": [f"{name}.{ext}" for ext in ("pb", "pbtxt", "shapes.json", "fed_shapes.json", "io.npz")],
        "inputs": [tensor_info(t) for t in spec.inputs],
        "outputs": [tensor_info(t) for t in spec.outputs],
        "batches": list(BATCHES),
        "npz_keys": "b{batch}/in/{tensor name} for inputs, b{batch}/out/{tensor name} for outputs",
        "op_types": op_types,
        "attrs_by_op": _attrs_by_op(graph_def),
        "num_nodes": len(graph_def.node),
        "pb_bytes": (out_dir / f"{name}.pb").stat().st_size,
    }


def _attrs_by_op(graph_def: tf.compat.v1.GraphDef) -> dict[str, list[str]]:
    """The attr names TF wrote for each op type: the OpDefs modtensor needs to accept."""
    attrs: dict[str, set[str]] = {}
    for node in graph_def.node:
        attrs.setdefault(node.op, set()).update(node.attr.keys())
    return {op: sorted(names) for op, names in sorted(attrs.items())}


def _normalise_zip(path: Path) -> None:
    """Rewrite a zip with fixed entry timestamps so the bytes depend only on the contents."""
    import zipfile

    with zipfile.ZipFile(path) as src:
        entries = [(info.filename, src.read(info.filename)) for info in src.infolist()]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for fname, data in entries:
            info = zipfile.ZipInfo(fname, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(info, data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "examples/models")
    parser.add_argument("models", nargs="*", default=list(MODELS), help="subset of models to build")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    manifest_path = args.out / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"models": {}}
    manifest["generator"] = "tools/make_golden_models.py"
    manifest["tensorflow_version"] = tf.__version__
    manifest["base_seed"] = BASE_SEED
    for name in args.models:
        if name not in MODELS:
            parser.error(f"unknown model {name!r}; known: {', '.join(MODELS)}")
        manifest["models"][name] = export_model(name, args.out)
        info = manifest["models"][name]
        print(f"{name}: {info['num_nodes']} nodes, {info['pb_bytes']} bytes, {len(info['op_types'])} op types")
    used = set().union(*(set(m["op_types"]) for m in manifest["models"].values()))
    manifest["starter_ops_not_covered"] = sorted(STARTER_OPS - used)
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print("starter ops not covered:", ", ".join(manifest["starter_ops_not_covered"]) or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
