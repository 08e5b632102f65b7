"""``tf.debugging`` assertions raise TensorFlow 2.21's errors (class and message) eagerly and inside
``tf.function`` (statically known checks at trace time, the others when the function runs).

The cases are tests/golden/tensor_list/asserts.json, written by tools/make_golden_tensor_list.py.
"""

from __future__ import annotations

import pytest

from .tensor_list_golden import check_case, load

CASES = load("asserts")


@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_assert_program_matches_tensorflow(case_id: str, mode: str) -> None:
    check_case(CASES, case_id, mode)
