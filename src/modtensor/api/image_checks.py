"""The shape and argument checks ``tf.image``'s functions share (TF 2.21's ``_ImageDimensions``, ``_assert``,
``_CheckAtLeast3DImage``, ``_CheckGrayscaleImage``, ``fix_image_flip_shape``, ...).

What is known statically is checked at once with TF's ``ValueError`` texts; what is not
becomes ``Assert`` ops (``check_ops``) that the image is routed through by
``with_dependencies``, as TF builds them, so graphs and eager errors equal TF's.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops, check_ops
from modtensor.api.op_scope import is_tensor
from modtensor.framework.tensor import Tensor

__all__: list[str] = []


def image_dimensions(image: Tensor, rank: int) -> list[Any]:
    """The dims of ``image``: Python ints where static, else scalar tensors unstacked from ``Shape``."""
    if image.shape.is_fully_defined():
        return image.shape.as_list()
    static = image.shape.with_rank(rank).as_list()
    dynamic = array_ops.unstack(array_ops.shape(image), rank)
    return [s if s is not None else d for s, d in zip(static, dynamic, strict=True)]


def assert_(cond: Any, ex_type: type[Exception], msg: str) -> list[Any]:
    """TF's polymorphic ``_assert``: an ``Assert`` op for a tensor condition, else ``ex_type(msg)`` if false."""
    if is_tensor(cond):
        return [check_ops.Assert(cond, [msg])]
    if not cond:
        raise ex_type(msg)
    return []


def check_at_least_3d_image(image: Tensor, require_static: bool = True) -> list[Any]:
    """TF's ``_CheckAtLeast3DImage``: rank >= 3 and inner dims > 0, statically or by two assert ops."""
    try:
        shape = image.shape
        image_shape = shape.with_rank(3) if shape.rank is None else shape.with_rank_at_least(3)
    except ValueError:
        raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.") from None
    if require_static and not image_shape.is_fully_defined():
        raise ValueError("'image' must be fully defined.")
    if any(x == 0 for x in image_shape[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {image_shape}")
    if not image_shape[-3:].is_fully_defined():
        return [
            # TF 1's signature: the list is the assert's ``data``.
            check_ops.assert_positive_v1(array_ops.shape(image)[-3:], ["inner 3 dims of 'image.shape' must be > 0."]),
            check_ops.assert_greater_equal(
                array_ops.rank(image), 3, message="'image' must be at least three-dimensional."
            ),
        ]
    return []


def assert_at_least_3d_image(image: Tensor) -> Tensor:
    """``image`` behind :func:`check_at_least_3d_image`'s dynamic checks (TF's ``_AssertAtLeast3DImage``)."""
    return check_ops.with_dependencies(check_at_least_3d_image(image, require_static=False), image)


def check_grayscale_image(image: Tensor, require_static: bool = True) -> list[Any]:
    """TF's ``_CheckGrayscaleImage``: rank >= 2 and a last dim of 1, statically or by two assert ops."""
    try:
        shape = image.shape
        image_shape = shape.with_rank(2) if shape.rank is None else shape.with_rank_at_least(2)
    except ValueError:
        raise ValueError(f"A grayscale image (shape {image.shape}) must be at least two-dimensional.") from None
    if require_static and not image_shape.is_fully_defined():
        raise ValueError("'image' must be fully defined.")
    if image_shape.is_fully_defined():
        if image_shape[-1] != 1:
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        return []
    return [
        check_ops.assert_equal(
            array_ops.shape(image)[-1], 1, message="Last dimension of a grayscale image should be size 1."
        ),
        check_ops.assert_greater_equal(
            array_ops.rank(image), 3, message="A grayscale image must be at least two-dimensional."
        ),
    ]


def assert_grayscale_image(image: Tensor) -> Tensor:
    """``image`` behind :func:`check_grayscale_image`'s dynamic checks (TF's ``_AssertGrayscaleImage``)."""
    return check_ops.with_dependencies(check_grayscale_image(image, require_static=False), image)


def fix_image_flip_shape(image: Tensor, result: Tensor) -> Tensor:
    """``result`` given ``image``'s static shape, or at least rank 3 when that is unknown (TF's helper)."""
    if image.shape.rank is None:
        result.set_shape([None, None, None])
    else:
        result.set_shape(image.shape)
    return result


def batched(image: Tensor) -> tuple[Tensor, bool]:
    """A 3-D (or unknown-rank) image as a batch of one, and whether it was a batch already (TF's common prologue
    of the crop and pad functions; other ranks are TF's ValueError)."""
    rank = image.shape.rank
    if rank == 3:
        return array_ops.expand_dims(image, 0), False
    if rank is None:
        image = array_ops.expand_dims(image, 0)
        image.set_shape([None] * 4)
        return image, False
    if rank != 4:
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return image, True


def static_or_none(values: list[Any]) -> list[Any]:
    """Each value as a static dim: None for a tensor (TF's ``[None if _is_tensor(i) else i for i in ...]``)."""
    return [None if is_tensor(v) else v for v in values]
