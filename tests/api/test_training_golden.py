"""Training against TensorFlow 2.21's numbers: Keras 3 optimizers on sparse gradients, ``minimize``, TF 1 optimizers.

The programs are ``tests/api/training_programs.py``, run here with ``import modtensor as tf``;
``tools/make_golden_training.py`` ran the same text with TensorFlow into
``tests/golden/training/programs.json``. modtensor applies dense updates with TF's fused
training kernels where Keras 3 writes the rule as elementwise ops (and sums repeated rows
before densifying in another order), so the sequences agree to float32 rounding.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import modtensor as tf
from modtensor.api import optimizers as optimizers_module

HERE = Path(__file__).resolve().parent
GOLDEN = json.loads((HERE.parent / "golden" / "training" / "programs.json").read_text())
VARIABLES_GOLDEN = json.loads((HERE.parent / "golden" / "variables" / "cases.json").read_text())

_spec = importlib.util.spec_from_file_location("training_programs", HERE / "training_programs.py")
programs = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
sys.modules.setdefault("training_programs", programs)
_spec.loader.exec_module(programs)  # type: ignore[union-attr]

KERAS = [(name, kwargs, programs.config_id(name, kwargs)) for name, kwargs in programs.KERAS_CONFIGS]
V1 = [(name, kwargs, programs.config_id(name, kwargs)) for name, kwargs in programs.V1_CONFIGS]


def close(got: Any, want: Any, what: str, rtol: float = 2e-5, atol: float = 2e-6) -> None:
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol,
                               err_msg=what)  # fmt: skip


# ------------------------------------------------------------------------------------------ Keras 3, sparse


@pytest.mark.parametrize(("name", "kwargs", "key"), KERAS, ids=[k for _, _, k in KERAS])
def test_keras_optimizers_apply_indexed_slices_as_keras_3(name: str, kwargs: dict, key: str) -> None:
    got = programs.keras_sparse(tf, name, kwargs)
    for mode in ("eager", "function"):
        for step, (g, w) in enumerate(zip(got[mode], GOLDEN["keras_sparse"][key][mode], strict=True)):
            for g_var, w_var in zip(g, w, strict=True):
                close(g_var, w_var, f"{mode}, after step {step + 1}")


def test_sgd_scatters_sparse_gradients_bit_exact_and_leaves_other_rows() -> None:
    got = programs.keras_sparse(tf, "SGD", {"learning_rate": 0.1})
    want = GOLDEN["keras_sparse"]["SGD-learning_rate=0.1"]
    assert got["eager"] == want["eager"]  # ResourceScatterSub of lr * rows, as Keras 3's scatter_sub
    table = tf.Variable(np.ones((4, 2), np.float32))
    grad = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([2, 2]), tf.constant([4, 2]))
    tf.optimizers.SGD(0.5).apply_gradients([(grad, table)])
    assert table.numpy().tolist() == [[1, 1], [1, 1], [-1, -2], [1, 1]]


# ------------------------------------------------------------------------------------------ Keras 3, training


TRAINING = [(p, n, kw, f"{p}/{k}") for n, kw, k in KERAS for p in programs.PROBLEMS]


@pytest.mark.parametrize(("problem", "name", "kwargs", "key"), TRAINING, ids=[t[3] for t in TRAINING])
def test_keras_training_with_a_tape_matches_tensorflow(problem: str, name: str, kwargs: dict, key: str) -> None:
    want = GOLDEN["keras_training"][key]
    if "error" in want:
        pytest.skip(f"Keras 3 itself fails on this problem: {want['error']['message'][:80]}")
    got = programs.keras_training(tf, problem, name, kwargs, style="tape")
    close(got["losses"], want["losses"], "losses")
    for g, w in zip(got["variables"], want["variables"], strict=True):
        close(g, w, "variables")
    assert got["iterations"] == want["iterations"]


MINIMIZE = [("regression", "Adam", {"learning_rate": 0.01}), ("classification", "SGD", {"learning_rate": 0.1}),
            ("embedding", "SGD", {"learning_rate": 0.1}), ("embedding", "Adagrad", {"learning_rate": 0.1}),
            ("embedding", "RMSprop", {"learning_rate": 0.01, "rho": 0.8, "momentum": 0.5})]  # fmt: skip


@pytest.mark.parametrize("style", ["minimize", "minimize_tape", "minimize_var_fn"])
@pytest.mark.parametrize(("problem", "name", "kwargs"), MINIMIZE, ids=[f"{p}-{n}" for p, n, _ in MINIMIZE])
def test_minimize_gives_the_numbers_of_a_tape_and_apply_gradients(problem: str, name: str, kwargs: dict,
                                                                    style: str) -> None:  # fmt: skip
    want = GOLDEN["keras_training"][f"{problem}/{programs.config_id(name, kwargs)}"]
    got = programs.keras_training(tf, problem, name, kwargs, style=style)
    close(got["losses"], want["losses"], "losses")
    for g, w in zip(got["variables"], want["variables"], strict=True):
        close(g, w, "variables")
    assert got["iterations"] == want["iterations"]


def test_minimize_in_a_function_and_its_errors() -> None:
    w = tf.Variable([1.0, -2.0])
    opt = tf.optimizers.SGD(0.25)

    @tf.function
    def step() -> Any:
        return opt.minimize(lambda: tf.reduce_sum(w * w), [w])

    step()
    step()
    np.testing.assert_allclose(w.numpy(), [0.25, -0.5])  # w -= 0.25 * 2w, twice
    assert int(opt.iterations.numpy()) == 2 and step.experimental_get_tracing_count() == 1
    with pytest.raises(ValueError, match="`tape` is required when a `Tensor` loss is passed"):
        opt.minimize(tf.reduce_sum(w), [w])
    other = tf.Variable([3.0])
    with pytest.warns(UserWarning, match="Gradients do not exist for variables"):
        opt.minimize(lambda: tf.reduce_sum(w), [w, other])
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.minimize(lambda: tf.constant(1.0), [other])


# ------------------------------------------------------------------------- devices without fused kernels


def _case_id(case: dict) -> str:
    return case["optimizer"] + "-" + ",".join(f"{k}={v}" for k, v in case["kwargs"].items())


@pytest.mark.parametrize("case", VARIABLES_GOLDEN["keras_optimizers"], ids=_case_id)
def test_keras_rule_op_by_op_where_a_device_has_no_fused_kernel(case: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """A device plugin without ResourceApply* kernels gets Keras 3's rule written with ops (and its numbers)."""
    monkeypatch.setattr(optimizers_module, "_has_fused_kernel", lambda op_type, variable: False)
    recorded: list[str] = []
    real = optimizers_module.apply_op
    monkeypatch.setattr(optimizers_module, "apply_op", lambda op, **kw: recorded.append(op) or real(op, **kw))

    def array(entry: dict) -> np.ndarray:
        return np.array(entry["values"], dtype=entry["dtype"]).reshape(entry["shape"])

    variables = [tf.Variable(array(x)) for x in case["init"]]
    opt = getattr(tf.optimizers, case["optimizer"])(**case["kwargs"])
    for i, grads in enumerate(case["grads"]):
        opt.apply_gradients(zip([tf.constant(array(g)) for g in grads], variables, strict=True))
        for got, want in zip(variables, case["history"][i], strict=True):
            np.testing.assert_allclose(got.numpy(), array(want), rtol=2e-6, atol=2e-7, err_msg=f"step {i + 1}")
    assert not [op for op in recorded if op.startswith("ResourceApply")]


