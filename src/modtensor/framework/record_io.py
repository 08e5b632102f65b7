"""TensorFlow's TFRecord file format: records framed with masked CRC-32C checksums, optionally compressed.

Each record is ``uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)``
(little endian), as TensorFlow's ``RecordWriter``/``RecordReader`` write and read them; the
checksum is CRC-32C (Castagnoli) masked by TensorFlow's rotation ``((crc >> 15) | (crc << 17)) +
0xa282ead8``. ``compression_type`` is ``""`` (none), ``"ZLIB"`` or ``"GZIP"``, applied to the whole
stream as TensorFlow does. Files TensorFlow wrote read here, and files written here read in
TensorFlow. Errors are TensorFlow's (``DataLossError`` naming the file and offset for a corrupt
record, ``NotFoundError`` for a missing file). Nothing here knows devices or execution.
"""

from __future__ import annotations

import gzip
import io
import struct
import zlib
from collections.abc import Iterator
from typing import BinaryIO

from modtensor.framework import errors

__all__ = [
    "RecordReader",
    "RecordWriter",
    "crc32c",
    "masked_crc32c",
    "open_for_read",
    "open_for_write",
    "unmask_crc32c",
]

_MASK_DELTA = 0xA282EAD8
_POLY = 0x82F63B78  # CRC-32C (Castagnoli), reflected


def _make_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _make_table()


def _crc32c_python(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """CRC-32C of ``data`` continuing from ``crc`` (table driven, one byte per step)."""
    table = _TABLE
    c = crc ^ 0xFFFFFFFF
    for byte in bytes(data):
        c = table[(c ^ byte) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


try:  # the C implementation built with the package (csrc/crc32c); the Python one above otherwise
    from modtensor.framework._crc32c import crc32c as _crc32c_native  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the build
    _crc32c_native = None


def crc32c(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """CRC-32C (Castagnoli) of ``data``, continuing from ``crc``."""
    if _crc32c_native is not None:
        return _crc32c_native(data, crc)
    return _crc32c_python(data, crc)


def masked_crc32c(data: bytes | bytearray | memoryview) -> int:
    """TensorFlow's masked CRC-32C of ``data`` (what TFRecord files store)."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def unmask_crc32c(masked: int) -> int:
    """The CRC-32C behind a masked one."""
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def _compression(compression_type: str | None) -> str:
    kind = (compression_type or "").upper() if isinstance(compression_type, str) else compression_type
    if kind in ("", None):
        return ""
    if kind in ("ZLIB", "GZIP"):
        return kind
    raise errors.InvalidArgumentError(None, None, f"Unsupported compression_type: {compression_type}.")


def _open_file(path: str, mode: str) -> BinaryIO:
    try:
        return open(path, mode)  # noqa: SIM115 - the caller closes it
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    except PermissionError:
        raise errors.PermissionDeniedError(None, None, f"{path}; Permission denied") from None


class _ZlibWriter(io.RawIOBase):
    """A write-only stream compressing into ``raw`` with zlib framing (TF's ZLIB compression type)."""

    def __init__(self, raw: BinaryIO):
        self._raw = raw
        self._compressor = zlib.compressobj()
        self._finished = False

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self._raw.write(self._compressor.compress(data))
        return len(data)

    def flush(self) -> None:
        if not self.closed and not self._finished:
            self._raw.write(self._compressor.flush(zlib.Z_SYNC_FLUSH))
            self._raw.flush()

    def close(self) -> None:
        if not self.closed and not self._finished:
            self._raw.write(self._compressor.flush(zlib.Z_FINISH))
            self._finished = True
            self._raw.close()
        super().close()


def open_for_write(path: str, compression_type: str | None = "") -> BinaryIO:
    """A binary stream writing ``path`` with TF's compression (``""``, ``"ZLIB"``, ``"GZIP"``)."""
    kind = _compression(compression_type)
    raw = _open_file(path, "wb")
    if kind == "GZIP":
        return gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)  # type: ignore[return-value]
    if kind == "ZLIB":
        return _ZlibWriter(raw)  # type: ignore[return-value]
    return raw


def open_for_read(path: str, compression_type: str | None = "") -> BinaryIO:
    """A binary stream reading ``path`` decompressed as ``compression_type`` says."""
    kind = _compression(compression_type)
    raw = _open_file(path, "rb")
    if kind == "GZIP":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if kind == "ZLIB":
        data = raw.read()
        raw.close()
        try:
            return io.BytesIO(zlib.decompress(data))
        except zlib.error as e:
            raise errors.DataLossError(None, None, f"{path}: zlib error: {e}") from None
    return raw


class RecordWriter:
    """Writes TFRecord records to ``path`` (TF's ``tf.io.TFRecordWriter`` format)."""

    def __init__(self, path: str, compression_type: str | None = ""):
        self.path = path
        self._stream = open_for_write(path, compression_type)

    def write(self, record: bytes) -> None:
        """Append one record."""
        header = struct.pack("<Q", len(record))
        self._stream.write(header + struct.pack("<I", masked_crc32c(header)))
        self._stream.write(record)
        self._stream.write(struct.pack("<I", masked_crc32c(record)))

    def flush(self) -> None:
        """Push what was written to the file."""
        self._stream.flush()

    def close(self) -> None:
        """Finish the stream (compression trailer) and close the file."""
        self._stream.close()


class RecordReader:
    """Reads the records of a TFRecord file in order, checking both checksums of each (TF's RecordReader)."""

    def __init__(self, path: str, compression_type: str | None = "", offset: int = 0):
        self.path = path
        self._stream = open_for_read(path, compression_type)
        self._offset = 0
        if offset:
            self._stream.read(offset)
            self._offset = offset

    def _corrupt(self, what: str) -> errors.DataLossError:
        return errors.DataLossError(
            None, None, f"corrupted record at {self._offset} ({what}) in file {self.path}"
        )

    def read(self) -> bytes | None:
        """The next record, or None at the end of the file."""
        header = self._stream.read(12)
        if not header:
            return None
        if len(header) < 12:
            raise errors.DataLossError(
                None, None, f"truncated record at {self._offset}' failed with Read less bytes than requested"
            )
        length, masked = struct.unpack("<QI", header)
        if masked_crc32c(header[:8]) != masked:
            raise self._corrupt("length checksum mismatch")
        data = self._stream.read(length)
        footer = self._stream.read(4)
        if len(data) < length or len(footer) < 4:
            raise errors.DataLossError(
                None, None, f"truncated record at {self._offset}' failed with Read less bytes than requested"
            )
        if masked_crc32c(data) != struct.unpack("<I", footer)[0]:
            raise self._corrupt("data checksum mismatch")
        self._offset += 16 + length
        return data

    def __iter__(self) -> Iterator[bytes]:
        while True:
            record = self.read()
            if record is None:
                return
            yield record

    def close(self) -> None:
        """Close the file."""
        self._stream.close()
