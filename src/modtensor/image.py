"""``modtensor.image``: TensorFlow's ``tf.image`` names: resizing, geometry, pixel values, seeded augmentation."""

from modtensor.api.image_ops import (
    ResizeMethod,
    central_crop,
    crop_to_bounding_box,
    flip_left_right,
    flip_up_down,
    pad_to_bounding_box,
    resize,
    resize_with_crop_or_pad,
    resize_with_pad,
    rot90,
    transpose,
)

__all__ = [
    "ResizeMethod",
    "central_crop",
    "crop_to_bounding_box",
    "flip_left_right",
    "flip_up_down",
    "pad_to_bounding_box",
    "resize",
    "resize_with_crop_or_pad",
    "resize_with_pad",
    "rot90",
    "transpose",
]
