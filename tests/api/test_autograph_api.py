"""``modtensor.autograph``'s user functions and the rules of what a converted function converts.

``to_code`` shows the converted source (the functional forms of the control flow, as
TensorFlow prints them), ``to_graph`` returns the converted function, ``do_not_convert``
and ``autograph=False`` turn conversion off, optional ``Feature``s change what is
converted, and errors raised in converted code name the user's lines.
"""

# ruff: noqa: SIM108, F841 - the test programs keep the statement forms AutoGraph converts

from __future__ import annotations

import functools
import logging
import subprocess
import sys
from typing import Any

import pytest

import modtensor as tf
from modtensor.api.autograph import conversion
from modtensor.api.autograph.config import ConversionOptions, Feature
from modtensor.api.autograph.errors import StagingError


def _sign(x):
    if x > 0:
        y = 1
    else:
        y = -1
    return y


def test_public_names_are_tensorflows() -> None:
    assert tf.autograph.experimental.Feature is Feature
    assert callable(tf.autograph.to_code) and callable(tf.autograph.to_graph) and callable(tf.autograph.trace)
    assert callable(tf.autograph.experimental.do_not_convert)
    assert callable(tf.autograph.experimental.set_loop_options)
    assert set(Feature.all_but(Feature.LISTS)) == set(Feature) - {Feature.ALL, Feature.LISTS}
    assert Feature.all() == tuple(Feature)


def test_to_code_shows_the_functional_forms() -> None:
    code = tf.autograph.to_code(_sign)
    assert code.startswith("def tf___sign(x):\n    with ag__.FunctionScope('_sign', 'fscope', ag__.ConversionOptions(")
    assert "ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body, get_state, set_state, ('y',), 1)" in code
    assert "return fscope.ret(retval_, do_return)" in code
    compile(code, "<to_code>", "exec")  # valid Python


def test_to_code_of_loops_and_lambdas() -> None:
    def loops(n):
        total = 0
        for i in range(n):
            if i > 5:
                break
            total += i
        while total > 3:
            total -= 3
        return total

    code = tf.autograph.to_code(loops)
    assert "ag__.for_stmt(ag__.converted_call(ag__.ld(range), (ag__.ld(n),), None, fscope), extra_test," in code
    assert "{'iterate_names': 'i'}" in code and "break_ = False" in code
    assert "ag__.while_stmt(loop_test, loop_body_1, get_state_" in code
    square_or_negate = lambda x: x * x if x > 0 else -x  # noqa: E731 - a lambda on purpose
    lambda_code = tf.autograph.to_code(square_or_negate)
    assert lambda_code.startswith("tf__lam = lambda x: ag__.with_function_scope(lambda lscope: ag__.if_exp(x > 0,")
    assert "'x > 0')" in lambda_code


def test_to_graph_returns_the_converted_function() -> None:
    converted = tf.autograph.to_graph(_sign)
    assert converted is not _sign and converted.__name__ == "tf___sign"
    assert converted(3) == 1 and converted(-2) == -1
    assert tf.autograph.to_graph(tf.function(_sign))(5) == 1  # the Python function behind a tf.function


def test_to_graph_of_methods_and_callable_objects() -> None:
    class Scale:
        def __init__(self, k):
            self.k = k

        def apply(self, v):
            if v > 0:
                return v * self.k
            return 0

        def __call__(self, v):
            return self.apply(v) + 1

    s = Scale(3)
    assert tf.autograph.to_graph(s.apply)(2) == 6
    assert tf.autograph.to_graph(s)(2) == 7
    assert "ag__.if_stmt" in tf.autograph.to_code(s.apply)


def test_conversion_is_cached_per_code_object_and_options() -> None:
    options = ConversionOptions(recursive=True, user_requested=True, optional_features=None)
    first = conversion.convert(_sign, options)
    second = conversion.convert(_sign, options)
    assert first is not second and first.__code__ is second.__code__


