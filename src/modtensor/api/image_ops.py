"""``tf.image``'s resize (TF 2's half-pixel centers, over the Resize* ops) and geometry: flips, ``rot90``,
``transpose``, crops and pads, composed of array ops as TF 2.21 composes them (same graphs, checks and errors)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modtensor.api import array_ops, check_ops, indexing_ops
from modtensor.api import cond as cond_lib
from modtensor.api import image_checks as checks
from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant_value, convert_to_tensor, is_tensor, op_scope
from modtensor.framework import dtypes, op_def_library, tensor_shape
from modtensor.framework.graph import SymbolicTensor
from modtensor.framework.op_registry import global_registry
from modtensor.framework.tensor import Tensor

__all__: list[str] = []


class ResizeMethod:
    """The methods ``tf.image.resize`` takes (TF's names and string values)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _resize(images: Tensor, size: Tensor, method: str, antialias: bool) -> Tensor:
    if antialias and method in (ResizeMethod.BILINEAR, ResizeMethod.BICUBIC):
        raise NotImplementedError("resize with antialias=True needs 'ScaleAndTranslate', not implemented yet")
    if method == ResizeMethod.BILINEAR:
        return apply_op("ResizeBilinear", images=images, size=size, half_pixel_centers=True)
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        return apply_op("ResizeNearestNeighbor", images=images, size=size, half_pixel_centers=True)
    if method == ResizeMethod.BICUBIC:
        return apply_op("ResizeBicubic", images=images, size=size, half_pixel_centers=True)
    if method == ResizeMethod.AREA:
        return apply_op("ResizeArea", images=images, size=size)
    if method in (ResizeMethod.LANCZOS3, ResizeMethod.LANCZOS5, ResizeMethod.GAUSSIAN, ResizeMethod.MITCHELLCUBIC):
        raise NotImplementedError(f"resize method {method!r} needs 'ScaleAndTranslate', not implemented yet")
    raise ValueError(f"Resize method is not implemented: {method}")


def resize(
    images: Any,
    size: Any,
    method: str = ResizeMethod.BILINEAR,
    preserve_aspect_ratio: bool = False,
    antialias: bool = False,
    name: str | None = None,
) -> Tensor:
    """Images (``[b, h, w, c]`` or ``[h, w, c]``) resized to ``size`` by ``method``; float32 except nearest."""
    with op_scope(name, "resize", [images, size]):
        return resize_images_common(images, size, preserve_aspect_ratio, lambda x, s: _resize(x, s, method, antialias))


def resize_images_common(
    images: Any, size: Any, preserve_aspect_ratio: bool, resize_4d: Callable[[Tensor, Tensor], Tensor]
) -> Tensor:
    """The frame every resize spelling shares (TF's ``_resize_images_common``): 3-D images as a batch of one,
    ``size`` checked (or fitted to the aspect ratio), ``resize_4d(images, size)`` run, the static shape set."""
    images = convert_to_tensor(images, name="images")
    rank = images.shape.rank
    if rank is None:
        raise ValueError("'images' contains no shape.")
    is_batch = rank == 4
    if rank == 3:
        images = array_ops.expand_dims(images, 0)
    elif rank != 4:
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    try:
        size = convert_to_tensor(size, dtypes.int32, name="size")
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    if not size.shape.is_compatible_with([2]):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if preserve_aspect_ratio:
        shape = array_ops.shape(images)
        height, width = math.cast(shape[1], dtypes.float32), math.cast(shape[2], dtypes.float32)
        factor = math.minimum(
            math.cast(size[0], dtypes.float32) / height, math.cast(size[1], dtypes.float32) / width
        )
        new_h = math.cast(math.round(factor * height), dtypes.int32)
        new_w = math.cast(math.round(factor * width), dtypes.int32)
        size = convert_to_tensor([new_h, new_w], dtypes.int32, name="size")
    resized = resize_4d(images, size)
    if isinstance(resized, SymbolicTensor):
        static = constant_value(size)
        dims = [None, None] if static is None else [int(v) for v in static]
        resized.set_shape([None, *dims, None])
    if not is_batch:
        resized = array_ops.squeeze(resized, axis=[0])
    return resized


# =========================================================================== geometry (TF's image_ops_impl)


def _flip(image: Any, flip_index: int, scope_name: str) -> Tensor:
    """``image`` reversed along its height (0) or width (1) axis, for 3-D and 4-D images (``ReverseV2``)."""
    with op_scope(None, scope_name, [image]):
        image = convert_to_tensor(image, name="image")
        image = checks.assert_at_least_3d_image(image)
        rank = image.shape.rank

        def f_rank3() -> Tensor:
            return checks.fix_image_flip_shape(image, indexing_ops.reverse(image, [flip_index]))

        def f_rank4() -> Tensor:
            return indexing_ops.reverse(image, [flip_index + 1])

        if rank is None:
            return cond_lib.cond(math.equal(array_ops.rank(image), 3), f_rank3, f_rank4)
        if rank == 3:
            return f_rank3()
        if rank == 4:
            return f_rank4()
        raise ValueError(f"'image' (shape {image.shape})must have either 3 or 4 dimensions.")


def flip_left_right(image: Any) -> Tensor:
    """``image`` (``[h, w, c]`` or ``[b, h, w, c]``) mirrored left to right."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image: Any) -> Tensor:
    """``image`` (``[h, w, c]`` or ``[b, h, w, c]``) mirrored upside down."""
    return _flip(image, 0, "flip_up_down")


def _rot90_3d(image: Tensor, k: Tensor, scope: str | None) -> Tensor:
    def rot90() -> Tensor:
        return array_ops.transpose(indexing_ops.reverse(image, [1]), [1, 0, 2])

    def rot180() -> Tensor:
        return indexing_ops.reverse(image, [0, 1])

    def rot270() -> Tensor:
        return indexing_ops.reverse(array_ops.transpose(image, [1, 0, 2]), [1])

    cases = [(math.equal(k, 1), rot90), (math.equal(k, 2), rot180), (math.equal(k, 3), rot270)]
    result = cond_lib.case(cases, default=lambda: image, exclusive=True, name=scope)
    result.set_shape([None, None, image.shape[2]])
    return result


def _rot90_4d(images: Tensor, k: Tensor, scope: str | None) -> Tensor:
    def rot90() -> Tensor:
        return array_ops.transpose(indexing_ops.reverse(images, [2]), [0, 2, 1, 3])

    def rot180() -> Tensor:
        return indexing_ops.reverse(images, [1, 2])

    def rot270() -> Tensor:
        return indexing_ops.reverse(array_ops.transpose(images, [0, 2, 1, 3]), [2])

    cases = [(math.equal(k, 1), rot90), (math.equal(k, 2), rot180), (math.equal(k, 3), rot270)]
    result = cond_lib.case(cases, default=lambda: images, exclusive=True, name=scope)
    shape = result.shape
    result.set_shape([shape[0], None, None, shape[3]])
    return result


def rot90(image: Any, k: Any = 1, name: str | None = None) -> Tensor:
    """``image`` rotated counter-clockwise by ``k`` quarter turns (``k`` may be a tensor: a ``case`` on k % 4)."""
    with op_scope(name, "rot90", [image, k]) as scope:
        image = convert_to_tensor(image, name="image")
        image = checks.assert_at_least_3d_image(image)
        k = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        k.shape.assert_has_rank(0)
        with op_scope(None, "mod", [k, 4]) as mod_scope:  # TF's math_ops.mod: FloorMod in a "mod" scope
            k = apply_op("FloorMod", name=mod_scope, x=k, y=4)
        rank = image.shape.rank
        if rank is None:
            return cond_lib.cond(
                math.equal(array_ops.rank(image), 3),
                lambda: _rot90_3d(image, k, scope),
                lambda: _rot90_4d(image, k, scope),
            )
        if rank == 3:
            return _rot90_3d(image, k, scope)
        if rank == 4:
            return _rot90_4d(image, k, scope)
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


def transpose(image: Any, name: str | None = None) -> Tensor:
    """``image`` with height and width swapped (``Transpose``)."""
    with op_scope(name, "transpose", [image]):
        image = convert_to_tensor(image, name="image")
        image = checks.assert_at_least_3d_image(image)
        rank = image.shape.rank
        if rank is None:
            return cond_lib.cond(
                math.equal(array_ops.rank(image), 3),
                lambda: array_ops.transpose(image, [1, 0, 2], name=name),
                lambda: array_ops.transpose(image, [0, 2, 1, 3], name=name),
            )
        if rank == 3:
            return array_ops.transpose(image, [1, 0, 2], name=name)
        if rank == 4:
            return array_ops.transpose(image, [0, 2, 1, 3], name=name)
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


def _static_dim(image: Tensor, idx: int) -> tuple[Any, bool]:
    """Dim ``idx`` of ``image``: (int, False) when static, else (a ``Shape`` element, True)."""
    static = image.shape.dims[idx]
    static = tensor_shape.dimension_value(static)
    if static is not None:
        return static, False
    return array_ops.shape(image)[idx], True


def central_crop(image: Any, central_fraction: Any) -> Tensor:
    """The central ``central_fraction`` (in (0, 1]) of ``image``'s height and width (``Slice``)."""
    with op_scope(None, "central_crop", [image]):
        image = convert_to_tensor(image, name="image")
        fraction_static = constant_value(central_fraction)
        if fraction_static is not None:
            if fraction_static <= 0.0 or fraction_static > 1.0:
                raise ValueError("central_fraction must be within (0, 1]")
            if fraction_static == 1.0:
                return image
        else:
            # TF's check, kept as TF has it: "> 0 or <= 1" is true for every value.
            assert_ops = checks.assert_(
                math.logical_or(central_fraction > 0.0, central_fraction <= 1.0),
                ValueError,
                "central_fraction must be within (0, 1]",
            )
            image = check_ops.with_dependencies(assert_ops, image)
        checks.assert_at_least_3d_image(image)
        rank = image.shape.rank
        if rank not in (3, 4):
            raise ValueError(f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}.")
        first = 0 if rank == 3 else 1
        img_h, dynamic_h = _static_dim(image, first)
        img_w, dynamic_w = _static_dim(image, first + 1)
        dynamic_h = dynamic_h or fraction_static is None
        dynamic_w = dynamic_w or fraction_static is None

        def start(size: Any, dynamic: bool) -> Any:
            if dynamic:
                size_d = math.cast(size, dtypes.float64)
                return math.cast((size_d - size_d * math.cast(central_fraction, dtypes.float64)) / 2, dtypes.int32)
            size_f = float(size)
            return int((size_f - size_f * fraction_static) / 2)

        h_start = start(img_h, dynamic_h)
        w_start = start(img_w, dynamic_w)
        h_size = img_h - h_start * 2
        w_size = img_w - w_start * 2
        if rank == 3:
            begin = array_ops.stack([h_start, w_start, 0])
            size = array_ops.stack([h_size, w_size, -1])
        else:
            begin = array_ops.stack([0, h_start, w_start, 0])
            size = array_ops.stack([-1, h_size, w_size, -1])
        image_shape = image.shape
        image = array_ops.slice(image, begin, size)
        hw = [None if dynamic_h else h_size, None if dynamic_w else w_size]
        if rank == 3:
            image.set_shape([*hw, image_shape[2]])
        else:
            image.set_shape([image_shape[0], *hw, image_shape[3]])
        return image


def pad_to_bounding_box(
    image: Any, offset_height: Any, offset_width: Any, target_height: Any, target_width: Any
) -> Tensor:
    """``image`` zero-padded to ``target_height x target_width`` with its top-left corner at the offsets."""
    return _pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width, check_dims=True)


