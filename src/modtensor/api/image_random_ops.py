"""``tf.image``'s seeded random augmentation: ``random_flip_left_right``/``up_down``, ``random_brightness``,
``random_contrast``, ``random_hue``, ``random_saturation`` and ``random_crop``.

They draw from ``tf.random.uniform`` (RandomUniform / RandomUniformInt, TF's Philox streams)
with TF's seed rules (global and op seed, see ``random_ops.get_seed``), composed as TF 2.21
composes them, so a seeded program gives TF's numbers. The ``stateless_random_*`` variants
need the stateless random ops, which modtensor does not have yet.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops, check_ops, indexing_ops, random_ops
from modtensor.api import cond as cond_lib
from modtensor.api import image_checks as checks
from modtensor.api import math_ops as math
from modtensor.api.image_color_ops import adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__: list[str] = []


def _random_flip(image: Any, flip_index: int, seed: int | None, scope_name: str) -> Tensor:
    """``image`` (or each image of a batch) reversed along ``flip_index`` with probability 1/2."""
    with op_scope(None, scope_name, [image]) as scope:
        image = convert_to_tensor(image, name="image")
        image = checks.assert_at_least_3d_image(image)
        rank = image.shape.rank

        def f_rank3() -> Tensor:
            uniform_random = random_ops.uniform(shape=[], minval=0, maxval=1.0, seed=seed)
            mirror_cond = math.less(uniform_random, 0.5)
            result = cond_lib.cond(
                mirror_cond, lambda: indexing_ops.reverse(image, [flip_index]), lambda: image, name=scope
            )
            return checks.fix_image_flip_shape(image, result)

        def f_rank4() -> Tensor:
            batch_size = array_ops.shape(image)[0]
            uniform_random = random_ops.uniform(shape=[batch_size], minval=0, maxval=1.0, seed=seed)
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
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image: Any, seed: int | None = None) -> Tensor:
    """``image`` mirrored upside down with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def random_brightness(image: Any, max_delta: float, seed: int | None = None) -> Tensor:
    """:func:`adjust_brightness` by a delta drawn uniformly from ``[-max_delta, max_delta)``."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def random_contrast(image: Any, lower: float, upper: float, seed: int | None = None) -> Tensor:
    """:func:`adjust_contrast` by a factor drawn uniformly from ``[lower, upper)``."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    contrast_factor = random_ops.uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, contrast_factor)


def random_hue(image: Any, max_delta: float, seed: int | None = None) -> Tensor:
    """:func:`adjust_hue` by a delta drawn uniformly from ``[-max_delta, max_delta)`` (``max_delta`` <= 0.5)."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


def random_saturation(image: Any, lower: float, upper: float, seed: int | None = None) -> Tensor:
    """:func:`adjust_saturation` by a factor drawn uniformly from ``[lower, upper)``."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    saturation_factor = random_ops.uniform([], lower, upper, seed=seed)
    return adjust_saturation(image, saturation_factor)


def random_crop(value: Any, size: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """A ``size`` slice of ``value`` at a uniformly drawn offset (``value.shape >= size`` is asserted)."""
    with op_scope(name, "random_crop", [value, size]) as scope:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = check_ops.Assert(
            math.reduce_all(shape >= size), ["Need value.shape >= size, got ", shape, size], summarize=1000
        )
        shape = check_ops.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = (
            random_ops.uniform(array_ops.shape(shape), dtype=size.dtype, maxval=size.dtype.max, seed=seed) % limit
        )
        return array_ops.slice(value, offset, size, name=scope)
