"""AutoGraph keeps the meaning of Python code whose conditions and iterables are Python values.

Every function of ``autograph_python_corpus`` runs unconverted and converted (through
``converted_call``, as ``modtensor.function`` calls it) on the same arguments: results,
raised exceptions and side effects must be the same. A converted function that would run
its code differently (a wrong loop variable, a branch run that Python would skip) shows
up here. Functions TensorFlow cannot convert either (a generator inside) run unconverted
with AutoGraph's warning.
"""

from __future__ import annotations

import copy
import logging

import pytest

import modtensor as tf
from modtensor.api.autograph import tf_convert
from tests.api import autograph_python_corpus as corpus

# Functions that define a generator: AutoGraph (as TensorFlow's) does not convert them and runs them as they are.
UNCONVERTED = {"with_statement", "generator_consumer"}


def _outcome(fn, args, kwargs):
    try:
        return ("ok", fn(*copy.deepcopy(args), **copy.deepcopy(kwargs)))
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        metadata = getattr(e, "ag_error_metadata", None)
        message = str(e) if metadata is None else metadata.cause_message.split(": ", 1)[1]
        if isinstance(e, KeyError) and metadata is None:
            message = repr(e.args[0])
        return ("raised", type(e).__name__, message if not isinstance(e, UnboundLocalError) else "")


_IDS = [f"{fn.__name__}{args!r}" for fn, arg_list in corpus.CASES for args in arg_list]


@pytest.mark.parametrize(("fn", "args"), [(fn, args) for fn, arg_list in corpus.CASES for args in arg_list], ids=_IDS)
def test_converted_function_behaves_as_python(fn, args, caplog):
    corpus.COUNTER = 0
    expected = _outcome(fn, args, {})
    corpus.COUNTER = 0
    with caplog.at_level(logging.WARNING, logger="modtensor.autograph"):
        assert _outcome(tf_convert(fn), args, {}) == expected
    fell_back = any("could not transform" in r.getMessage() for r in caplog.records)
    if fn.__name__ in UNCONVERTED:  # warned on its first call, run unconverted on every call
        with pytest.raises(NotImplementedError, match="generators are not supported"):
            tf.autograph.to_graph(fn)
    else:
        assert not fell_back, caplog.text


@pytest.mark.parametrize(("fn", "args", "kwargs"), corpus.KEYWORD_CASES)
def test_converted_function_takes_keywords(fn, args, kwargs):
    assert _outcome(tf_convert(fn), args, kwargs) == _outcome(fn, args, kwargs)


def test_to_graph_refuses_a_function_defining_a_generator():
    with pytest.raises(NotImplementedError, match="generators are not supported"):
        tf.autograph.to_graph(corpus.generator_consumer)


def test_global_statement_updates_the_module_global():
    corpus.COUNTER = 0
    assert tf.autograph.to_graph(corpus.global_update)(3) == 3
    assert corpus.COUNTER == 3


def test_unbound_variable_raises_unboundlocalerror_naming_it():
    with pytest.raises(UnboundLocalError, match="'value' is used before assignment"):
        tf.autograph.to_graph(corpus.conditionally_defined)(False)
    with pytest.raises(UnboundLocalError, match="'last' is used before assignment"):
        tf.autograph.to_graph(corpus.undefined_after_empty_loop)(0)


def test_converted_functions_inside_function_trace_python_branches_only():
    taken = []

    def f(x, mode):
        if mode == "double":
            taken.append("double")
            y = x * 2
        else:
            taken.append("negate")
            y = -x
        for _ in range(3):
            y = y + 1
        return y

    fn = tf.function(f)
    assert fn(tf.constant(2), "double").numpy() == 7
    assert fn(tf.constant(2), "negate").numpy() == 1
    assert taken == ["double", "negate"]
    assert fn.experimental_get_tracing_count() == 2
