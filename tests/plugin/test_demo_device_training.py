"""``examples/train_mlp.py`` trained on MY_DEVICE (the demo device plugin) follows TensorFlow's loss curve.

The plugin is built as the other demo-device tests build it and loaded in a child process
(its device types would otherwise stay registered here). The model's variables live on
MY_DEVICE; MatMul, AddV2, Mul, BiasAdd, Relu and the assign ops run the plugin's kernels, the
ops it has no kernel for (Tanh, Exp, the reductions, the cross-entropy, ...) run on the CPU, and the optimizers, finding
no fused ``ResourceApplyAdam``/``ResourceApplyKerasMomentum`` kernel for the device, apply
Keras 3's rule op by op. The loss of every step must equal TensorFlow 2.21's CPU curve
(tests/golden/training/train_mlp.json) within 1e-4, eagerly and with ``tf.function``.
"""

from __future__ import annotations

import json
import textwrap

import numpy as np

from .support import REPO
from .test_demo_device_runtime import build, run_child

GOLDEN = json.loads((REPO / "tests" / "golden" / "training" / "train_mlp.json").read_text())

TRAIN = textwrap.dedent(
    f"""
    import importlib.util, json, sys
    import modtensor as tf

    tf.load_library(sys.argv[1])
    spec = importlib.util.spec_from_file_location("train_mlp", {str(REPO / "examples" / "train_mlp.py")!r})
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    with tf.device("/MY_DEVICE:0"):
        model = example.MLP(example.initial_weights())
    assert all(v.device.endswith("device:MY_DEVICE:0") for v in model.trainable_variables)
    # A gather of a device variable (no ResourceGather on the device: the value is gathered on the CPU) gives an
    # IndexedSlices; SGD and Adagrad apply it with assign ops on the device (no scatter kernels there).
    import numpy as np
    ids = tf.constant([1, 3, 1])
    results = []
    for device in ("/CPU:0", "/MY_DEVICE:0"):
        with tf.device(device):
            emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
        for opt in (tf.optimizers.SGD(0.5), tf.optimizers.Adagrad(0.5)):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.gather(emb, ids) ** 2)
            grad = tape.gradient(loss, emb)
            assert type(grad).__name__ == "IndexedSlices", grad
            opt.apply_gradients([(grad, emb)])
        assert emb.device.endswith(device[1:]), emb.device
        results.append(emb.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)
    curves = {{}}
    for curve in {sorted(GOLDEN["curves"])!r}:
        layers, mode, optimizer = curve.split("/")
        curves[curve] = example.train("MY_DEVICE", {GOLDEN["steps"]}, mode, optimizer, layers=layers)
    print(json.dumps(curves))
    """
)


def test_the_loss_curve_on_my_device_is_tensorflows(build_plugin):
    curves = json.loads(run_child(TRAIN, build(build_plugin, "MY_DEVICE")).splitlines()[-1])
    assert sorted(curves) == sorted(GOLDEN["curves"])
    for curve, losses in curves.items():
        np.testing.assert_allclose(losses, GOLDEN["curves"][curve], rtol=0, atol=1e-4, err_msg=curve)
