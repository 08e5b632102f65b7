"""Save and restore as TF 2 programs do: tf.Module, tf.train.Checkpoint(Manager), tf.saved_model save/load."""

import json
import os
import sys
import tempfile

import tensorflow as tf


class Dense(tf.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.reshape(tf.range(n_in * n_out, dtype=tf.float32), [n_in, n_out]) * 0.1, name="w")
        self.b = tf.Variable(tf.zeros([n_out]), name="b")

    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.l1 = Dense(3, 4)
        self.l2 = Dense(4, 2)
        self.steps = tf.Variable(0, dtype=tf.int64)

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def __call__(self, x):
        self.steps.assign_add(1)
        return self.l2(self.l1(x))


workdir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
model = Model()
x = tf.constant([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
before = model(x).numpy().tolist()

ckpt = tf.train.Checkpoint(model=model)
manager = tf.train.CheckpointManager(ckpt, os.path.join(workdir, "ckpts"), max_to_keep=2)
paths = [os.path.basename(manager.save()) for _ in range(3)]
model.l1.w.assign(tf.zeros([3, 4]))
status = ckpt.restore(manager.latest_checkpoint)
status.assert_consumed()
restored = model(x).numpy().tolist()

export = os.path.join(workdir, "saved")
tf.saved_model.save(model, export)
loaded = tf.saved_model.load(export)
served = loaded(x).numpy().tolist()
signature = loaded.signatures["serving_default"]
sig_out = {k: v.numpy().tolist() for k, v in signature(x=x).items()}

results = {
    "before": before,
    "paths": paths,
    "kept": [os.path.basename(p) for p in manager.checkpoints],
    "restored": restored,
    "steps": int(model.steps.numpy()),
    "served": served,
    "signature_keys": sorted(sig_out),
    "signature": sig_out,
    "variables": sorted(v.name for v in model.trainable_variables),
    "loaded_steps": int(loaded.steps.numpy()),
    "reader": sorted(name for name, _ in tf.train.list_variables(manager.latest_checkpoint) if "OPTIMIZER" not in name),
}
print("RESULT", json.dumps(results))
