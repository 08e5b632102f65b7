"""tf.IndexedSlices as a user meets it, run by TensorFlow (golden) and by modtensor (tests).

Gradients of gathers (``tf.gather``, ``tf.gather_nd``, ``ResourceGatherNd``) of variables and
tensors, their aggregation, conversion, printing, operators and ``Session.run`` fetches and feeds.
Each ``program_*`` takes the module to use as ``tf`` and returns JSON-able results.
``tools/make_golden_program_corpus.py indexed_slices`` records them with TensorFlow 2.21 into
``tests/golden/gradients/indexed_slices_programs.json``; ``tests/api/test_indexed_slices.py``
runs them with ``import modtensor as tf``. This file imports neither.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import numpy as np

_spec = importlib.util.spec_from_file_location("function_programs", Path(__file__).with_name("function_programs.py"))
_helpers = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(_helpers)  # type: ignore[union-attr]
encode = _helpers.encode


def error(e: BaseException) -> dict[str, str]:
    """An error's class and first message line."""
    return {"type": type(e).__name__, "line": str(e).splitlines()[0] if str(e) else ""}


def _attempt(fn: Any) -> Any:
    try:
        return {"value": fn()}
    except Exception as e:  # noqa: BLE001 - the error is the recorded result
        return {"error": error(e)}


def _parts(tf: Any, g: Any) -> Any:
    """A gradient as {type, components} (IndexedSlices) or {type, value}."""
    if isinstance(g, tf.IndexedSlices):
        shape = None if g.dense_shape is None else encode(g.dense_shape)
        return {"type": "IndexedSlices", "indices": encode(g.indices), "values": encode(g.values), "shape": shape,
                "dense": encode(tf.convert_to_tensor(g))}  # fmt: skip
    return {"type": type(g).__name__ if g is None else "Tensor", "value": encode(g)}


def program_resource_gather_nd(tf: Any) -> dict[str, Any]:
    """ResourceGatherNd of whole rows gives IndexedSlices (dense_shape in the indices' dtype), else a dense gradient."""
    v = tf.Variable(np.arange(12.0).reshape(4, 3))
    out = {}
    for name, idx in (("rows", [[1], [3], [1]]), ("elements", [[1, 2], [0, 0]]), ("rank3", [[[1]], [[0]]]),
                      ("rows_int64", np.array([[2]], np.int64))):  # fmt: skip
        with tf.GradientTape() as tape:
            tape.watch(v.handle)
            y = tf.raw_ops.ResourceGatherNd(resource=v.handle, indices=idx, dtype=tf.float64)
            loss = tf.reduce_sum(y * y)
        out[name] = _parts(tf, tape.gradient(loss, v.handle))
    return out


def program_gather_nd_of_variable(tf: Any) -> dict[str, Any]:
    v = tf.Variable(np.arange(12.0, dtype=np.float32).reshape(4, 3))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather_nd(v, [[3], [0]]) * 3.0)
    return {"grad": _parts(tf, tape.gradient(loss, v))}


def program_aggregation(tf: Any) -> dict[str, Any]:
    """Two gathers of a variable: one IndexedSlices (indices concatenated); a gather and a dense use: a tensor."""
    emb = tf.Variable(np.arange(12.0, dtype=np.float32).reshape(4, 3))
    with tf.GradientTape(persistent=True) as tape:
        two = tf.reduce_sum(tf.gather(emb, [0, 2, 2]) * 2.0) + tf.reduce_sum(tf.gather(emb, [1]))
        mixed = tf.reduce_sum(tf.gather(emb, [0, 2, 2]) * 2.0) + tf.reduce_sum(emb)
    out = {"two_gathers": _parts(tf, tape.gradient(two, emb)), "mixed": _parts(tf, tape.gradient(mixed, emb))}

    @tf.function
    def in_function() -> Any:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.gather(emb, [3, 3])) + tf.reduce_sum(tf.gather(emb, [0]) * 4.0)
        return tf.convert_to_tensor(tape.gradient(loss, emb))

    out["in_function_dense"] = encode(in_function())
    return out


