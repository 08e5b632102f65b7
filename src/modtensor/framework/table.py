"""TensorFlow's immutable sorted key/value table (``lib/io/table``, LevelDB's SSTable format): the ``.index``
file of a checkpoint.

Layout: data blocks (entries with prefix-compressed keys, restart points every 16 entries), a
metaindex block (empty), an index block (one entry per data block: a key >= its last key and the
block's handle), each block followed by a type byte (0: not compressed) and the masked CRC-32C of
block + type; then a 48-byte footer with the metaindex and index handles and the magic number.
:class:`TableWriter` writes what TF's ``TableBuilder`` writes (byte for byte, without compression);
:func:`read_table` reads every entry of a table, checking each block's checksum.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from modtensor.framework import crc32c, errors

__all__ = ["TableWriter", "read_table"]

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48  # two block handles padded to 2 * 20 bytes, then the 8-byte magic number
BLOCK_TRAILER_SIZE = 5  # type byte + masked crc32c
BLOCK_SIZE = 262144  # TF's table::Options defaults
RESTART_INTERVAL = 16
_NO_COMPRESSION = 0
_SNAPPY = 1


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _read_varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


class _BlockBuilder:
    """Entries with keys sharing a prefix with the previous one; every ``interval`` entries a restart point."""

    def __init__(self, interval: int):
        self.interval = interval
        self.reset()

    def reset(self) -> None:
        self.buffer = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last_key = b""

    def empty(self) -> bool:
        return not self.buffer

    def size_estimate(self) -> int:
        return len(self.buffer) + 4 * len(self.restarts) + 4

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.counter < self.interval:
            last = self.last_key
            limit = min(len(last), len(key))
            while shared < limit and last[shared] == key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buffer))
            self.counter = 0
        buffer = self.buffer
        buffer += _varint(shared)
        buffer += _varint(len(key) - shared)
        buffer += _varint(len(value))
        buffer += key[shared:]
        buffer += value
        self.last_key = key
        self.counter += 1

    def finish(self) -> bytes:
        self.buffer += struct.pack(f"<{len(self.restarts)}I", *self.restarts)
        self.buffer += struct.pack("<I", len(self.restarts))
        return bytes(self.buffer)


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    """A short key >= ``start`` and < ``limit`` (TF's FindShortestSeparator)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i >= n:
        return start
    byte = start[i]
    if byte < 0xFF and byte + 1 < limit[i]:
        return start[:i] + bytes([byte + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    """A short key >= ``key`` (TF's FindShortSuccessor)."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


class TableWriter:
    """Builds a table in memory from entries added in increasing key order; ``finish()`` returns its bytes."""

    def __init__(self, block_size: int = BLOCK_SIZE):
        self._block_size = block_size
        self._out = bytearray()
        self._data = _BlockBuilder(RESTART_INTERVAL)
        self._index = _BlockBuilder(1)
        self._last_key = b""
        self._entries = 0
        self._pending: tuple[int, int] | None = None  # handle of the last data block, indexed at the next key

    def _write_block(self, block: _BlockBuilder) -> tuple[int, int]:
        contents = block.finish()
        block.reset()
        handle = (len(self._out), len(contents))
        trailer = bytes([_NO_COMPRESSION])
        crc = crc32c.extend(crc32c.value(contents), trailer)
        self._out += contents
        self._out += trailer + struct.pack("<I", crc32c.mask(crc))
        return handle

    def _flush(self) -> None:
        if self._data.empty():
            return
        self._pending = self._write_block(self._data)

    def add(self, key: bytes, value: bytes) -> None:
        """Append an entry; keys must come in strictly increasing (bytewise) order."""
        if self._entries and key <= self._last_key:
            raise ValueError(f"table keys must increase: {key!r} after {self._last_key!r}")
        if self._entries and len(key) + len(value) >= 2 * self._block_size:
            self._flush()
        if self._pending is not None:
            separator = _shortest_separator(self._last_key, key)
            self._index.add(separator, _varint(self._pending[0]) + _varint(self._pending[1]))
            self._pending = None
        self._last_key = key
        self._entries += 1
        self._data.add(key, value)
        if self._data.size_estimate() >= self._block_size:
            self._flush()

    def finish(self) -> bytes:
        """The table's bytes: remaining data block, metaindex, index and footer."""
        self._flush()
        metaindex = self._write_block(_BlockBuilder(RESTART_INTERVAL))
        if self._pending is not None:
            successor = _short_successor(self._last_key)
            self._index.add(successor, _varint(self._pending[0]) + _varint(self._pending[1]))
            self._pending = None
        index = self._write_block(self._index)
        footer = _varint(metaindex[0]) + _varint(metaindex[1]) + _varint(index[0]) + _varint(index[1])
        footer += bytes(40 - len(footer))
        footer += struct.pack("<II", MAGIC & 0xFFFFFFFF, MAGIC >> 32)
        self._out += footer
        return bytes(self._out)


def write_table(entries: Iterable[tuple[bytes, bytes]]) -> bytes:
    """A table of ``entries`` (sorted by key) as bytes."""
    writer = TableWriter()
    for key, value in entries:
        writer.add(key, value)
    return writer.finish()


def _corrupt(filename: str, detail: str) -> errors.DataLossError:
    return errors.DataLossError(
        None,
        None,
        f"Unable to read file ({filename}). Perhaps the file is corrupt or was produced by a newer version of "
        f"TensorFlow with format changes ({detail})",
    )


def _read_block(data: bytes, handle: tuple[int, int], filename: str) -> memoryview:
    offset, size = handle
    if offset + size + BLOCK_TRAILER_SIZE > len(data) - FOOTER_SIZE:
        raise _corrupt(filename, f"truncated block read: block at offset {offset} of {size} bytes")
    view = memoryview(data)
    contents = view[offset : offset + size]
    kind = data[offset + size]
    (stored,) = struct.unpack_from("<I", data, offset + size + 1)
    actual = crc32c.extend(crc32c.value(contents), bytes([kind]))
    if crc32c.unmask(stored) != actual:
        raise _corrupt(filename, f"block checksum mismatch: block at offset {offset} of {size} bytes")
    if kind == _SNAPPY:
        raise _corrupt(filename, "snappy-compressed table blocks are not supported")
    if kind != _NO_COMPRESSION:
        raise _corrupt(filename, f"bad block type {kind}")
    return contents


def _block_entries(block: memoryview, filename: str) -> list[tuple[bytes, bytes]]:
    if len(block) < 4:
        raise _corrupt(filename, "bad block contents")
    (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 * (num_restarts + 1)
    if limit < 0:
        raise _corrupt(filename, "bad block contents")
    entries = []
    pos = 0
    key = b""
    try:
        while pos < limit:
            shared, non_shared, value_len = block[pos], block[pos + 1], block[pos + 2]
            if (shared | non_shared | value_len) < 0x80:
                pos += 3
            else:
                shared, pos = _read_varint(block, pos)
                non_shared, pos = _read_varint(block, pos)
                value_len, pos = _read_varint(block, pos)
            if shared > len(key) or pos + non_shared + value_len > limit:
                raise _corrupt(filename, "bad entry in block")
            key = key[:shared] + bytes(block[pos : pos + non_shared])
            pos += non_shared
            entries.append((key, bytes(block[pos : pos + value_len])))
            pos += value_len
    except (IndexError, ValueError):
        raise _corrupt(filename, "bad entry in block") from None
    return entries


def read_table(data: bytes, filename: str = "<table>") -> list[tuple[bytes, bytes]]:
    """Every (key, value) of the table in ``data``, in key order; DataLossError naming ``filename`` when corrupt."""
    if len(data) < FOOTER_SIZE:
        raise _corrupt(filename, f"file is too short ({len(data)} bytes) to be an sstable")
    low, high = struct.unpack_from("<II", data, len(data) - 8)
    if (high << 32) | low != MAGIC:
        raise _corrupt(filename, "not an sstable (bad magic number)")
    footer = memoryview(data)[len(data) - FOOTER_SIZE :]
    try:
        pos = 0
        _, pos = _read_varint(footer, pos)
        _, pos = _read_varint(footer, pos)
        index_offset, pos = _read_varint(footer, pos)
        index_size, pos = _read_varint(footer, pos)
    except (IndexError, ValueError):
        raise _corrupt(filename, "bad footer") from None
    index = _block_entries(_read_block(data, (index_offset, index_size), filename), filename)
    entries: list[tuple[bytes, bytes]] = []
    for _, handle in index:
        try:
            offset, pos = _read_varint(handle, 0)
            size, _ = _read_varint(handle, pos)
        except (IndexError, ValueError):
            raise _corrupt(filename, "bad block handle") from None
        entries += _block_entries(_read_block(data, (offset, size), filename), filename)
    return entries
