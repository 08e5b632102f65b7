"""``tf.audio.decode_wav`` and ``encode_wav`` against TF 2.21: golden snippets (tests/golden/audio,
tools/make_golden_audio.py) replayed as in test_spectral_ops_golden.py; the ops' kernel cases (files TF wrote and
files written field by field, every header TF refuses) are in tests/kernels/test_golden_kernels.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import modtensor as tf

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "audio_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "audio_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


def test_a_speech_style_pipeline_reads_wav_files(tmp_path: Path) -> None:
    # the tf.data idiom of the audio tutorials: list the files, read and decode them to fixed-length clips
    rate = 8000
    for i, n in enumerate((5000, 9000)):
        clip = (np.sin(np.arange(n) * 0.05 * (i + 1)) * 0.5).astype(np.float32)[:, None]
        tf.io.write_file(str(tmp_path / f"clip{i}.wav"), tf.audio.encode_wav(clip, rate))

    def load(path: tf.Tensor) -> tf.Tensor:
        audio, sample_rate = tf.audio.decode_wav(tf.io.read_file(path), desired_channels=1, desired_samples=rate)
        return tf.squeeze(audio, axis=-1)

    clips = list(tf.data.Dataset.list_files(str(tmp_path / "*.wav"), shuffle=False).map(load))
    assert [c.shape for c in clips] == [(rate,), (rate,)]
    np.testing.assert_allclose(clips[0].numpy()[:5000], np.sin(np.arange(5000) * 0.05) * 0.5, atol=1 / 32768)
    assert not clips[0].numpy()[5000:].any()  # padded with zeros to desired_samples
