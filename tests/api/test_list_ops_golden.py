"""The TensorList ops give TensorFlow 2.21's values and errors, eagerly and inside ``tf.function``.

Each case of tests/golden/tensor_list/list_ops.json (written by tools/make_golden_tensor_list.py)
is a snippet of TF's ``list_ops`` calls; it runs here with ``modtensor.api.list_ops``.
"""

from __future__ import annotations

import pytest

from .tensor_list_golden import check_case, load

CASES = load("list_ops")


@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_list_program_matches_tensorflow(case_id: str, mode: str) -> None:
    check_case(CASES, case_id, mode)