def test_the_fused_kernel_check_follows_the_kernel_registry() -> None:
    v = tf.Variable([1.0])
    assert optimizers_module._has_fused_kernel("ResourceApplyAdam", v)
    assert not optimizers_module._has_fused_kernel("ResourceApplyNoSuchOp", v)
    w = tf.Variable(np.array([1, 2], np.int32))
    assert not optimizers_module._has_fused_kernel("ResourceApplyAdam", w)  # no int32 kernel


# ------------------------------------------------------------------------------------------ TF 1


V1_CASES = [(p, n, kw, f"{p}/{k}") for n, kw, k in V1 for p in programs.PROBLEMS]


@pytest.mark.parametrize(("problem", "name", "kwargs", "key"), V1_CASES, ids=[c[3] for c in V1_CASES])
def test_v1_minimize_in_a_session_matches_tensorflow(problem: str, name: str, kwargs: dict, key: str) -> None:
    got = programs.v1_graph(tf, problem, name, kwargs)
    want = GOLDEN["v1_graph"][key]
    close(got["losses"], want["losses"], "losses")
    for g, w in zip(got["variables"], want["variables"], strict=True):
        close(g, w, "variables")
    for field in ("train_op", "plain_op", "train_op_collection", "slot_names", "global_step"):
        assert got[field] == want[field], field
    for g, w in zip(got["compute_gradients"], want["compute_gradients"], strict=True):
        assert (g["variable"], g["gradient"]) == (w["variable"], w["gradient"])
        # TF's ResourceGather gradient has a constant dense shape where the variable's shape is static;
        # modtensor's (a VariableShape op) gives the IndexedSlices a shape of the right rank, partly unknown.
        assert tf.TensorShape(g["shape"]).is_compatible_with(w["shape"]), (g, w)


