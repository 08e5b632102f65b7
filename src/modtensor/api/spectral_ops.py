"""Complex numbers (``tf.complex``, ``tf.math.real/imag/angle``) and ``tf.signal``'s transforms: ``fft``/``ifft``
and ``rfft``/``irfft`` in 1-3 dims and ``fftshift``/``ifftshift``, composed as TF 2.21 composes them (the rest of
``tf.signal`` is in signal_ops.py).

The real transforms infer ``fft_length`` from the static shape when they can (a constant; else a slice of
``tf.shape``) and zero-pad the input up to it first, so the kernels only ever crop, as in TF.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops
from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant_value, convert_to_tensor, op_scope
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__ = [
    "angle",
    "complex",
    "fft",
    "fft2d",
    "fft3d",
    "fftshift",
    "ifft",
    "ifft2d",
    "ifft3d",
    "ifftshift",
    "imag",
    "irfft",
    "irfft2d",
    "irfft3d",
    "real",
    "rfft",
    "rfft2d",
    "rfft3d",
]


def complex(real: Any, imag: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    """``real + imag * 1j`` elementwise (``Complex``): float32 parts give complex64, float64 parts complex128."""
    real = convert_to_tensor(real, name="real")
    imag = convert_to_tensor(imag, name="imag")
    with op_scope(name, "Complex", [real, imag]) as scope:
        kinds = (real.dtype.base_dtype, imag.dtype.base_dtype)
        if kinds == (dtypes.float64, dtypes.float64):
            out = dtypes.complex128
        elif kinds == (dtypes.float32, dtypes.float32):
            out = dtypes.complex64
        else:
            raise TypeError(
                f"The `real` and `imag` components have incorrect types: {real.dtype.name} {imag.dtype.name}. They "
                "must be consistent, and one of [tf.float32, tf.float64]"
            )
        return apply_op("Complex", name=scope, real=real, imag=imag, Tout=out)


def real(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The real parts (``Real``); a real tensor is returned as it is."""
    with op_scope(name, "Real", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return apply_op("Real", name=scope, input=input, Tout=input.dtype.real_dtype)
        return input


def imag(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The imaginary parts (``Imag``); zeros for a real tensor."""
    with op_scope(name, "Imag", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return apply_op("Imag", name=scope, input=input, Tout=input.dtype.real_dtype)
        return array_ops.zeros_like(input)


def angle(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The arguments in ``(-pi, pi]`` (``Angle``); for a real tensor pi where it is negative, else 0."""
    with op_scope(name, "Angle", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return apply_op("Angle", name=scope, input=input, Tout=input.dtype.real_dtype)
        negative = math.less(input, 0)
        pi = np.pi * array_ops._ones_like_v1(input)  # TF 1's ones_like, as math_ops.angle calls it
        return apply_op("Select", condition=negative, t=pi, e=array_ops.zeros_like(input))


def _complex_fft(op_type: str) -> Any:
    def transform(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
        return apply_op(op_type, name=name, input=input)

    transform.__name__ = op_type.lower()
    transform.__doc__ = f"``{op_type}`` over the inner dimensions of a complex tensor."
    return transform


fft, ifft = _complex_fft("FFT"), _complex_fft("IFFT")
fft2d, ifft2d = _complex_fft("FFT2D"), _complex_fft("IFFT2D")
fft3d, ifft3d = _complex_fft("FFT3D"), _complex_fft("IFFT3D")


def _inferred_length(x: Tensor, rank: int, inverse: bool) -> Any:
    """TF's fft_length default: the static inner dims (IRFFT's last one as ``2 * (n - 1)``), else from tf.shape."""
    inner = x.shape[-rank:]
    if inner.is_fully_defined():
        lengths = inner.as_list()
        if inverse and lengths:
            lengths[-1] = max(0, 2 * (lengths[-1] - 1))
        return convert_to_tensor(lengths, dtypes.int32)
    dynamic = array_ops.shape(x)[-rank:]
    if not inverse:
        return dynamic
    parts = array_ops.unstack(dynamic)
    parts[-1] = math.maximum(0, 2 * (parts[-1] - 1))
    return array_ops.stack(parts)


def _pad_to_length(x: Tensor, rank: int, fft_length: Tensor, inverse: bool) -> Tensor:
    """TF's _maybe_pad_for_rfft: zero-pads the inner dims up to ``fft_length`` (IRFFT's last to ``n // 2 + 1``)."""
    if x.shape.rank is not None and any(d == 0 for d in x.shape.as_list()):
        return x
    static = constant_value(fft_length)
    if static is not None and x.shape.rank is not None and x.shape[-rank:].is_fully_defined():
        lengths = [int(v) for v in np.asarray(static).reshape(-1)]
        if inverse:
            lengths[-1] = lengths[-1] // 2 + 1
        inner = x.shape[-len(lengths) :].as_list()
        paddings = [[0, max(n - d, 0)] for n, d in zip(lengths, inner, strict=True)]
        if any(p > 0 for _, p in paddings):
            return array_ops.pad(x, [[0, 0]] * max(x.shape.rank - len(lengths), 0) + paddings)
        return x
    input_rank = array_ops.rank(x)
    inner = array_ops.shape(x)[-rank:]
    outer = math.maximum(0, input_rank - rank)
    outer_paddings = array_ops.zeros([outer], fft_length.dtype)
    if inverse:
        fft_length = array_ops.concat([fft_length[:-1], fft_length[-1:] // 2 + 1], 0)
    paddings = array_ops.concat([outer_paddings, math.maximum(0, fft_length - inner)], 0)
    paddings = array_ops.stack([array_ops.zeros_like(paddings), paddings], axis=1)
    return array_ops.pad(x, paddings)


def _real_fft(op_type: str, rank: int, default_name: str) -> Any:
    inverse = op_type.startswith("I")

    def transform(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> Tensor:
        with op_scope(name, default_name, [input_tensor, fft_length]) as scope:
            if inverse:
                x = convert_to_tensor(input_tensor, dtype_hint=dtypes.complex64)
                x.shape.with_rank_at_least(rank)
                if x.dtype not in (dtypes.complex64, dtypes.complex128):
                    raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {x!s}")
            else:
                x = convert_to_tensor(input_tensor, dtype_hint=dtypes.float32)
                if x.dtype not in (dtypes.float32, dtypes.float64):
                    raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x!s}")
                x.shape.with_rank_at_least(rank)
            if fft_length is None:
                fft_length = _inferred_length(x, rank, inverse)
            else:
                fft_length = convert_to_tensor(fft_length, dtypes.int32)
            x = _pad_to_length(x, rank, fft_length, inverse)
            static = constant_value(fft_length)
            length = static if static is not None else fft_length
            if inverse:
                return apply_op(op_type, name=scope, input=x, fft_length=length, Treal=x.dtype.real_dtype)
            out = dtypes.complex64 if x.dtype == dtypes.float32 else dtypes.complex128
            return apply_op(op_type, name=scope, input=x, fft_length=length, Tcomplex=out)

    transform.__name__ = default_name
    transform.__doc__ = (
        f"``{op_type}`` over the inner {rank} dimension(s), ``fft_length`` inferred from the shape when not given "
        "and the input zero-padded up to it."
    )
    return transform


rfft, irfft = _real_fft("RFFT", 1, "rfft"), _real_fft("IRFFT", 1, "irfft")
rfft2d, irfft2d = _real_fft("RFFT2D", 2, "rfft2d"), _real_fft("IRFFT2D", 2, "irfft2d")
rfft3d, irfft3d = _real_fft("RFFT3D", 3, "rfft3d"), _real_fft("IRFFT3D", 3, "irfft3d")


def _shift(x: Any, axes: Any, name: str | None, scope_name: str, inverse: bool) -> Tensor:
    with op_scope(name, scope_name) as scope:
        x = convert_to_tensor(x)
        if axes is None:
            axes = tuple(range(x.shape.rank))
            shift = array_ops.shape(x) // 2
        elif isinstance(axes, int):
            shift = array_ops.shape(x)[axes] // 2
        else:
            rank = array_ops.rank(x)
            axes = apply_op("Select", condition=math.less(axes, 0), t=axes + rank, e=axes)
            shift = array_ops.gather(array_ops.shape(x), axes) // 2
        if inverse:
            shift = -shift
        return array_ops.roll(x, shift, axes, scope)


def fftshift(x: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """``x`` rolled by half its size along ``axes`` (all by default): the zero frequency moved to the centre."""
    return _shift(x, axes, name, "fftshift", inverse=False)


def ifftshift(x: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """The inverse of :func:`fftshift`."""
    return _shift(x, axes, name, "ifftshift", inverse=True)
