"""Complex-number and FFT ops: Complex, Real, Imag, Angle, ComplexAbs (TF's math_ops.cc) and FFT, IFFT, FFT2D,
IFFT2D, FFT3D, IFFT3D, RFFT, IRFFT, RFFT2D, IRFFT2D, RFFT3D, IRFFT3D (TF's spectral_ops.cc).

OpDefs equal TensorFlow 2.21's; shape functions are TF's: Complex broadcasts, the part ops keep their input's
shape, the complex FFTs keep theirs (rank >= their FFT rank), the real FFTs take their inner dims from a
constant ``fft_length`` (the forward transform's last dim ``fft_length / 2 + 1``), unknown without it.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext

_REAL = "{float, double}"
_COMPLEX = "{complex64, complex128}"

(
    register_op("Complex")
    .input("real: T")
    .input("imag: T")
    .output("out: Tout")
    .attr(f"T: {_REAL} = DT_FLOAT")
    .attr(f"Tout: {_COMPLEX} = DT_COMPLEX64")
    .set_shape_fn(common_shapes.broadcast_binary_op_shape)
)
for _name, _in, _out in (("Real", "input", "output"), ("Imag", "input", "output"), ("Angle", "input", "output"),
                         ("ComplexAbs", "x", "y")):  # fmt: skip
    (
        register_op(_name)
        .input(f"{_in}: T")
        .output(f"{_out}: Tout")
        .attr(f"T: {_COMPLEX} = DT_COMPLEX64")
        .attr(f"Tout: {_REAL} = DT_FLOAT")
        .set_shape_fn(common_shapes.unchanged_shape)
    )


def _real_fft_shape(rank: int, forward: bool):  # noqa: ANN202 - a shape function factory
    """TF's RFFTShape: the inner ``rank`` dims from a constant ``fft_length`` (RFFT's last one halved plus one)."""

    def shape_fn(ctx: InferenceContext) -> None:
        out = ctx.with_rank_at_least(ctx.input(0), rank)
        length = ctx.with_rank(ctx.input(1), 1)
        ctx.with_value(ctx.dim(length, 0), rank)
        value = ctx.input_tensor(1)
        for i in range(rank):
            if value is None:
                dim = ctx.unknown_dim()
            else:
                n = int(value[i])
                dim = ctx.make_dim(n // 2 + 1 if forward and i == rank - 1 and n != 0 else n)
            out = ctx.replace_dim(out, i - rank, dim)
        ctx.set_output(0, out)

    return shape_fn


for _rank, _suffix in ((1, ""), (2, "2D"), (3, "3D")):
    for _name in (f"FFT{_suffix}", f"IFFT{_suffix}"):
        (
            register_op(_name)
            .input("input: Tcomplex")
            .output("output: Tcomplex")
            .attr(f"Tcomplex: {_COMPLEX} = DT_COMPLEX64")
            .set_shape_fn(common_shapes.unchanged_shape_with_rank_at_least(_rank))
        )
    (
        register_op(f"RFFT{_suffix}")
        .input("input: Treal")
        .input("fft_length: int32")
        .output("output: Tcomplex")
        .attr(f"Treal: {_REAL} = DT_FLOAT")
        .attr(f"Tcomplex: {_COMPLEX} = DT_COMPLEX64")
        .set_shape_fn(_real_fft_shape(_rank, forward=True))
    )
    (
        register_op(f"IRFFT{_suffix}")
        .input("input: Tcomplex")
        .input("fft_length: int32")
        .output("output: Treal")
        .attr(f"Treal: {_REAL} = DT_FLOAT")
        .attr(f"Tcomplex: {_COMPLEX} = DT_COMPLEX64")
        .set_shape_fn(_real_fft_shape(_rank, forward=False))
    )
