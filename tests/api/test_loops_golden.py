"""TensorArrays, TensorLists, print and asserts inside ``tf.while_loop``, and map_fn/scan/foldl that need a loop.

Each case of tests/golden/tensor_list/loops.json (written by tools/make_golden_tensor_list.py)
is a TF 2.21 snippet - a TensorArray or a TensorList carried by a while loop, ``tf.print`` and
``tf.debugging.assert_less`` in a loop body, ``map_fn``/``scan`` over a tensor of dynamic length,
nested ``map_fn``, ``foldl`` in a loop body - run here eagerly and inside ``tf.function`` (where
the loops are functional While nodes, lowered to v1 control flow for the executor).
"""

from __future__ import annotations

import pytest

from .tensor_list_golden import check_case, load

CASES = load("loops")


@pytest.mark.parametrize("mode", ["eager", "function"])
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_loop_program_matches_tensorflow(case_id: str, mode: str) -> None:
    check_case(CASES, case_id, mode)
