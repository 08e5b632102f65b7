"""Record a Keras text model exported by TensorFlow whose graph holds ragged ops: ``keras.layers.TextVectorization``
(a fixed vocabulary, ``output_sequence_length``: lower-casing, punctuation stripping, whitespace split, lookup and
RaggedTensorToTensor padding/truncation) in front of Embedding -> pooling -> Dense, saved with ``model.export()``.

    cd /tmp/somewhere && /work/tfvenv/bin/python /work/main/tools/make_golden_ragged_saved_model.py

Writes ``tests/golden/ragged/saved_models/``: ``keras_text_vectorization/`` (the SavedModel) and ``expected.json``
(TF's outputs of ``serve`` after ``tf.saved_model.load``), read by ``tests/api/test_ragged_saved_model.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "ragged" / "saved_models"
VOCAB = ["the", "cat", "sat", "on", "mat", "dog", "ran"]
SENTENCES = ["The cat sat on the mat.", "", "A dog RAN!", "the the the the the the the the", "unknown words only"]


def main() -> int:
    import keras
    import numpy as np
    import tensorflow as tf

    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    keras.utils.set_random_seed(7)
    inputs = keras.Input(shape=(), dtype="string", name="text")
    vectorize = keras.layers.TextVectorization(vocabulary=VOCAB, output_mode="int", output_sequence_length=6)
    ids = vectorize(inputs)
    x = keras.layers.Embedding(len(VOCAB) + 2, 4)(ids)
    x = keras.layers.GlobalAveragePooling1D()(x)
    outputs = keras.layers.Dense(3, activation="softmax")(x)
    model = keras.Model(inputs, [outputs, ids])
    model.export(str(OUT / "keras_text_vectorization"), verbose=False)
    loaded = tf.saved_model.load(str(OUT / "keras_text_vectorization"))
    text = tf.constant(np.array(SENTENCES, dtype=object))
    probs, token_ids = loaded.serve(text)
    expected = {
        "tf_version": tf.__version__,
        "text": SENTENCES,
        "probabilities": probs.numpy().tolist(),
        "token_ids": token_ids.numpy().tolist(),
    }
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    graph = loaded.serve.get_concrete_function(text).graph.as_graph_def()
    ops = sorted({n.op for f in graph.library.function for n in f.node_def} | {n.op for n in graph.node})
    print("wrote", OUT, "ops:", ops)
    return 0


if __name__ == "__main__":
    sys.exit(main())
