"""Everyday ``tf.math``/``tf.nn``/``tf.linalg`` compositions against TF 2.21: count_nonzero, polyval, l2_normalize,
meshgrid, sequence_mask, matrix_transpose, clip_by_global_norm, global_norm, logdet, pinv, conv1d, conv2d_transpose,
max_pool1d, silu/swish, log_poisson_loss, weighted_cross_entropy_with_logits and separable_conv2d.

Golden snippets (tests/golden/namespace_math, tools/make_golden_namespace_math.py) replayed as in test_breadth_ops.py:
TF's graph node for node (with the static shapes of placeholders' results) where the snippet's mode has "g", TF's
eager values, GradientTape gradients or errors where it has "e".
"""

from __future__ import annotations

import pytest

import modtensor as tf

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case, tensorflow_names

NEW_NAMES = {
    "tf": ["batch_to_space", "clip_by_global_norm", "histogram_fixed_width", "linspace", "meshgrid", "roll",
           "searchsorted", "sequence_mask", "space_to_batch", "space_to_batch_nd", "unravel_index"],
    "tf.math": ["bincount", "confusion_matrix", "count_nonzero", "cumulative_logsumexp", "digamma", "divide_no_nan",
                "erfcinv", "erfinv", "in_top_k", "is_inf", "is_nan", "l2_normalize", "lgamma", "ndtri", "polyval",
                "reduce_euclidean_norm", "softsign", "xdivy", "xlog1py", "xlogy"],
    "tf.nn": ["conv1d", "conv2d_transpose", "depth_to_space", "embedding_lookup", "in_top_k", "l2_normalize",
              "local_response_normalization", "log_poisson_loss", "lrn", "max_pool1d", "selu", "separable_conv2d",
              "silu", "softsign", "space_to_batch", "space_to_depth", "swish", "weighted_cross_entropy_with_logits"],
    "tf.linalg": ["cross", "global_norm", "l2_normalize", "logdet", "matrix_transpose", "pinv", "slogdet"],
}  # fmt: skip


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "nsmath_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    if case_id.startswith("nsmath_confusion_matrix"):  # its asserts' and squeezes' If nodes call numbered functions
        check_graph_case(case_id, function_numbers_differ="TF numbers functions with a process-wide counter")
    else:
        check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "nsmath_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


@pytest.mark.parametrize("module", sorted(NEW_NAMES))
def test_names_are_tensorflows(module: str) -> None:
    namespace = tf
    for part in module.split(".")[1:]:
        namespace = getattr(namespace, part)
    assert set(NEW_NAMES[module]) <= tensorflow_names(module)
    for name in NEW_NAMES[module]:
        assert hasattr(namespace, name), f"{module}.{name}"
        if module != "tf":
            assert name in namespace.__all__, f"{module}.{name}"
