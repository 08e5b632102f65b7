"""Train a small MLP classifier with ``tf.GradientTape`` and a Keras optimizer, on CPU or on a plugin's device.

The program is a TensorFlow program: ``import modtensor as tf`` is its only difference
from the one that ran under TensorFlow 2.21 to record the golden loss curves
(``tools/make_golden_training.py`` runs this very file with ``import tensorflow as tf``).

    python examples/train_mlp.py                                   # CPU, tf.function step, Adam
    python examples/train_mlp.py --mode eager --optimizer momentum # eager tape loop, SGD with momentum
    make -C examples/plugins/demo_device
    python examples/train_mlp.py --device MY_DEVICE --plugin examples/plugins/demo_device/libdemo_device.so
    python examples/train_mlp.py --layers nn                       # tf.nn layers and loss

The data are three Gaussian blobs in 8 dimensions (numpy, fixed seed); the model is
``softmax(tanh(x @ w1 + b1) @ w2 + b2)`` with Glorot-uniform initial weights (numpy,
fixed seed), trained on mini-batches of 64 in a fixed order. The loss is the mean
cross-entropy, with the log-softmax written out (shifted by the row maximum). With
``--layers nn`` the hidden layer is ``tf.nn.relu(tf.nn.bias_add(...))``, the logits
``tf.nn.bias_add`` and the loss ``tf.nn.softmax_cross_entropy_with_logits``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import modtensor as tf

FEATURES, HIDDEN, CLASSES = 8, 32, 3
EXAMPLES, BATCH = 512, 64


def make_dataset(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Features ``[EXAMPLES, FEATURES]`` and one-hot labels ``[EXAMPLES, CLASSES]`` (float32)."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=1.0, size=(CLASSES, FEATURES))
    labels = rng.integers(0, CLASSES, size=EXAMPLES)
    features = centers[labels] + rng.normal(size=(EXAMPLES, FEATURES))
    return features.astype(np.float32), np.eye(CLASSES, dtype=np.float32)[labels]


def initial_weights(seed: int = 1, sizes: tuple[int, int, int] = (FEATURES, HIDDEN, CLASSES)) -> list[np.ndarray]:
    """``w1, b1, w2, b2`` of a ``features -> hidden -> classes`` MLP: Glorot-uniform matrices, zero biases."""
    features, hidden, classes = sizes
    rng = np.random.default_rng(seed)

    def glorot(fan_in: int, fan_out: int) -> np.ndarray:
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-limit, limit, size=(fan_in, fan_out)).astype(np.float32)

    return [glorot(features, hidden), np.zeros(hidden, np.float32), glorot(hidden, classes),
            np.zeros(classes, np.float32)]  # fmt: skip


class MLP(tf.Module):
    """One hidden layer (tanh, or with ``layers="nn"`` relu of ``tf.nn.bias_add``), linear logits."""

    def __init__(self, weights: list[np.ndarray], layers: str = "composite"):
        super().__init__()
        self.w1 = tf.Variable(weights[0], name="w1")
        self.b1 = tf.Variable(weights[1], name="b1")
        self.w2 = tf.Variable(weights[2], name="w2")
        self.b2 = tf.Variable(weights[3], name="b2")
        self.layers = layers

    def __call__(self, x):
        if self.layers == "nn":
            hidden = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, self.w1), self.b1))
            return tf.nn.bias_add(tf.matmul(hidden, self.w2), self.b2)
        hidden = tf.tanh(tf.matmul(x, self.w1) + self.b1)
        return tf.matmul(hidden, self.w2) + self.b2


def cross_entropy(labels, logits, layers: str = "composite"):
    """Mean softmax cross-entropy of one-hot ``labels`` (log-softmax shifted by the row maximum, or TF's op)."""
    if layers == "nn":
        return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    shifted = logits - tf.stop_gradient(tf.reduce_max(logits, axis=1, keepdims=True))
    log_probs = shifted - tf.math.log(tf.reduce_sum(tf.exp(shifted), axis=1, keepdims=True))
    return -tf.reduce_mean(tf.reduce_sum(labels * log_probs, axis=1))


def make_optimizer(name: str, learning_rate: float):
    """Keras's Adam, or SGD with momentum 0.9."""
    if name == "adam":
        return tf.optimizers.Adam(learning_rate)
    if name == "momentum":
        return tf.optimizers.SGD(learning_rate, momentum=0.9)
    raise ValueError(f"unknown optimizer {name!r}")


def make_train_step(model: MLP, opt, mode: str = "function"):
    """``train_step(x, y) -> loss``: the loss under a tape, its gradients, one optimizer step; traced by
    ``tf.function`` (``mode="function"``) or run eagerly (``"eager"``)."""

    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = cross_entropy(y, model(x), model.layers)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    if mode == "function":
        return tf.function(train_step)
    if mode != "eager":
        raise ValueError(f"unknown mode {mode!r}")
    return train_step


def train(device: str = "CPU", steps: int = 100, mode: str = "function", optimizer: str = "adam",
          learning_rate: float | None = None, log_every: int = 0,
          layers: str = "composite") -> list[float]:  # fmt: skip
    """Train from the fixed initial weights for ``steps`` mini-batches; returns the loss of every step."""
    features, labels = make_dataset()
    if learning_rate is None:
        learning_rate = 0.01 if optimizer == "adam" else 0.05
    with tf.device(f"/{device}:0"):
        model = MLP(initial_weights(), layers)
    train_step = make_train_step(model, make_optimizer(optimizer, learning_rate), mode)
    losses = []
    with tf.device(f"/{device}:0"):
        for step in range(steps):
            start = (step * BATCH) % EXAMPLES
            x = tf.constant(features[start:start + BATCH])
            y = tf.constant(labels[start:start + BATCH])
            losses.append(float(train_step(x, y)))
            if log_every and (step % log_every == 0 or step == steps - 1):
                print(f"step {step:4d}  loss {losses[-1]:.6f}", flush=True)
    return losses


def main(argv: list[str] | None = None) -> None:
    """Parse the command line, load the device plugin if given, train and print the loss curve."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="CPU", help="device type to train on (CPU, MY_DEVICE, ...)")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--mode", choices=("function", "eager"), default="function",
                        help="a tf.function train step, or the eager tape loop")  # fmt: skip
    parser.add_argument("--optimizer", choices=("adam", "momentum"), default="adam")
    parser.add_argument("--learning-rate", type=float, default=None)
    parser.add_argument("--layers", choices=("composite", "nn"), default="composite",
                        help="tanh and a written-out log-softmax, or tf.nn relu, bias_add, cross-entropy")  # fmt: skip
    parser.add_argument("--plugin", action="append", default=[], help="a device plugin library to load first")
    parser.add_argument("--log-every", type=int, default=10, help="print the loss every N steps")
    args = parser.parse_args(argv)
    for path in args.plugin:
        tf.load_library(path)
    start = time.perf_counter()
    losses = train(args.device, args.steps, args.mode, args.optimizer, args.learning_rate, args.log_every,
                   args.layers)  # fmt: skip
    seconds = time.perf_counter() - start
    print(f"{args.steps} steps on {args.device} ({args.mode}, {args.optimizer}, {args.layers}) in {seconds:.2f} s: "
          f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
