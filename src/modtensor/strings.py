"""``tf.strings``: string operations (so far ``format``, TF's tensor formatting into a template)."""

from modtensor.api.logging_ops import string_format as format  # noqa: A001 - TensorFlow's name

__all__ = ["format"]
