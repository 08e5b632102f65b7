"""AutoGraph's staging operators (``if_stmt``, ``while_stmt``, ``for_stmt``, ``if_exp``, ``and_``/``or_``) on tensors.

These tests check AutoGraph's own part of staging: which state goes through the staged
statement, and TensorFlow's checks and error texts for it. They run against small
stand-ins for ``tf.cond`` (both branches traced, results selected with ``tf.where``),
``tf.while_loop`` (eager only: a Python loop) and ``tf.debugging.Assert`` installed for the
test, so they do not depend on the graph control-flow ops; the golden programs
(``test_autograph_golden.py``) cover the real ones.
"""

# ruff: noqa: SIM108, F841 - the test programs keep the statement forms AutoGraph converts

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import modtensor as tf
from modtensor.api.autograph.operators import control_flow, py_builtins, structures
from modtensor.api.autograph.operators.variables import Undefined, UndefinedReturnValue
from modtensor.framework import errors
from modtensor.framework.tensor import Tensor
from tests.api import autograph_stand_ins as stand_ins
from tests.api.autograph_stand_ins import Recorder


@pytest.fixture
def staged(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    return stand_ins.install(monkeypatch)


def _cause(e: BaseException) -> str:
    metadata = getattr(e, "ag_error_metadata", None)
    return metadata.cause_message if metadata is not None else f"{type(e).__name__}: {e}"


# ============================================================================ if


def test_tensor_if_stages_one_cond_with_the_branch_outputs(staged: Recorder) -> None:
    @tf.function
    def f(x):
        y = x
        unused_after = 1
        if x > 0:
            y = x * 2
            unused_after = 2
        else:
            y = -x
        return y

    assert f(tf.constant(3)).numpy() == 6
    assert f(tf.constant(-4)).numpy() == 4
    assert staged.conds == 1 and f.experimental_get_tracing_count() == 1


def test_tensor_if_without_outputs_still_stages(staged: Recorder) -> None:
    side = []

    @tf.function
    def f(x):
        if x > 0:
            side.append("main")
        else:
            side.append("else")
        return x

    assert f(tf.constant(1)).numpy() == 1
    assert side == ["main", "else"]  # both branches are traced once each


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("if x > 0:\n        y = x\n    return y", "ValueError: 'y' must also be initialized in the else branch"),
        (
            "if x > 0:\n        pass\n    else:\n        y = x\n    return y",
            "ValueError: 'y' must also be initialized in the main branch",
        ),
        (
            "if x > 0:\n        y = 1\n    else:\n        y = 1.0\n    return y",
            "TypeError: 'y' has dtype int32 in the main branch, but dtype float32 in the else branch",
        ),
        ("if x > 0:\n        return x", "ValueError: the else branch must also have a return statement."),
        (
            "y = x\n    if x > 0:\n        y = None\n    return y",
            "ValueError: 'y' is None at the end of the main branch.",
        ),
        (
            "if x:\n        x = x + 1\n    return x",
            'ValueError: condition of if statement expected to be `tf.bool` scalar, got Tensor("x:0", shape=(), '
            "dtype=int32); to use as boolean Tensor, use `tf.cast`; to check for None, use `is not None`",
        ),
    ],
)
def test_tensor_if_errors(staged: Recorder, body: str, message: str, tmp_path: Any) -> None:
    source = f"def f(x):\n    {body}\n"
    path = tmp_path / "program.py"
    path.write_text(source)
    namespace: dict[str, Any] = {}
    exec(compile(source, str(path), "exec"), namespace)  # noqa: S102 - a test program with a real file
    with pytest.raises(Exception) as info:  # noqa: B017, PT011 - the class is part of the message checked
        tf.function(namespace["f"])(tf.constant(1))
    assert _cause(info.value) == message
    assert str(info.value).startswith("in user code:")


def test_nested_structure_mismatch_names_the_variable(staged: Recorder) -> None:
    @tf.function
    def f(x):
        if x > 0:
            y = [x]
        else:
            y = x
        return y

    with pytest.raises(TypeError) as info:
        f(tf.constant(1))
    cause = _cause(info.value)
    assert cause.startswith(
        "TypeError: 'y' must have the same nested structure in the main and else branches:\n\n"
        "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=["
    )
    assert 'More specifically: Substructure "type=list' in cause and "Entire first structure:\n[.]" in cause


def test_tensor_condition_of_rank_one_with_one_element_is_reshaped(staged: Recorder) -> None:
    @tf.function
    def f(x):
        if x > 0:
            y = 1
        else:
            y = 2
        return y

    assert f(tf.constant([5])).numpy() == 1
    with pytest.raises(ValueError, match=re.escape("condition of if statement expected to be `tf.bool` scalar")):
        f(tf.constant([5, 6]))


def test_if_exp_and_logical_operators_on_tensors(staged: Recorder) -> None:
    @tf.function
    def f(x):
        a = x if x > 0 else -x
        b = (x > 0) and (x < 10)
        c = (x < 0) or (x > 100)
        return a, b, c, not (x > 0)

    out = [t.numpy() for t in f(tf.constant(-3))]
    assert out == [3, False, True, True]
    assert staged.conds == 3


