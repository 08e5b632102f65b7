"""Gradients of the complex-number and FFT ops: Complex, Real, Imag, Angle, ComplexAbs (TF 2.21's math_grad.py) and
FFT/IFFT in 1-3 dims, RFFT, RFFT2D, IRFFT and IRFFT2D (its signal/fft_ops.py), with TF's formulas.

An FFT's gradient is the inverse transform of the incoming gradient scaled by the transform's size (and the other
way round). RFFT's adds back the components the Hermitian half dropped; IRFFT's is the RFFT of the incoming
gradient with the doubled bins weighted by two. The 3-D real transforms have no gradient, as in TF.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops, math_ops, spectral_ops
from modtensor.api.gradients.common import reduce_to
from modtensor.api.op_scope import constant, constant_value
from modtensor.api.special_math_ops import divide_no_nan
from modtensor.framework import dtypes
from modtensor.framework.gradient_registry import RegisterGradient


@RegisterGradient("Complex")
def _complex_grad(op: Any, grad: Any) -> tuple[Any, Any]:
    x, y = op.inputs[0], op.inputs[1]
    return reduce_to(spectral_ops.real(grad), x), reduce_to(spectral_ops.imag(grad), y)


@RegisterGradient("Real")
def _real_grad(op: Any, grad: Any) -> Any:
    return spectral_ops.complex(grad, constant(0, dtype=grad.dtype))


@RegisterGradient("Imag")
def _imag_grad(op: Any, grad: Any) -> Any:
    return spectral_ops.complex(constant(0, dtype=grad.dtype), grad)


@RegisterGradient("Angle")
def _angle_grad(op: Any, grad: Any) -> Any:
    x = op.inputs[0]
    re, im = spectral_ops.real(x), spectral_ops.imag(x)
    z = math_ops.reciprocal(spectral_ops.complex(im, re))
    return -spectral_ops.complex(grad, constant(0, dtype=grad.dtype)) * z


@RegisterGradient("ComplexAbs")
def _complex_abs_grad(op: Any, grad: Any) -> Any:
    y = op.outputs[0]
    numerator = spectral_ops.complex(grad, array_ops.zeros_like(grad)) * op.inputs[0]
    return divide_no_nan(numerator, spectral_ops.complex(y, array_ops.zeros_like(y)))


def _size(t: Any, rank: int) -> Any:
    """The number of elements of ``t``'s inner ``rank`` dims (TF's _fft_size_for_grad)."""
    return math_ops.reduce_prod(array_ops.shape(t)[-rank:])


def _register_complex_fft(rank: int, suffix: str) -> None:
    forward = getattr(spectral_ops, f"fft{suffix.lower()}")
    inverse = getattr(spectral_ops, f"ifft{suffix.lower()}")

    @RegisterGradient(f"FFT{suffix}")
    def _fft_grad(op: Any, grad: Any) -> Any:
        return inverse(grad) * math_ops.cast(_size(grad, rank), grad.dtype)

    @RegisterGradient(f"IFFT{suffix}")
    def _ifft_grad(op: Any, grad: Any) -> Any:
        rsize = math_ops.cast(1.0 / math_ops.cast(_size(grad, rank), grad.dtype.real_dtype), grad.dtype)
        return forward(grad) * rsize


for _rank, _suffix in ((1, ""), (2, "2D"), (3, "3D")):
    _register_complex_fft(_rank, _suffix)


def _mask_matrix(length: Any, complex_dtype: Any) -> Any:
    """``exp(-2 pi i a b / length)`` for ``a, b`` in ``range(length)``: the DFT matrix."""
    a = array_ops.tile(array_ops.expand_dims(math_ops.range(length), 0), (length, 1))
    b = array_ops.transpose(a, [1, 0])
    return math_ops.exp(-2j * np.pi * math_ops.cast(a * b, complex_dtype) / math_ops.cast(length, complex_dtype))


def _tile_for_broadcasting(matrix: Any, t: Any) -> Any:
    """``matrix`` tiled over ``t``'s outer dims, for a batch matmul with ``t``'s inner two."""
    ones = array_ops.ones([array_ops.rank(t) - 2], dtypes.int32)
    expanded = array_ops.reshape(matrix, array_ops.concat([ones, array_ops.shape(matrix)], 0))
    return array_ops.tile(expanded, array_ops.concat([array_ops.shape(t)[:-2], [1, 1]], 0))


def _register_rfft(rank: int, suffix: str) -> None:
    irfft = getattr(spectral_ops, f"irfft{suffix.lower()}")

    @RegisterGradient(f"RFFT{suffix}")
    def _rfft_grad(op: Any, grad: Any) -> tuple[Any, None]:
        fft_length = op.inputs[1]
        complex_dtype = grad.dtype
        input_shape = array_ops.shape(op.inputs[0])
        is_even = math_ops.cast(1 - (fft_length[-1] % 2), complex_dtype)

        def ymask(length: Any) -> Any:  # 1, -1, 1, -1, ...
            return math_ops.cast(1 - 2 * (math_ops.range(length) % 2), complex_dtype)

        y0 = grad[..., 0:1]
        ym = grad[..., -1:]
        if rank == 1:
            extra_terms = y0 + is_even * ym * ymask(input_shape[-1])
        else:
            tiled_mask = _tile_for_broadcasting(_mask_matrix(input_shape[-2], complex_dtype), y0)
            extra_terms = math_ops.matmul(tiled_mask, math_ops.conj(y0))
            ym_term = math_ops.matmul(tiled_mask, math_ops.conj(ym))
            inner_dim = input_shape[-1]
            multiples = array_ops.concat([array_ops.ones([array_ops.rank(grad) - 1], dtypes.int32), [inner_dim]], 0)
            ym_term = array_ops.tile(ym_term, multiples) * ymask(inner_dim)
            extra_terms += is_even * ym_term
        # the IRFFT of the incoming gradient, scaled, plus the components the Hermitian half dropped
        input_size = math_ops.cast(_size(op.inputs[0], rank), complex_dtype.real_dtype)
        the_irfft = irfft(grad, fft_length)
        return 0.5 * (the_irfft * input_size + spectral_ops.real(extra_terms)), None


for _rank, _suffix in ((1, ""), (2, "2D")):
    _register_rfft(_rank, _suffix)


def _register_irfft(rank: int, suffix: str) -> None:
    rfft = getattr(spectral_ops, f"rfft{suffix.lower()}")

    @RegisterGradient(f"IRFFT{suffix}")
    def _irfft_grad(op: Any, grad: Any) -> tuple[Any, None]:
        fft_length = op.inputs[1]
        static = constant_value(fft_length)
        if static is not None:
            fft_length = static
        real_dtype = grad.dtype
        complex_dtype = dtypes.complex64 if real_dtype == dtypes.float32 else dtypes.complex128
        is_odd = math_ops.mod(fft_length[-1], 2)
        last = array_ops.shape(op.inputs[0])[-1]
        mask = array_ops.concat(
            [[1.0], 2.0 * array_ops.ones([last - 2 + is_odd], real_dtype), array_ops.ones([1 - is_odd], real_dtype)],
            0,
        )
        rsize = math_ops.reciprocal(math_ops.cast(_size(grad, rank), real_dtype))
        # the RFFT of the incoming gradient, its bins that stand for two (the Hermitian pairs) weighted by two
        return rfft(grad, fft_length) * math_ops.cast(rsize * mask, complex_dtype), None


for _rank, _suffix in ((1, ""), (2, "2D")):
    _register_irfft(_rank, _suffix)
