"""Write TensorFlow's answers for graph construction into tests/golden/construction/ (run with TF 2.21).

    /tmp/tfvenv/bin/python tools/make_golden_graph_construction.py

Outputs (small, deterministic, committed):

* ``names.json``: a script of name-scope / unique-name / op-naming steps and the
  names TensorFlow's graph gives at each step; tests replay it on a modtensor Graph.
* ``<case>.pbtxt``: GraphDefs (``as_graph_def(add_shapes=True)``) of small graphs
  built from ``tf.raw_ops`` in a ``tf.Graph``; the tests build the same graphs with
  modtensor and compare the GraphDefs, and import them to compare static shapes.

TensorFlow is used only here, never by modtensor or its tests.
"""

from __future__ import annotations

import json
import os
import sys

import tensorflow as tf
from google.protobuf import text_format

v1 = tf.compat.v1
raw = tf.raw_ops
OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "golden", "construction")

# Steps: ["scope", name] opens a scope (result: the scope string), ["end"] closes the
# innermost, ["unique", name, mark_as_used] calls unique_name, ["op", name] makes a
# NoOp with that name (result: the op's name; name None means the default "NoOp"),
# ["get_name_scope"] returns the current scope. A step that fails records {"error", "message"}.
NAME_STEPS = [
    ["op", "add"],
    ["op", "add"],
    ["op", "Add"],
    ["op", "add_1"],
    ["op", None],
    ["op", None],
    ["unique", "foo", True],
    ["unique", "foo", True],
    ["unique", "Foo", True],
    ["unique", "foo_1", True],
    ["unique", "FOO", False],
    ["unique", "FOO", True],
    ["scope", "s"],
    ["op", "add"],
    ["get_name_scope"],
    ["scope", "inner"],
    ["op", None],
    ["end"],
    ["scope", "inner"],
    ["end"],
    ["scope", None],
    ["op", "add"],
    ["end"],
    ["scope", ""],
    ["get_name_scope"],
    ["end"],
    ["scope", "_under"],
    ["end"],
    ["end"],
    ["scope", "s"],
    ["op", "add"],
    ["end"],
    ["scope", "S"],
    ["end"],
    ["scope", "s/"],
    ["op", "add"],
    ["scope", "deeper/"],
    ["op", "x"],
    ["end"],
    ["end"],
    ["scope", "add"],
    ["op", None],
    ["end"],
    ["op", "fixed/"],
    ["op", "s_1/add/"],
    ["op", "s_2/add/"],
    ["unique", "s", False],
    ["scope", "a.b-c"],
    ["end"],
]


def run_name_steps() -> list:
    g = tf.Graph()
    results = []
    stack = []
    with g.as_default():
        for step in NAME_STEPS:
            kind = step[0]
            if kind == "scope":
                cm = g.name_scope(step[1])
                results.append(cm.__enter__())
                stack.append(cm)
            elif kind == "end":
                stack.pop().__exit__(None, None, None)
                results.append(None)
            elif kind == "unique":
                results.append(g.unique_name(step[1], mark_as_used=step[2]))
            elif kind == "op":
                try:
                    results.append(raw.NoOp(name=step[1]).name if step[1] else raw.NoOp().name)
                except ValueError as e:
                    results.append({"error": "ValueError", "message": str(e)})
            elif kind == "get_name_scope":
                results.append(g.get_name_scope())
    return [{"step": s, "result": r} for s, r in zip(NAME_STEPS, results, strict=True)]


def scopes_control_devices(g: tf.Graph) -> None:
    x = v1.placeholder(tf.float32, [2, 3], name="x")
    a = raw.AddV2(x=x, y=x)
    b = raw.AddV2(x=x, y=x)
    with g.name_scope("block"):
        c = raw.Identity(input=a)
        with g.name_scope("inner"):
            raw.AddV2(x=c, y=1.5)
    with g.name_scope("block"):
        e = raw.Identity(input=b)
    with g.control_dependencies([a, b]):
        f = raw.Identity(input=x, name="f")
        with g.control_dependencies([e.op]):
            raw.Identity(input=a, name="h")
        with g.control_dependencies(None):
            raw.Identity(input=x, name="k")
        raw.Identity(input=f, name="after_f")
    with g.control_dependencies([f]):
        raw.NoOp(name="noop")
    with g.device("/GPU:0"):
        raw.MatMul(a=x, b=x, transpose_b=True)
    with g.device("/job:worker/task:1"):
        with g.device("/device:CPU:0"):
            raw.Identity(input=x, name="on_cpu")
        with g.device(None):
            raw.Identity(input=x, name="no_device")
    raw.Pack(values=[x, x, x], axis=1)
    raw.IdentityN(input=[x, a])


