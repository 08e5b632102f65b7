"""``modtensor.signal``: TensorFlow's ``tf.signal`` names: the FFTs (``fft``/``ifft``, ``rfft``/``irfft`` in 1-3
dims) and ``fftshift``/``ifftshift``."""

from modtensor.api.spectral_ops import (
    fft,
    fft2d,
    fft3d,
    fftshift,
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
)

__all__ = [
    "fft",
    "fft2d",
    "fft3d",
    "fftshift",
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
]
