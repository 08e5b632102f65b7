"""``tf.TensorArray`` gives TensorFlow 2.21's values and errors: eagerly (a Python list, TF's
``_EagerTensorArray``) and inside ``tf.function`` (a TensorList, TF's ``_GraphTensorArrayV2``).

The cases are tests/golden/tensor_list/tensor_array.json, written by tools/make_golden_tensor_list.py.
"""

from __future__ import annotations

import pytest

from .tensor_list_golden import check_case, load

CASES = load("tensor_array")


@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_tensor_array_program_matches_tensorflow(case_id: str, mode: str) -> None:
    check_case(CASES, case_id, mode)
