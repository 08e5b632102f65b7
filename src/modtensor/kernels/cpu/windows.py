"""Sliding-window geometry shared by convolution and pooling: TF's output sizes, paddings and patch views.

``window_geometry`` reproduces TensorFlow's GetWindowedOutputSize rules for
SAME / VALID / EXPLICIT padding; ``patches`` returns a zero-copy strided view
(N, OH, OW, KH, KW, C) of a padded NHWC input that callers feed to BLAS.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument


@dataclass(frozen=True)
class Axis:
    """One spatial axis: output size and the padding added before and after the input."""

    out: int
    pad_before: int
    pad_after: int


def window_axis(
    size: int, ksize: int, stride: int, dilation: int, padding: str, explicit: tuple[int, int] = (0, 0)
) -> Axis:
    """Output size and padding of one spatial axis, as TF computes them."""
    if stride <= 0:
        raise invalid_argument(f"Stride must be > 0, but got {stride}")
    if dilation <= 0:
        raise invalid_argument(f"Dilation rate must be >= 1, but got {dilation}")
    eff = (ksize - 1) * dilation + 1
    if padding == "VALID":
        out, before, after = (size - eff + stride) // stride, 0, 0
    elif padding == "SAME":
        out = (size + stride - 1) // stride
        needed = max(0, (out - 1) * stride + eff - size)
        before, after = needed // 2, needed - needed // 2
    elif padding == "EXPLICIT":
        before, after = explicit
        if before < 0 or after < 0:
            raise invalid_argument(f"Explicit padding must be non-negative, got {before} and {after}")
        out = (size + before + after - eff + stride) // stride
    else:
        raise invalid_argument(f"Invalid padding: {padding!r}; expected SAME, VALID or EXPLICIT")
    if out < 0:
        raise invalid_argument(
            f"Computed output size would be negative: {out} [input_size: {size}, "
            f"effective_filter_size: {eff}, stride: {stride}]"
        )
    return Axis(out, before, after)


def spatial_axes(
    input_hw: Sequence[int],
    kernel_hw: Sequence[int],
    strides_hw: Sequence[int],
    dilations_hw: Sequence[int],
    padding: str,
    explicit_hw: Sequence[tuple[int, int]] = ((0, 0), (0, 0)),
) -> tuple[Axis, Axis]:
    """The (height, width) Axis pair of a 2-D window op."""
    return tuple(  # type: ignore[return-value]
        window_axis(input_hw[i], kernel_hw[i], strides_hw[i], dilations_hw[i], padding, tuple(explicit_hw[i]))
        for i in range(2)
    )


def pad_nhwc(x: np.ndarray, axes: tuple[Axis, Axis], value: float | int = 0) -> np.ndarray:
    """x padded on H and W by the axes' paddings with a constant.

    One filled allocation and one copy of x into its interior (``np.pad`` does the
    same work through much more Python).
    """
    (h, w) = axes
    if not (h.pad_before or h.pad_after or w.pad_before or w.pad_after):
        return x
    n, height, width, c = x.shape
    out = np.full((n, height + h.pad_before + h.pad_after, width + w.pad_before + w.pad_after, c), value, x.dtype)
    out[:, h.pad_before : h.pad_before + height, w.pad_before : w.pad_before + width, :] = x
    return out


def taps(
    padded: np.ndarray,
    axes: tuple[Axis, Axis],
    kernel_hw: Sequence[int],
    strides_hw: Sequence[int],
    dilations_hw: Sequence[int] = (1, 1),
) -> Iterator[tuple[int, int, np.ndarray]]:
    """(i, j, view) per kernel position: the (N, OH, OW, C) strided view of the padded input it reads.

    Window ops written as a loop over the KH*KW taps do KH*KW whole-array ufunc
    calls on output-sized arrays, which beats reducing over a 6-D patch view.
    """
    oh, ow = axes[0].out, axes[1].out
    sh, sw = strides_hw
    for i in range(kernel_hw[0]):
        r0 = i * dilations_hw[0]
        for j in range(kernel_hw[1]):
            c0 = j * dilations_hw[1]
            yield i, j, padded[:, r0 : r0 + (oh - 1) * sh + 1 : sh, c0 : c0 + (ow - 1) * sw + 1 : sw, :]


def patches(
    padded: np.ndarray,
    axes: tuple[Axis, Axis],
    kernel_hw: Sequence[int],
    strides_hw: Sequence[int],
    dilations_hw: Sequence[int] = (1, 1),
) -> np.ndarray:
    """Read-only strided view (N, OH, OW, KH, KW, C) of a padded NHWC array: no copy."""
    n, _, _, c = padded.shape
    sn, sh, sw, sc = padded.strides
    shape = (n, axes[0].out, axes[1].out, kernel_hw[0], kernel_hw[1], c)
    strides = (sn, sh * strides_hw[0], sw * strides_hw[1], sh * dilations_hw[0], sw * dilations_hw[1], sc)
    return np.lib.stride_tricks.as_strided(padded, shape, strides, writeable=False)


def explicit_pairs(explicit_paddings: Sequence[int], data_format: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The (H, W) padding pairs out of TF's 8-entry explicit_paddings list in data_format order."""
    if len(explicit_paddings) != 8:
        raise invalid_argument(f"explicit_paddings attribute must contain 8 values, but got: {len(explicit_paddings)}")
    pairs = [(int(explicit_paddings[2 * i]), int(explicit_paddings[2 * i + 1])) for i in range(4)]
    h, w = (2, 3) if data_format.startswith("NC") else (1, 2)
    c, n = (1, 0) if data_format.startswith("NC") else (3, 0)
    if pairs[n] != (0, 0) or pairs[c] != (0, 0):
        raise invalid_argument("Nonzero explicit padding in the batch or depth dimensions is not supported")
    return pairs[h], pairs[w]
