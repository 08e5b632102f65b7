"""``tf.print`` and ``tf.strings.format`` print what TensorFlow 2.21 prints (TF's tensor summaries, pprint'ed
structures, separators, streams) and raise its errors, eagerly and inside ``tf.function``.

The cases are tests/golden/tensor_list/print.json, written by tools/make_golden_tensor_list.py,
which captured TF's stdout and stderr.
"""

from __future__ import annotations

import pytest

from .tensor_list_golden import check_case, load

CASES = load("print")


@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_print_program_matches_tensorflow(case_id: str, mode: str) -> None:
    got = check_case(CASES, case_id, mode, capture=True)
    want = CASES[case_id][mode]
    assert got.get("stdout", "") == want.get("stdout", "")
    assert got.get("stderr", "") == want.get("stderr", "")
