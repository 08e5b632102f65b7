"""Record what TensorFlow's complex-number and FFT functions build and compute, for modtensor's tests.

    /work/tfvenv/bin/python tools/make_golden_spectral_ops.py

Writes ``tests/golden/spectral_ops/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets of ``tf.complex``,
``tf.math.real/imag/angle/abs/conj`` and ``tf.signal``'s ``fft``/``ifft`` (1-3D), ``rfft``/``irfft`` (1-3D, with
and without ``fft_length``, placeholders with unknown dims), ``fftshift``/``ifftshift``, ``frame``, the Hann and
Hamming windows, ``stft``, and the rest of ``tf.signal``: ``overlap_and_add``, ``inverse_stft`` (and its window
function), the Kaiser, Kaiser-Bessel-derived and Vorbis windows, ``dct``/``idct`` (types I-IV), ``mdct``/
``inverse_mdct``, ``linear_to_mel_weight_matrix`` and ``mfccs_from_log_mel_spectrograms``, ``tf.math``'s Bessel
functions, and gradients through them, ids ``spectral_...``,
read by ``tests/api/test_spectral_ops_golden.py``), and in ``ops/`` the files ``tools/make_golden_op_breadth.py``
writes (OpDefs, CPU kernel constraints, shape and kernel cases) for Complex, Real, Imag, Angle, ComplexAbs and the
FFT ops (and BesselI0/I0e/I1/I1e: both series, the overflow of I0/I1, signed zeros, infinities, NaN, every
dtype): odd, prime and power-of-two lengths, empty inputs, inputs cropped and zero-padded to ``fft_length``,
complex64 and complex128, and TF's errors.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_frontend_breadth  # noqa: E402, F401  (its scalar-bytes encoding of eager values)
import make_golden_frontend_ops as base  # noqa: E402
import make_golden_op_breadth as breadth  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "spectral_ops"

COMPLEX_OPS = ["Angle", "Complex", "ComplexAbs", "Imag", "Real"]
FFT_OPS = ["FFT", "FFT2D", "FFT3D", "IFFT", "IFFT2D", "IFFT3D"]
RFFT_OPS = ["IRFFT", "IRFFT2D", "IRFFT3D", "RFFT", "RFFT2D", "RFFT3D"]
BESSEL_OPS = ["BesselI0", "BesselI0e", "BesselI1", "BesselI1e"]  # tf.math's; the Kaiser windows use BesselI0e
OPS = COMPLEX_OPS + FFT_OPS + RFFT_OPS + BESSEL_OPS

C1 = "tf.complex(tf.range(6.0) - 2.0, tf.constant([0.5, -1.0, 0.0, 2.0, -3.0, 1.0]))"
C2 = "tf.complex(tf.reshape(tf.range(12.0), [3, 4]) / 3.0, tf.reshape(tf.range(12.0), [3, 4]) % 5.0 - 2.0)"
C3 = "tf.cast(tf.reshape(tf.range(24.0), [2, 3, 4]), tf.complex128) * tf.constant(1 - 0.5j, tf.complex128)"
R1 = "tf.constant([1.0, -2.0, 3.5, 0.25, 5.0, -1.0, 2.0])"
R2 = "tf.reshape(tf.sin(tf.range(30.0)), [5, 6])"
R3 = "tf.reshape(tf.cos(tf.range(60.0, dtype=tf.float64)), [3, 4, 5])"

CASES: list[tuple[str, str, str]] = [
    ("spectral_complex", "tf.complex(1.0, 2.0)", "ge"),
    ("spectral_complex_broadcast", "tf.complex([1.0, 2.0], [[3.0], [4.0]], name='c')", "ge"),
    ("spectral_complex_f64", "tf.complex(tf.constant([1.0], tf.float64), tf.constant([-2.0], tf.float64))", "ge"),
    ("spectral_complex_mixed", "tf.complex(tf.constant(1.0), tf.constant(2.0, tf.float64))", "ge"),
    ("spectral_complex_int", "tf.complex(tf.constant(1), tf.constant(2))", "ge"),
    ("spectral_complex_ph", "tf.complex(ph(tf.float32, [None, 3]), ph(tf.float32, [2, None]))", "g"),
    ("spectral_real", f"tf.math.real({C1})", "ge"),
    ("spectral_real_f64", f"tf.math.real({C3}, name='re')", "ge"),
    ("spectral_real_of_float", "tf.math.real(tf.constant([1.5, -2.0]))", "ge"),
    ("spectral_imag", f"tf.math.imag({C2})", "ge"),
    ("spectral_imag_of_float", "tf.math.imag(tf.constant([1.5, -2.0]))", "ge"),
    ("spectral_angle", f"tf.math.angle({C1})", "ge"),
    ("spectral_angle_of_float", "tf.math.angle(tf.constant([1.5, -2.0, 0.0]))", "ge"),
    ("spectral_abs", f"tf.math.abs({C2})", "ge"),
    ("spectral_abs_f64", f"tf.abs({C3})", "ge"),
    ("spectral_conj", f"tf.math.conj({C1})", "ge"),
    ("spectral_fft", f"tf.signal.fft({C1})", "ge"),
    ("spectral_ifft", f"tf.signal.ifft({C2}, name='inv')", "ge"),
    ("spectral_fft2d", f"tf.signal.fft2d({C2})", "ge"),
    ("spectral_ifft2d", f"tf.signal.ifft2d({C3})", "ge"),
    ("spectral_fft3d", f"tf.signal.fft3d({C3})", "ge"),
    ("spectral_ifft3d", f"tf.signal.ifft3d(tf.signal.fft3d({C3}))", "e"),
    ("spectral_fft_float", f"tf.signal.fft({R1})", "ge"),
    ("spectral_fft_ph", "tf.signal.fft(ph(tf.complex64, [None, 8]))", "g"),
    ("spectral_rfft", f"tf.signal.rfft({R1})", "ge"),
    ("spectral_rfft_crop", f"tf.signal.rfft({R1}, fft_length=[4])", "ge"),
    ("spectral_rfft_pad", f"tf.signal.rfft({R1}, fft_length=[12], name='padded')", "ge"),
    ("spectral_rfft_tensor_length", f"tf.signal.rfft({R2}, tf.constant([6]))", "ge"),
    ("spectral_rfft_ph", "tf.signal.rfft(ph(tf.float32, [None, None]))", "g"),
    ("spectral_rfft_ph_length", "tf.signal.rfft(ph(tf.float32, [3, None]), ph(tf.int32, [1]))", "g"),
    ("spectral_rfft_int", "tf.signal.rfft(tf.constant([1, 2, 3]))", "ge"),
    ("spectral_rfft2d", f"tf.signal.rfft2d({R2})", "ge"),
    ("spectral_rfft2d_pad", f"tf.signal.rfft2d({R2}, fft_length=[8, 8])", "ge"),
    ("spectral_rfft3d", f"tf.signal.rfft3d({R3})", "ge"),
    ("spectral_irfft", f"tf.signal.irfft(tf.signal.rfft({R1}))", "ge"),
    ("spectral_irfft_length", f"tf.signal.irfft(tf.signal.rfft({R1}), fft_length=[7])", "ge"),
    ("spectral_irfft_pad", f"tf.signal.irfft({C1}, fft_length=[16])", "ge"),
    ("spectral_irfft_ph", "tf.signal.irfft(ph(tf.complex64, [2, None]))", "g"),
    ("spectral_irfft2d", f"tf.signal.irfft2d(tf.signal.rfft2d({R2}))", "ge"),
    ("spectral_irfft3d", f"tf.signal.irfft3d(tf.signal.rfft3d({R3}), fft_length=[3, 4, 5])", "ge"),
    ("spectral_irfft_float", f"tf.signal.irfft({R1})", "ge"),
    # gradients through a tape (eager values)
    ("spectral_grad_abs_rfft",
     f"x = {R1}\nwith tf.GradientTape() as t:\n    t.watch(x)\n    y = tf.reduce_sum(tf.abs(tf.signal.rfft(x)))\n"
     "t.gradient(y, x)", "e"),
    ("spectral_grad_rfft_even",
     "x = tf.reshape(tf.cos(tf.range(16.0)), [2, 8])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
     "    y = tf.reduce_sum(tf.math.real(tf.signal.rfft(x)) * tf.range(5.0))\nt.gradient(y, x)", "e"),
    ("spectral_grad_irfft",
     f"c = {C1}\nwith tf.GradientTape() as t:\n    t.watch(c)\n    y = tf.reduce_sum(tf.signal.irfft(c) * "
     "tf.range(10.0))\nt.gradient(y, c)", "e"),
    ("spectral_grad_irfft2d",
     f"c = {C2}\nwith tf.GradientTape() as t:\n    t.watch(c)\n    y = tf.reduce_sum(tf.signal.irfft2d(c) ** 2)\n"
     "t.gradient(y, c)", "e"),
    ("spectral_grad_rfft2d",
     f"x = {R2}\nwith tf.GradientTape() as t:\n    t.watch(x)\n    y = tf.reduce_sum(tf.abs(tf.signal.rfft2d(x)))\n"
     "t.gradient(y, x)", "e"),
    ("spectral_grad_rfft2d_odd",
     "x = tf.reshape(tf.sin(tf.range(2 * 3 * 5, dtype=tf.float64)), [2, 3, 5])\nwith tf.GradientTape() as t:\n"
     "    t.watch(x)\n    y = tf.reduce_sum(tf.math.imag(tf.signal.rfft2d(x)) ** 2)\nt.gradient(y, x)", "e"),
    ("spectral_grad_fft",
     f"c = {C2}\nwith tf.GradientTape() as t:\n    t.watch(c)\n    y = tf.reduce_sum(tf.abs(tf.signal.fft2d(c)))\n"
     "t.gradient(y, c)", "e"),
    ("spectral_grad_ifft",
     f"c = {C1}\nwith tf.GradientTape() as t:\n    t.watch(c)\n    y = tf.reduce_sum(tf.math.imag(tf.signal.ifft(c)))\n"
     "t.gradient(y, c)", "e"),
    ("spectral_grad_complex_parts",
     "a = tf.constant([[1.0, -2.0, 0.5]])\nb = tf.constant([[3.0], [0.25]])\nwith tf.GradientTape() as t:\n"
     "    t.watch([a, b])\n    z = tf.complex(a, b)\n    y = tf.reduce_sum(tf.math.angle(z) + tf.abs(z) * 2.0)\n"
     "t.gradient(y, [a, b])", "e"),
    # frames, windows, STFT: TF's values and errors (modtensor's frame gathers instead of slicing subframes)
    ("spectral_frame", "tf.signal.frame(tf.reshape(tf.range(20.0), [2, 10]), 4, 3)", "e"),
    ("spectral_frame_pad_end", "tf.signal.frame(tf.reshape(tf.range(20.0), [2, 10]), 4, 3, pad_end=True)", "e"),
    ("spectral_frame_pad_value",
     "tf.signal.frame(tf.range(11), 5, 2, pad_end=True, pad_value=-1)", "e"),
    ("spectral_frame_axis0", "tf.signal.frame(tf.reshape(tf.range(24), [6, 2, 2]), 3, 2, axis=0)", "e"),
    ("spectral_frame_axis_neg", "tf.signal.frame(tf.reshape(tf.range(30.0), [2, 5, 3]), 2, 1, axis=-2)", "e"),
    ("spectral_frame_too_short", "tf.signal.frame(tf.range(3.0), 5, 1)", "e"),
    ("spectral_frame_step_larger", "tf.signal.frame(tf.range(17.0), 3, 5, pad_end=True)", "e"),
    ("spectral_frame_bad_length", "tf.signal.frame(tf.range(10.0), [2, 3], 1)", "e"),
    ("spectral_frame_scalar", "tf.signal.frame(tf.constant(1.0), 2, 1)", "e"),
    ("spectral_hann", "tf.signal.hann_window(8)", "e"),
    ("spectral_hann_symmetric", "tf.signal.hann_window(7, periodic=False, dtype=tf.float64)", "e"),
    ("spectral_hann_odd_periodic", "tf.signal.hann_window(5)", "e"),
    ("spectral_hann_one", "tf.signal.hann_window(1)", "e"),
    ("spectral_hann_zero", "tf.signal.hann_window(0)", "e"),
    ("spectral_hamming", "tf.signal.hamming_window(10)", "e"),
    ("spectral_hamming_symmetric", "tf.signal.hamming_window(6, False)", "e"),
    ("spectral_window_int", "tf.signal.hann_window(4, dtype=tf.int32)", "e"),
    ("spectral_stft", "tf.signal.stft(tf.sin(tf.range(64.0) * 0.3), 16, 8)", "e"),
    ("spectral_stft_batch", "tf.signal.stft(tf.reshape(tf.cos(tf.range(200.0) * 0.1), [2, 100]), 25, 10)", "e"),
    ("spectral_stft_fft_length", "tf.signal.stft(tf.sin(tf.range(50.0)), 12, 5, fft_length=20, pad_end=True)", "e"),
    ("spectral_stft_no_window", "tf.signal.stft(tf.sin(tf.range(40.0)), 8, 4, window_fn=None)", "e"),
    ("spectral_stft_hamming",
     "tf.signal.stft(tf.sin(tf.range(48.0, dtype=tf.float64)), 16, 16, window_fn=tf.signal.hamming_window)", "e"),
    ("spectral_stft_magnitude_grad",
     "x = tf.sin(tf.range(32.0, dtype=tf.float64) * 0.7)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
     "    y = tf.reduce_sum(tf.abs(tf.signal.stft(x, 8, 4)))\nt.gradient(y, x)", "e"),
    # overlap_and_add, inverse STFT: TF's values and errors (modtensor scatters the frames with one segment sum)
    ("spectral_ola", "tf.signal.overlap_and_add(tf.reshape(tf.range(15.0), [3, 5]), 2)", "e"),
    ("spectral_ola_batch", "tf.signal.overlap_and_add(tf.reshape(tf.range(60.0), [2, 2, 3, 5]), 3)", "e"),
    ("spectral_ola_no_overlap", "tf.signal.overlap_and_add(tf.reshape(tf.range(12), [3, 4]), 4)", "e"),
    ("spectral_ola_gap", "tf.signal.overlap_and_add(tf.reshape(tf.range(6.0), [3, 2]), 3)", "e"),
    ("spectral_ola_step_one", "tf.signal.overlap_and_add(tf.reshape(tf.sin(tf.range(24.0)), [4, 6]), 1)", "e"),
    ("spectral_ola_int64_step",
     "tf.signal.overlap_and_add(tf.reshape(tf.range(12.0, dtype=tf.float64), [4, 3]), tf.constant(2, tf.int64))",
     "e"),
    ("spectral_ola_complex",
     "tf.signal.overlap_and_add(tf.complex(tf.reshape(tf.range(8.0), [2, 4]), 1.0), 2)", "e"),
    ("spectral_ola_rank1", "tf.signal.overlap_and_add(tf.range(5.0), 2)", "e"),
    ("spectral_ola_float_step", "tf.signal.overlap_and_add(tf.ones([2, 3]), 1.5)", "e"),
    ("spectral_ola_step_vector", "tf.signal.overlap_and_add(tf.ones([2, 3]), [1, 2])", "e"),
    ("spectral_ola_grad",
     "x = tf.reshape(tf.range(12.0), [3, 4])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
     "    y = tf.reduce_sum(tf.signal.overlap_and_add(x, 2) * tf.range(8.0))\nt.gradient(y, x)", "e"),
    ("spectral_inverse_stft",
     "s = tf.sin(tf.range(64.0) * 0.3)\ntf.signal.inverse_stft(tf.signal.stft(s, 16, 4), 16, 4)", "e"),
    ("spectral_inverse_stft_window_fn",
     "s = tf.sin(tf.range(64.0) * 0.3)\ntf.signal.inverse_stft(tf.signal.stft(s, 16, 4), 16, 4, "
     "window_fn=tf.signal.inverse_stft_window_fn(4))", "e"),
    ("spectral_inverse_stft_batch_f64",
     "s = tf.reshape(tf.cos(tf.range(96.0, dtype=tf.float64) * 0.2), [2, 48])\n"
     "tf.signal.inverse_stft(tf.signal.stft(s, 12, 6, fft_length=16), 12, 6, fft_length=16, "
     "window_fn=tf.signal.inverse_stft_window_fn(6, forward_window_fn=tf.signal.hamming_window))", "e"),
    ("spectral_inverse_stft_long_frame",
     "tf.signal.inverse_stft(tf.signal.stft(tf.sin(tf.range(40.0)), 8, 4), 10, 4, fft_length=8, window_fn=None)",
     "e"),
    ("spectral_inverse_stft_short_frame",
     "tf.signal.inverse_stft(tf.signal.stft(tf.sin(tf.range(40.0)), 8, 4), 6, 3, fft_length=8)", "e"),
    ("spectral_inverse_stft_window_fn_values", "tf.signal.inverse_stft_window_fn(3)(8, tf.float32)", "e"),
    ("spectral_inverse_stft_rank1", "tf.signal.inverse_stft(tf.complex(tf.range(5.0), 0.0), 8, 4)", "e"),
    # windows (Kaiser through tf.math.bessel_i0e)
    ("spectral_kaiser", "tf.signal.kaiser_window(8)", "e"),
    ("spectral_kaiser_beta", "tf.signal.kaiser_window(7, beta=4.0, dtype=tf.float64)", "e"),
    ("spectral_kaiser_one", "tf.signal.kaiser_window(1)", "e"),
    ("spectral_kaiser_large_beta", "tf.signal.kaiser_window(9, beta=60.0)", "e"),
    ("spectral_kbd", "tf.signal.kaiser_bessel_derived_window(10)", "e"),
    ("spectral_kbd_odd", "tf.signal.kaiser_bessel_derived_window(7, beta=5.0, dtype=tf.float64)", "e"),
    ("spectral_vorbis", "tf.signal.vorbis_window(8)", "e"),
    ("spectral_vorbis_f64", "tf.signal.vorbis_window(5, dtype=tf.float64)", "e"),
    ("spectral_vorbis_int", "tf.signal.vorbis_window(4, dtype=tf.int32)", "e"),
    ("spectral_kaiser_bad_length", "tf.signal.kaiser_window([3, 4])", "e"),
    # DCT / IDCT (types I-IV), MDCT
    ("spectral_dct2", "tf.signal.dct(tf.sin(tf.range(8.0)))", "e"),
    ("spectral_dct2_ortho", "tf.signal.dct(tf.reshape(tf.cos(tf.range(10.0)), [2, 5]), norm='ortho')", "e"),
    ("spectral_dct1", "tf.signal.dct(tf.sin(tf.range(6.0)), type=1)", "e"),
    ("spectral_dct3", "tf.signal.dct(tf.sin(tf.range(7.0, dtype=tf.float64)), type=3)", "e"),
    ("spectral_dct3_ortho", "tf.signal.dct(tf.sin(tf.range(6.0)), type=3, norm='ortho')", "e"),
    ("spectral_dct4", "tf.signal.dct(tf.sin(tf.range(8.0)), type=4)", "e"),
    ("spectral_dct4_ortho", "tf.signal.dct(tf.sin(tf.range(5.0, dtype=tf.float64)), type=4, norm='ortho')", "e"),
    ("spectral_dct_n_short", "tf.signal.dct(tf.sin(tf.range(8.0)), n=5)", "e"),
    ("spectral_dct_n_long", "tf.signal.dct(tf.sin(tf.range(4.0)), n=7, norm='ortho')", "e"),
    ("spectral_idct2", "tf.signal.idct(tf.sin(tf.range(8.0)))", "e"),
    ("spectral_idct_roundtrip",
     "x = tf.sin(tf.range(6.0, dtype=tf.float64))\ntf.signal.idct(tf.signal.dct(x, norm='ortho'), norm='ortho')",
     "e"),
    ("spectral_idct4", "tf.signal.idct(tf.sin(tf.range(6.0)), type=4)", "e"),
    ("spectral_dct_bad_type", "tf.signal.dct(tf.ones([4]), type=5)", "e"),
    ("spectral_dct_bad_axis", "tf.signal.dct(tf.ones([4]), axis=0)", "e"),
    ("spectral_dct_bad_n", "tf.signal.dct(tf.ones([4]), n=0)", "e"),
    ("spectral_dct_bad_norm", "tf.signal.dct(tf.ones([4]), norm='forward')", "e"),
    ("spectral_dct1_ortho", "tf.signal.dct(tf.ones([4]), type=1, norm='ortho')", "e"),
    ("spectral_dct1_short", "tf.signal.dct(tf.ones([1]), type=1)", "e"),
    ("spectral_dct_grad",
     "x = tf.sin(tf.range(6.0, dtype=tf.float64))\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
     "    y = tf.reduce_sum(tf.signal.dct(x, norm='ortho') * tf.range(6.0, dtype=tf.float64))\nt.gradient(y, x)",
     "e"),
    ("spectral_mdct", "tf.signal.mdct(tf.sin(tf.range(32.0) * 0.4), 8)", "e"),
    ("spectral_mdct_kbd_ortho",
     "tf.signal.mdct(tf.reshape(tf.cos(tf.range(48.0, dtype=tf.float64) * 0.3), [2, 24]), 12, "
     "window_fn=tf.signal.kaiser_bessel_derived_window, pad_end=True, norm='ortho')", "e"),
    ("spectral_mdct_no_window", "tf.signal.mdct(tf.sin(tf.range(16.0)), 4, window_fn=None)", "e"),
    ("spectral_mdct_bad_length", "tf.signal.mdct(tf.ones([20]), 6)", "e"),
    ("spectral_inverse_mdct",
     "x = tf.sin(tf.range(32.0) * 0.4)\ntf.signal.inverse_mdct(tf.signal.mdct(x, 8))", "e"),
    ("spectral_inverse_mdct_ortho",
     "x = tf.cos(tf.range(24.0, dtype=tf.float64) * 0.5)\n"
     "tf.signal.inverse_mdct(tf.signal.mdct(x, 8, norm='ortho'), norm='ortho')", "e"),
    ("spectral_inverse_mdct_no_window",
     "tf.signal.inverse_mdct(tf.reshape(tf.sin(tf.range(12.0)), [3, 4]), window_fn=None)", "e"),
    # mel filterbank, MFCCs
    ("spectral_mel", "tf.signal.linear_to_mel_weight_matrix(8, 17, 8000, 100.0, 3500.0)", "e"),
    ("spectral_mel_defaults", "tf.signal.linear_to_mel_weight_matrix()", "e"),
    ("spectral_mel_f64",
     "tf.signal.linear_to_mel_weight_matrix(5, 9, 16000.0, 0.0, 8000.0, dtype=tf.float64)", "e"),
    ("spectral_mel_tensor_rate",
     "tf.signal.linear_to_mel_weight_matrix(4, 6, tf.constant(4000), 50.0, 1500.0)", "e"),
    ("spectral_mel_bad_bins", "tf.signal.linear_to_mel_weight_matrix(0)", "e"),
    ("spectral_mel_negative_edge", "tf.signal.linear_to_mel_weight_matrix(4, 9, 8000, -1.0, 100.0)", "e"),
    ("spectral_mel_edges_order", "tf.signal.linear_to_mel_weight_matrix(4, 9, 8000, 300.0, 200.0)", "e"),
    ("spectral_mel_rate", "tf.signal.linear_to_mel_weight_matrix(4, 9, -8000, 100.0, 300.0)", "e"),
    ("spectral_mel_nyquist", "tf.signal.linear_to_mel_weight_matrix(4, 9, 8000, 100.0, 4100.0)", "e"),
    ("spectral_mel_int_dtype", "tf.signal.linear_to_mel_weight_matrix(4, 9, 8000, 100.0, 300.0, dtype=tf.int32)",
     "e"),
    ("spectral_mfcc", "tf.signal.mfccs_from_log_mel_spectrograms(tf.reshape(tf.sin(tf.range(24.0)), [3, 8]))", "e"),
    ("spectral_mfcc_f64",
     "tf.signal.mfccs_from_log_mel_spectrograms(tf.reshape(tf.cos(tf.range(10.0, dtype=tf.float64)), [1, 2, 5]))",
     "e"),
    ("spectral_mfcc_empty", "tf.signal.mfccs_from_log_mel_spectrograms(tf.zeros([2, 0]))", "e"),
    ("spectral_mfcc_pipeline",
     # float64: in float32 the FFTs' last-bit differences, through the log of small band energies, exceed 1e-6
     "s = tf.sin(tf.square(tf.range(400.0, dtype=tf.float64)) * 0.004)\n"  # a chirp: energy in every mel band
     "spec = tf.abs(tf.signal.stft(s, 64, 32))\n"
     "w = tf.signal.linear_to_mel_weight_matrix(10, 33, 8000, 20.0, 4000.0, dtype=tf.float64)\n"
     "mel = tf.tensordot(spec, w, 1)\n"
     "tf.signal.mfccs_from_log_mel_spectrograms(tf.math.log(mel + 0.01))[..., :6]", "e"),
    # the Bessel functions (tf.math, tf.math.special) and their gradients
    ("spectral_bessel_i0e", "tf.math.bessel_i0e(tf.constant([-9.0, -2.5, 0.0, 0.5, 3.0, 8.0, 12.0, 100.0]))", "ge"),
    ("spectral_bessel_i1e", "tf.math.bessel_i1e(tf.constant([-9.0, -2.5, 0.0, 0.5, 3.0, 8.0, 12.0, 100.0]))", "ge"),
    ("spectral_bessel_i0", "tf.math.bessel_i0(tf.constant([-3.0, 0.0, 1.5, 9.0], tf.float64), name='b')", "ge"),
    ("spectral_bessel_i1", "tf.math.bessel_i1(tf.constant([-3.0, 0.0, 1.5, 9.0, 95.0]))", "ge"),
    ("spectral_bessel_special", "tf.math.special.bessel_i1e(tf.constant([2.0], tf.float16))", "ge"),
    ("spectral_bessel_int", "tf.math.bessel_i0e(tf.constant([1, 2]))", "e"),
    ("spectral_bessel_ph", "tf.math.special.bessel_i0(ph(tf.float32, [None, 3]))", "g"),
    ("spectral_bessel_grads",
     "x = tf.constant([-4.0, -0.5, 0.0, 0.75, 9.0], tf.float64)\nwith tf.GradientTape(persistent=True) as t:\n"
     "    t.watch(x)\n    ys = [tf.math.bessel_i0(x), tf.math.bessel_i0e(x), tf.math.bessel_i1(x), "
     "tf.math.bessel_i1e(x)]\n[t.gradient(y, x) for y in ys]", "e"),
    ("spectral_kaiser_grad",
     "beta = tf.constant(6.0)\nwith tf.GradientTape() as t:\n    t.watch(beta)\n"
     "    y = tf.reduce_sum(tf.signal.kaiser_window(6, beta))\nt.gradient(y, beta)", "e"),
    ("spectral_fftshift", "tf.signal.fftshift(tf.range(7))", "ge"),
    ("spectral_fftshift_axes", "tf.signal.fftshift(tf.reshape(tf.range(12), [3, 4]), axes=1)", "ge"),
    ("spectral_ifftshift", "tf.signal.ifftshift(tf.reshape(tf.range(12), [3, 4]), axes=[0, 1])", "ge"),
    ("spectral_ifftshift_ph", "tf.signal.ifftshift(ph(tf.float32, [None, 4]))", "g"),
]  # fmt: skip


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDefs, CPU constraints, shape and kernel cases) of the complex and FFT ops."""
    P, C, U, shape_case, kernel_case = breadth.P, breadth.C, breadth.U, breadth.shape_case, breadth.kernel_case
    breadth.begin(OUT / "ops", "tools/make_golden_spectral_ops.py", OPS)
    rng = np.random.default_rng(20261207)

    def cplx(shape, dtype=np.complex64) -> np.ndarray:
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)

    def real(shape, dtype=np.float32) -> np.ndarray:
        return rng.standard_normal(shape).astype(dtype)

    for dtype, real_dtype in ((np.complex64, np.float32), (np.complex128, np.float64)):
        values = cplx((3, 5), dtype)
        values[0, :4] = [0, -1, 1j, -2 - 0j]  # the axes, for Angle's signs
        for op in ("Real", "Imag", "Angle", "ComplexAbs"):
            kernel_case(op, values, Tout=real_dtype)
            kernel_case(op, np.zeros((0, 2), dtype), Tout=real_dtype)
        kernel_case("Complex", real((2, 3), real_dtype), real((3,), real_dtype), Tout=dtype)
        kernel_case("Complex", real((4, 1), real_dtype), real((1, 2), real_dtype), Tout=dtype)
    kernel_case("ComplexAbs", np.array([3 + 4j, 1e30 + 1e30j, -0.0 + 0j, np.inf + 1j], np.complex64), Tout=np.float32)
    kernel_case("Complex", real((2, 3)), real((4,)), Tout=np.complex64)
    for op, rank in (("FFT", 1), ("IFFT", 1), ("FFT2D", 2), ("IFFT2D", 2), ("FFT3D", 3), ("IFFT3D", 3)):
        shapes = {1: [(8,), (7,), (2, 13), (3, 1), (4, 0), (64,)], 2: [(4, 6), (2, 3, 5), (1, 7, 1), (0, 4)],
                  3: [(2, 3, 4), (2, 2, 5, 3), (1, 1, 1)]}[rank]  # fmt: skip
        for shape in shapes:
            kernel_case(op, cplx(shape))
        kernel_case(op, cplx(shapes[0], np.complex128))
        kernel_case(op, cplx(()))  # rank too low
    for op, rank in (("RFFT", 1), ("RFFT2D", 2), ("RFFT3D", 3)):
        base_shape = {1: (3, 10), 2: (2, 6, 7), 3: (2, 4, 5, 6)}[rank]
        inner = base_shape[-rank:]
        for length in (inner, tuple(d - 1 for d in inner), tuple(d + 3 for d in inner), tuple(1 for _ in inner)):
            kernel_case(op, real(base_shape), np.array(length, np.int32), Tcomplex=np.complex64)
        kernel_case(op, real(base_shape, np.float64), np.array(inner, np.int32), Tcomplex=np.complex128)
        kernel_case(op, real(base_shape), np.array(inner + (2,), np.int32), Tcomplex=np.complex64)  # wrong size
        # (an empty input with a non-zero fft_length is left out: TF 2.21 returns uninitialized memory there)
    for op, rank in (("IRFFT", 1), ("IRFFT2D", 2), ("IRFFT3D", 3)):
        lengths = {1: [(10,), (9,), (4,), (16,)], 2: [(6, 10), (5, 9), (8, 4)], 3: [(4, 5, 8), (3, 6, 7)]}[rank]
        for length in lengths:
            shape = (2,) + length[:-1] + (length[-1] // 2 + 1,)
            kernel_case(op, cplx(shape), np.array(length, np.int32), Treal=np.float32)
            kernel_case(op, cplx((2,) + tuple(d + 1 for d in shape[1:])), np.array(length, np.int32), Treal=np.float32)
        kernel_case(op, cplx((2,) + lengths[0][:-1] + (3,), np.complex128), np.array(lengths[0], np.int32),
                    Treal=np.float64)  # fmt: skip
        kernel_case(op, cplx((2, 3)), np.array([-1] * rank, np.int32), Treal=np.float32)
    points = np.array([0.0, -0.0, 1e-30, -1e-30, 0.25, -0.25, 1.0, -1.0, 7.99, 8.0, 8.01, -8.0, 20.0, -30.0, 85.0,
                       88.0, 89.0, 90.0, -95.0, 700.0, 710.0, 1e30, np.inf, -np.inf, np.nan])  # fmt: skip
    for op in BESSEL_OPS:
        for dtype in (np.float16, np.float32, np.float64):
            kernel_case(op, points.astype(dtype))
            kernel_case(op, (rng.uniform(-12, 12, (4, 25)) * (rng.uniform(0, 1, (4, 25)) > 0.1)).astype(dtype))
        kernel_case(op, np.zeros((0, 3), np.float32))
        shape_case(op, P([2, U, 3], "float32"))
        shape_case(op, P(None, "float64"))
    for op in ("Real", "Imag", "Angle", "ComplexAbs"):
        shape_case(op, P([2, U, 3], "complex64"))
        shape_case(op, P(None, "complex128"), Tout="float64")
    shape_case("Complex", P([2, U], "float32"), P([U, 1, 3], "float32"))
    shape_case("Complex", P([2, 3], "float32"), P([4], "float32"))
    for op, rank in (("FFT", 1), ("IFFT", 1), ("FFT2D", 2), ("IFFT2D", 2), ("FFT3D", 3), ("IFFT3D", 3)):
        shape_case(op, P([2, U, 4, 5], "complex64"))
        shape_case(op, P([U] * (rank - 1), "complex64"))
        shape_case(op, P(None, "complex128"))
    for op, rank in (("RFFT", 1), ("RFFT2D", 2), ("RFFT3D", 3), ("IRFFT", 1), ("IRFFT2D", 2), ("IRFFT3D", 3)):
        dtype = "float32" if op.startswith("R") else "complex64"
        shape_case(op, P([2, 6, 7, 8], dtype), C([4] * rank, "int32"))
        shape_case(op, P([2, U, U, 8], dtype), P([rank], "int32"))
        shape_case(op, P([U] * rank, dtype), C([5] * rank, "int32"))
        shape_case(op, P([4] * (rank - 1), dtype), C([4] * rank, "int32"))
        shape_case(op, P([3, 4, 5, 6], dtype), C([4] * (rank + 1), "int32"))
        shape_case(op, P(None, dtype), P(None, "int32"))
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_spectral_ops.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
