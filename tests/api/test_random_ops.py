"""``tf.random.normal`` / ``uniform`` and TF's seed rules: the same seeds give TensorFlow's numbers.

Golden snippets (as in test_math_ops.py) check the (seed, seed2) attrs TF puts on random
nodes in graphs, and the values TF draws eagerly after ``tf.random.set_seed``; the unit
tests below pin the rules of ``random_seed.get_seed`` themselves.
"""

from __future__ import annotations

import pytest

import modtensor as tf
from modtensor.api import random_ops

from .frontend_golden import (
    EAGER_CASES,
    GRAPH_CASES,
    case_ids,
    check_eager_case,
    check_graph_case,
    tensorflow_names,
)


@pytest.fixture(autouse=True)
def _no_global_seed():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "random_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "random_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


def test_random_module_has_tensorflows_names() -> None:
    assert set(tf.random.__all__) <= tensorflow_names("tf.random")


def test_get_seed_rules() -> None:
    assert random_ops.get_seed(None) == (None, None)
    assert random_ops.get_seed(5) == (random_ops.DEFAULT_GRAPH_SEED, 5)
    assert random_ops.get_seed(2**31 + 6) == (random_ops.DEFAULT_GRAPH_SEED, 7)  # truncated modulo 2**31 - 1
    tf.random.set_seed(0)
    assert random_ops.get_seed(0) == (0, 2**31 - 1)  # (0, 0) would mean "nondeterministic" to the kernels


def test_graph_seed_numbers_ops_per_graph() -> None:
    for _ in range(2):
        g = tf.Graph()
        with g.as_default():
            tf.random.set_seed(11)
            assert g.seed == 11
            seeds = [random_ops.get_seed(None) for _ in range(3)]
        assert seeds == [(11, 0), (11, 1), (11, 2)]


def test_set_seed_restarts_the_eager_sequence() -> None:
    tf.random.set_seed(3)
    first = [tf.random.uniform([2]).numpy().tolist() for _ in range(2)]
    tf.random.set_seed(3)
    again = [tf.random.uniform([2]).numpy().tolist() for _ in range(2)]
    assert first == again and first[0] != first[1]
