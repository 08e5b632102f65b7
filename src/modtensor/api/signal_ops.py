"""``tf.signal`` beyond the FFTs, composed from them as TF 2.21 composes it: ``frame`` and ``overlap_and_add``, the
windows (Hann, Hamming, Kaiser, Kaiser-Bessel-derived, Vorbis), ``stft``/``inverse_stft`` (with
``inverse_stft_window_fn``), ``dct``/``idct`` (types I-IV), ``mdct``/``inverse_mdct``, the mel filterbank
``linear_to_mel_weight_matrix`` and ``mfccs_from_log_mel_spectrograms``.

Values, dtypes, static shapes and errors are TF's. Two functions reach them by another route than TF's graph:
``frame`` gathers the frames with one index matrix (TF slices subframes) and ``overlap_and_add`` scatters them back
with one ``UnsortedSegmentSum`` (TF pads, skews and sums segments); sums may differ from TF's in the last bit.
"""

from __future__ import annotations

import math as _math
from typing import Any

import numpy as np

from modtensor.api import array_ops, indexing_ops, nn_ops, segment_ops, sequence_ops, special_math_ops
from modtensor.api import math_ops as math
from modtensor.api.op_scope import constant, constant_value, convert_to_tensor, op_scope
from modtensor.api.spectral_ops import complex, irfft, real, rfft
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__ = [
    "dct",
    "frame",
    "hamming_window",
    "hann_window",
    "idct",
    "inverse_mdct",
    "inverse_stft",
    "inverse_stft_window_fn",
    "kaiser_bessel_derived_window",
    "kaiser_window",
    "linear_to_mel_weight_matrix",
    "mdct",
    "mfccs_from_log_mel_spectrograms",
    "overlap_and_add",
    "stft",
    "vorbis_window",
]


