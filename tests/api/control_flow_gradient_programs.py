"""Programs differentiating through control flow that the gradient case format cannot express.

Each program takes the ``tf`` module (TensorFlow 2.21 in ``tools/make_golden_control_flow_gradients.py``,
modtensor in ``tests/api/test_control_flow_gradients.py``) and returns plain numpy results, so the
same code records TF's numbers and checks modtensor's. Imports nothing but numpy.

``MODE_PROGRAMS`` run in three modes: ``eager`` (GradientTape), ``function`` (a GradientTape inside
``tf.function``) and ``graph`` (a v1 graph, ``tf.compat.v1.gradients``, a Session); they differentiate
``sum(outputs)`` with respect to their inputs and variables.
"""

from __future__ import annotations

from typing import Any

import numpy as np

MODES = ("eager", "function", "graph")

_X = np.array([0.5, -1.0, 2.0])
_Y = np.array([1.5, 0.3, -0.7])
_W = np.array([[0.2, -0.4, 0.1], [0.7, 0.05, -0.3]])


def _numpy(value: Any) -> Any:
    return None if value is None else np.asarray(value).tolist()


def gradients_in_mode(tf: Any, mode: str, fn: Any, inputs: list[Any], variables: list[Any] = (),
                      twice: bool = False) -> list[Any]:  # fmt: skip
    """The gradients of ``sum(fn(tf, *inputs, *variables))`` with respect to the inputs and the variables in
    ``mode`` (None where there is none; ``twice``: computed twice on one tape, or with two tf.gradients, and the
    second result returned)."""
    if mode == "eager":
        tensors = [tf.constant(v) for v in inputs]
        variables = [tf.Variable(v) for v in variables]
        with tf.GradientTape(persistent=twice) as tape:
            for t in tensors:
                tape.watch(t)
            out = fn(tf, *tensors, *variables)
        grads = tape.gradient(out, [*tensors, *variables])
        if twice:
            grads = tape.gradient(out, [*tensors, *variables])
        return [None if g is None else _numpy(tf.convert_to_tensor(g)) for g in grads]
    if mode == "function":
        variables = [tf.Variable(v) for v in variables]

        @tf.function(autograph=False)
        def run(*tensors: Any) -> Any:
            with tf.GradientTape(persistent=twice) as tape:
                for t in tensors:
                    tape.watch(t)
                out = fn(tf, *tensors, *variables)
            grads = tape.gradient(out, [*tensors, *variables])
            if twice:
                grads = tape.gradient(out, [*tensors, *variables])
            values = [tf.zeros([0]) if g is None else tf.convert_to_tensor(g) for g in grads]
            return values, [g is None for g in grads]

        values, missing = run(*[tf.constant(v) for v in inputs])
        return [None if m else _numpy(v) for v, m in zip(values, missing, strict=True)]
    graph = tf.Graph()
    with graph.as_default():
        tensors = [tf.constant(v) for v in inputs]
        variables = [tf.Variable(v) for v in variables]
        out = fn(tf, *tensors, *variables)
        grads = tf.compat.v1.gradients(out, [*tensors, *variables])
        if twice:
            grads = tf.compat.v1.gradients(out, [*tensors, *variables])
        fetch = [tf.convert_to_tensor(g) for g in grads if g is not None]
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            values = iter(sess.run(fetch))
    return [None if g is None else _numpy(next(values)) for g in grads]


# ---------------------------------------------------------------------------- programs run in every mode


def cond_input_in_one_branch(tf: Any, mode: str) -> Any:
    fn = lambda tf, x, y: tf.cond(tf.constant(False), lambda: tf.sigmoid(x * y), lambda: tf.square(x))  # noqa: E731
    return gradients_in_mode(tf, mode, fn, [_X, _Y])


def cond_passthrough(tf: Any, mode: str) -> Any:
    fn = lambda tf, x, y: tf.cond(tf.constant(True), lambda: x, lambda: y) * 3.0  # noqa: E731
    return gradients_in_mode(tf, mode, fn, [_X, _Y])