def _pad_to_bounding_box(
    image: Any, offset_height: Any, offset_width: Any, target_height: Any, target_width: Any, check_dims: bool
) -> Tensor:
    with op_scope(None, "pad_to_bounding_box", [image]):
        image = convert_to_tensor(image, name="image")
        image, is_batch = checks.batched(image)
        batch, height, width, depth = checks.image_dimensions(image, rank=4)
        after_padding_width = target_width - offset_width - width
        after_padding_height = target_height - offset_height - height
        if check_dims:
            assert_ops = checks.check_at_least_3d_image(image, require_static=False)
            assert_ops += checks.assert_(offset_height >= 0, ValueError, "offset_height must be >= 0")
            assert_ops += checks.assert_(offset_width >= 0, ValueError, "offset_width must be >= 0")
            assert_ops += checks.assert_(after_padding_width >= 0, ValueError, "width must be <= target - offset")
            assert_ops += checks.assert_(after_padding_height >= 0, ValueError, "height must be <= target - offset")
            image = check_ops.with_dependencies(assert_ops, image)
        paddings = array_ops.reshape(
            array_ops.stack(
                [0, 0, offset_height, after_padding_height, offset_width, after_padding_width, 0, 0]
            ),
            [4, 2],
        )
        padded = array_ops.pad(image, paddings)
        padded.set_shape(checks.static_or_none([batch, target_height, target_width, depth]))
        if not is_batch:
            padded = array_ops.squeeze(padded, axis=[0])
        return padded


