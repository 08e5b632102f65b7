"""``tf.image``'s seeded random augmentation: ``random_flip_left_right``/``up_down``, ``random_brightness``,
``random_contrast``, ``random_hue``, ``random_saturation`` and ``random_crop``.

They draw from ``tf.random.uniform`` (RandomUniform / RandomUniformInt, TF's Philox streams)
with TF's seed rules (global and op seed, see ``random_ops.get_seed``), composed as TF 2.21
composes them, so a seeded program gives TF's numbers. The ``stateless_random_*`` variants draw the
same quantities from ``tf.random.stateless_uniform`` (the StatelessRandomUniform*V2 ops) with a shape-[2]
seed instead, so their values depend on that seed alone. The JPEG-quality augmentations are in
``image_codec_ops``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from modtensor.api import array_ops, check_ops, indexing_ops, random_ops, stateless_random_ops
from modtensor.api import cond as cond_lib
from modtensor.api import image_checks as checks
from modtensor.api import math_ops as math
from modtensor.api.image_color_ops import adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__: list[str] = []


def _random_flip(image: Any, flip_index: int, random_func: Callable[..., Tensor], scope_name: str) -> Tensor:
    """``image`` (or each image of a batch) reversed along ``flip_index`` with probability 1/2; ``random_func``
    (seed bound) draws the uniforms, stateful or stateless."""
    with op_scope(None, scope_name, [image]) as scope:
        image = convert_to_tensor(image, name="image")
        image = checks.assert_at_least_3d_image(image)
        rank = image.shape.rank

        def f_rank3() -> Tensor:
            uniform_random = random_func(shape=[], minval=0, maxval=1.0)
            mirror_cond = math.less(uniform_random, 0.5)
            result = cond_lib.cond(
                mirror_cond, lambda: indexing_ops.reverse(image, [flip_index]), lambda: image, name=scope
            )
            return checks.fix_image_flip_shape(image, result)

        def f_rank4() -> Tensor:
            batch_size = array_ops.shape(image)[0]
            uniform_random = random_func(shape=[batch_size], minval=0, maxval=1.0)
            flips = math.round(array_ops.reshape(uniform_random, [batch_size, 1, 1, 1]))
            flips = math.cast(flips, image.dtype)
            flipped_input = indexing_ops.reverse(image, [flip_index + 1])
            return flips * flipped_input + (1 - flips) * image

        if rank is None:
            return cond_lib.cond(math.equal(array_ops.rank(image), 3), f_rank3, f_rank4)
        if rank == 3:
            return f_rank3()
        if rank == 4:
            return f_rank4()
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


def random_flip_left_right(image: Any, seed: int | None = None) -> Tensor:
    """``image`` mirrored left to right with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, 1, functools.partial(random_ops.uniform, seed=seed), "random_flip_left_right")


