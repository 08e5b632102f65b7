"""``modtensor.image``: TensorFlow's ``tf.image`` resizing names."""

from modtensor.api.image_ops import ResizeMethod, resize

__all__ = ["ResizeMethod", "resize"]
