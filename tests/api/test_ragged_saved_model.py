"""A Keras TextVectorization model exported by TF 2.21 (``model.export()``) loads and serves TF's results: its
graph splits strings (StringSplitV2), looks the words up and pads/truncates the ragged rows with
RaggedTensorToTensor (tools/make_golden_ragged_saved_model.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import modtensor as tf

SAVED = Path(__file__).resolve().parent.parent / "golden" / "ragged" / "saved_models"


def test_a_keras_text_vectorization_model_exported_by_tensorflow_serves() -> None:
    expected = json.loads((SAVED / "expected.json").read_text())
    loaded = tf.saved_model.load(str(SAVED / "keras_text_vectorization"))
    probabilities, token_ids = loaded.serve(tf.constant(np.array(expected["text"], dtype=object)))
    assert token_ids.numpy().tolist() == expected["token_ids"]
    np.testing.assert_allclose(probabilities.numpy(), expected["probabilities"], rtol=1e-6)
