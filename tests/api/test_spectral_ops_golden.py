"""Complex numbers and ``tf.signal``'s FFTs against TF 2.21: ``tf.complex``, ``tf.math.real/imag/angle/abs/conj``,
``fft``/``ifft`` (1-3D), ``rfft``/``irfft`` (1-3D, inferred, cropped and padded ``fft_length``, unknown dims),
``fftshift``/``ifftshift``, ``frame``, ``hann_window``/``hamming_window``, ``stft``, and gradients through them.

Golden snippets (tests/golden/spectral_ops, tools/make_golden_spectral_ops.py) replayed as in
test_image_ops_golden.py: TF's graph node for node where the snippet's mode has "g", TF's eager values (complex
ones within 1e-5 of the largest output) or errors where it has "e". The ops' own kernel cases are in
tests/kernels/test_golden_kernels.py.
"""

from __future__ import annotations

import pytest

import modtensor as tf

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "spectral_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "spectral_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


def test_signal_names_are_tensorflows() -> None:
    for name in tf.signal.__all__:
        assert callable(getattr(tf.signal, name)), name
    assert "complex" in dir(tf) and {"angle", "real", "imag"} <= set(tf.math.__all__)
    assert "real" not in dir(tf) and "imag" not in dir(tf)  # TF 2 has them in tf.math only