def program_gather_of_tensor(tf: Any) -> dict[str, Any]:
    """tf.gather of a watched tensor along axis 0: IndexedSlices; along axis 1 or with batch_dims: a tensor."""
    x = tf.constant(np.arange(24.0).reshape(2, 3, 4))
    out = {}
    for name, fn in (("axis0", lambda x: tf.gather(x, [1, 1])), ("axis1", lambda x: tf.gather(x, [2, 0], axis=1)),
                     ("batch_dims", lambda x: tf.gather(x, [[0], [2]], axis=1, batch_dims=1))):  # fmt: skip
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(fn(x) * 2.0)
        out[name] = _parts(tf, tape.gradient(y, x))
    return out


def program_printing_and_properties(tf: Any) -> dict[str, Any]:
    s = tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([1]), tf.constant([3, 2]))
    no_shape = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]))
    return {
        "str": str(s),
        "str_no_shape": str(no_shape),
        "repr_is_object_repr": bool(re.fullmatch(r"<[\w.]+\.IndexedSlices object at 0x[0-9a-f]+>", repr(s))),
        "shape": s.shape.as_list(),
        "shape_no_dense_shape_rank": no_shape.shape.rank,
        "dtype": s.dtype.name,
        "dense_shape_none": no_shape.dense_shape is None,
    }


def program_conversion_and_operators(tf: Any) -> dict[str, Any]:
    s = tf.IndexedSlices(tf.constant([[1.0, 1.0], [2.0, 3.0]]), tf.constant([1, 1]), tf.constant([3, 2]))
    no_shape = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]))
    return {
        "convert": encode(tf.convert_to_tensor(s)),
        "convert_same_dtype": encode(tf.convert_to_tensor(s, dtype=tf.float32)),
        "convert_other_dtype": _attempt(lambda: encode(tf.convert_to_tensor(s, dtype=tf.float64))),
        "convert_no_dense_shape": _attempt(lambda: encode(tf.convert_to_tensor(no_shape))),
        "neg_type": type(-s).__name__,
        "neg": encode(tf.convert_to_tensor(-s)),
        "mul": _attempt(lambda: encode(s * 2.0)),
        "add": _attempt(lambda: encode(s + 1.0)),
        "add_n": encode(tf.add_n([s, s])),
        "reduce_sum": encode(tf.reduce_sum(s)),
        "op_argument": encode(tf.multiply(s, 2.0)),
    }


def program_session_run(tf: Any) -> dict[str, Any]:
    """Session.run fetches an IndexedSlices as an IndexedSlicesValue (namedtuple), also nested; feeds one."""
    graph = tf.Graph()
    with graph.as_default():
        p = tf.compat.v1.placeholder(tf.float32, [4, 3])
        y = tf.gather(p, [0, 2, 0])
        grad = tf.compat.v1.gradients(tf.reduce_sum(y * y), p)[0]
        no_shape = tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([1]))
        values = tf.compat.v1.placeholder(tf.float32, [None, 2])
        indices = tf.compat.v1.placeholder(tf.int32, [None])
        fed = tf.IndexedSlices(values, indices, tf.constant([3, 2]))
        doubled = tf.convert_to_tensor(fed) * 2.0
        feed = {p: np.arange(12.0).reshape(4, 3)}
        with tf.compat.v1.Session() as sess:
            value = sess.run(grad, feed)
            nested = sess.run([grad, {"a": grad}], feed)
            no_shape_value = sess.run(no_shape)
            fed_value = sess.run(doubled, {fed: (np.ones((2, 2), np.float32), np.array([0, 2], np.int32))})
    return {
        "type": type(value).__name__,
        "fields": list(value._fields),
        "is_tuple": isinstance(value, tuple),
        "value": [encode(v) for v in value],
        "repr": repr(value),
        "nested_types": [type(nested[0]).__name__, type(nested[1]["a"]).__name__],
        "no_shape": repr(no_shape_value),
        "fed": encode(fed_value),
        "graph_str": str(grad),
        "graph_shape": grad.shape.as_list(),
        "graph_values_op": grad.op.type,
    }


PROGRAMS = {name.removeprefix("program_"): fn for name, fn in globals().items() if name.startswith("program_")}
