"""TF 2.21's Unicode string ops (``tf.strings.unicode_decode``, ``unicode_decode_with_offsets``, ``unicode_split``,
``unicode_split_with_offsets``, ``unicode_encode``, ``unicode_transcode``, ``unicode_script``): golden snippets
(tests/golden/unicode, tools/make_golden_unicode.py) replayed as in test_text_ops_golden.py; the ops' kernel, shape
and OpDef cases are in tests/kernels and tests/ops.
"""

from __future__ import annotations

import pytest

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "unicode_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "unicode_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)
