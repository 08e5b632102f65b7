"""CPU kernels of the complex-number ops (Complex, Real, Imag, Angle, ComplexAbs) and the FFT ops (FFT, IFFT,
RFFT, IRFFT in 1-3 dims), with TensorFlow's checks and error texts.

The transforms are NumPy's pocketfft in the input's precision (complex64 stays single precision, as TF's
ducc/pocketfft kernels do); IFFTs are scaled by 1 / n as TF's. The real transforms crop their input to
``fft_length`` (IRFFT's inner dim to ``fft_length / 2 + 1``); a shorter input is TF's error (the ``tf.signal``
wrappers pad first).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.kernels.cpu.elementwise import as_numpy_dtype
from modtensor.kernels.cpu.errors import invalid_argument, shape_str


def complex_(real: np.ndarray, imag: np.ndarray, Tout: Any = np.complex64) -> np.ndarray:  # noqa: N803
    """Complex: ``real + 1j * imag``, broadcast."""
    try:
        shape = np.broadcast_shapes(real.shape, imag.shape)
    except ValueError:
        raise invalid_argument(f"Incompatible shapes: {shape_str(real.shape)} vs. {shape_str(imag.shape)}") from None
    out = np.empty(shape, as_numpy_dtype(Tout))
    out.real = real
    out.imag = imag
    return out


def _part(fn: Any) -> Any:
    def kernel(input: np.ndarray, Tout: Any = np.float32) -> np.ndarray:  # noqa: A002, N803
        return np.asarray(fn(input), dtype=as_numpy_dtype(Tout))

    kernel.__doc__ = f"{fn.__name__} of each complex element."
    return kernel


def complex_abs(x: np.ndarray, Tout: Any = np.float32) -> np.ndarray:  # noqa: N803
    """ComplexAbs: ``|x|`` (NumPy's complex abs is a hypot: no overflow for large parts)."""
    return np.abs(x).astype(as_numpy_dtype(Tout), copy=False)


def _check_rank(x: np.ndarray, rank: int) -> None:
    if x.ndim < rank:
        raise invalid_argument(f"Input must have rank of at least {rank} but got: {shape_str(x.shape)}")


def _fft(rank: int, inverse: bool) -> Any:
    transform = np.fft.ifftn if inverse else np.fft.fftn

    def kernel(input: np.ndarray) -> np.ndarray:  # noqa: A002
        _check_rank(input, rank)
        axes = tuple(range(input.ndim - rank, input.ndim))
        if input.size == 0:
            return np.zeros_like(input)
        return transform(input, axes=axes).astype(input.dtype, copy=False)

    kernel.__doc__ = f"{'I' if inverse else ''}FFT over the inner {rank} dims."
    return kernel


def _fft_lengths(x: np.ndarray, fft_length: np.ndarray, rank: int, forward: bool) -> list[int]:
    """TF's checks of ``fft_length`` against the input: its shape, signs, and the input's inner dims."""
    _check_rank(x, rank)
    fft_length = np.asarray(fft_length)
    if fft_length.shape != (rank,):
        raise invalid_argument(f"fft_length must have shape [{rank}]")
    lengths = [int(n) for n in fft_length]
    for i, n in enumerate(lengths):
        if n < 0:
            raise invalid_argument(f"fft_length[{i}] must >= 0, but got: {n}")
        need = n // 2 + 1 if not forward and i == rank - 1 else n
        index = x.ndim - rank + i
        if x.shape[index] != 0 and x.shape[index] < need:
            raise invalid_argument(
                f"Input dimension {index} must have length of at least {need} but got: {x.shape[index]}"
            )
    return lengths


def _rfft(rank: int) -> Any:
    def kernel(input: np.ndarray, fft_length: np.ndarray, Tcomplex: Any = np.complex64) -> np.ndarray:  # noqa: A002, N803
        lengths = _fft_lengths(input, fft_length, rank, forward=True)
        out_dtype = as_numpy_dtype(Tcomplex)
        inner = lengths[:-1] + [lengths[-1] // 2 + 1 if lengths[-1] else 0]
        out_shape = input.shape[: input.ndim - rank] + tuple(inner)
        if input.size == 0 or 0 in out_shape:
            return np.zeros(out_shape, out_dtype)
        cropped = input[(Ellipsis, *(slice(0, n) for n in lengths))]
        axes = tuple(range(input.ndim - rank, input.ndim))
        return np.fft.rfftn(cropped, s=lengths, axes=axes).astype(out_dtype, copy=False)

    kernel.__doc__ = f"RFFT over the inner {rank} dims of the input cropped to fft_length."
    return kernel


def _irfft(rank: int) -> Any:
    def kernel(input: np.ndarray, fft_length: np.ndarray, Treal: Any = np.float32) -> np.ndarray:  # noqa: A002, N803
        lengths = _fft_lengths(input, fft_length, rank, forward=False)
        out_dtype = as_numpy_dtype(Treal)
        out_shape = input.shape[: input.ndim - rank] + tuple(lengths)
        if input.size == 0 or 0 in out_shape:
            return np.zeros(out_shape, out_dtype)
        keep = lengths[:-1] + [lengths[-1] // 2 + 1]
        cropped = input[(Ellipsis, *(slice(0, n) for n in keep))]
        axes = tuple(range(input.ndim - rank, input.ndim))
        return np.fft.irfftn(cropped, s=lengths, axes=axes).astype(out_dtype, copy=False)

    kernel.__doc__ = f"IRFFT over the inner {rank} dims to fft_length."
    return kernel


OP_FUNCTIONS: dict[str, Any] = {
    "Complex": complex_,
    "Real": _part(np.real),
    "Imag": _part(np.imag),
    "Angle": _part(np.angle),
    "ComplexAbs": complex_abs,
    **{f"{p}FFT{s}": _fft(r, p == "I") for r, s in ((1, ""), (2, "2D"), (3, "3D")) for p in ("", "I")},
    **{f"RFFT{s}": _rfft(r) for r, s in ((1, ""), (2, "2D"), (3, "3D"))},
    **{f"IRFFT{s}": _irfft(r) for r, s in ((1, ""), (2, "2D"), (3, "3D"))},
}
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "Complex": {"T": "float32 float64", "Tout": "complex64 complex128"},
    **{op: {"T": "complex64 complex128", "Tout": "float32 float64"} for op in ("Real", "Imag", "Angle")},
    "ComplexAbs": {"T": "complex64 complex128"},
}
