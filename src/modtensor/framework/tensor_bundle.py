"""TensorFlow's tensor bundle (the V2 checkpoint format): ``PREFIX.index`` + ``PREFIX.data-00000-of-00001``.

The data file holds each tensor's bytes back to back (little-endian, row-major; strings as
varint64 lengths, the masked CRC-32C of the lengths as uint32s, then the bytes). The index is a
table (``framework.table``) from key to ``BundleEntryProto`` (dtype, shape, shard, offset, size,
masked CRC-32C of the bytes); its first entry, under the empty key, is the ``BundleHeaderProto``.

:class:`BundleWriter` writes the data file as the tensors come (one buffered file, each numeric
tensor's bytes written from its own buffer without a copy, the CRC computed in C) and the index
at ``finish()``; both files are written under temporary names and renamed at the end, so a failed
save leaves no half-written checkpoint. :class:`BundleReader` reads the index once and each tensor
straight into a new array (``os.preadv``), checking its size and CRC; errors name the file and key.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import struct
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from modtensor.framework import crc32c, dtypes, errors, table
from modtensor.framework.protos import tensor_bundle_pb2, tensor_shape_pb2, types_pb2

__all__ = ["BundleReader", "BundleWriter", "data_filename", "index_filename"]

HEADER_KEY = b""
VERSION = 1  # kTensorBundleVersion
MIN_PRODUCER = 0
_WRITE_BUFFER = 8 << 20  # TF's FileOutputBuffer size: small tensors are gathered up to this much
_DIRECT = 256 << 10  # tensors at least this large go to the file straight from their own buffer
_CRC_THREADS = max(1, min(4, os.cpu_count() or 1))


def index_filename(prefix: str) -> str:
    """``PREFIX.index``: the bundle's metadata table."""
    return f"{prefix}.index"


def data_filename(prefix: str, shard: int = 0, num_shards: int = 1) -> str:
    """``PREFIX.data-00000-of-00001``: shard ``shard`` of the bundle's data."""
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _as_little_endian_bytes(array: np.ndarray) -> np.ndarray:
    """``array``'s bytes as a flat uint8 view in TF's layout (C order, little-endian); copies only when needed."""
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    array = np.ascontiguousarray(array)
    return array.reshape(-1).view(np.uint8)


def _string_bytes(array: np.ndarray) -> list[bytes]:
    out = []
    for item in array.reshape(-1):
        if isinstance(item, str):
            item = item.encode("utf-8")
        elif not isinstance(item, (bytes, bytearray, memoryview)):
            raise TypeError(f"string tensor element {item!r} is not bytes")
        out.append(bytes(item))
    return out


def _shape_proto(shape: Sequence[int]) -> tensor_shape_pb2.TensorShapeProto:
    proto = tensor_shape_pb2.TensorShapeProto()
    for size in shape:
        proto.dim.add(size=int(size))
    return proto