def crop_to_bounding_box(
    image: Any, offset_height: Any, offset_width: Any, target_height: Any, target_width: Any
) -> Tensor:
    """The ``target_height x target_width`` window of ``image`` whose top-left corner is at the offsets."""
    with op_scope(None, "crop_to_bounding_box", [image]):
        image = convert_to_tensor(image, name="image")
        image, is_batch = checks.batched(image)
        assert_ops = checks.check_at_least_3d_image(image, require_static=False)
        batch, height, width, depth = checks.image_dimensions(image, rank=4)
        assert_ops += checks.assert_(offset_width >= 0, ValueError, "offset_width must be >= 0.")
        assert_ops += checks.assert_(offset_height >= 0, ValueError, "offset_height must be >= 0.")
        assert_ops += checks.assert_(target_width > 0, ValueError, "target_width must be > 0.")
        assert_ops += checks.assert_(target_height > 0, ValueError, "target_height must be > 0.")
        assert_ops += checks.assert_(
            width >= target_width + offset_width, ValueError, "width must be >= target + offset."
        )
        assert_ops += checks.assert_(
            height >= target_height + offset_height, ValueError, "height must be >= target + offset."
        )
        image = check_ops.with_dependencies(assert_ops, image)
        cropped = array_ops.slice(
            image,
            array_ops.stack([0, offset_height, offset_width, 0]),
            array_ops.stack([array_ops.shape(image)[0], target_height, target_width, array_ops.shape(image)[3]]),
        )
        cropped.set_shape(checks.static_or_none([batch, target_height, target_width, depth]))
        if not is_batch:
            cropped = array_ops.squeeze(cropped, axis=[0])
        return cropped


