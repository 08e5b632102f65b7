"""TF 2.21's core names against TF: ``tf.control_dependencies``, ``group``, ``tuple``, ``no_op``, ``is_tensor``,
``get_static_value``, ``make_ndarray``/``make_tensor_proto``, ``tf.debugging.check_numerics``, ``tf.nest`` and
the stateless ``tf.random`` functions.

Golden snippets (tests/golden/namespace_core, tools/make_golden_namespace_core.py) replayed as in
test_image_ops_golden.py: TF's graph node for node (control inputs and static shapes included) where the
snippet's mode has "g", TF's eager values or errors (also from ``tf.function``) where it has "e".
"""

from __future__ import annotations

import pytest

import modtensor as tf

from .frontend_golden import (
    EAGER_CASES,
    GRAPH_CASES,
    case_ids,
    check_eager_case,
    check_graph_case,
    eager_record,
    tensorflow_names,
)


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "core_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


# Errors raised by a tf.function's graph: TF's text also lists the Python stack that defined the failing node
# (and names the node in the cond branch differently); the error class and this text of TF's must match.
_FUNCTION_ERRORS = {
    "core_check_numerics_function": "log : Tensor had Inf values",
    "core_control_dependencies_function_fails": "assertion failed: [neg.  ] [Condition x > 0 did not hold",
    # and names EnsureShape's input "x" (the function's argument) where modtensor's runtime graph has "_recv_x_0"
    "core_ensure_shape_function_fails": "[2,2] is not compatible with expected shape [?,3].",
}


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "core_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    if case_id in _FUNCTION_ERRORS:
        check_eager_case(case_id, message_differs="TF's text lists the Python stack that defined the node")
        assert _FUNCTION_ERRORS[case_id] in EAGER_CASES[case_id]["error"]["message"]
        assert _FUNCTION_ERRORS[case_id] in eager_record(EAGER_CASES[case_id]["code"])["error"]["message"]
        return
    check_eager_case(case_id)


@pytest.mark.parametrize(
    "name",
    [
        "control_dependencies",
        "group",
        "tuple",
        "no_op",
        "is_tensor",
        "get_static_value",
        "make_ndarray",
        "make_tensor_proto",
        "nest",
    ],
)
def test_core_names_are_tensorflows(name: str) -> None:
    assert name in tensorflow_names("tf")
    assert name in tf.__all__ and hasattr(tf, name)


def test_nest_and_random_names_are_tensorflows() -> None:
    assert set(tf.random.__all__) <= tensorflow_names("tf.random")
    assert set(tf.nest.__all__) == {
        "assert_same_structure",
        "flatten",
        "is_nested",
        "map_structure",
        "pack_sequence_as",
    }
