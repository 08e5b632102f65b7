"""TF 2.21's ``tf.sparse`` ops (``to_dense``, ``from_dense``, ``reorder``, ``reshape``, ``fill_empty_rows``,
``reduce_sum``, ``add``, ``concat``, ``slice``, ``sparse_dense_matmul``, ``retain``, ``transpose``, ``expand_dims``,
``segment_*``) and ``tf.nn.embedding_lookup_sparse``: golden snippets (tests/golden/sparse_ops,
tools/make_golden_sparse_ops.py) replayed as in test_text_ops_golden.py; the ops' kernel, shape and OpDef cases are
in tests/kernels and tests/ops.
"""

from __future__ import annotations

import pytest

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "sparse_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "sparse_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)
