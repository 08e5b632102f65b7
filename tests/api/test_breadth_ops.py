"""The op-breadth API of issue 13 against TF 2.21: einsum, tensordot, gather/scatter_nd, sort, top_k, cumsum,
segments, unique, split, eye, norm, clip_by_norm, tf.linalg, tf.image.resize, moments, batch_normalization, dropout,
tf.strings, and TF's conversions of out-of-range Python and numpy values (TF 2.21 wraps integers; so does modtensor).

Golden snippets (tests/golden/frontend_breadth, tools/make_golden_frontend_breadth.py) replayed as in
test_math_ops.py: TF's graph node for node where the snippet's mode has "g", TF's eager values or errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import modtensor as tf
from modtensor.api import clip_ops, indexing_ops, linalg_ops, segment_ops, sort_ops

from .frontend_golden import (
    EAGER_CASES,
    GRAPH_CASES,
    case_ids,
    check_eager_case,
    check_graph_case,
    tensorflow_names,
)


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "breadth_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


# TF's GatherNd kernel appends ", node name: <node>" to its message; a modtensor kernel function does not know
# its node (the runtime reports the node with the error instead).
_MESSAGE_DIFFERS = {"breadth_gather_nd_bad": "TF's kernel appends the node name to the message"}


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")  # 1e40 -> float32 inf, as TF
@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "breadth_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id, message_differs=_MESSAGE_DIFFERS.get(case_id))


@pytest.mark.parametrize("module", [linalg_ops, indexing_ops, sort_ops, segment_ops, clip_ops])
def test_top_level_names_are_tensorflows_and_exported(module) -> None:
    assert set(module.__all__) <= tensorflow_names("tf")
    for name in module.__all__:
        assert getattr(tf, name) is getattr(module, name), name


@pytest.mark.parametrize(
    ("namespace", "module"),
    [
        ("tf.linalg", tf.linalg),
        ("tf.image", tf.image),
        ("tf.strings", tf.strings),
        ("tf.math", tf.math),
        ("tf.nn", tf.nn),
    ],
)
def test_namespace_names_are_tensorflows(namespace: str, module) -> None:
    assert set(module.__all__) <= tensorflow_names(namespace)
    for name in module.__all__:
        assert hasattr(module, name), name


def test_composite_apis_run_inside_function() -> None:
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        values = tf.sort(x, axis=1, direction="DESCENDING")
        mean, variance = tf.nn.moments(x, axes=[0])
        return values, tf.norm(x, axis=1), tf.clip_by_norm(x, 1.0, axes=[1]), mean, variance

    x = np.array([[3.0, -1.0, 2.0], [0.5, 4.0, -2.0]], np.float32)
    values, norms, clipped, mean, variance = (t.numpy() for t in f(x))
    np.testing.assert_array_equal(values, -np.sort(-x, axis=1))
    np.testing.assert_allclose(norms, np.linalg.norm(x, axis=1), rtol=1e-6)
    np.testing.assert_allclose(clipped, x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(mean, x.mean(0), rtol=1e-6)
    np.testing.assert_allclose(variance, x.var(0), rtol=1e-6)


def test_linalg_decompositions_reconstruct_their_input() -> None:
    a = tf.constant([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    q, r = tf.linalg.qr(a)
    np.testing.assert_allclose((q @ r).numpy(), a.numpy(), atol=1e-5)
    s, u, v = tf.linalg.svd(a)
    np.testing.assert_allclose((u @ tf.linalg.diag(s) @ tf.transpose(v)).numpy(), a.numpy(), atol=1e-5)
    e, vectors = tf.linalg.eigh(a)
    np.testing.assert_allclose((vectors @ tf.linalg.diag(e) @ tf.transpose(vectors)).numpy(), a.numpy(), atol=1e-5)
    chol = tf.linalg.cholesky(a)
    np.testing.assert_allclose((chol @ tf.transpose(chol)).numpy(), a.numpy(), atol=1e-5)
