"""``tf.image.non_max_suppression`` and ``non_max_suppression_with_scores`` against TF 2.21: golden snippets
(tests/golden/nms, tools/make_golden_nms.py) replayed as in test_spectral_ops_golden.py; NonMaxSuppressionV3-V5's
kernel, shape and OpDef cases are in tests/kernels and tests/ops.
"""

from __future__ import annotations

import pytest

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "nms_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "nms_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)