def _max(x: Any, y: Any) -> Any:
    return math.maximum(x, y) if is_tensor(x) or is_tensor(y) else max(x, y)


def _min(x: Any, y: Any) -> Any:
    return math.minimum(x, y) if is_tensor(x) or is_tensor(y) else min(x, y)


def _equal(x: Any, y: Any) -> Any:
    return math.equal(x, y) if is_tensor(x) or is_tensor(y) else x == y


def resize_with_crop_or_pad(image: Any, target_height: Any, target_width: Any) -> Tensor:
    """``image`` centrally cropped and/or zero-padded to ``target_height x target_width``."""
    with op_scope(None, "resize_image_with_crop_or_pad", [image]):
        image = convert_to_tensor(image, name="image")
        image, is_batch = checks.batched(image)
        assert_ops = checks.check_at_least_3d_image(image, require_static=False)
        assert_ops += checks.assert_(target_width > 0, ValueError, "target_width must be > 0.")
        assert_ops += checks.assert_(target_height > 0, ValueError, "target_height must be > 0.")
        image = check_ops.with_dependencies(assert_ops, image)
        if is_tensor(target_height):
            target_height = check_ops.with_dependencies(assert_ops, target_height)
        if is_tensor(target_width):
            target_width = check_ops.with_dependencies(assert_ops, target_width)
        _, height, width, _ = checks.image_dimensions(image, rank=4)
        width_diff = target_width - width
        offset_crop_width = _max(-width_diff // 2, 0)
        offset_pad_width = _max(width_diff // 2, 0)
        height_diff = target_height - height
        offset_crop_height = _max(-height_diff // 2, 0)
        offset_pad_height = _max(height_diff // 2, 0)
        cropped = crop_to_bounding_box(
            image, offset_crop_height, offset_crop_width, _min(target_height, height), _min(target_width, width)
        )
        resized = pad_to_bounding_box(cropped, offset_pad_height, offset_pad_width, target_height, target_width)
        if resized.shape.rank is None:
            raise ValueError("resized contains no shape.")
        _, resized_height, resized_width, _ = checks.image_dimensions(resized, rank=4)
        assert_ops = checks.assert_(
            _equal(resized_height, target_height), ValueError, "resized height is not correct."
        )
        assert_ops += checks.assert_(_equal(resized_width, target_width), ValueError, "resized width is not correct.")
        resized = check_ops.with_dependencies(assert_ops, resized)
        if not is_batch:
            resized = array_ops.squeeze(resized, axis=[0])
        return resized


def resize_with_pad(
    image: Any, target_height: Any, target_width: Any, method: str = ResizeMethod.BILINEAR, antialias: bool = False
) -> Tensor:
    """``image`` resized (by ``method``, aspect ratio kept) to fit ``target_height x target_width``, then
    zero-padded to it, centred."""
    with op_scope(None, "resize_image_with_pad", [image]):
        image = convert_to_tensor(image, name="image")
        image, is_batch = checks.batched(image)
        assert_ops = checks.check_at_least_3d_image(image, require_static=False)
        assert_ops += checks.assert_(target_width > 0, ValueError, "target_width must be > 0.")
        assert_ops += checks.assert_(target_height > 0, ValueError, "target_height must be > 0.")
        image = check_ops.with_dependencies(assert_ops, image)
        _, height, width, _ = checks.image_dimensions(image, rank=4)
        f_height = math.cast(height, dtype=dtypes.float32)
        f_width = math.cast(width, dtype=dtypes.float32)
        f_target_height = math.cast(target_height, dtype=dtypes.float32)
        f_target_width = math.cast(target_width, dtype=dtypes.float32)
        ratio = _max(f_width / f_target_width, f_height / f_target_height)
        resized_height_float = f_height / ratio
        resized_width_float = f_width / ratio
        resized_height = math.cast(math.floor(resized_height_float), dtype=dtypes.int32)
        resized_width = math.cast(math.floor(resized_width_float), dtype=dtypes.int32)
        padding_height = (f_target_height - resized_height_float) / 2
        padding_width = (f_target_width - resized_width_float) / 2
        f_padding_height = math.floor(padding_height)
        f_padding_width = math.floor(padding_width)
        p_height = _max(0, math.cast(f_padding_height, dtype=dtypes.int32))
        p_width = _max(0, math.cast(f_padding_width, dtype=dtypes.int32))
        resized = resize(image, [resized_height, resized_width], method, antialias=antialias)
        padded = pad_to_bounding_box(resized, p_height, p_width, target_height, target_width)
        if padded.shape.rank is None:
            raise ValueError("padded contains no shape.")
        checks.image_dimensions(padded, rank=4)
        if not is_batch:
            padded = array_ops.squeeze(padded, axis=[0])
        return padded


# --------------------------------------------------------------------------- non-max suppression


def non_max_suppression(boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any = 0.5,
                        score_threshold: Any = float("-inf"), name: str | None = None) -> Tensor:  # fmt: skip
    """The indices of at most ``max_output_size`` boxes (``[y1, x1, y2, x2]``) kept by greedy non-max suppression,
    best score first: a box is dropped when its IoU with a kept one exceeds ``iou_threshold`` (NonMaxSuppressionV3)."""
    with op_scope(name, "non_max_suppression", []):
        iou_threshold = convert_to_tensor(iou_threshold, name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, name="score_threshold")
        return apply_op("NonMaxSuppressionV3", boxes=boxes, scores=scores, max_output_size=max_output_size,
                        iou_threshold=iou_threshold, score_threshold=score_threshold)  # fmt: skip


def non_max_suppression_with_scores(boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any = 0.5,
                                    score_threshold: Any = float("-inf"), soft_nms_sigma: Any = 0.0,
                                    name: str | None = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``non_max_suppression``'s indices and the kept boxes' scores; with ``soft_nms_sigma`` > 0, Soft-NMS: overlaps
    decay scores instead of dropping boxes (NonMaxSuppressionV5)."""
    with op_scope(name, "non_max_suppression_with_scores", []):
        iou_threshold = convert_to_tensor(iou_threshold, name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, name="score_threshold")
        soft_nms_sigma = convert_to_tensor(soft_nms_sigma, name="soft_nms_sigma")
        indices, kept_scores, _ = apply_op(
            "NonMaxSuppressionV5", boxes=boxes, scores=scores, max_output_size=max_output_size,
            iou_threshold=iou_threshold, score_threshold=score_threshold, soft_nms_sigma=soft_nms_sigma,
            pad_to_max_output_size=False,
        )  # fmt: skip
        return indices, kept_scores


def combined_non_max_suppression(boxes: Any, scores: Any, max_output_size_per_class: Any, max_total_size: Any,
                                 iou_threshold: Any = 0.5, score_threshold: Any = float("-inf"),
                                 pad_per_class: bool = False, clip_boxes: bool = True,
                                 name: str | None = None) -> Any:  # fmt: skip
    """Greedy non-max suppression per image and class (``boxes [batch, n, q, 4]`` shared by all classes when q is
    1), each image's kept boxes merged best score first: TF's CombinedNonMaxSuppression namedtuple ``(nmsed_boxes,
    nmsed_scores, nmsed_classes, valid_detections)``, zero-padded to ``max_total_size``."""
    with op_scope(name, "combined_non_max_suppression", []):
        iou_threshold = convert_to_tensor(iou_threshold, dtype=dtypes.float32, name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, dtype=dtypes.float32, name="score_threshold")
        # no dtype, as TF: a size past int32 becomes int64 and fails the op's int32 input
        max_total_size = convert_to_tensor(max_total_size)
        outputs = apply_op(
            "CombinedNonMaxSuppression", boxes=boxes, scores=scores,
            max_output_size_per_class=max_output_size_per_class, max_total_size=max_total_size,
            iou_threshold=iou_threshold, score_threshold=score_threshold, pad_per_class=pad_per_class,
            clip_boxes=clip_boxes,
        )  # fmt: skip
        return op_def_library.wrapper_outputs(global_registry().get("CombinedNonMaxSuppression").op_def, list(outputs))