@pytest.mark.parametrize(("problem", "name", "kwargs", "key"), V1_CASES, ids=[c[3] for c in V1_CASES])
def test_v1_minimize_eagerly_with_a_callable_loss_matches_tensorflow(problem: str, name: str, kwargs: dict,
                                                                     key: str) -> None:  # fmt: skip
    got = programs.v1_eager(tf, problem, name, kwargs)
    want = GOLDEN["v1_eager"][key]
    close(got["losses"], want["losses"], "losses")
    for g, w in zip(got["variables"], want["variables"], strict=True):
        close(g, w, "variables")
    assert got["global_step"] == want["global_step"]
    assert [kind for kind, _ in got["compute_gradients"]] == [kind for kind, _ in want["compute_gradients"]]


def test_v1_errors_are_tensorflows() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = programs.v1_errors(tf)
    assert got == GOLDEN["v1_errors"]


def test_v1_gate_graph_and_grad_loss() -> None:
    g = tf.Graph()
    with g.as_default():
        w = tf.compat.v1.Variable([1.0, 2.0], name="w")
        loss = tf.reduce_sum(w * w)
        opt = tf.compat.v1.train.GradientDescentOptimizer(0.5)
        ((grad, var),) = opt.compute_gradients(loss, gate_gradients=opt.GATE_GRAPH, grad_loss=tf.constant(3.0))
        assert var is w
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            np.testing.assert_allclose(sess.run(grad), [6.0, 12.0])


# ------------------------------------------------------------------------- what training programs lean on


def test_a_variable_right_of_an_operator_gets_its_gradient() -> None:
    """``x @ w + b``: Tensor + Variable reads the variable through the recorded ReadVariableOp (as TF)."""
    x = tf.constant(np.ones((3, 2), np.float32))
    b = tf.Variable(np.full(2, 2.0, np.float32))
    for fn, want in ((lambda: x + b, 3.0), (lambda: x - b, -3.0), (lambda: x / b, -0.75), (lambda: 1.0 / b, -0.25)):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(fn())
        np.testing.assert_allclose(tape.gradient(y, b).numpy(), [want, want])


def test_gather_of_a_variable_is_a_resource_gather_with_a_sparse_gradient() -> None:
    emb = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(emb, tf.constant([3, 0, 3])))
    grad = tape.gradient(loss, emb)
    assert isinstance(grad, tf.IndexedSlices)
    np.testing.assert_array_equal(tf.convert_to_tensor(grad).numpy(), [[1, 1], [0, 0], [0, 0], [2, 2]])
    g = tf.Graph()
    with g.as_default():
        v = tf.compat.v1.Variable(np.ones((4, 2), np.float32), name="v")
        tf.gather(v, [1])
        assert "ResourceGather" in {op.type for op in g.get_operations()}