def test_converted_code_reports_the_users_file_and_line() -> None:
    def fails(x):
        if x > 0:
            raise RuntimeError("bad value")
        return x

    with pytest.raises(RuntimeError) as info:
        tf.autograph.to_graph(fails)(1)
    frames = [f for f in info.traceback if str(f.path) == __file__]
    assert any("raise RuntimeError" in str(f.statement) for f in frames)


def test_user_error_in_function_is_reported_in_user_code() -> None:
    def helper(a):
        return a["missing"]

    @tf.function
    def f(x):
        return helper({"other": x})

    with pytest.raises(KeyError) as info:
        f(tf.constant(1))
    message = str(info.value)
    lines = message.split("\n")
    assert lines[0] == "in user code:" and lines[1] == ""
    assert lines[2].startswith(f'    File "{__file__}", line ') and lines[2].endswith(", in f  *")
    assert lines[3] == '        return helper({"other": x})'
    assert lines[4].endswith(", in helper  *") and lines[5] == '        return a["missing"]'
    assert lines[-2] == "    KeyError: 'missing'"
    assert isinstance(info.value, KeyError)


def test_error_types_that_cannot_take_a_message_become_staging_errors() -> None:
    class Custom(Exception):
        def __init__(self, a, b):
            super().__init__(a, b)

    class Simple(Exception):
        pass

    @tf.function
    def custom(x):
        raise Custom(1, 2)

    @tf.function
    def simple(x):
        raise Simple("plain")

    with pytest.raises(StagingError, match="in user code:"):
        custom(tf.constant(1))
    with pytest.raises(Simple, match="in user code:(.|\n)*Simple: plain"):
        simple(tf.constant(1))


def test_op_errors_keep_their_class() -> None:
    @tf.function
    def f(x):
        return tf.reshape(x, [3])

    with pytest.raises((ValueError, tf.errors.InvalidArgumentError)) as info:
        f(tf.constant([1, 2]))
    assert str(info.value).startswith("in user code:")


def test_do_not_convert_leaves_the_function_and_its_callees_alone() -> None:
    def helper(x):
        if x > 0:  # a tensor condition: only valid when converted
            return x
        return -x

    @tf.autograph.experimental.do_not_convert
    def plain(x):
        return helper(x)

    @tf.function
    def f(x):
        return plain(x)

    with pytest.raises(TypeError, match="Python `bool`"):
        f(tf.constant(1))
    assert tf.autograph.experimental.do_not_convert(_sign)(2) == 1


def test_autograph_false_traces_python_as_it_is() -> None:
    @tf.function(autograph=False)
    def f(x, flag):
        if flag:
            return x + 1
        return x - 1

    assert f(tf.constant(1), True).numpy() == 2
    with pytest.raises(TypeError, match="Python `bool`"):
        f(tf.constant(1), tf.constant(True))


def test_modtensor_and_numpy_functions_are_called_unconverted(monkeypatch: pytest.MonkeyPatch) -> None:
    converted: list[Any] = []
    original = conversion.convert

    def spy(entity, options):
        converted.append(getattr(entity, "__qualname__", entity))
        return original(entity, options)

    monkeypatch.setattr(conversion, "convert", spy)
    import numpy as np

    def user_helper(v):
        return v * 2

    @tf.function
    def f(x):
        y = tf.reduce_sum(x) + np.float32(np.sqrt(4.0))
        z = functools.reduce(lambda a, b: a + b, [1, 2, 3])
        return user_helper(y) + z

    assert f(tf.constant([1.0, 2.0])).numpy() == 16.0
    assert any(name.endswith("user_helper") for name in converted)
    assert not any("reduce_sum" in name or "sqrt" in name for name in converted)


