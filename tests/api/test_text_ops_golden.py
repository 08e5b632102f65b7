"""TF 2.21's text ops (``tf.strings.strip``, ``ngrams``, ``regex_full_match``, ``to_hash_bucket``,
``to_hash_bucket_strong``, ``unsorted_segment_join``, ``tf.io.encode_base64``/``decode_base64``, ``tf.fingerprint``,
``tf.raw_ops.Bucketize``): golden snippets (tests/golden/text_ops, tools/make_golden_text_ops.py) replayed as in
test_spectral_ops_golden.py; the ops' kernel, shape and OpDef cases are in tests/kernels and tests/ops.
"""

from __future__ import annotations

import pytest

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "textop_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "textop_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)
