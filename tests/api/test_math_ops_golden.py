"""tf.math's trigonometric and hyperbolic functions (tan, asin, acos, atan, atan2, sinh, cosh, asinh, acosh, atanh),
rint, nextafter, multiply_no_nan, reciprocal_no_nan and tf.truncatediv / truncatemod against TF 2.21.

Golden snippets (tests/golden/math_ops, tools/make_golden_math_ops.py) replayed as in test_spectral_ops_golden.py:
TF's graph node for node where the snippet's mode has "g", TF's eager values, gradients and errors where it has
"e". The ops' own kernel, shape and OpDef cases are in tests/kernels/test_golden_kernels.py and tests/ops.
"""

from __future__ import annotations

import pytest

import modtensor as tf

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "mathop_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "mathop_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


def test_names_live_where_tensorflows_do() -> None:
    top_level = {"tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh", "atanh", "truncatediv",
                 "truncatemod"}  # fmt: skip
    math_only = {"rint", "nextafter", "multiply_no_nan", "reciprocal_no_nan"}
    assert top_level <= set(dir(tf)) and not math_only & set(dir(tf))
    assert (top_level - {"truncatediv", "truncatemod"}) | math_only <= set(tf.math.__all__)
    assert not {"truncatediv", "truncatemod"} & set(dir(tf.math))