def test_functions_without_source_run_unconverted_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    namespace: dict[str, Any] = {}
    exec("def dynamic(x):\n    return x + 1\n", namespace)  # noqa: S102 - code with no source file on purpose

    @tf.function
    def f(x):
        return namespace["dynamic"](x)

    with caplog.at_level(logging.WARNING, logger="modtensor.autograph"):
        assert f(tf.constant(1)).numpy() == 2
    # exec'd code ("<string>") is called as it is, without a warning (TensorFlow's rule)
    assert not [r for r in caplog.records if "could not transform" in r.getMessage()]


def test_unsupported_features_fall_back_with_tensorflows_warning(caplog: pytest.LogCaptureFixture) -> None:
    def with_loop_else(x):
        for i in range(2):
            x = x + i
        else:
            x = x * 10
        return x

    @tf.function
    def f(x):
        return with_loop_else(x)

    with caplog.at_level(logging.WARNING, logger="modtensor.autograph"):
        assert f(tf.constant(1)).numpy() == 20
    messages = [r.getMessage() for r in caplog.records]
    assert any(
        m.startswith("AutoGraph could not transform <function")
        and "Cause: for/else statement not yet supported" in m
        and m.endswith("To silence this warning, decorate the function with @tf.autograph.experimental.do_not_convert")
        for m in messages
    ), messages


