"""TF 2.21's ``tf.strings.as_string`` (``tf.as_string``) and ``tf.strings.reduce_join`` against TF.

Golden snippets (tests/golden/namespace_strings, tools/make_golden_namespace_strings.py) replayed as in
test_namespace_core_golden.py: TF's graph node for node (static shapes included) where the snippet's mode has
"g", TF's eager values or errors where it has "e". AsString's printf formats cover every dtype modtensor has
(ints, float16/bfloat16/float32/float64 with nan, inf, -0 and denormals, bool, complex, string); the op-level
kernel and shape cases are under ``ops/`` (tests/kernels/test_golden_kernels.py, tests/ops/test_golden_shapes.py).
"""

from __future__ import annotations

import pytest

import modtensor as tf

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "nsstr_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "nsstr_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


def test_names_are_tensorflows() -> None:
    assert tf.as_string is tf.strings.as_string
    assert "as_string" in tf.__all__
    assert {"as_string", "reduce_join"} <= set(tf.strings.__all__)
