"""TF 2.21's ragged tensors (``tf.RaggedTensor``'s constructors and methods, ``tf.ragged.constant``, ``range``,
``map_flat_values``, ``boolean_mask``, and the ops through ``tf.raw_ops``), from tools/make_golden_ragged.py, as in
test_text_ops_golden.py; the ops' kernel, shape and OpDef cases are in tests/kernels and tests/ops.
"""

from __future__ import annotations

import pytest

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "ragged_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "ragged_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)