def test_if_exp_dtype_mismatch_names_the_condition(staged: Recorder) -> None:
    @tf.function
    def f(x):
        return x if x > 0 else 1.0

    with pytest.raises(TypeError) as info:
        f(tf.constant(1))
    assert (
        _cause(info.value)
        == "TypeError: 'x > 0' has dtype int32 in the main branch, but dtype float32 in the else branch"
    )


def test_python_and_or_keep_short_circuit_and_values() -> None:
    from modtensor.api.autograph.operators import logical

    calls = []

    def right():
        calls.append("right")
        return "r"

    assert logical.and_(lambda: 0, right) == 0 and calls == []
    assert logical.or_(lambda: "left", right) == "left" and calls == []
    assert logical.and_(lambda: 1, right) == "r" and calls == ["right"]
    assert logical.not_([]) is True


# ============================================================================ loops (eager stand-in)


def test_tensor_while_loop_carries_changed_variables(staged: Recorder) -> None:
    def f(n):
        i = 0
        total = tf.constant(0)
        while i < n:
            i += 1
            total += i
        return i, total

    i, total = tf.autograph.to_graph(f)(tf.constant(4))
    assert (int(i), int(total)) == (4, 10)
    assert len(staged.loops) == 1


def test_for_over_eager_tensor_and_range(staged: Recorder) -> None:
    def f(x, n):
        total = tf.constant(0.0)
        for row in x:
            total += tf.reduce_sum(row)
        count = 0
        for i in range(n):
            count += i
        return total, count

    total, count = tf.autograph.to_graph(f)(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant(4))
    assert float(total) == 10.0 and int(count) == 6
    assert len(staged.loops) == 2


def test_break_and_continue_in_tensor_loops(staged: Recorder) -> None:
    def f(n):
        total = tf.constant(0)
        for i in tf.range(n):
            if i % 2 == 0:
                continue
            if i > 6:
                break
            total += i
        return total

    assert int(tf.autograph.to_graph(f)(tf.constant(20))) == 1 + 3 + 5


def test_loop_variable_dtype_change_is_an_error(staged: Recorder) -> None:
    def f(x):
        while x > 0:
            x = 1.0
        return x

    with pytest.raises(TypeError, match="'x' has dtype int32 before the loop, but dtype float32 after one iteration"):
        tf.autograph.to_graph(f)(tf.constant(1))


def test_loop_variable_shape_change_needs_shape_invariants(staged: Recorder) -> None:
    def grows(x):
        while tf.shape(x)[0] < 8:
            x = tf.concat([x, x], 0)
        return x

    with pytest.raises(
        ValueError,
        match=re.escape(
            "'x' has shape (2,) before the loop, but shape (4,) after one iteration. Use "
            "tf.autograph.experimental.set_loop_options to set shape invariants."
        ),
    ):
        tf.autograph.to_graph(grows)(tf.constant([1, 2]))

    def declared(x):
        while tf.shape(x)[0] < 8:
            tf.autograph.experimental.set_loop_options(shape_invariants=[(x, tf.TensorShape([None]))])
            x = tf.concat([x, x], 0)
        return x

    assert tf.autograph.to_graph(declared)(tf.constant([1, 2])).numpy().tolist() == [1, 2] * 4
    assert staged.loops[-1]["shape_invariants"][0] == tf.TensorShape([None])


def test_loop_options_reach_the_loop(staged: Recorder) -> None:
    def f(n):
        i = tf.constant(0)
        while i < n:
            tf.autograph.experimental.set_loop_options(parallel_iterations=3, maximum_iterations=7)
            i += 1
        return i

    assert int(tf.autograph.to_graph(f)(tf.constant(2))) == 2
    assert staged.loops[-1]["parallel_iterations"] == 3 and staged.loops[-1]["maximum_iterations"] == 7
    assert "set_loop_options" not in tf.autograph.to_code(f)


def test_variable_first_defined_in_a_tensor_loop(staged: Recorder) -> None:
    def f(n):
        for i in tf.range(n):
            last = i * 10
        return last

    assert int(tf.autograph.to_graph(f)(tf.constant(3))) == 20
    with pytest.raises(errors.InvalidArgumentError, match="loop must iterate at least once to initialize last"):
        tf.autograph.to_graph(f)(tf.constant(0))


def test_none_loop_variable_gets_a_placeholder_from_the_first_iteration(staged: Recorder) -> None:
    def f(n):
        y = None
        for i in tf.range(n):
            y = i + 1
        return y

    assert int(tf.autograph.to_graph(f)(tf.constant(2))) == 2


def test_undefined_loop_variable_that_cannot_be_staged_names_the_cause(staged: Recorder) -> None:
    def f(n):
        for i in tf.range(n):
            if i > 100:
                y = "text"  # a Python string: no placeholder can stand for it
            y = object()
        return y

    with pytest.raises(ValueError) as info:
        tf.autograph.to_graph(f)(tf.constant(2))
    message = str(info.value)
    assert message.startswith(
        "'y' must be defined before the loop\nNote: AutoGraph tried to define it automatically, but ran into a "
        "TypeError: Found an unsupported type 'object'"
    ), message


