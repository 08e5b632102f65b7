"""``modtensor.io`` (TensorFlow's ``tf.io``): TFRecord files, ``tf.train.Example`` parsing, raw bytes, serialized
tensors, whole files, ``gfile`` and ``matching_files``, web-safe base64, and image codecs (JPEG, PNG, GIF, BMP,
WebP)."""

from __future__ import annotations

from typing import Any

from modtensor.api import gfile
from modtensor.api.image_codec_ops import (
    decode_and_crop_jpeg,
    decode_bmp,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
    decode_webp,
    encode_jpeg,
    encode_png,
    extract_jpeg_shape,
    is_jpeg,
)
from modtensor.api.io_ops import decode_raw, matching_files, parse_tensor, read_file, serialize_tensor, write_file
from modtensor.api.parsing_ops import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    VarLenFeature,
    decode_csv,
    parse_example,
    parse_single_example,
)
from modtensor.api.sparse_tensor import SparseTensor
from modtensor.api.string_ops import decode_base64, encode_base64
from modtensor.framework.record_io import RecordWriter

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "SparseTensor",
    "TFRecordOptions",
    "TFRecordWriter",
    "VarLenFeature",
    "decode_and_crop_jpeg",
    "decode_base64",
    "decode_bmp",
    "decode_csv",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "decode_webp",
    "decode_raw",
    "encode_base64",
    "encode_jpeg",
    "encode_png",
    "extract_jpeg_shape",
    "is_jpeg",
    "parse_example",
    "parse_single_example",
    "parse_tensor",
    "read_file",
    "gfile",
    "matching_files",
    "serialize_tensor",
    "write_file",
]


class TFRecordOptions:
    """Options of a TFRecord file: ``compression_type`` ``""``, ``"ZLIB"`` or ``"GZIP"``."""

    compression_type_map = {"": "", "ZLIB": "ZLIB", "GZIP": "GZIP", None: ""}

    def __init__(self, compression_type: str | None = None, **_unused: Any):
        if compression_type not in self.compression_type_map:
            raise ValueError(f'Unsupported compression_type: {compression_type}. Supported types: "", "ZLIB", "GZIP"')
        self.compression_type = self.compression_type_map[compression_type]

    @classmethod
    def get_compression_type_string(cls, options: Any) -> str:
        """The compression type of ``options`` (a TFRecordOptions, a string or None)."""
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return cls(options).compression_type


class TFRecordWriter:
    """Writes records to a TFRecord file (``with tf.io.TFRecordWriter(path) as w: w.write(bytes)``)."""

    def __init__(self, path: str, options: Any = None):
        self._writer = RecordWriter(str(path), TFRecordOptions.get_compression_type_string(options))

    def write(self, record: Any) -> None:
        """Append one record (bytes or str)."""
        if isinstance(record, str):
            record = record.encode("utf-8")
        numpy = getattr(record, "numpy", None)
        if callable(numpy):
            record = numpy()
        self._writer.write(bytes(record))

    def flush(self) -> None:
        """Push buffered records to the file."""
        self._writer.flush()

    def close(self) -> None:
        """Finish and close the file."""
        self._writer.close()

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