def switch_case_default(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, y: Any) -> Any:
        return tf.switch_case(tf.constant(7), [lambda: x * x, lambda: tf.tanh(x) * y], default=lambda: tf.exp(y))

    return gradients_in_mode(tf, mode, fn, [_X, _Y])


def while_zero_iterations(tf: Any, mode: str) -> Any:
    fn = lambda tf, x, y: tf.while_loop(lambda i, v: i < 0, lambda i, v: (i + 1, v * y), [0, x])[1]  # noqa: E731
    return gradients_in_mode(tf, mode, fn, [_X, _Y])


def while_back_prop_false(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, y: Any) -> Any:
        loop = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * y), [0, x], back_prop=False)[1]
        return loop + x * y

    return gradients_in_mode(tf, mode, fn, [_X, _Y])


def variable_in_cond(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, v: Any) -> Any:
        return tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.tanh(x * v), lambda: v * v)

    return gradients_in_mode(tf, mode, fn, [_X], [_Y])


def variable_in_untaken_branch(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, v: Any) -> Any:
        return tf.cond(tf.reduce_sum(x) < 0.0, lambda: tf.tanh(x * v), lambda: x * x)

    return gradients_in_mode(tf, mode, fn, [_X], [_Y])


def variable_in_while(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, v: Any) -> Any:
        return tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.tanh(h * v) + x), [0, x])[1]

    return gradients_in_mode(tf, mode, fn, [_X], [_Y])


def variable_matmul_in_while(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, w: Any) -> Any:
        body = lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w, transpose_b=True)))  # noqa: E731
        return tf.while_loop(lambda i, h: i < 4, body, [0, tf.reshape(x, [1, 3])])[1]

    return gradients_in_mode(tf, mode, fn, [_X], [np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6], [0.9, 0.2, 0.1]])])


def variable_gather_in_while(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, w: Any) -> Any:
        body = lambda i, h: (i + 1, h * tf.reshape(tf.gather(w, i % 2), [3]) + x)  # noqa: E731
        return tf.while_loop(lambda i, h: i < 3, body, [0, x])[1]

    return gradients_in_mode(tf, mode, fn, [_X], [_W])


def variable_cond_in_while(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, v: Any) -> Any:
        def body(i: Any, h: Any) -> Any:
            return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: tf.tanh(h * v), lambda: h + v * x)

        return tf.while_loop(lambda i, h: i < 4, body, [0, x])[1]

    return gradients_in_mode(tf, mode, fn, [_X], [_Y])


def while_in_cond_branch(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, v: Any) -> Any:
        def loop() -> Any:
            return tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.sigmoid(h * v + x)), [0, x])[1]

        return tf.cond(tf.reduce_sum(x) > 0.0, loop, lambda: x * v)

    return gradients_in_mode(tf, mode, fn, [_X], [_Y])


def map_fn_reads_variable(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, v: Any) -> Any:
        return tf.map_fn(lambda row: tf.tanh(row * v), tf.reshape(tf.concat([x, x * 2.0], 0), [2, 3]))

    return gradients_in_mode(tf, mode, fn, [_X], [_Y])


def int_loop_variable(tf: Any, mode: str) -> Any:
    def fn(tf: Any, n: Any, x: Any) -> Any:
        return tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [n, x])[1]

    return gradients_in_mode(tf, mode, fn, [np.array(0, np.int32), _X])


def gradient_computed_twice(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, v: Any) -> Any:
        def body(i: Any, h: Any) -> Any:
            return i + 1, tf.cond(h[0] > 0.0, lambda: tf.tanh(h * v), lambda: h * x)

        return tf.while_loop(lambda i, h: i < 3, body, [0, x])[1]

    return gradients_in_mode(tf, mode, fn, [_X], [_Y], twice=True)


