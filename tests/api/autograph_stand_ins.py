"""Stand-ins for ``tf.cond``, ``tf.while_loop`` and ``tf.debugging.Assert`` in AutoGraph's tests.

``cond`` traces both branches and selects the results with ``tf.where`` (eagerly it runs
one branch); ``while_loop`` runs eagerly only, as a Python loop; ``Assert`` raises
InvalidArgumentError eagerly. They let the operators' own logic be tested without the
graph control-flow ops.
"""

from __future__ import annotations

from typing import Any

import pytest

import modtensor as tf
from modtensor.api.autograph.operators import structures
from modtensor.framework import errors
from modtensor.framework.tensor import Tensor


class Recorder:
    """Counts the staged calls the operators make."""

    def __init__(self) -> None:
        self.conds = 0
        self.loops: list[dict[str, Any]] = []


def _select(pred: Any, a: Any, b: Any) -> Any:
    a = tf.convert_to_tensor(a)
    b = tf.convert_to_tensor(b)
    return tf.where(pred, a, b)


def fake_cond(recorder: Recorder):
    def cond(pred, true_fn, false_fn, name=None):
        recorder.conds += 1
        if tf.executing_eagerly():
            return true_fn() if bool(pred) else false_fn()
        true_value = true_fn()
        false_value = false_fn()
        structures.assert_same_structure(true_value, false_value)
        leaves = [
            _select(pred, a, b)
            for a, b in zip(structures.flatten(true_value), structures.flatten(false_value), strict=True)
        ]
        return structures.pack_as(true_value, leaves)

    return cond


def fake_while_loop(recorder: Recorder):
    def while_loop(cond, body, loop_vars, shape_invariants=None, maximum_iterations=None, **kwargs):
        assert tf.executing_eagerly(), "the stand-in while_loop runs eagerly only"
        recorder.loops.append(
            {"shape_invariants": shape_invariants, "maximum_iterations": maximum_iterations, **kwargs}
        )
        values = tuple(tf.convert_to_tensor(v) if not isinstance(v, Tensor) else v for v in loop_vars)
        while bool(cond(*values)):
            values = tuple(body(*values))
        return values

    return while_loop


def fake_assert(condition, data, summarize=None, name=None):
    if tf.executing_eagerly() and not bool(condition):
        raise errors.InvalidArgumentError(None, None, "assertion failed: " + str([str(d) for d in data]))


class _Debugging:
    Assert = staticmethod(fake_assert)


def install(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """Put the stand-ins on ``modtensor`` for one test; returns what records their calls."""
    recorder = Recorder()
    monkeypatch.setattr(tf, "cond", fake_cond(recorder), raising=False)
    monkeypatch.setattr(tf, "while_loop", fake_while_loop(recorder), raising=False)
    monkeypatch.setattr(tf, "debugging", _Debugging, raising=False)
    return recorder