def test_assert_statements_feature(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []

    class Debugging:
        @staticmethod
        def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
            seen.append((condition, data))

    monkeypatch.setattr(tf, "debugging", Debugging, raising=False)

    def f(x):
        assert x > 0, "x must be positive"
        return x

    code = tf.autograph.to_code(f, experimental_optional_features=Feature.ASSERT_STATEMENTS)
    assert "ag__.assert_stmt(ag__.ld(x) > 0, lambda: 'x must be positive')" in code
    assert "assert_stmt" not in tf.autograph.to_code(f)
    fn = tf.function(f, experimental_autograph_options=Feature.ASSERT_STATEMENTS)
    assert fn(tf.constant(3)).numpy() == 3
    assert len(seen) == 1 and seen[0][1] == ["x must be positive"]
    with pytest.raises(AssertionError, match="x must be positive"):
        tf.autograph.to_graph(f, experimental_optional_features=Feature.ASSERT_STATEMENTS)(-1)


def test_equality_operators_feature() -> None:
    def f(a, b):
        return a == b, a != b

    assert "ag__.eq(ag__.ld(a), ag__.ld(b))" in tf.autograph.to_code(
        f, experimental_optional_features=Feature.EQUALITY_OPERATORS
    )
    assert "ag__.eq" not in tf.autograph.to_code(f)
    converted = tf.autograph.to_graph(f, experimental_optional_features=Feature.EQUALITY_OPERATORS)
    assert converted(1, 1) == (True, False)
    eq, ne = converted(tf.constant([1, 2]), 1)
    assert eq.numpy().tolist() == [True, False] and ne.numpy().tolist() == [False, True]


def test_print_is_converted_only_with_builtin_functions(capsys: pytest.CaptureFixture[str]) -> None:
    def f(x):
        print("x is", x)
        return x

    assert "converted_call(print" not in tf.autograph.to_code(f)
    code = tf.autograph.to_code(f, experimental_optional_features=Feature.BUILTIN_FUNCTIONS)
    assert "ag__.converted_call(ag__.ld(print), ('x is', ag__.ld(x)), None, fscope)" in code
    tf.autograph.to_graph(f, experimental_optional_features=Feature.BUILTIN_FUNCTIONS)(5)
    assert capsys.readouterr().out == "x is 5\n"


def test_name_scopes_feature() -> None:
    def helper(v):
        return v + 1

    def f(x):
        return helper(x)

    fn = tf.function(f, experimental_autograph_options=Feature.NAME_SCOPES)
    names = [op.name for op in fn.get_concrete_function(tf.constant(1)).graph.get_operations()]
    assert any(name.startswith("f/helper/") for name in names), names


def test_trace_prints_at_trace_time_only(capsys: pytest.CaptureFixture[str]) -> None:
    @tf.function
    def f(x):
        tf.autograph.trace("tracing with", x.dtype.name)
        return x

    f(tf.constant(1))
    f(tf.constant(2))
    assert capsys.readouterr().out == "tracing with int32\n"


def test_set_verbosity_logs_conversion_details(caplog: pytest.LogCaptureFixture) -> None:
    tf.autograph.set_verbosity(1)
    try:
        namespace: dict[str, Any] = {}

        def broken(x):
            for i in range(2):
                x = x + i
            else:
                pass
            return x

        namespace["broken"] = broken
        with caplog.at_level(logging.INFO, logger="modtensor.autograph"):
            tf.function(broken)(tf.constant(1))
        assert any("Error transforming entity" in r.getMessage() for r in caplog.records)
    finally:
        tf.autograph.set_verbosity(0)


def test_importing_modtensor_does_not_load_autograph() -> None:
    code = "import sys, modtensor; print('modtensor.api.autograph' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_recursive_function_and_nested_tf_function() -> None:
    def fact(n):
        if n <= 1:
            return 1
        return n * fact(n - 1)

    @tf.function
    def inner(v):
        return v * 2

    @tf.function
    def f(x):
        return inner(x) * fact(4)

    assert f(tf.constant(1)).numpy() == 48


def test_partial_and_builtins_through_converted_call() -> None:
    def add(a, b, scale=1):
        if a > b:
            return (a - b) * scale
        return (b - a) * scale

    @tf.function
    def f(x):
        p = functools.partial(add, 10, scale=2)
        return p(3) + len([1, 2, 3]) + int(2.5) + x

    assert f(tf.constant(0)).numpy() == 14 + 3 + 2


def test_lambdas_on_one_line_are_told_apart() -> None:
    double, negate = (lambda v: v * 2 if v > 0 else 0), (lambda v: -v if v > 0 else 0)  # noqa: E731
    nested = lambda a: lambda b: a + b if b else a  # noqa: E731
    assert tf.autograph.to_graph(double)(3) == 6 and tf.autograph.to_graph(negate)(3) == -3
    assert "v * 2" in tf.autograph.to_code(double) and "-v" in tf.autograph.to_code(negate)
    assert "lambda b:" in tf.autograph.to_code(nested)
    assert tf.autograph.to_graph(nested(1))(2) == 3


def test_a_function_that_cannot_be_converted_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    def uses_loop_else(x):
        for _ in range(1):
            pass
        else:
            x = x + 1
        return x

    @tf.function
    def f(x):
        for _ in range(3):
            x = uses_loop_else(x)
        return x

    with caplog.at_level(logging.WARNING, logger="modtensor.autograph"):
        assert f(tf.constant(0)).numpy() == 3
    assert sum("could not transform" in r.getMessage() for r in caplog.records) == 1


def test_library_functions_convert_user_functions_in_context(monkeypatch: pytest.MonkeyPatch) -> None:
    from modtensor.api.autograph import ag_ctx
    from modtensor.api.autograph.impl import tf_convert_in_context

    def pick(x):
        if x > 0:  # a Python value here: converted code keeps Python's if
            return "pos"
        return "neg"

    converted = tf_convert_in_context(pick)
    assert converted is not pick and converted(1) == "pos" and converted(-1) == "neg"
    with ag_ctx.ControlStatusCtx(ag_ctx.Status.DISABLED):
        assert tf_convert_in_context(pick) is pick
    assert tf_convert_in_context(pick, convert_by_default=False) is pick

    def plus_one(x):
        return x + 1

    seen = []
    monkeypatch.setattr("modtensor.api.autograph.impl.tf_convert_in_context", lambda f: seen.append(f) or f)
    tf.data.Dataset.range(3).map(plus_one)  # tf.data and tf.map_fn trace user functions through it, as TF
    tf.map_fn(plus_one, tf.constant([1, 2]))
    assert seen[0] is plus_one and seen[-1] is plus_one
