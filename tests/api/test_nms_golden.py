"""``tf.image.non_max_suppression``, ``non_max_suppression_with_scores`` and ``combined_non_max_suppression``
against TF 2.21: golden snippets (tests/golden/nms, tools/make_golden_nms.py) replayed as in
test_spectral_ops_golden.py; the kernel, shape and OpDef cases of NonMaxSuppressionV3-V5 and
CombinedNonMaxSuppression are in tests/kernels and tests/ops.
"""

from __future__ import annotations

import re

import pytest

import modtensor as tf

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "nms_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "nms_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


@pytest.mark.parametrize(("boxes", "scores", "message"), [
    ([2, 5, 1, 4], [2, 5], "scores must be 3-D[2,5]"),
    ([], [2, 5, 3], "boxes must be 4-D[]"),
    ([2, 5, 1, 4], [], "scores must be 3-D[]"),
])  # fmt: skip
def test_combined_rank_errors_where_tensorflow_aborts(boxes: list[int], scores: list[int], message: str) -> None:
    """TF 2.21's CombinedNonMaxSuppression kernel reads dimensions these inputs lack and aborts the process (a CHECK
    in TensorShape::dim_size); modtensor raises the rank error TF's own checks word."""
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(message)):
        tf.image.combined_non_max_suppression(tf.zeros(boxes), tf.zeros(scores), 2, 3)