class BundleWriter:
    """Writes a bundle at ``prefix``: ``add`` each tensor, then ``finish`` (or ``abort`` to leave nothing)."""

    def __init__(self, prefix: str):
        self._prefix = os.fspath(prefix)
        directory = os.path.dirname(self._prefix)
        if directory:
            os.makedirs(directory, exist_ok=True)
        suffix = f".tempstate{secrets.randbits(63)}"
        self._data_path = data_filename(self._prefix) + suffix
        self._index_path = index_filename(self._prefix) + suffix
        self._fd = os.open(self._data_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        self._pending = bytearray()
        self._unchecked: list[tuple[tensor_bundle_pb2.BundleEntryProto, np.ndarray]] = []
        self._size = 0
        self._entries: dict[bytes, tensor_bundle_pb2.BundleEntryProto] = {}

    @property
    def prefix(self) -> str:
        """The bundle's path prefix."""
        return self._prefix

    def add(self, key: str | bytes, value: Any, dtype: dtypes.DType | None = None) -> None:
        """Append tensor ``value`` (a numpy array or anything ``np.asarray`` takes) under ``key``."""
        raw_key = key.encode("utf-8") if isinstance(key, str) else bytes(key)
        if raw_key == HEADER_KEY:
            raise ValueError("a bundle key must not be empty")
        if raw_key in self._entries:
            raise errors.InvalidArgumentError(None, None, f"Adding duplicate key: {raw_key.decode(errors='replace')}")
        array = value if isinstance(value, np.ndarray) else np.asarray(value)
        dtype = dtypes.as_dtype(array.dtype) if dtype is None else dtype
        entry = tensor_bundle_pb2.BundleEntryProto(
            dtype=dtype.as_datatype_enum, shape=_shape_proto(array.shape), shard_id=0, offset=self._size
        )
        if dtype == dtypes.string:
            size, crc = self._write_strings(_string_bytes(array))
        elif array.dtype == np.object_:
            raise errors.UnimplementedError(
                None, None, f"Cannot save tensor '{raw_key.decode(errors='replace')}' of dtype {dtype.name}: only "
                "numeric, bool and string tensors go into a checkpoint bundle"
            )
        else:
            data = _as_little_endian_bytes(array)
            self._write(data)
            self._unchecked.append((entry, data))  # checksummed together in finish(), on several threads
            size = data.size
            crc = None
        entry.size = size
        if crc is not None:
            entry.crc32c = crc32c.mask(crc)
        self._size += size
        self._entries[raw_key] = entry

    def _write_strings(self, items: list[bytes]) -> tuple[int, int]:
        lengths = b"".join(_varint(len(item)) for item in items)
        crc = 0
        for item in items:
            n = len(item)
            crc = crc32c.extend(crc, struct.pack("<I", n) if n <= 0xFFFFFFFF else struct.pack("<Q", n))
        length_checksum = struct.pack("<I", crc32c.mask(crc))
        crc = crc32c.extend(crc, length_checksum)
        body = b"".join(items)
        crc = crc32c.extend(crc, body)
        self._write(lengths)
        self._write(length_checksum)
        self._write(body)
        return len(lengths) + 4 + len(body), crc

    def _write(self, data: Any) -> None:
        """Append to the data file: small pieces gathered in memory, large ones written from their buffer."""
        if len(data) < _DIRECT:
            self._pending += memoryview(data).cast("B")
            if len(self._pending) >= _WRITE_BUFFER:
                self._flush()
            return
        self._flush()
        self._write_all(memoryview(data).cast("B"))

    def _flush(self) -> None:
        if self._pending:
            self._write_all(memoryview(self._pending))
            self._pending = bytearray()

    def _write_all(self, view: memoryview) -> None:
        done = 0
        while done < len(view):
            done += os.write(self._fd, view[done:])

    def _close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)

    def finish(self) -> None:
        """Write the index and move both files to their final names (the previous bundle there is replaced)."""
        try:
            self._flush()
            self._close()
            crcs = crc32c.value_many([data for _, data in self._unchecked], _CRC_THREADS)
            for (entry, _), crc in zip(self._unchecked, crcs, strict=True):
                entry.crc32c = crc32c.mask(crc)
            self._unchecked = []
            header = tensor_bundle_pb2.BundleHeaderProto(num_shards=1)  # endianness LITTLE (0)
            header.version.producer = VERSION
            writer = table.TableWriter()
            writer.add(HEADER_KEY, header.SerializeToString())
            for key in sorted(self._entries):
                writer.add(key, self._entries[key].SerializeToString())
            with open(self._index_path, "wb") as f:
                f.write(writer.finish())
            os.replace(self._data_path, data_filename(self._prefix))
            os.replace(self._index_path, index_filename(self._prefix))
        except BaseException:
            self.abort()
            raise

    def abort(self) -> None:
        """Close and delete the temporary files: nothing of this bundle remains."""
        self._close()
        for path in (self._data_path, self._index_path):
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)


def write_bundle(prefix: str, tensors: Iterable[tuple[str, Any]]) -> None:
    """Write ``(key, array)`` pairs as a bundle at ``prefix`` (in the given order in the data file)."""
    writer = BundleWriter(prefix)
    try:
        for key, value in tensors:
            writer.add(key, value)
    except BaseException:
        writer.abort()
        raise
    writer.finish()