def second_derivative_while(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, y: Any) -> Any:
        with tf.GradientTape() as inner:
            inner.watch(x)
            h = tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.tanh(h * y) + x), [0, x])[1]
            loss = tf.reduce_sum(h * h)
        return inner.gradient(loss, x)

    return gradients_in_mode(tf, mode, fn, [_X, _Y])


def second_derivative_cond(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, y: Any) -> Any:
        with tf.GradientTape() as inner:
            inner.watch(x)
            h = tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.tanh(x * y) * x, lambda: tf.exp(x))
            loss = tf.reduce_sum(h * y)
        return inner.gradient(loss, x)

    return gradients_in_mode(tf, mode, fn, [_X, _Y])


def second_derivative_function_call(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, y: Any) -> Any:
        def loop(a: Any, b: Any) -> Any:
            return tf.while_loop(lambda i, h: i < 2, lambda i, h: (i + 1, tf.tanh(h * b) + a), [0, a])[1]

        g = tf.function(loop)
        with tf.GradientTape() as inner:
            inner.watch(x)
            loss = tf.reduce_sum(tf.square(g(x, y)))
        return inner.gradient(loss, x)

    return gradients_in_mode(tf, mode, fn, [_X, _Y])


def function_calls_function_with_loop(tf: Any, mode: str) -> Any:
    def fn(tf: Any, x: Any, y: Any) -> Any:
        inner = tf.function(
            lambda a, b: tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.tanh(h * b) + a), [0, a])[1]
        )
        outer = tf.function(lambda a, b: tf.cond(tf.reduce_sum(a) > 0.0, lambda: inner(a, b) * b, lambda: a))
        return outer(x, y)

    return gradients_in_mode(tf, mode, fn, [_X, _Y])


MODE_PROGRAMS = {
    "cond_input_in_one_branch": cond_input_in_one_branch,
    "cond_passthrough": cond_passthrough,
    "switch_case_default": switch_case_default,
    "while_zero_iterations": while_zero_iterations,
    "while_back_prop_false": while_back_prop_false,
    "variable_in_cond": variable_in_cond,
    "variable_in_untaken_branch": variable_in_untaken_branch,
    "variable_in_while": variable_in_while,
    "variable_matmul_in_while": variable_matmul_in_while,
    "variable_gather_in_while": variable_gather_in_while,
    "variable_cond_in_while": variable_cond_in_while,
    "while_in_cond_branch": while_in_cond_branch,
    "map_fn_reads_variable": map_fn_reads_variable,
    "int_loop_variable": int_loop_variable,
    "gradient_computed_twice": gradient_computed_twice,
    "second_derivative_while": second_derivative_while,
    "second_derivative_cond": second_derivative_cond,
    "second_derivative_function_call": second_derivative_function_call,
    "function_calls_function_with_loop": function_calls_function_with_loop,
}


# ---------------------------------------------------------------------------- a Keras-style LSTM trained in a loop

LSTM_STEPS = 5
_T, _BATCH, _FEATURES, _UNITS = 7, 4, 3, 5


def lstm_data() -> dict[str, np.ndarray]:
    """Fixed weights and data (float32), the same for TF and modtensor."""
    rng = np.random.default_rng(20260)
    scale = 0.4
    return {
        "kernel": (rng.standard_normal((_FEATURES, 4 * _UNITS)) * scale).astype(np.float32),
        "recurrent_kernel": (rng.standard_normal((_UNITS, 4 * _UNITS)) * scale).astype(np.float32),
        "bias": np.concatenate([np.zeros(_UNITS), np.ones(_UNITS), np.zeros(2 * _UNITS)]).astype(np.float32),
        "dense_kernel": (rng.standard_normal((_UNITS, 1)) * scale).astype(np.float32),
        "dense_bias": np.zeros(1, np.float32),
        "inputs": rng.standard_normal((_BATCH, _T, _FEATURES)).astype(np.float32),
        "targets": rng.standard_normal((_BATCH, 1)).astype(np.float32),
    }