def test_attribute_state_goes_through_a_tensor_loop(staged: Recorder) -> None:
    class Acc:
        def __init__(self):
            self.total = tf.constant(0)
            self.calls = 0

        def run(self, n):
            for i in tf.range(n):
                self.total += i
            self.calls += 1
            return self.total

    acc = Acc()
    assert int(tf.autograph.to_graph(acc.run)(tf.constant(5))) == 10
    assert int(acc.total) == 10 and acc.calls == 1
    assert "ag__.ldu(lambda: self.total, 'self.total')" in tf.autograph.to_code(Acc.run)


def test_tensor_break_in_python_loop_is_refused(staged: Recorder) -> None:
    @tf.function
    def f(x):
        for i in range(3):
            if x > i:
                break
        return x

    with pytest.raises(NotImplementedError) as info:
        f(tf.constant(1))
    assert _cause(info.value).startswith(
        "NotImplementedError: break and return statements which depend on a TF condition are not supported in "
        "Python for loops. Did you intend to make it a TF loop?"
    )


# ============================================================================ builtins


def test_range_of_a_tensor_is_tf_range_and_python_range_stays_python() -> None:
    assert py_builtins.range_(3) == range(3)
    assert py_builtins.range_(1, 5, 2) == range(1, 5, 2)
    r = py_builtins.range_(tf.constant(3))
    assert isinstance(r, Tensor) and r.numpy().tolist() == [0, 1, 2]
    assert py_builtins.range_(tf.constant(5), 2).numpy().tolist() == []  # empty, not an error


def test_len_of_tensors() -> None:
    assert py_builtins.len_([1, 2]) == 2
    assert py_builtins.len_(tf.constant([[1, 2], [3, 4], [5, 6]])) == 3

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def dynamic(x):
        return len(x)

    assert int(dynamic(tf.ones([4, 2]))) == 4
    with pytest.raises(ValueError, match="len requires a non-scalar tensor"):
        py_builtins.len_(tf.constant(1))


def test_int_float_abs_of_tensors() -> None:
    assert py_builtins.int_(tf.constant(2.7)).numpy() == 2
    assert py_builtins.float_(tf.constant(2)).dtype == tf.float32
    assert py_builtins.abs_(tf.constant(-3)).numpy() == 3
    assert py_builtins.int_("ff", 16) == 255


# ============================================================================ unit checks with TF's texts


def test_verify_loop_init_vars_texts() -> None:
    with pytest.raises(ValueError, match="^'x' is not allowed to be None before the loop$"):
        control_flow.verify_loop_init_vars((None,), ("x",))
    with pytest.raises(ValueError, match="^'x' must be defined before the loop$"):
        control_flow.verify_loop_init_vars((Undefined("x"),), ("x",))
    with pytest.raises(NotImplementedError, match="a return statement cannot be placed inside this TensorFlow loop"):
        control_flow.verify_loop_init_vars((UndefinedReturnValue(),), ("retval_",))


def test_structure_texts_match_tensorflow_nest() -> None:
    cases = [
        (
            (1, 2),
            (1, 2, 3),
            "The two structures don't have the same number of elements. First structure: "
            "type=tuple str=(1, 2). Second structure: type=tuple str=(1, 2, 3)\nEntire first structure:\n(., .)\n"
            "Entire second structure:\n(., ., .)",
        ),
        (
            {"a": 1},
            {"b": 1},
            "The two dictionaries don't have the same set of keys. First structure has keys "
            "type=list str=['a'], while second structure has keys type=list str=['b']\nEntire first structure:\n"
            "{'a': .}\nEntire second structure:\n{'b': .}",
        ),
    ]
    for a, b, tail in cases:
        with pytest.raises(ValueError) as info:
            structures.assert_same_structure(a, b)
        assert str(info.value).endswith("More specifically: " + tail)
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        structures.assert_same_structure([1, 2], (1, 2))


def test_python_loop_iteration_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(control_flow, "PYTHON_MAX_ITERATIONS", 5)

    def f():
        i = 0
        while i < 10:
            i += 1
        return i

    with pytest.raises(ValueError, match="iteration limit exceeded"):
        tf.autograph.to_graph(f)()
    assert np.asarray(1) == 1


def test_len_of_a_tensor_array_is_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    module = sys.modules.get("modtensor.api.tensor_array_ops")
    if module is None or not hasattr(module, "TensorArray"):

        class TensorArray:
            def size(self):
                return "size()"

        module = types.SimpleNamespace(TensorArray=TensorArray)
        monkeypatch.setitem(sys.modules, "modtensor.api.tensor_array_ops", module)
        assert py_builtins.len_(TensorArray()) == "size()"
    else:
        array = module.TensorArray(tf.float32, size=3)
        assert int(py_builtins.len_(array)) == 3