def random_flip_up_down(image: Any, seed: int | None = None) -> Tensor:
    """``image`` mirrored upside down with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, 0, functools.partial(random_ops.uniform, seed=seed), "random_flip_up_down")


def _check_max_delta(max_delta: float, at_most_half: bool = False) -> None:
    """TF's checks of a random delta's bound (hue's must also be <= 0.5), before anything is built."""
    if at_most_half and max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


def _check_factor_range(lower: float, upper: float) -> None:
    """TF's checks of a random factor's ``[lower, upper)`` range, before anything is built."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_brightness(image: Any, max_delta: float, seed: int | None = None) -> Tensor:
    """:func:`adjust_brightness` by a delta drawn uniformly from ``[-max_delta, max_delta)``."""
    _check_max_delta(max_delta)
    delta = random_ops.uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def random_contrast(image: Any, lower: float, upper: float, seed: int | None = None) -> Tensor:
    """:func:`adjust_contrast` by a factor drawn uniformly from ``[lower, upper)``."""
    _check_factor_range(lower, upper)
    contrast_factor = random_ops.uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, contrast_factor)


def random_hue(image: Any, max_delta: float, seed: int | None = None) -> Tensor:
    """:func:`adjust_hue` by a delta drawn uniformly from ``[-max_delta, max_delta)`` (``max_delta`` <= 0.5)."""
    _check_max_delta(max_delta, at_most_half=True)
    delta = random_ops.uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


def random_saturation(image: Any, lower: float, upper: float, seed: int | None = None) -> Tensor:
    """:func:`adjust_saturation` by a factor drawn uniformly from ``[lower, upper)``."""
    _check_factor_range(lower, upper)
    saturation_factor = random_ops.uniform([], lower, upper, seed=seed)
    return adjust_saturation(image, saturation_factor)


def _random_crop(value: Any, size: Any, random_func: Callable[..., Tensor], name: str | None) -> Tensor:
    """A ``size`` slice of ``value`` at an offset drawn by ``random_func`` (int32 in ``[0, 2**31 - 1)``, taken
    modulo the room ``value.shape - size + 1``), after asserting ``value.shape >= size``."""
    with op_scope(name, "random_crop", [value, size]) as scope:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = check_ops.Assert(
            math.reduce_all(shape >= size), ["Need value.shape >= size, got ", shape, size], summarize=1000
        )
        shape = check_ops.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = random_func(array_ops.shape(shape), dtype=size.dtype, maxval=size.dtype.max) % limit
        return array_ops.slice(value, offset, size, name=scope)


def random_crop(value: Any, size: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """A ``size`` slice of ``value`` at a uniformly drawn offset (``value.shape >= size`` is asserted)."""
    return _random_crop(value, size, functools.partial(random_ops.uniform, seed=seed), name)


# ---------------------------------------------------------------------------- stateless variants


def _stateless(seed: Any) -> Callable[..., Tensor]:
    """``tf.random.stateless_uniform`` with ``seed`` (a shape-[2] int32/int64 tensor) bound."""
    return functools.partial(stateless_random_ops.stateless_uniform, seed=seed)


def stateless_random_flip_left_right(image: Any, seed: Any) -> Tensor:
    """``image`` mirrored left to right with probability 1/2 (per image of a batch), a function of ``seed`` only."""
    return _random_flip(image, 1, _stateless(seed), "stateless_random_flip_left_right")


def stateless_random_flip_up_down(image: Any, seed: Any) -> Tensor:
    """``image`` mirrored upside down with probability 1/2 (per image of a batch), a function of ``seed`` only."""
    return _random_flip(image, 0, _stateless(seed), "stateless_random_flip_up_down")


def stateless_random_brightness(image: Any, max_delta: float, seed: Any) -> Tensor:
    """:func:`adjust_brightness` by a delta drawn from ``[-max_delta, max_delta)`` with the stateless ``seed``."""
    _check_max_delta(max_delta)
    delta = _stateless(seed)(shape=[], minval=-max_delta, maxval=max_delta)
    return adjust_brightness(image, delta)


def stateless_random_contrast(image: Any, lower: float, upper: float, seed: Any) -> Tensor:
    """:func:`adjust_contrast` by a factor drawn from ``[lower, upper)`` with the stateless ``seed``."""
    _check_factor_range(lower, upper)
    contrast_factor = _stateless(seed)(shape=[], minval=lower, maxval=upper)
    return adjust_contrast(image, contrast_factor)


def stateless_random_hue(image: Any, max_delta: float, seed: Any) -> Tensor:
    """:func:`adjust_hue` by a delta drawn from ``[-max_delta, max_delta)`` (``max_delta`` <= 0.5) with the
    stateless ``seed``."""
    _check_max_delta(max_delta, at_most_half=True)
    delta = _stateless(seed)(shape=[], minval=-max_delta, maxval=max_delta)
    return adjust_hue(image, delta)


def stateless_random_saturation(image: Any, lower: float, upper: float, seed: Any = None) -> Tensor:
    """:func:`adjust_saturation` by a factor drawn from ``[lower, upper)`` with the stateless ``seed`` (TF gives
    ``seed`` a default of None, which then fails in the draw)."""
    _check_factor_range(lower, upper)
    saturation_factor = _stateless(seed)(shape=[], minval=lower, maxval=upper)
    return adjust_saturation(image, saturation_factor)


def stateless_random_crop(value: Any, size: Any, seed: Any, name: str | None = None) -> Tensor:
    """A ``size`` slice of ``value`` at an offset drawn with the stateless ``seed`` (``value.shape >= size``
    is asserted)."""
    return _random_crop(value, size, _stateless(seed), name)