def _raised_cosine_window(name: str | None, default_name: str, window_length: Any, periodic: Any, dtype: Any,
                          a: float, b: float) -> Tensor:  # fmt: skip
    """TF's _raised_cosine_window: ``a - b * cos(2 pi n / N)``, N one more for an even periodic window."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    with op_scope(name, default_name, [window_length, periodic]):
        window_length = convert_to_tensor(window_length, dtype=dtypes.int32, name="window_length")
        window_length.shape.assert_has_rank(0)
        length_const = constant_value(window_length)
        if length_const is not None and int(length_const) == 1:
            return array_ops.ones([1], dtype=dtype)
        periodic = math.cast(convert_to_tensor(periodic, dtype=dtypes.bool, name="periodic"), dtypes.int32)
        periodic.shape.assert_has_rank(0)
        even = 1 - math.mod(window_length, 2)
        n = math.cast(window_length + periodic * even - 1, dtype=dtype)
        count = math.cast(math.range(window_length), dtype)
        cos_arg = constant(2 * np.pi, dtype=dtype) * count / n
        window = math.cast(a - b * math.cos(cos_arg), dtype=dtype)
        if length_const is not None:
            return window
        one = array_ops.ones([window_length], dtype=dtype)
        return array_ops.where(math.equal(window_length, 1), one, window)


def hann_window(window_length: Any, periodic: Any = True, dtype: Any = dtypes.float32,
                name: str | None = None) -> Tensor:  # fmt: skip
    """A Hann window of ``window_length`` samples (``periodic``: for spectral analysis, as TF's default)."""
    return _raised_cosine_window(name, "hann_window", window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length: Any, periodic: Any = True, dtype: Any = dtypes.float32,
                   name: str | None = None) -> Tensor:  # fmt: skip
    """A Hamming window of ``window_length`` samples."""
    return _raised_cosine_window(name, "hamming_window", window_length, periodic, dtype, 0.54, 0.46)


def _frame_shape(signal: Tensor, frame_length: Any, frame_step: Any, pad_end: bool, axis: Any) -> list | None:
    """TF's _infer_frame_shape: the static shape of ``frame``'s result, None where unknown."""
    length, step, axis = constant_value(frame_length), constant_value(frame_step), constant_value(axis)
    if signal.shape.rank is None:
        return None
    if axis is None:
        return [None] * (signal.shape.rank + 1)
    dims = signal.shape.as_list()
    axis = int(axis)
    frame_axis = dims[axis]
    outer, inner = dims[:axis], dims[axis:][1:]
    num_frames = None
    if dims and frame_axis is not None:
        if step is not None and pad_end:
            num_frames = max(0, -(-frame_axis // int(step)))
        elif step is not None and length is not None:
            num_frames = max(0, (frame_axis - int(length) + int(step)) // int(step))
    return [*outer, num_frames, None if length is None else int(length), *inner]


def frame(signal: Any, frame_length: Any, frame_step: Any, pad_end: bool = False, pad_value: Any = 0, axis: Any = -1,
          name: str | None = None) -> Tensor:  # fmt: skip
    """``signal``'s frames of ``frame_length`` samples every ``frame_step`` along ``axis``: ``[..., frames,
    frame_length, ...]``; with ``pad_end`` the end is padded with ``pad_value`` so that every sample is framed.

    TF's values; the frames are gathered with one index matrix (TF cuts the signal into subframes first).
    """
    with op_scope(name, "frame", [signal, frame_length, frame_step, pad_value]):
        signal = convert_to_tensor(signal, name="signal")
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        axis = convert_to_tensor(axis, name="axis")
        signal.shape.with_rank_at_least(1)
        frame_length.shape.assert_has_rank(0)
        frame_step.shape.assert_has_rank(0)
        axis.shape.assert_has_rank(0)
        result_shape = _frame_shape(signal, frame_length, frame_step, pad_end, axis)
        rank = array_ops.rank(signal)
        axis_index = math.range(rank)[axis]  # a negative axis made positive
        length = array_ops.gather(array_ops.shape(signal, out_type=frame_length.dtype), axis_index)
        if pad_end:
            pad_value = convert_to_tensor(pad_value, signal.dtype)
            pad_value.shape.assert_has_rank(0)
            num_frames = -(-length // frame_step)
            pad_samples = math.maximum(0, frame_length + frame_step * (num_frames - 1) - length)
            at_axis = math.cast(math.equal(math.range(rank), axis_index), pad_samples.dtype) * pad_samples
            paddings = array_ops.stack([array_ops.zeros_like(at_axis), at_axis], axis=1)
            signal = array_ops.pad(signal, paddings, constant_values=pad_value)
        else:
            num_frames = math.maximum(constant(0, dtype=frame_length.dtype), 1 + (length - frame_length) // frame_step)
        starts = array_ops.reshape(math.range(num_frames, dtype=frame_length.dtype) * frame_step, [-1, 1])
        offsets = array_ops.reshape(math.range(frame_length, dtype=frame_length.dtype), [1, -1])
        # gathered from a reshaped view, as TF gathers from reshaped subframes: its gradient comes back dense
        view = array_ops.reshape(signal, array_ops.shape(signal))
        frames = array_ops.gather(view, starts + offsets, axis=axis_index)
        if result_shape is not None:
            frames.set_shape(result_shape)
        return frames


def _enclosing_power_of_two(value: Tensor) -> Tensor:
    """The least ``2 ** n >= value`` (TF's float32 log arithmetic when ``value`` is not constant)."""
    static = constant_value(value)
    if static is not None:
        return constant(int(2 ** np.ceil(np.log(static) / np.log(2.0))), value.dtype)
    log2 = math.log(math.cast(value, dtypes.float32)) / math.log(2.0)
    return math.cast(math.pow(2.0, math.ceil(log2)), value.dtype)


def _stft_lengths(frame_length: Any, frame_step: Any, fft_length: Any, scalar_fft: bool) -> tuple[Tensor, ...]:
    """The STFTs' scalar ``frame_length`` and ``frame_step`` as tensors, and ``fft_length`` (by default the least power
    of two >= ``frame_length``; ``inverse_stft`` checks a given one is a scalar, ``stft`` does not)."""
    frame_length = convert_to_tensor(frame_length, name="frame_length")
    frame_length.shape.assert_has_rank(0)
    frame_step = convert_to_tensor(frame_step, name="frame_step")
    frame_step.shape.assert_has_rank(0)
    if fft_length is None:
        return frame_length, frame_step, _enclosing_power_of_two(frame_length)
    fft_length = convert_to_tensor(fft_length, name="fft_length")
    if scalar_fft:
        fft_length.shape.assert_has_rank(0)
    return frame_length, frame_step, fft_length


def stft(signals: Any, frame_length: Any, frame_step: Any, fft_length: Any = None, window_fn: Any = hann_window,
         pad_end: bool = False, name: str | None = None) -> Tensor:  # fmt: skip
    """The short-time Fourier transform of ``signals`` (``[..., samples]``): ``[..., frames, fft_length // 2 + 1]``
    complex, each frame windowed by ``window_fn(frame_length)``; ``fft_length`` defaults to the least power of two
    >= ``frame_length``."""
    with op_scope(name, "stft", [signals, frame_length, frame_step]):
        signals = convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length, frame_step, fft_length = _stft_lengths(frame_length, frame_step, fft_length, scalar_fft=False)
        framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed *= window_fn(frame_length, dtype=framed.dtype)
        return rfft(framed, [fft_length])


# --------------------------------------------------------------------------- reconstruction


def _static_dim(x: Tensor, axis: int) -> int | None:
    return None if x.shape.rank is None else x.shape.as_list()[axis]


def overlap_and_add(signal: Any, frame_step: Any, name: str | None = None) -> Tensor:
    """The frames of ``signal`` (``[..., frames, frame_length]``) added back together, each ``frame_step`` after the
    one before: ``[..., (frames - 1) * frame_step + frame_length]``, the inverse of :func:`frame` up to the overlap.

    Every sample goes to its output position through one ``UnsortedSegmentSum``; a ``frame_step`` equal to a static
    ``frame_length`` is a plain reshape, as in TF.
    """
    with op_scope(name, "overlap_and_add", [signal, frame_step]):
        signal = convert_to_tensor(signal, name="signal")
        signal.shape.with_rank_at_least(2)
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        frame_step.shape.assert_has_rank(0)
        if not frame_step.dtype.is_integer:
            raise ValueError(f"frame_step must be an integer. Got {frame_step.dtype}")
        index_dtype = dtypes.int64 if frame_step.dtype == dtypes.int64 else dtypes.int32
        frame_step = math.cast(frame_step, index_dtype)
        step = constant_value(frame_step)
        shape = array_ops.shape(signal, out_type=index_dtype)
        outer, frames, length = shape[:-2], shape[-2], shape[-1]
        output_length = math.maximum(constant(0, index_dtype), length + frame_step * (frames - 1))
        static_frames, static_length = _static_dim(signal, -2), _static_dim(signal, -1)
        static_output = None
        if None not in (step, static_frames, static_length):
            static_output = max(0, static_length + int(step) * (static_frames - 1))
        if step is not None and static_length is not None and int(step) == static_length:
            return array_ops.reshape(signal, array_ops.concat([outer, [output_length]], 0), name="fast_path")
        # positions[f, t] = f * frame_step + t; the frame axes first, where UnsortedSegmentSum reads its segments
        positions = (array_ops.reshape(math.range(frames, dtype=index_dtype) * frame_step, [-1, 1])
                     + array_ops.reshape(math.range(length, dtype=index_dtype), [1, -1]))  # fmt: skip
        rank = signal.shape.rank
        if rank == 2:
            result = segment_ops.unsorted_segment_sum(signal, positions, output_length)
        else:
            dynamic_rank = array_ops.rank(signal)
            inner_first = array_ops.concat([[dynamic_rank - 2, dynamic_rank - 1], math.range(dynamic_rank - 2)], 0)
            moved = array_ops.transpose(signal, inner_first)
            summed = segment_ops.unsorted_segment_sum(moved, positions, output_length)
            result = array_ops.transpose(summed, array_ops.concat([math.range(1, dynamic_rank - 1), [0]], 0))
        if rank is not None:
            result.set_shape([*signal.shape.as_list()[:-2], static_output])
        return result


# --------------------------------------------------------------------------- more windows


def _window_length(window_length: Any, dtype: Any) -> Tensor:
    """TF's _check_params: a floating ``dtype`` and a scalar int32 length."""
    if not dtypes.as_dtype(dtype).is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtypes.as_dtype(dtype)}")
    window_length = convert_to_tensor(window_length, dtype=dtypes.int32)
    window_length.shape.assert_has_rank(0)
    return window_length


def kaiser_window(window_length: Any, beta: Any = 12.0, dtype: Any = dtypes.float32,
                  name: str | None = None) -> Tensor:  # fmt: skip
    """A Kaiser window: ``I0(beta * sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta)``, from the scaled ``bessel_i0e`` so
    that a large ``beta`` does not overflow."""
    dtype = dtypes.as_dtype(dtype)
    with op_scope(name, "kaiser_window", []):
        window_length = _window_length(window_length, dtype)
        if constant_value(window_length) == 1:
            return array_ops.ones([1], dtype=dtype)
        half = (math.cast(window_length, dtypes.float32) - 1.0) / 2.0
        position = math.cast(math.range(-half, half + 0.1, dtype=dtypes.float32), dtype)
        beta = math.cast(beta, dtype)
        one = math.cast(1.0, dtype)
        argument = beta * math.sqrt(nn_ops.relu(one - math.square(position / math.cast(half, dtype))))
        ratio = special_math_ops.bessel_i0e(argument) / special_math_ops.bessel_i0e(beta)
        return math.exp(argument - beta) * ratio


def kaiser_bessel_derived_window(window_length: Any, beta: Any = 12.0, dtype: Any = dtypes.float32,
                                 name: str | None = None) -> Tensor:  # fmt: skip
    """The Kaiser-Bessel-derived window of MDCT codecs: the square root of a Kaiser window's normalized running sum,
    then mirrored (``2 * (window_length // 2)`` samples)."""
    with op_scope(name, "kaiser_bessel_derived_window", []):
        window_length = _window_length(window_length, dtypes.as_dtype(dtype))
        running = segment_ops.cumsum(kaiser_window(window_length // 2 + 1, beta, dtype=dtype))
        rising = math.sqrt(running[:-1] / running[-1])
        return array_ops.concat((rising, rising[::-1]), axis=0)


def vorbis_window(window_length: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """The Vorbis power-complementary window: ``sin(pi / 2 * sin(pi * (n + 0.5) / N)^2)``."""
    dtype = dtypes.as_dtype(dtype)
    with op_scope(name, "vorbis_window", []):
        window_length = _window_length(window_length, dtype)
        n = math.cast(math.range(window_length), dtype=dtype)
        inner = math.sin(np.pi / math.cast(window_length, dtype=dtype) * (n + 0.5))
        return math.sin(np.pi / 2.0 * math.pow(inner, 2.0))


# --------------------------------------------------------------------------- inverse STFT


def inverse_stft_window_fn(frame_step: Any, forward_window_fn: Any = hann_window, name: str | None = None) -> Any:
    """A ``window_fn`` for :func:`inverse_stft` that undoes ``forward_window_fn``'s weighting: the forward window
    divided by the sum of its squares over the frames overlapping each sample (0 where that sum is 0)."""

    def inverse_window(frame_length: Any, dtype: Any) -> Tensor:
        with op_scope(name, "inverse_stft_window_fn", [forward_window_fn]):
            step = convert_to_tensor(frame_step, name="frame_step")
            step.shape.assert_has_rank(0)
            frame_length = convert_to_tensor(frame_length, name="frame_length")
            frame_length.shape.assert_has_rank(0)
            forward = forward_window_fn(frame_length, dtype=dtype)
            overlaps = -(-frame_length // step)
            # the squared window cut into frame_step-long pieces, summed: the weight at each offset within a step
            squares = array_ops.pad(math.square(forward), [(0, overlaps * step - frame_length)])
            weight = math.reduce_sum(array_ops.reshape(squares, [overlaps, step]), 0, keepdims=True)
            denominator = array_ops.reshape(array_ops.tile(weight, [overlaps, 1]), [overlaps * step])[:frame_length]
            return array_ops.where(math.equal(denominator, 0.0), array_ops.zeros_like(forward), forward / denominator)

    return inverse_window


def inverse_stft(stfts: Any, frame_length: Any, frame_step: Any, fft_length: Any = None, window_fn: Any = hann_window,
                 name: str | None = None) -> Tensor:  # fmt: skip
    """Signals back from their STFTs (``[..., frames, fft_length // 2 + 1]`` complex): each frame's inverse real FFT,
    cut or zero-padded to ``frame_length``, weighted by ``window_fn`` and overlap-added. A perfect inverse of
    :func:`stft` takes ``window_fn=inverse_stft_window_fn(frame_step)``."""
    with op_scope(name, "inverse_stft", [stfts]):
        stfts = convert_to_tensor(stfts, name="stfts")
        stfts.shape.with_rank_at_least(2)
        frame_length, frame_step, fft_length = _stft_lengths(frame_length, frame_step, fft_length, scalar_fft=True)
        frames = irfft(stfts, [fft_length])
        length = constant_value(frame_length)
        width = _static_dim(frames, -1)
        if length is None or width is None:
            frames = frames[..., :frame_length]
            short_by = math.maximum(0, frame_length - array_ops.shape(frames)[-1])
            rank = array_ops.rank(frames)
            paddings = array_ops.concat(
                [array_ops.zeros([rank - 1, 2], dtype=frame_length.dtype), [[0, short_by]]], 0)  # fmt: skip
            frames = array_ops.pad(frames, paddings)
        elif width > int(length):
            frames = frames[..., : int(length)]
        elif width < int(length):
            frames = array_ops.pad(frames, [[0, 0]] * (frames.shape.rank - 1) + [[0, int(length) - width]])
        if length is not None and frames.shape.rank is not None:
            frames.set_shape([None] * (frames.shape.rank - 1) + [int(length)])
        if window_fn is not None:
            frames *= window_fn(frame_length, dtype=stfts.dtype.real_dtype)
        return overlap_and_add(frames, frame_step)


# --------------------------------------------------------------------------- DCT, MDCT


def _check_dct(x: Any, dct_type: int, n: Any, axis: int, norm: Any) -> None:
    """TF's _validate_dct_arguments."""
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        size = _static_dim(convert_to_tensor(x), -1)
        if size is not None and size < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _first_and_rest(first: Tensor, rest: Tensor, size: Any) -> Tensor:
    """``[first, rest, rest, ...]`` of ``size`` values (the orthonormal DCT's per-coefficient weights)."""
    return array_ops.pad(array_ops.expand_dims(first, 0), [[0, size - 1]], constant_values=rest)


def _dct(x: Any, dct_type: int, n: Any, norm: Any) -> Tensor:
    """The DCT of ``x``'s last axis through an FFT of twice its length (TF's _dct_internal)."""
    x = convert_to_tensor(x)
    zero = convert_to_tensor(0.0, dtype=x.dtype)
    length = _static_dim(x, -1) or array_ops.shape(x)[-1]
    if n is not None:
        n_static = constant_value(n) if isinstance(n, Tensor) else n
        if isinstance(length, int) and n_static is not None and int(n_static) <= length:
            x = x[..., 0:n]
        else:
            paddings = [[0, 0] for _ in range(x.shape.rank)]
            paddings[-1][1] = n - length
            x = array_ops.pad(x, convert_to_tensor(paddings, dtype=dtypes.int32))
    size = _static_dim(x, -1) or array_ops.shape(x)[-1]
    size_float = math.cast(size, x.dtype)
    if dct_type == 1:
        return real(rfft(array_ops.concat([x, x[..., -2:0:-1]], axis=-1)))
    if dct_type == 2:
        twiddle = 2.0 * math.exp(complex(zero, -math.range(size_float) * _math.pi * 0.5 / size_float))
        out = real(rfft(x, fft_length=[2 * size])[..., :size] * twiddle)
        if norm == "ortho":
            first = 0.5 * math.rsqrt(size_float)
            out *= _first_and_rest(first, first * _math.sqrt(2.0), size)
        return out
    if dct_type == 3:
        if norm == "ortho":
            first = math.sqrt(size_float)
            x *= _first_and_rest(first, first * _math.sqrt(0.5), size)
        else:
            x *= size_float
        twiddle = 2.0 * math.exp(complex(zero, math.range(size_float) * _math.pi * 0.5 / size_float))
        return real(irfft(twiddle * complex(x, zero), fft_length=[2 * size]))[..., :size]
    out = _dct(x, 2, 2 * size, None)[..., 1::2]  # type IV: the odd coefficients of a DCT-II of twice the length
    if norm == "ortho":
        out *= _math.sqrt(0.5) * math.rsqrt(size_float)
    return out


def dct(input: Any, type: int = 2, n: Any = None, axis: int = -1, norm: Any = None,  # noqa: A002
        name: str | None = None) -> Tensor:  # fmt: skip
    """The discrete cosine transform (types I-IV) of the last axis, cut or zero-padded to ``n``; ``norm='ortho'``
    scales it to an orthonormal transform (types II-IV)."""
    _check_dct(input, type, n, axis, norm)
    with op_scope(name, "dct", [input]):
        return _dct(input, type, n, norm)


def idct(input: Any, type: int = 2, n: Any = None, axis: int = -1, norm: Any = None,  # noqa: A002
         name: str | None = None) -> Tensor:  # fmt: skip
    """The inverse DCT: a DCT of the inverse type (II and III swap), so ``idct(dct(x)) == x * 2 * N`` without
    ``norm`` and ``x`` with ``norm='ortho'``."""
    _check_dct(input, type, n, axis, norm)
    with op_scope(name, "dct", [input]):
        return _dct(input, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, norm)


def mdct(signals: Any, frame_length: Any, window_fn: Any = vorbis_window, pad_end: bool = False, norm: Any = None,
         name: str | None = None) -> Tensor:  # fmt: skip
    """The modified DCT of ``signals`` (``[..., samples]``) in half-overlapping frames of ``frame_length`` (a
    multiple of 4): ``[..., frames, frame_length // 2]``."""
    with op_scope(name, "mdct", [signals, frame_length]):
        signals = convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_length.shape.assert_has_rank(0)
        length = constant_value(frame_length)
        if length is not None:
            if int(length) % 4 != 0:
                raise ValueError("The frame length must be a multiple of 4.")
            frame_step = convert_to_tensor(int(length) // 2, dtype=frame_length.dtype)
        else:
            frame_step = frame_length // 2
        framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed *= window_fn(frame_length, dtype=framed.dtype)
        else:
            framed *= 1.0 / np.sqrt(2)
        a, b, c, d = indexing_ops.split(framed, 4, axis=-1)
        # the frame folded to half its length (time-domain aliasing), then a DCT-IV
        folded = array_ops.concat((-indexing_ops.reverse(c, [-1]) - d, a - indexing_ops.reverse(b, [-1])), axis=-1)
        return dct(folded, type=4, norm=norm)


def inverse_mdct(mdcts: Any, window_fn: Any = vorbis_window, norm: Any = None, name: str | None = None) -> Tensor:
    """Signals back from their MDCTs (``[..., frames, frame_length // 2]``, a static last dim): DCT-IV, unfolded,
    windowed and overlap-added; with the same power-complementary window as :func:`mdct` it reconstructs the
    signal (but the first and last half-frames)."""
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    with op_scope(name, "inverse_mdct", [mdcts]):
        mdcts = convert_to_tensor(mdcts, name="mdcts")
        mdcts.shape.with_rank_at_least(2)
        half_len = math.cast(mdcts.shape[-1], dtype=dtypes.int32)
        if norm is None:
            unfolded = (0.5 / math.cast(half_len, dtype=mdcts.dtype)) * dct(mdcts, type=4)
        else:
            unfolded = dct(mdcts, type=4, norm="ortho")
        first, second = indexing_ops.split(unfolded, 2, axis=-1)
        mirrored = (-indexing_ops.reverse(second, [-1]), -indexing_ops.reverse(first, [-1]))
        frames = array_ops.concat((second, *mirrored, -first), axis=-1)
        if window_fn is not None:
            frames *= window_fn(2 * half_len, dtype=mdcts.dtype)
        else:
            frames *= 1.0 / np.sqrt(2)
        return overlap_and_add(frames, half_len)


# --------------------------------------------------------------------------- mel scale


_MEL_BREAK_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(hertz: Any) -> Tensor:
    """HTK's mel scale, ``1127 * ln(1 + f / 700)``."""
    with op_scope(None, "hertz_to_mel", [hertz]):
        hertz = convert_to_tensor(hertz)
        return _MEL_HIGH_FREQUENCY_Q * math.log(1.0 + (hertz / _MEL_BREAK_HERTZ))


def _check_mel(num_mel_bins: Any, sample_rate: Any, lower_edge_hertz: Any, upper_edge_hertz: Any, dtype: Any) -> None:
    """TF's checks of linear_to_mel_weight_matrix's arguments."""
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz {upper_edge_hertz:.1f}")
    if not isinstance(sample_rate, Tensor):
        if sample_rate <= 0.0:
            raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError("upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). "
                             f"Got {upper_edge_hertz} for sample_rate: {sample_rate}")  # fmt: skip
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")


def linear_to_mel_weight_matrix(num_mel_bins: int = 20, num_spectrogram_bins: Any = 129, sample_rate: Any = 8000,
                                lower_edge_hertz: float = 125.0, upper_edge_hertz: float = 3800.0,
                                dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:  # fmt: skip
    """``[num_spectrogram_bins, num_mel_bins]`` triangular filters (peak 1, HTK's mel scale, the DC bin left out)
    that map a linear-frequency spectrogram onto ``num_mel_bins`` mel bands: ``tf.tensordot(spectrogram, w, 1)``."""
    dtype = dtypes.as_dtype(dtype)
    with op_scope(name, "linear_to_mel_weight_matrix", []) as scope:
        if isinstance(sample_rate, Tensor) and constant_value(sample_rate) is not None:
            sample_rate = constant_value(sample_rate)
        _check_mel(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype)
        sample_rate = math.cast(sample_rate, dtype, name="sample_rate")
        lower_edge_hertz = convert_to_tensor(lower_edge_hertz, dtype, name="lower_edge_hertz")
        upper_edge_hertz = convert_to_tensor(upper_edge_hertz, dtype, name="upper_edge_hertz")
        zero = convert_to_tensor(0.0, dtype)
        # the spectrogram's bin frequencies in mel, without the DC bin: [bins - 1, 1]
        frequencies = sequence_ops.linspace(zero, sample_rate / 2.0, num_spectrogram_bins)[1:]
        bins_mel = array_ops.expand_dims(_hertz_to_mel(frequencies), 1)
        # num_mel_bins (lower, center, upper) triples of equally spaced mel edges, each [1, num_mel_bins]
        edges = frame(sequence_ops.linspace(_hertz_to_mel(lower_edge_hertz), _hertz_to_mel(upper_edge_hertz),
                                            num_mel_bins + 2), frame_length=3, frame_step=1)  # fmt: skip
        lower, center, upper = (array_ops.reshape(t, [1, num_mel_bins]) for t in indexing_ops.split(edges, 3, axis=1))
        rising = (bins_mel - lower) / (center - lower)
        falling = (upper - bins_mel) / (upper - center)
        weights = math.maximum(zero, math.minimum(rising, falling))
        return array_ops.pad(weights, [[1, 0], [0, 0]], name=scope)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms: Any, name: str | None = None) -> Tensor:
    """Mel-frequency cepstral coefficients: HTK's scaled DCT-II of log mel spectrograms (``[..., num_mel_bins]``)."""
    with op_scope(name, "mfccs_from_log_mel_spectrograms", [log_mel_spectrograms]):
        log_mel_spectrograms = convert_to_tensor(log_mel_spectrograms)
        num_mel_bins = _static_dim(log_mel_spectrograms, -1) if log_mel_spectrograms.shape.rank else None
        if num_mel_bins == 0:
            raise ValueError(f"num_mel_bins must be positive. Got: {log_mel_spectrograms!s}")
        if num_mel_bins is None:
            num_mel_bins = array_ops.shape(log_mel_spectrograms)[-1]
        coefficients = dct(log_mel_spectrograms, type=2)
        return coefficients * math.rsqrt(math.cast(num_mel_bins, coefficients.dtype) * 2.0)
