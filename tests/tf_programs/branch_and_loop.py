"""Branches and loops the way TF 2 programs write them: AutoGraph, tf.cond/while_loop/switch_case, TensorArray."""

import json

import numpy as np
import tensorflow as tf


@tf.function
def collatz_steps(n):
    steps = tf.constant(0)
    while n > 1:
        if n % 2 == 0:  # noqa: SIM108 - an if statement on a tensor, for AutoGraph
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@tf.function
def first_negative_prefix_sum(x):
    total = tf.constant(0.0)
    for i in tf.range(tf.shape(x)[0]):
        total += x[i]
        if total < 0:
            break
    return total


@tf.function
def running_max(x):
    out = tf.TensorArray(tf.float32, size=tf.shape(x)[0])
    best = x[0]
    for i in tf.range(tf.shape(x)[0]):
        best = tf.maximum(best, x[i])
        out = out.write(i, best)
    return out.stack()


@tf.function
def piecewise(x, k):
    y = tf.cond(tf.reduce_mean(x) > 0, lambda: tf.nn.relu(x), lambda: tf.abs(x) * 0.5)
    z = tf.switch_case(k, [lambda: y + 1.0, lambda: y * 2.0, lambda: -y])
    i, acc = tf.while_loop(lambda i, acc: i < k + 2, lambda i, acc: (i + 1, acc * 1.5), (0, z))
    return acc, i


def python_control_flow_in_function():
    @tf.function
    def scaled(x, training=False):
        if training:  # a Python bool: only one branch is traced
            return x * 0.5
        return x

    return [scaled(tf.constant(4.0)).numpy().item(), scaled(tf.constant(4.0), training=True).numpy().item(),
            scaled.experimental_get_tracing_count()]


results = {
    "collatz": [int(collatz_steps(tf.constant(n))) for n in (1, 6, 7, 27)],
    "prefix": [float(first_negative_prefix_sum(tf.constant(v))) for v in ([1.0, -3.0, 5.0], [2.0, 2.0])],
    "running_max": running_max(tf.constant([1.0, 3.0, 2.0, 5.0, 4.0])).numpy().tolist(),
    "piecewise": [
        [a.numpy().tolist(), int(i)]
        for a, i in (
            piecewise(tf.constant(x, tf.float32), tf.constant(k))
            for x, k in (([1.0, -2.0], 0), ([-3.0, 1.0], 1), ([0.5], 2), ([1.0], 7))
        )
    ],
    "python_flow": python_control_flow_in_function(),
    "eager_while": tf.while_loop(lambda i: i < 10, lambda i: [i * 3], [tf.constant(1)])[0].numpy().item(),
    "numpy_mix": (tf.constant(np.arange(6).reshape(2, 3)) * 2).numpy().tolist(),
}
print("RESULT", json.dumps(results))