class BundleReader:
    """Reads a bundle at ``prefix``: its keys, their dtypes and shapes, and their values (checked by CRC)."""

    def __init__(self, prefix: str):
        self._prefix = os.fspath(prefix)
        self._index_path = index_filename(self._prefix)
        try:
            with open(self._index_path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise errors.NotFoundError(
                None,
                None,
                f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {self._prefix}",
            ) from None
        except IsADirectoryError:
            raise errors.FailedPreconditionError(
                None, None, f"{self._index_path} is a directory, not a checkpoint index file"
            ) from None
        entries = table.read_table(data, self._index_path)
        if not entries or entries[0][0] != HEADER_KEY:
            raise table._corrupt(self._index_path, "failed to seek to header entry")
        try:
            header = tensor_bundle_pb2.BundleHeaderProto.FromString(entries[0][1])
        except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
            raise table._corrupt(self._index_path, "unable to parse header") from None
        self._check_version(header)
        if header.endianness != tensor_bundle_pb2.BundleHeaderProto.LITTLE:
            raise errors.UnimplementedError(
                None, None, f"Checkpoint {self._prefix} was written on a big-endian machine; modtensor reads "
                "little-endian checkpoints only"
            )
        self._num_shards = header.num_shards
        self._raw: dict[str, bytes] = {key.decode("utf-8", "surrogateescape"): value for key, value in entries[1:]}
        self._entries: dict[str, tensor_bundle_pb2.BundleEntryProto] = {}
        self._files: dict[int, int] = {}

    def _check_version(self, header: tensor_bundle_pb2.BundleHeaderProto) -> None:
        version = header.version
        if version.producer < MIN_PRODUCER:
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint producer version {version.producer} below min producer {MIN_PRODUCER} "
                f"supported by TensorFlow {self._prefix}"
            )
        if version.min_consumer > VERSION or VERSION in version.bad_consumers:
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint {self._prefix} needs a newer reader (min consumer {version.min_consumer}); "
                "upgrade modtensor"
            )

    # ----------------------------------------------------------------- metadata

    @property
    def prefix(self) -> str:
        """The bundle's path prefix."""
        return self._prefix

    def key_list(self) -> list[str]:
        """Every key, sorted."""
        return list(self._raw)

    def __contains__(self, key: str) -> bool:
        return key in self._raw

    def entry(self, key: str) -> tensor_bundle_pb2.BundleEntryProto:
        """The BundleEntryProto of ``key``; NotFoundError when the bundle has no such key."""
        found = self._entries.get(key)
        if found is not None:
            return found
        raw = self._raw.get(key)
        if raw is None:
            raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint")
        try:
            entry = tensor_bundle_pb2.BundleEntryProto.FromString(raw)
        except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
            raise errors.DataLossError(None, None, f"Entry for key {key} not parseable.") from None
        if any(d.size < 0 for d in entry.shape.dim) or entry.shape.unknown_rank:
            raise errors.DataLossError(None, None, f"Invalid tensor shape: {key} {entry.shape}")
        self._entries[key] = entry
        return entry

    def dtype(self, key: str) -> dtypes.DType:
        """The stored dtype of ``key``."""
        return dtypes.as_dtype(self.entry(key).dtype)

    def shape(self, key: str) -> list[int]:
        """The stored shape of ``key``."""
        return [d.size for d in self.entry(key).shape.dim]

    # ----------------------------------------------------------------- values

    def _fd(self, shard: int) -> int:
        fd = self._files.get(shard)
        if fd is None:
            path = data_filename(self._prefix, shard, self._num_shards)
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                raise errors.NotFoundError(
                    None, None, f"{path} not found: the checkpoint {self._prefix} is missing its data file"
                ) from None
            self._files[shard] = fd
        return fd

    def _read_into(self, entry: tensor_bundle_pb2.BundleEntryProto, key: str, buffer: Any) -> None:
        fd = self._fd(entry.shard_id)
        view = memoryview(buffer).cast("B")
        done = 0
        total = len(view)
        while done < total:
            got = os.preadv(fd, [view[done:]], entry.offset + done)
            if got <= 0:
                path = data_filename(self._prefix, entry.shard_id, self._num_shards)
                raise errors.DataLossError(
                    None, None, f"Checkpoint data file {path} is truncated: key {key} needs bytes "
                    f"[{entry.offset}, {entry.offset + total}) and the file ends at {entry.offset + done}"
                )
            done += got

    def _checksum_error(self, entry: tensor_bundle_pb2.BundleEntryProto, key: str, actual: int) -> errors.OpError:
        return errors.DataLossError(
            None,
            None,
            f"TensorBundle at {self._prefix} shard {entry.shard_id} ({entry.size} bytes): Checksum does not match: "
            f"stored {crc32c.unmask(entry.crc32c):08d} vs. calculated on the restored bytes {actual} "
            f"(key {key}, file {data_filename(self._prefix, entry.shard_id, self._num_shards)})",
        )

    def lookup(self, key: str) -> np.ndarray:
        """The value of ``key`` as a new numpy array (strings as an object array of bytes)."""
        return self.lookup_many([key])[key]

    def lookup_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The values of ``keys``, read in file order, then their CRCs checked together (in C, on several threads).
        Any error (missing key, size, CRC) is raised before anything is returned."""
        entries = {key: self.entry(key) for key in keys}
        order = sorted(entries, key=lambda k: (entries[k].shard_id, entries[k].offset))
        out: dict[str, np.ndarray] = {}
        checks: list[tuple[str, Any]] = []
        for key in order:
            value, flat = self._read_value(entries[key], key)
            out[key] = value
            if flat is not None:
                checks.append((key, flat))
        crcs = crc32c.value_many([flat for _, flat in checks], _CRC_THREADS)
        for (key, _), actual in zip(checks, crcs, strict=True):
            if crc32c.unmask(entries[key].crc32c) != actual:
                raise self._checksum_error(entries[key], key, actual)
        return {key: out[key] for key in keys}

    def _read_value(self, entry: tensor_bundle_pb2.BundleEntryProto, key: str) -> tuple[np.ndarray, Any]:
        """The value of one entry and its bytes to checksum (None when already checked: strings)."""
        if entry.slices:
            raise errors.UnimplementedError(
                None, None, f"Checkpoint {self._prefix}: key {key} is saved in slices (a partitioned variable); "
                "modtensor reads whole tensors only"
            )
        shape = tuple(d.size for d in entry.shape.dim)
        if entry.dtype == types_pb2.DT_STRING:
            return self._read_strings(entry, key, shape), None
        try:
            dtype = dtypes.as_dtype(entry.dtype)
            np_dtype = np.dtype(dtype.as_numpy_dtype)
        except (TypeError, ValueError, KeyError):
            raise errors.UnimplementedError(
                None, None, f"Checkpoint {self._prefix}: key {key} has dtype {entry.dtype}, which modtensor cannot read"
            ) from None
        if np_dtype == np.object_:
            raise errors.UnimplementedError(
                None, None, f"Checkpoint {self._prefix}: key {key} is a {dtype.name} tensor, which modtensor cannot "
                "read",
            )
        count = int(np.prod(shape, dtype=np.int64))
        expected = count * np_dtype.itemsize
        if entry.size != expected:
            raise errors.DataLossError(
                None, None, f"Invalid size in bundle entry: key {key}; stored size {entry.size}; expected size "
                f"{expected}"
            )
        out = np.empty(shape, np_dtype)
        flat = out.reshape(-1).view(np.uint8)
        if expected:
            self._read_into(entry, key, flat)
        return out, flat

    def _read_strings(self, entry: tensor_bundle_pb2.BundleEntryProto, key: str, shape: tuple[int, ...]) -> np.ndarray:
        count = int(np.prod(shape, dtype=np.int64))
        out = np.empty(count, dtype=object)
        if entry.size == 0:
            out[:] = b""
            return out.reshape(shape)
        data = bytearray(entry.size)
        self._read_into(entry, key, data)
        pos = 0
        lengths = []
        crc = 0
        try:
            for _ in range(count):
                value = 0
                shift = 0
                while True:
                    byte = data[pos]
                    pos += 1
                    value |= (byte & 0x7F) << shift
                    if byte < 0x80:
                        break
                    shift += 7
                lengths.append(value)
                crc = crc32c.extend(crc, struct.pack("<I", value) if value <= 0xFFFFFFFF else struct.pack("<Q", value))
            (stored_lengths,) = struct.unpack_from("<I", data, pos)
        except (IndexError, struct.error):
            raise errors.DataLossError(
                None, None, f"String lengths longer than expected offset {entry.offset + entry.size} (key {key})"
            ) from None
        if crc32c.unmask(stored_lengths) != crc:
            raise errors.DataLossError(
                None, None, f"The length checksum does not match: expected {crc32c.unmask(stored_lengths):08d} but "
                f"actual is {crc:08d} (key {key} in {self._prefix})"
            )
        crc = crc32c.extend(crc, data[pos : pos + 4])
        pos += 4
        body = memoryview(data)[pos:]
        if sum(lengths) != len(body):
            raise errors.DataLossError(None, None, f"Invalid size in bundle entry: key {key}; stored size {entry.size}")
        crc = crc32c.extend(crc, body)
        if crc32c.unmask(entry.crc32c) != crc:
            raise self._checksum_error(entry, key, crc)
        start = 0
        for i, n in enumerate(lengths):
            out[i] = bytes(body[start : start + n])
            start += n
        return out.reshape(shape)

    def close(self) -> None:
        """Close the data files (the reader can still be used: they reopen on demand)."""
        files, self._files = self._files, {}
        for fd in files.values():
            os.close(fd)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # interpreter shutdown
            self.close()

    def __enter__(self) -> BundleReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
