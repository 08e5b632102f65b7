"""Training programs run twice: by TensorFlow 2.21 (to record golden results) and by modtensor (to check them).

Every function takes the module to use as ``tf`` and returns JSON-able results (loss
sequences, variable values, op names, error texts). ``tools/make_golden_training.py`` runs
them with TensorFlow into ``tests/golden/training/programs.json``;
``tests/api/test_training_golden.py`` runs them with ``import modtensor as tf`` and compares.
The data come from numpy generators with fixed seeds. This file imports neither library.

- ``keras_sparse``: Keras 3 optimizers (``tf.optimizers``) applying ``IndexedSlices``
  gradients with a repeated row, beside a dense gradient, eagerly and in a ``tf.function``.
- ``keras_training``: small problems (linear regression, logistic regression, an embedding
  model whose gathers give IndexedSlices) trained with a ``GradientTape`` and
  ``apply_gradients``; modtensor also runs them through ``minimize`` (Keras 3 has none; Keras
  2's ``minimize`` is the tape and ``apply_gradients``) and compares with the same numbers.
- ``v1_graph`` / ``v1_eager``: the same problems with ``tf.compat.v1.train`` optimizers'
  ``minimize`` in a v1 graph run by a Session (default ``var_list``, ``global_step``, the
  train op's name) and eagerly with a callable loss; ``v1_errors``: TF 1's error texts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

KERAS_CONFIGS = [
    ("SGD", {"learning_rate": 0.1}),
    ("SGD", {"learning_rate": 0.05, "momentum": 0.9}),
    ("SGD", {"learning_rate": 0.05, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"learning_rate": 0.01}),
    ("Adam", {"learning_rate": 0.01, "amsgrad": True}),
    ("AdamW", {"learning_rate": 0.01, "weight_decay": 0.05}),
    ("Adagrad", {"learning_rate": 0.1}),
    ("RMSprop", {"learning_rate": 0.01}),
    ("RMSprop", {"learning_rate": 0.01, "rho": 0.8, "momentum": 0.5}),
    ("RMSprop", {"learning_rate": 0.01, "centered": True, "momentum": 0.2}),
]
PROBLEMS = ("regression", "classification", "embedding")
V1_CONFIGS = [
    ("GradientDescentOptimizer", {"learning_rate": 0.1}),
    ("MomentumOptimizer", {"learning_rate": 0.05, "momentum": 0.9}),
    ("MomentumOptimizer", {"learning_rate": 0.05, "momentum": 0.9, "use_nesterov": True}),
    ("AdamOptimizer", {"learning_rate": 0.05}),
]
STEPS = 12


def config_id(name: str, kwargs: dict[str, Any]) -> str:
    """``Adam-learning_rate=0.01,amsgrad=True``: the key of a configuration in the golden file."""
    return name + "-" + ",".join(f"{k}={v}" for k, v in kwargs.items())


def _list(value: Any) -> Any:
    return np.asarray(value).tolist()


def error(exc: BaseException) -> dict[str, str]:
    """An exception as its class name and message."""
    return {"type": type(exc).__name__, "message": str(exc)}


# --------------------------------------------------------------------------------------------- problems


def problem_data(problem: str) -> dict[str, np.ndarray]:
    """Inputs and initial weights of ``problem`` (numpy, fixed seeds)."""
    rng = np.random.default_rng({"regression": 11, "classification": 12, "embedding": 13}[problem])
    if problem == "regression":
        x = rng.normal(size=(32, 4)).astype(np.float32)
        w_true = rng.normal(size=(4, 1)).astype(np.float32)
        y = (x @ w_true + 0.5 + 0.1 * rng.normal(size=(32, 1))).astype(np.float32)
        return {"x": x, "y": y, "w": rng.normal(scale=0.1, size=(4, 1)).astype(np.float32),
                "b": np.zeros(1, np.float32)}  # fmt: skip
    if problem == "classification":
        x = rng.normal(size=(32, 3)).astype(np.float32)
        y = (x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3 > 0).astype(np.float32)
        return {"x": x, "y": y, "w": rng.normal(scale=0.1, size=(3, 1)).astype(np.float32),
                "b": np.zeros(1, np.float32)}  # fmt: skip
    ids = rng.integers(0, 8, size=(16, 2)).astype(np.int32)  # rows repeat: the gradient has duplicate indices
    y = rng.normal(size=(16, 1)).astype(np.float32)
    return {"ids": ids, "y": y, "emb": rng.normal(scale=0.5, size=(8, 3)).astype(np.float32),
            "w": rng.normal(scale=0.5, size=(3, 1)).astype(np.float32)}  # fmt: skip


def variable_names(problem: str) -> list[str]:
    """The trainable variables of ``problem`` in creation order."""
    return ["emb", "w"] if problem == "embedding" else ["w", "b"]


def problem_loss(tf: Any, problem: str, data: dict[str, np.ndarray], v: dict[str, Any]) -> Any:
    """The scalar loss of ``problem`` with variables ``v``."""
    y = tf.constant(data["y"])
    if problem == "regression":
        pred = tf.matmul(tf.constant(data["x"]), v["w"]) + v["b"]
        return tf.reduce_mean(tf.square(pred - y))
    if problem == "classification":
        p = tf.sigmoid(tf.matmul(tf.constant(data["x"]), v["w"]) + v["b"])
        return -tf.reduce_mean(y * tf.math.log(p) + (1.0 - y) * tf.math.log(1.0 - p))
    rows = tf.reduce_sum(tf.gather(v["emb"], tf.constant(data["ids"])), axis=1)
    return tf.reduce_mean(tf.square(tf.matmul(rows, v["w"]) - y))


# --------------------------------------------------------------------------------------------- Keras 3


def keras_sparse(tf: Any, name: str, kwargs: dict[str, Any], steps: int = 4) -> dict[str, Any]:
    """``apply_gradients`` with an IndexedSlices gradient (row 1 twice) and a dense one, eagerly and traced."""
    out: dict[str, Any] = {}
    for mode in ("eager", "function"):
        rng = np.random.default_rng(7)
        table = tf.Variable(rng.normal(size=(6, 3)).astype(np.float32))
        bias = tf.Variable(rng.normal(size=(2,)).astype(np.float32))
        opt = getattr(tf.optimizers, name)(**kwargs)

        def apply(values: Any, indices: Any, dense: Any, opt: Any = opt, table: Any = table, bias: Any = bias) -> None:
            sparse = tf.IndexedSlices(values, indices, tf.constant([6, 3]))
            opt.apply_gradients(zip([sparse, dense], [table, bias], strict=True))

        if mode == "function":
            apply = tf.function(apply)
        history = []
        for step in range(steps):
            indices = np.array([1, 4, 1, step % 6], np.int32)
            values = rng.normal(size=(4, 3)).astype(np.float32)
            dense = rng.normal(size=(2,)).astype(np.float32)
            apply(tf.constant(values), tf.constant(indices), tf.constant(dense))
            history.append([_list(table.numpy()), _list(bias.numpy())])
        out[mode] = history
    return out


def keras_training(tf: Any, problem: str, name: str, kwargs: dict[str, Any], style: str = "tape",
                   steps: int = STEPS) -> dict[str, Any]:  # fmt: skip
    """Train ``problem`` eagerly; ``style``: ``tape`` (TF and modtensor) or, modtensor only, ``minimize``
    (a callable loss), ``minimize_tape`` (a loss tensor and its tape), ``minimize_var_fn`` (var_list callable).

    Keras 3 fails on the embedding problem with centered RMSprop: its sparse rule makes the
    denominator ``velocity - average_grad ** 2 + epsilon`` negative on often repeated rows (a
    sum of squared rows against the square of their sum), and its sparse division then
    gathers out of range (InvalidArgumentError); the golden file records that error."""
    data = problem_data(problem)
    v = {key: tf.Variable(data[key], name=key) for key in variable_names(problem)}
    var_list = [v[key] for key in variable_names(problem)]
    opt = getattr(tf.optimizers, name)(**kwargs)
    losses = []
    for _ in range(steps):
        if style == "tape":
            with tf.GradientTape() as tape:
                loss = problem_loss(tf, problem, data, v)
            grads = tape.gradient(loss, var_list)
            opt.apply_gradients(zip(grads, var_list, strict=True))
        elif style == "minimize":
            loss = problem_loss(tf, problem, data, v)
            opt.minimize(lambda: problem_loss(tf, problem, data, v), var_list)
        elif style == "minimize_tape":
            with tf.GradientTape() as tape:
                loss = problem_loss(tf, problem, data, v)
            opt.minimize(loss, var_list, tape=tape)
        elif style == "minimize_var_fn":
            loss = problem_loss(tf, problem, data, v)
            opt.minimize(lambda: problem_loss(tf, problem, data, v), lambda: var_list)
        else:
            raise ValueError(style)
        losses.append(float(loss))
    return {"losses": losses, "variables": [_list(x.numpy()) for x in var_list],
            "iterations": int(opt.iterations.numpy())}  # fmt: skip


# --------------------------------------------------------------------------------------------- TF 1


def _v1_variables(tf: Any, problem: str, data: dict[str, np.ndarray]) -> dict[str, Any]:
    return {key: tf.compat.v1.Variable(data[key], name=key) for key in variable_names(problem)}


def v1_graph(tf: Any, problem: str, name: str, kwargs: dict[str, Any], steps: int = STEPS) -> dict[str, Any]:
    """``minimize`` in a v1 graph (default var_list: the trainable collection; a global step); Session.run."""
    data = problem_data(problem)
    graph = tf.Graph()
    with graph.as_default():
        v = _v1_variables(tf, problem, data)
        global_step = tf.compat.v1.Variable(0, name="global_step", trainable=False, dtype=tf.int64)
        loss = problem_loss(tf, problem, data, v)
        opt = getattr(tf.compat.v1.train, name)(**kwargs)
        grads_and_vars = opt.compute_gradients(loss)
        train = opt.minimize(loss, global_step=global_step)
        plain = opt.minimize(loss, name="plain")
        result: dict[str, Any] = {
            "compute_gradients": [
                {"variable": var.name, "gradient": type(g).__name__,
                 "shape": None if g.shape.rank is None else g.shape.as_list()}  # fmt: skip
                for g, var in grads_and_vars
            ],
            "train_op": [train.name, train.type],
            "plain_op": [plain.name, plain.type],
            "train_op_collection": [op.name for op in graph.get_collection("train_op")],
            "slot_names": sorted(opt.get_slot_names()),
        }
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            losses = []
            for _ in range(steps):
                loss_value, _ = sess.run([loss, train])
                losses.append(float(loss_value))
            result["losses"] = losses
            result["global_step"] = int(sess.run(global_step))
            result["variables"] = [_list(sess.run(v[key])) for key in variable_names(problem)]
    return result


def v1_eager(tf: Any, problem: str, name: str, kwargs: dict[str, Any], steps: int = STEPS) -> dict[str, Any]:
    """``minimize`` eagerly with a callable loss (var_list from the tape's watched variables)."""
    data = problem_data(problem)
    v = {key: tf.Variable(data[key], name=key) for key in variable_names(problem)}
    opt = getattr(tf.compat.v1.train, name)(**kwargs)
    global_step = tf.Variable(0, dtype=tf.int64, trainable=False)
    losses = []
    for _ in range(steps):
        losses.append(float(problem_loss(tf, problem, data, v)))
        opt.minimize(lambda: problem_loss(tf, problem, data, v), global_step=global_step)
    pairs = opt.compute_gradients(lambda: problem_loss(tf, problem, data, v))
    return {"losses": losses, "global_step": int(global_step.numpy()),
            "variables": [_list(v[key].numpy()) for key in variable_names(problem)],
            "compute_gradients": [[type(g).__name__, var.name] for g, var in pairs]}  # fmt: skip


def v1_errors(tf: Any) -> dict[str, Any]:
    """TF 1's errors: no variables, no gradients, a tensor loss eagerly, a bad gate_gradients."""
    out: dict[str, Any] = {}
    graph = tf.Graph()
    with graph.as_default():
        opt = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        loss = tf.reduce_sum(tf.constant([1.0, 2.0]))
        try:
            opt.minimize(loss)
            out["no_variables"] = None
        except Exception as exc:  # noqa: BLE001 - recording the error
            out["no_variables"] = error(exc)
        tf.compat.v1.Variable([1.0, 2.0], name="unused")
        try:
            opt.minimize(loss)
            out["no_gradients"] = None
        except Exception as exc:  # noqa: BLE001
            out["no_gradients"] = error(exc)
        try:
            opt.compute_gradients(loss, gate_gradients=7)
            out["gate_gradients"] = None
        except Exception as exc:  # noqa: BLE001
            out["gate_gradients"] = error(exc)
        out["unconnected"] = [[g is None, var.name] for g, var in opt.compute_gradients(loss)]
    try:
        tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(tf.constant(1.0))
        out["eager_tensor_loss"] = None
    except Exception as exc:  # noqa: BLE001
        out["eager_tensor_loss"] = error(exc)
    return out