def partial_shapes(g: tf.Graph) -> None:
    x = v1.placeholder(tf.float32, [None, 10, 64], name="x")
    y = v1.placeholder(tf.float32, [2, 3], name="y")
    s = raw.Shape(input=x, name="s")

    def dim(i, name):
        return raw.StridedSlice(input=s, begin=[i], end=[i + 1], strides=[1], shrink_axis_mask=1, name=name)

    d0, d1 = dim(0, "d0"), dim(1, "d1")
    raw.Reshape(tensor=x, shape=raw.Pack(values=[d0, -1, 8, 8], name="p1"), name="r_pack_unknown_batch")
    raw.Reshape(tensor=x, shape=raw.Pack(values=[d0, d1, 8, 8], name="p2"), name="r_pack_known_dim")
    tail = raw.StridedSlice(input=s, begin=[1], end=[0], strides=[1], end_mask=1, name="tail")
    raw.Fill(dims=tail, value=1.0, name="fill_tail")
    head = raw.StridedSlice(input=s, begin=[0], end=[-1], strides=[1], name="head")
    raw.Reshape(tensor=x, shape=raw.ConcatV2(values=[head, [8, 8]], axis=0, name="c1"), name="r_concat")
    raw.Range(start=0, limit=d1, delta=1, name="range_d1")
    raw.Reshape(tensor=x, shape=raw.Pack(values=[raw.Mul(x=d1, y=2, name="d1x2"), -1], name="p3"), name="r_mul")
    raw.Reshape(
        tensor=x, shape=raw.Pack(values=[raw.Mul(x=d0, y=d1, name="d0xd1"), 64], name="p4"), name="r_mul_unknown"
    )
    prod = raw.Prod(input=tail, axis=[0], name="prod_tail")
    raw.Reshape(tensor=x, shape=raw.Pack(values=[-1, prod], name="p5"), name="r_prod")
    raw.Fill(dims=raw.Cast(x=tail, DstT=tf.int64, name="tail64"), value=1.0, name="fill_cast")
    raw.Fill(dims=raw.ExpandDims(input=d1, axis=0, name="d1_vec"), value=1.0, name="fill_expand")
    sy = raw.Shape(input=y, name="sy")
    raw.Reshape(tensor=y, shape=raw.AddV2(x=sy, y=[0, 0], name="sy_plus0"), name="r_add_const")
    raw.Fill(dims=raw.GatherV2(params=sy, indices=[1, 0], axis=0, name="sy_rev"), value=1, name="fill_gather")
    raw.Fill(
        dims=raw.Pack(values=[raw.Size(input=y, name="size_y"), raw.Rank(input=x, name="rank_x")], name="p6"),
        value=1,
        name="fill_size_rank",
    )
    raw.Reshape(
        tensor=x, shape=raw.Identity(input=raw.Pack(values=[d0, 10, 8, 8], name="p7"), name="p7_id"), name="r_identity"
    )
    raw.Reshape(
        tensor=x,
        shape=raw.Cast(x=raw.Pack(values=[d0, 10, 8, 8], name="p8"), DstT=tf.int64, name="p8_64"),
        name="r_cast",
    )
    q = v1.placeholder(tf.int32, [], name="q")
    raw.Reshape(tensor=x, shape=raw.Pack(values=[q, 10, 64], name="p9"), name="r_placeholder_dim")
    u = v1.placeholder(tf.int32, None, name="u")
    raw.Fill(dims=raw.ConcatV2(values=[u, [3]], axis=0, name="c2"), value=1.0, name="fill_unknown_rank")
    v = v1.placeholder(tf.int32, [2], name="v")
    raw.Fill(dims=raw.ConcatV2(values=[v, [3]], axis=0, name="c3"), value=1.0, name="fill_vector_placeholder")


CASES = {"scopes_control_devices": scopes_control_devices, "partial_shapes": partial_shapes}


def main() -> int:
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "names.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "steps": run_name_steps()}, f, indent=1)
        f.write("\n")
    for name, build in CASES.items():
        g = tf.Graph()
        with g.as_default():
            build(g)
        graph_def = g.as_graph_def(add_shapes=True)
        for node in graph_def.node:
            node.ClearField("experimental_type")  # TF's full-type annotations; modtensor does not write them
        with open(os.path.join(OUT, f"{name}.pbtxt"), "w") as f:
            f.write(f"# Written by tools/make_golden_graph_construction.py with TensorFlow {tf.__version__}\n")
            f.write(text_format.MessageToString(graph_def))
    print(f"wrote {len(CASES)} graphs and names.json to {os.path.normpath(OUT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
