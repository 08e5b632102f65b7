"""``modtensor.function``: tracing, caching per signature, input_signature, nesting, captures, errors.

The golden half runs the programs of ``function_programs.py`` with ``import modtensor as tf``
and compares with what TensorFlow 2.21 returned for the same text
(``tests/golden/function/programs.json``, from ``tools/make_golden_function.py``).
The rest checks what TF's results cannot show: the traced graph's layout, one compile per
concrete function, inlining of nested calls, functions inside v1 graphs.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import math
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import modtensor as tf
from modtensor.api import function as function_lib
from modtensor.framework.func_graph import FuncGraph, flatten_structure, pack_structure
from modtensor.grappler import config as grappler_config

HERE = Path(__file__).resolve().parent
GOLDEN = json.loads((HERE.parent / "golden" / "function" / "programs.json").read_text())["programs"]


def _load_programs() -> Any:
    spec = importlib.util.spec_from_file_location("function_programs", HERE / "function_programs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROGRAMS = _load_programs()


def _assert_same(actual: Any, expected: Any, path: str = "") -> None:
    """JSON results equal, floats to float32 precision."""
    if isinstance(expected, float) and isinstance(actual, (int, float)):
        assert math.isclose(actual, expected, rel_tol=1e-6, abs_tol=1e-6) or (
            math.isnan(actual) and math.isnan(expected)
        ), f"{path}: {actual} != {expected}"
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: {actual!r} is not a dict like {expected!r}"
        assert sorted(actual) == sorted(expected), f"{path}: keys {sorted(actual)} != {sorted(expected)}"
        for key in expected:
            _assert_same(actual[key], expected[key], f"{path}.{key}")
        return
    if isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{path}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            _assert_same(a, e, f"{path}[{i}]")
        return
    assert actual == expected, f"{path}: {actual!r} != {expected!r}"


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_program_matches_tensorflow(name: str) -> None:
    actual = json.loads(json.dumps(PROGRAMS.PROGRAMS[name](tf)))
    _assert_same(actual, GOLDEN[name], name)


# ============================================================================ tracing and the graph


def test_traced_graph_has_placeholders_named_by_argument_and_identity_outputs() -> None:
    @tf.function
    def f(xs, scale):
        return {"a": xs[0] * scale, "b": xs[1]}

    cf = f.get_concrete_function([tf.TensorSpec([2]), tf.TensorSpec([None])], tf.TensorSpec([]))
    assert isinstance(cf.graph, FuncGraph)
    ops = [(op.name, op.type) for op in cf.graph.get_operations()]
    assert ops[:3] == [("xs", "Placeholder"), ("xs_1", "Placeholder"), ("scale", "Placeholder")]
    assert [t.name for t in cf.outputs] == ["Identity:0", "Identity_1:0"]
    assert cf.structured_outputs["b"].shape.as_list() == [None]
    assert cf.structured_input_signature[0][0][1].shape.as_list() == [None]
    out = cf([tf.constant([1.0, 2.0]), tf.constant([5.0, 6.0, 7.0])], tf.constant(3.0))
    np.testing.assert_array_equal(out["a"].numpy(), [3.0, 6.0])
    np.testing.assert_array_equal(out["b"].numpy(), [5.0, 6.0, 7.0])


def test_captured_eager_tensor_is_a_placeholder_fed_at_call_time() -> None:
    c = tf.constant([1.0, 2.0])

    @tf.function
    def f(x):
        return x + c + c

    cf = f.get_concrete_function(tf.constant([0.0, 0.0]))
    placeholders = [op for op in cf.graph.get_operations() if op.type == "Placeholder"]
    assert len(placeholders) == 2  # x and one capture for both uses of c
    assert not [op for op in cf.graph.get_operations() if op.type == "Const"]
    assert cf.graph.external_captures[0] is c
    assert cf.inputs[-1] is cf.graph.internal_captures[0]
    np.testing.assert_array_equal(f(tf.constant([1.0, 1.0])).numpy(), [3.0, 5.0])


def test_each_concrete_function_is_compiled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, ...]] = []
    real = function_lib.compile_function_graph

    def counting(graph_def, feeds, fetches, targets, **kwargs):
        calls.append(tuple(fetches))
        return real(graph_def, feeds, fetches, targets, **kwargs)

    monkeypatch.setattr(function_lib, "compile_function_graph", counting)

    @tf.function
    def f(x):
        return tf.nn.relu(x) * 2.0

    for _ in range(3):
        f(tf.constant([-1.0, 1.0]))
    f(tf.constant([-1.0, 1.0, 2.0]))
    assert len(calls) == 2
    np.testing.assert_array_equal(f(tf.constant([-3.0, 3.0])).numpy(), [0.0, 6.0])


def test_stateful_ops_draw_new_numbers_on_every_call() -> None:
    @tf.function
    def f():
        return tf.random.uniform([4], seed=7)

    a, b = f().numpy(), f().numpy()
    assert a.shape == (4,) and not np.array_equal(a, b)


def test_nested_call_is_a_call_node_naming_a_library_function() -> None:
    @tf.function
    def inner(x):
        return x * 2.0

    @tf.function
    def outer(x):
        return inner(x) + 1.0

    cf = outer.get_concrete_function(tf.TensorSpec([None]))
    (call,) = [op for op in cf.graph.get_operations() if op.type == "PartitionedCall"]
    assert call.outputs[0].shape.as_list() == [None]
    library = {f.signature.name: f for f in cf.graph.as_graph_def().library.function}
    callee = library[call.get_attr("f").name]
    assert callee.signature.name.startswith("__inference_inner_")
    assert [a.name for a in callee.signature.input_arg] == ["x"]
    assert [a.name for a in callee.signature.output_arg] == ["identity"]
    assert sorted(n.op for n in callee.node_def) == ["Const", "Identity", "Mul"]
    np.testing.assert_array_equal(outer(tf.constant([1.0, 2.0])).numpy(), [3.0, 5.0])
    saved = grappler_config.get_experimental_options()
    grappler_config.set_experimental_options({"disable_meta_optimizer": True})  # no inlining: the kernel runs it
    try:
        np.testing.assert_array_equal(outer(tf.constant([3.0])).numpy(), [7.0])
    finally:
        grappler_config._experimental.clear()
        grappler_config._experimental.update(saved)


def test_inner_function_capturing_an_outer_trace_tensor() -> None:
    @tf.function
    def outer(x):
        y = x * 3.0

        @tf.function
        def inner(z):
            return z + y

        return inner(x)

    np.testing.assert_array_equal(outer(tf.constant([1.0, 2.0])).numpy(), [4.0, 8.0])


def test_function_in_a_v1_graph_builds_ops_that_a_session_runs() -> None:
    @tf.function
    def f(x):
        return tf.matmul(x, x)

    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2, 2], name="x")
        y = f(x)
        assert y.graph is g
    with tf.compat.v1.Session(graph=g) as sess:
        out = sess.run(y, feed_dict={x: np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)})
    np.testing.assert_array_equal(out, [[7.0, 10.0], [15.0, 22.0]])


def test_decorator_forms_and_wrapping() -> None:
    def double(x):
        """Doubles."""
        return x * 2

    plain = tf.function(double)
    with_args = tf.function(reduce_retracing=True)(double)
    assert plain.__name__ == "double" and plain.__doc__ == "Doubles."
    assert plain.python_function is double
    for fn in (plain, with_args):
        np.testing.assert_array_equal(fn(tf.constant([1, 2])).numpy(), [2, 4])


def test_input_signature_must_hold_tensor_specs() -> None:
    with pytest.raises(TypeError, match="TensorSpec"):
        tf.function(lambda x: x, input_signature=[3])


def test_runtime_error_keeps_the_cache_usable() -> None:
    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
    def f(i):
        return tf.gather(tf.constant([1.0, 2.0, 3.0]), i)

    with pytest.raises(tf.errors.InvalidArgumentError, match="indices") as info:
        f(tf.constant([5]))
    message = str(info.value)
    assert message.startswith("Graph execution error:") and "[Op:__inference_f_" in message
    assert isinstance(info.value.__cause__, tf.errors.InvalidArgumentError)
    np.testing.assert_array_equal(f(tf.constant([2, 0])).numpy(), [3.0, 1.0])


def test_concrete_function_checks_its_arguments() -> None:
    @tf.function
    def f(x):
        return x + 1

    cf = f.get_concrete_function(tf.TensorSpec([None], tf.int32))
    np.testing.assert_array_equal(cf(tf.constant([1, 2, 3])).numpy(), [2, 3, 4])
    np.testing.assert_array_equal(cf(np.array([5], np.int32)).numpy(), [6])
    with pytest.raises(TypeError, match="does not match"):
        cf(tf.constant([1.0]))
    with pytest.raises(TypeError, match="does not match"):
        cf(tf.constant([[1]]))
    assert f.experimental_get_tracing_count() == 1


def test_methods_with_input_signature_and_keyword_only_arguments() -> None:
    class Scaler:
        def __init__(self, factor):
            self.factor = factor

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def scale(self, x):
            return x * self.factor

    @tf.function
    def combine(*xs, weight=1.0, **named):
        return sum(xs) * weight + named["bias"]

    np.testing.assert_array_equal(Scaler(3.0).scale(tf.constant([1.0, 2.0])).numpy(), [3.0, 6.0])
    np.testing.assert_array_equal(Scaler(0.5).scale([4.0]).numpy(), [2.0])
    out = combine(tf.constant(1.0), tf.constant(2.0), weight=2.0, bias=tf.constant(0.5))
    assert float(out) == 6.5
    cf = combine.get_concrete_function(tf.constant(1.0), tf.constant(2.0), weight=2.0, bias=tf.constant(0.5))
    assert [t.op.name for t in cf.inputs] == ["xs", "xs_1", "bias"]
    combine(tf.constant(3.0), tf.constant(4.0), bias=tf.constant(0.0), weight=2.0)
    assert combine.experimental_get_tracing_count() == 1


def test_structure_helpers_round_trip() -> None:
    structure = {"b": [1, (2, None)], "a": {"y": 3, "x": 4}}
    flat = flatten_structure(structure)
    assert flat == [4, 3, 1, 2, None]
    assert pack_structure(structure, flat) == structure
    assert list(pack_structure(structure, flat)) == ["b", "a"]


def test_traces_made_inside_a_graph_do_not_keep_it_alive() -> None:
    @tf.function
    def f(x):
        return x * 2.0

    g = tf.Graph()
    with g.as_default():
        f(tf.compat.v1.placeholder(tf.float32, [2]))
        f(tf.compat.v1.placeholder(tf.float32, [2]))
    assert f.experimental_get_tracing_count() == 1  # one trace per signature and graph
    ref = weakref.ref(g)
    del g
    gc.collect()
    assert ref() is None