def lstm_training(tf: Any) -> dict[str, Any]:
    """An LSTM (Keras's LSTMCell equations, Keras's backend.rnn loop: a while_loop over TensorArrays with
    maximum_iterations) over a sequence, a Dense layer on the last output, mean squared error; trained
    ``LSTM_STEPS`` steps of SGD inside one tf.function train step. Returns the losses and final weights."""
    data = lstm_data()
    names = ("kernel", "recurrent_kernel", "bias", "dense_kernel", "dense_bias")
    weights = [tf.Variable(data[n], name=n) for n in names]
    kernel, recurrent_kernel, bias, dense_kernel, dense_bias = weights
    inputs = tf.constant(data["inputs"])
    targets = tf.constant(data["targets"])

    def cell(x: Any, h: Any, c: Any) -> Any:
        z = tf.matmul(x, kernel) + tf.matmul(h, recurrent_kernel) + bias
        z0, z1, z2, z3 = tf.split(z, 4, axis=1)
        i = tf.sigmoid(z0)
        f = tf.sigmoid(z1)
        c = f * c + i * tf.tanh(z2)
        o = tf.sigmoid(z3)
        return o * tf.tanh(c), c

    def rnn(sequence: Any) -> Any:
        time_major = tf.transpose(sequence, [1, 0, 2])
        steps = tf.shape(time_major)[0]
        input_ta = tf.TensorArray(tf.float32, size=steps).unstack(time_major)
        output_ta = tf.TensorArray(tf.float32, size=steps)
        zeros = tf.zeros([tf.shape(sequence)[0], _UNITS])

        def body(time: Any, outputs: Any, h: Any, c: Any) -> Any:
            h, c = cell(input_ta.read(time), h, c)
            return time + 1, outputs.write(time, h), h, c

        _, output_ta, h, _ = tf.while_loop(
            lambda time, *_: time < steps, body, [tf.constant(0), output_ta, zeros, zeros], maximum_iterations=steps
        )
        return output_ta.stack(), h

    @tf.function
    def train_step(sequence: Any, y: Any) -> Any:
        with tf.GradientTape() as tape:
            outputs, last = rnn(sequence)
            prediction = tf.matmul(outputs[-1], dense_kernel) + dense_bias
            loss = tf.reduce_mean(tf.square(prediction - y)) + 0.0 * tf.reduce_sum(last)
        grads = tape.gradient(loss, weights)
        for w, g in zip(weights, grads, strict=True):
            w.assign_sub(0.5 * g)
        return loss

    losses = [float(train_step(inputs, targets).numpy()) for _ in range(LSTM_STEPS)]
    return {"losses": losses, **{n: w.numpy().tolist() for n, w in zip(names, weights, strict=True)}}


# ---------------------------------------------------------------------------- a SavedModel with control flow


def saved_model_inputs() -> dict[str, np.ndarray]:
    return {
        "x": np.array([[0.3, -0.8, 0.5], [1.2, 0.1, -0.4]], np.float32),
        "upstream": np.array([[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]], np.float32),
    }


def saved_model_gradients(tf: Any, path: str, mode: str) -> list[Any]:
    """Load the SavedModel at ``path`` (``tools/make_golden_control_flow_gradients.py``) and differentiate
    ``sum(upstream * model(x))`` with respect to ``x`` and the model's variables ``w`` and ``b``: eagerly (the
    restored function is one op on the tape) or inside a tf.function (its body is built into the graph)."""
    loaded = tf.saved_model.load(path)
    data = saved_model_inputs()
    x = tf.constant(data["x"])
    upstream = tf.constant(data["upstream"])
    sources = [loaded.w, loaded.b]

    def grads(x: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(loaded(x) * upstream)
        return tape.gradient(loss, [x, *sources])

    result = grads(x) if mode == "eager" else tf.function(grads)(x)
    return [None if g is None else _numpy(tf.convert_to_tensor(g)) for g in result]
