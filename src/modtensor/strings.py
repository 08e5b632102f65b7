"""``modtensor.strings``: TensorFlow's ``tf.strings`` names for the string ops modtensor implements."""

from modtensor.api.logging_ops import string_format as format  # noqa: A001 - TensorFlow's name
from modtensor.api.string_ops import (
    as_string,
    bytes_split,
    join,
    length,
    lower,
    reduce_join,
    regex_replace,
    split,
    substr,
    to_hash_bucket_fast,
    to_number,
    upper,
)

__all__ = [
    "as_string",
    "bytes_split",
    "format",
    "join",
    "length",
    "lower",
    "reduce_join",
    "regex_replace",
    "split",
    "substr",
    "to_hash_bucket_fast",
    "to_number",
    "upper",
]
