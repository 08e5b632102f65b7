"""``modtensor.signal``: TensorFlow's ``tf.signal`` names: the FFTs (``fft``/``ifft``, ``rfft``/``irfft`` in 1-3
dims), ``fftshift``/``ifftshift``, ``frame``, Hann and Hamming windows and ``stft``."""

from modtensor.api.spectral_ops import (
    fft,
    fft2d,
    fft3d,
    fftshift,
    frame,
    hamming_window,
    hann_window,
    ifft,
    ifft2d,
    ifft3d,
    ifftshift,
    irfft,
    irfft2d,
    irfft3d,
    rfft,
    rfft2d,
    rfft3d,
    stft,
)

__all__ = [
    "fft",
    "fft2d",
    "fft3d",
    "fftshift",
    "frame",
    "hamming_window",
    "hann_window",
    "ifft",
    "ifft2d",
    "ifft3d",
    "ifftshift",
    "irfft",
    "irfft2d",
    "irfft3d",
    "rfft",
    "rfft2d",
    "rfft3d",
    "stft",
]
