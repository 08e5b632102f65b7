"""Gradients through control flow beyond the golden gradient cases, against TensorFlow 2.21's numbers.

TF's results: tests/golden/control_flow_gradients/ (tools/make_golden_control_flow_gradients.py runs
the same programs, tests/api/control_flow_gradient_programs.py, with TensorFlow). Covered here:
per-mode differences (eagerly a branch that never ran gives None, the If/While gradient zeros),
variables read in branches and loop bodies, back_prop=False, non-differentiable loop variables,
gradients computed twice, a Keras-style LSTM trained in a tf.function, a restored SavedModel's
function, the frozen Keras LSTM GraphDef (a While from a GraphDef), v1 control flow's clear refusal,
and the cost of a loop's gradient growing linearly with its iterations.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import gradient_registry
from tests.api import control_flow_gradient_programs as programs

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "control_flow_gradients"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text())
MODELS = Path(__file__).resolve().parents[2] / "examples" / "models"


def _close(actual: list, expected: list, where: str, rtol: float = 1e-6, atol: float = 1e-7) -> None:
    assert len(actual) == len(expected), where
    for k, (a, e) in enumerate(zip(actual, expected, strict=True)):
        if e is None:
            assert a is None, f"{where}: gradient {k} should be None (as TF's), got {a}"
            continue
        assert a is not None, f"{where}: gradient {k} is None, TF's is {e}"
        np.testing.assert_allclose(np.asarray(a), np.asarray(e), rtol=rtol, atol=atol, err_msg=f"{where}: {k}")


@pytest.mark.parametrize("mode", programs.MODES)
@pytest.mark.parametrize("name", sorted(programs.MODE_PROGRAMS))
def test_program_gradients_match_tensorflow(name: str, mode: str) -> None:
    actual = programs.MODE_PROGRAMS[name](tf, mode)
    _close(actual, EXPECTED["modes"][name][mode], f"{name} ({mode})")


def test_branch_that_never_ran_gives_none_eagerly_and_zeros_in_graphs() -> None:
    expected = EXPECTED["modes"]["cond_input_in_one_branch"]
    assert expected["eager"][1] is None
    assert expected["function"][1] == [0.0, 0.0, 0.0] == expected["graph"][1]


def test_back_prop_false_stops_gradients_in_graphs_only() -> None:
    # TF 2: an eager while_loop ignores back_prop; the functional loop's results stop gradients.
    expected = EXPECTED["modes"]["while_back_prop_false"]
    y = programs._Y
    np.testing.assert_allclose(expected["function"][0], y)  # only the x * y term
    assert not np.allclose(expected["eager"][0], y)


def test_lstm_training_loop_matches_tensorflows_losses() -> None:
    result = programs.lstm_training(tf)
    want = EXPECTED["lstm_training"]
    np.testing.assert_allclose(result["losses"], want["losses"], rtol=1e-5, atol=1e-6)
    assert want["losses"][-1] < want["losses"][0]
    for name in ("kernel", "recurrent_kernel", "bias", "dense_kernel", "dense_bias"):
        np.testing.assert_allclose(result[name], want[name], rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_restored_saved_model_function_gradients_match_tensorflow(mode: str) -> None:
    actual = programs.saved_model_gradients(tf, str(GOLDEN / "saved_model"), mode)
    _close(actual, EXPECTED["saved_model"][mode], f"saved model ({mode})", rtol=1e-5, atol=1e-6)


def _frozen_lstm(name: str) -> tuple[tf.Graph, str, str]:
    from modtensor.framework.protos import graph_pb2

    manifest = json.loads((MODELS / "manifest.json").read_text())["models"][name]
    graph_def = graph_pb2.GraphDef.FromString((MODELS / f"{name}.pb").read_bytes())
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    (inp,) = [t["name"] for t in manifest["inputs"]]
    (out,) = [t["name"] for t in manifest["outputs"]]
    return graph, inp, out


def test_frozen_keras_lstm_while_from_a_graphdef_is_differentiable() -> None:
    for op in ("BiasAdd", "Split"):
        if gradient_registry.gradient_function_for("probe", op) is None:
            pytest.skip(f"needs the {op} gradient")
    graph, inp, out = _frozen_lstm("lstm_functional")
    want = EXPECTED["frozen_lstm"]
    sequence = np.load(MODELS / "lstm_functional.io.npz")[f"b8/in/{inp}"]
    with graph.as_default():
        x = graph.get_tensor_by_name(inp)
        y = graph.get_tensor_by_name(out)
        (grad,) = tf.compat.v1.gradients(tf.reduce_sum(y * np.asarray(want["upstream"], np.float32)), [x])
        with tf.compat.v1.Session(graph=graph) as sess:
            value = sess.run(grad, {x: sequence})
    np.testing.assert_allclose(value, want["gradient"], rtol=1e-4, atol=1e-6)


def test_v1_control_flow_gradients_raise_a_clear_error() -> None:
    # The lowered Keras LSTM is v1 control flow (Enter/Merge/Switch/...): refused, not differentiated wrongly.
    graph, inp, out = _frozen_lstm("lstm_lowered")
    with graph.as_default(), pytest.raises(NotImplementedError, match="v1 control-flow op"):
        tf.compat.v1.gradients(graph.get_tensor_by_name(out), [graph.get_tensor_by_name(inp)])


@pytest.mark.parametrize("kind", ["cond", "while"])
def test_disable_control_flow_v2_graphs_raise_a_clear_error(kind: str) -> None:
    tf.compat.v1.disable_control_flow_v2()
    try:
        graph = tf.Graph()
        with graph.as_default():
            x = tf.constant([1.0, 2.0])
            if kind == "cond":
                y = tf.cond(tf.constant(True), lambda: x * x, lambda: x)
            else:
                y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [0, x])[1]
            with pytest.raises(NotImplementedError, match="compat.v1.enable_control_flow_v2"):
                tf.compat.v1.gradients(y, [x])
    finally:
        tf.compat.v1.enable_control_flow_v2()


def _loop_gradient_graph(iterations: int) -> tuple[tf.Graph, object]:
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(np.linspace(-1.0, 1.0, 8))
        h = tf.while_loop(lambda i, h: i < iterations, lambda i, h: (i + 1, tf.tanh(h * x) + x), [0, x])[1]
        (grad,) = tf.compat.v1.gradients(tf.reduce_sum(h), [x])
    return graph, grad


def test_loop_gradient_accumulates_instead_of_recomputing() -> None:
    # The gradient graph does not grow with the iteration count: the forward loop pushes the values the
    # gradient reads onto TensorLists (new loop variables) and the gradient loop pops them.
    sizes = []
    for iterations in (3, 300):
        graph, _ = _loop_gradient_graph(iterations)
        sizes.append(len(graph.get_operations()))
        (forward,) = [op for op in graph.get_operations() if op.type in ("While", "StatelessWhile")][:1]
        assert any(t.op.type == "EmptyTensorList" for t in forward.inputs)
    assert sizes[0] == sizes[1]


def test_loop_gradient_time_is_linear_in_the_iterations() -> None:
    def seconds(iterations: int) -> float:
        graph, grad = _loop_gradient_graph(iterations)
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(grad)  # compile
            start = time.perf_counter()
            sess.run(grad)
            return time.perf_counter() - start

    short, long = seconds(100), seconds(1600)
    assert long < short * 16 * 4, (short, long)  # 16x the iterations: far below the 256x of a quadratic cost


def test_tensorlist_gradients_add_and_zero_as_lists() -> None:
    # The variant forms of AddN and ZerosLike that list gradients aggregate with.
    a = tf.raw_ops.TensorListFromTensor(tensor=tf.constant([[1.0, 2.0], [3.0, 4.0]]), element_shape=[2])
    b = tf.raw_ops.TensorListSetItem(
        input_handle=tf.raw_ops.TensorListReserve(element_shape=[2], num_elements=2, element_dtype=tf.float32),
        index=1,
        item=tf.constant([10.0, 20.0]),
    )
    total = tf.raw_ops.AddN(inputs=[a, b])
    stacked = tf.raw_ops.TensorListStack(input_handle=total, element_shape=[2], element_dtype=tf.float32)
    np.testing.assert_array_equal(stacked.numpy(), [[1.0, 2.0], [13.0, 24.0]])
    zeros = tf.raw_ops.ZerosLike(x=a)
    stacked = tf.raw_ops.TensorListStack(input_handle=zeros, element_shape=[2], element_dtype=tf.float32)
    np.testing.assert_array_equal(stacked.numpy(), np.zeros((2, 2)))
