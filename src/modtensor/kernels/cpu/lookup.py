"""CPU kernels of the lookup-table ops: hash tables held as resources, with TensorFlow's semantics and error texts.

Three kinds of table, all of TF's resource type ``lookup::LookupInterface`` (so a handle may point at any of them):

- :class:`HashTable` (HashTableV2, AnonymousHashTable): immutable once initialized, from tensors
  (InitializeTableV2, LookupTableImportV2) or a text file (InitializeTableFromTextFileV2). Initializing it again
  with as many entries is accepted, with a different number refused; one key with two values is an error.
- :class:`MutableHashTable` (MutableHashTableV2, AnonymousMutableHashTable): scalar values; insert, remove, import
  (which replaces the contents), export.
- :class:`MutableHashTableOfTensors` (the ``OfTensors`` ops): every value a tensor of the table's ``value_shape``.

A table keeps a Python dict from keys (bytes or int) to values (Python scalars or numpy rows) under its own lock.
Lookups take a scalar default or one default per key ("dynamic" defaults). Exports list the entries in insertion
order; TF's order is its hash map's, which callers must not rely on.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import numpy as np

from modtensor.framework import dtypes, errors, file_system, tensor_shape
from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.strings import string_to_number
from modtensor.runtime import resource_mgr
from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext
from modtensor.runtime.resource_mgr import ANONYMOUS_NAME, ResourceBase

__all__ = ["LOOKUP_KERNELS", "HashTable", "LookupTable", "MutableHashTable", "MutableHashTableOfTensors",
           "register_lookup_kernels"]  # fmt: skip

SOURCE = "modtensor.kernels.cpu"

# The (key, value) dtype pairs of TF 2.21's CPU kernels, in its registration order (which TF's "no kernel" error
# lists): static tables, mutable tables of scalars, mutable tables of tensors.
_STATIC_PAIRS = [("string", v) for v in ("string", "int64", "int32", "float32", "float64", "bool")] + [
    ("int64", v) for v in ("string", "int64", "int32", "float32", "float64")
] + [("int32", v) for v in ("string", "int32", "float32", "float64")]  # fmt: skip
_MUTABLE_TENSOR_PAIRS = [("string", v) for v in ("int64", "int32", "float32", "float64", "bool")] + [
    ("int64", v) for v in ("string", "int64", "int32", "float32", "float64")
] + [("int32", v) for v in ("int32", "float32", "float64")]  # fmt: skip
_MUTABLE_PAIRS = [*_MUTABLE_TENSOR_PAIRS[:5], ("int64", "variant"), *_MUTABLE_TENSOR_PAIRS[5:]]


def _text(value: Any) -> str:
    """A key or value as TF's error messages stream it (C++ ``<<``: strings raw, floats as %g, bools as 1/0)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    if isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value)


class LookupTable(ResourceBase):
    """A table of TF's resource type ``lookup::LookupInterface``: scalar keys, values of ``value_shape``."""

    type_name: ClassVar[str] = "N10tensorflow6lookup15LookupInterfaceE"
    kind: ClassVar[str] = "LookupTable"

    def __init__(self, key_dtype: dtypes.DType, value_dtype: dtypes.DType, value_shape: tuple[int, ...] = ()):
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.value_shape = tuple(int(d) for d in value_shape)
        self.mu = threading.Lock()
        self.entries: dict[Any, Any] = {}

    def debug_string(self) -> str:
        """The kind of table and its dtypes, for the resource manager's listing."""
        return f"{self.kind} {self.key_dtype.name}->{self.value_dtype.name} of {len(self.entries)} entries"

    def memory_used(self) -> int:
        """Bytes the entries take, counted as TF's tables count them (key and value sizes)."""
        itemsize = 8 if self.value_dtype in (dtypes.string, dtypes.variant) else self.value_dtype.size
        per_value = itemsize * int(np.prod(self.value_shape, dtype=np.int64))
        key_size = 8 if self.key_dtype == dtypes.string else self.key_dtype.size
        return len(self.entries) * (key_size + per_value)

    # -------------------------------------------------------------------- what every table does

    def size(self) -> int:
        """The number of entries."""
        with self.mu:
            return len(self.entries)

    def check_keys_and_values(self, keys: np.ndarray, values: np.ndarray) -> None:
        """The values have the keys' shape followed by the value shape (TF's CheckKeyAndValueTensorsForInsert)."""
        expected = tuple(keys.shape) + self.value_shape
        if tuple(values.shape) != expected:
            raise invalid_argument(f"Expected shape {shape_str(expected)} for value, got {shape_str(values.shape)}")

    def find(self, keys: np.ndarray, default: np.ndarray) -> np.ndarray:
        """Each key's value, or the default (one for all keys, or one per key)."""
        full = tuple(keys.shape) + self.value_shape
        if tuple(default.shape) not in (self.value_shape, full):
            raise invalid_argument(
                f"Expected shape {shape_str(self.value_shape)} or {shape_str(full)} for default value, got "
                f"{shape_str(default.shape)}"
            )
        self.check_readable()
        flat_keys = keys.reshape(-1).tolist()
        if not self.value_shape and default.ndim == 0:  # scalar values, one default: one dict lookup per key
            fallback = default[()]
            with self.mu:
                get = self.entries.get
                found = [get(key, fallback) for key in flat_keys]
            out = np.empty(len(found), dtype=default.dtype)
            out[:] = found
            return out.reshape(full)
        row = int(np.prod(self.value_shape, dtype=np.int64))
        out = np.empty((len(flat_keys), row), dtype=default.dtype)
        per_key = tuple(default.shape) == full and full != self.value_shape
        defaults = default.reshape(len(flat_keys) if per_key else 1, row)
        with self.mu:
            entries = self.entries
            for i, key in enumerate(flat_keys):
                found = entries.get(key)
                out[i] = defaults[i if per_key else 0] if found is None else found
        return out.reshape(full)

    def check_readable(self) -> None:
        """Raise when the table cannot be read yet (an uninitialized static table)."""

    def insert(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Add or replace entries."""
        raise errors.UnimplementedError(None, None, f"Insert not supported by {self.kind} implementations")

    def remove(self, keys: np.ndarray) -> None:
        """Drop entries (absent keys are ignored)."""
        raise errors.UnimplementedError(None, None, f"Remove not supported by {self.kind} implementations")

    def import_values(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Replace the contents with these entries."""
        raise NotImplementedError

    def export(self) -> tuple[np.ndarray, np.ndarray]:
        """All keys and all values, in insertion order."""
        with self.mu:
            keys = list(self.entries)
            rows = list(self.entries.values())
        key_array = _array(keys, self.key_dtype, (len(keys),))
        return key_array, _array(rows, self.value_dtype, (len(rows), *self.value_shape))

    def _store(self, keys: np.ndarray, values: np.ndarray) -> Iterator[tuple[Any, Any]]:
        """The (key, value) pairs of these tensors, as the dict holds them."""
        row = int(np.prod(self.value_shape, dtype=np.int64))
        flat_keys = keys.reshape(-1).tolist()
        if self.value_shape:
            rows = values.reshape(len(flat_keys), row)
            return zip(flat_keys, (r.reshape(self.value_shape).copy() for r in rows), strict=True)
        return zip(flat_keys, values.reshape(-1).tolist(), strict=True)


def _array(items: list[Any], dtype: dtypes.DType, shape: tuple[int, ...]) -> np.ndarray:
    """A tensor value of ``dtype`` from dict keys or values (strings as object arrays of bytes)."""
    if dtype in (dtypes.string, dtypes.variant):
        out = np.empty(len(items), dtype=object)
        out[:] = items if items else []
        return out.reshape(shape)
    if not items:
        return np.zeros(shape, dtype=dtype.as_numpy_dtype)
    return np.asarray(items, dtype=dtype.as_numpy_dtype).reshape(shape)


class HashTable(LookupTable):
    """TF's ``lookup::HashTable``: filled once (InitializeTableV2, LookupTableImportV2, a text file), then read-only."""

    kind = "InitializableLookupTable"

    def __init__(self, key_dtype: dtypes.DType, value_dtype: dtypes.DType, value_shape: tuple[int, ...] = ()):
        super().__init__(key_dtype, value_dtype, value_shape)
        self.initialized = False

    def size(self) -> int:
        """The number of entries; 0 before initialization."""
        with self.mu:
            return len(self.entries) if self.initialized else 0

    def check_readable(self) -> None:
        """A lookup needs the table initialized."""
        if not self.initialized:
            raise errors.FailedPreconditionError(None, None, "Table not initialized.")

    def export(self) -> tuple[np.ndarray, np.ndarray]:
        """All entries of the initialized table."""
        if not self.initialized:
            raise errors.AbortedError(None, None, "HashTable is not initialized.")
        return super().export()

    def import_values(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Initialize from these tensors (LookupTableImportV2 on a static table)."""
        self.check_keys_and_values(keys, values)
        self.initialize(self._store(keys, values), len(keys.reshape(-1)))

    def initialize(self, pairs: Iterator[tuple[Any, Any]] | Any, count: int | Callable[[], int]) -> None:
        """Fill the table from ``pairs`` once. Again with ``count`` entries: accepted when the table holds as
        many (TF compares only the sizes), else FailedPrecondition. One key with two values is an error."""
        with self.mu:
            if self.initialized:
                total = count() if callable(count) else count
                if total != len(self.entries):
                    raise errors.FailedPreconditionError(
                        None, None, "Table was already initialized with different data."
                    )
                return
            entries = self.entries
            for key, value in pairs:
                previous = entries.setdefault(key, value)
                if previous is not value and not _same(previous, value):
                    raise errors.FailedPreconditionError(
                        None,
                        None,
                        f"HashTable has different value for same key. Key {_text(key)} has {_text(previous)} and "
                        f"trying to add value {_text(value)}",
                    )
            self.initialized = True


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b)


class MutableHashTable(LookupTable):
    """TF's ``MutableHashTableOfScalars``: scalar values, changed by insert, remove and import."""

    kind = "MutableHashTable"

    def insert(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Add or replace the entries."""
        self.check_keys_and_values(keys, values)
        with self.mu:
            self.entries.update(self._store(keys, values))

    def remove(self, keys: np.ndarray) -> None:
        """Drop the entries of these keys."""
        with self.mu:
            for key in keys.reshape(-1).tolist():
                self.entries.pop(key, None)

    def import_values(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Replace the contents (a checkpoint restore)."""
        self.check_keys_and_values(keys, values)
        with self.mu:
            self.entries = dict(self._store(keys, values))


class MutableHashTableOfTensors(MutableHashTable):
    """TF's ``MutableHashTableOfTensors``: every value a tensor of ``value_shape``."""


# ------------------------------------------------------------------------ kernels


def _table(ctx: OpKernelContext) -> LookupTable:
    handle = resource_mgr.handle_from_input(ctx, 0)
    return resource_mgr.lookup_resource(ctx, handle, LookupTable)


def _type_list(types: list[dtypes.DType]) -> str:
    return ", ".join(t.cpp_name for t in types)


def _match_signature(ctx: OpKernelContext, have_in: list[dtypes.DType], want_in: list[dtypes.DType],
                     have_out: list[dtypes.DType] = (), want_out: list[dtypes.DType] = ()) -> None:  # fmt: skip
    """TF's MatchSignature: the op's argument dtypes equal what the table needs."""
    if list(have_in) != list(want_in) or list(have_out) != list(want_out):
        raise invalid_argument(
            f"Signature mismatch, have: {_type_list(have_in)}->{_type_list(list(have_out))} expected: "
            f"{_type_list(want_in)}->{_type_list(list(want_out))}"
        )


class TableHandleKernel(OpKernel):
    """HashTableV2, MutableHashTable(OfTensors)V2 and the Anonymous ops: a handle to the node's table.

    A named table is found or made in the resource manager under ``container``/``shared_name`` (the node's name
    with ``use_node_name_sharing``; otherwise one private to this kernel); an anonymous one is made on every run
    and owned by its handle.
    """

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._key_dtype = dtypes.as_dtype(ctx.get_attr("key_dtype"))
        self._value_dtype = dtypes.as_dtype(ctx.get_attr("value_dtype"))
        shape = tensor_shape.TensorShape(ctx.get_attr("value_shape")) if "OfTensors" in ctx.type else None
        if shape is not None and not shape.is_fully_defined():
            raise invalid_argument(
                f"Value shape must be fully defined, got {shape}"
            )  # TF's TensorShape() of a partial one
        self._value_shape = tuple(shape.as_list()) if shape is not None else ()
        self._anonymous = ctx.type.startswith("Anonymous")
        self._table_class: type[LookupTable] = (
            HashTable if ctx.type in ("HashTableV2", "AnonymousHashTable")
            else MutableHashTableOfTensors if self._value_shape or "OfTensors" in ctx.type
            else MutableHashTable
        )  # fmt: skip
        if self._anonymous:
            return
        self._manager = resource_mgr.manager_for(ctx.device, resource_mgr.current_session_managers())
        self._container = ctx.get_attr("container").decode("utf-8") or self._manager.default_container
        shared = ctx.get_attr("shared_name").decode("utf-8")
        if shared:
            self._name, self._private = shared, False
        elif ctx.get_attr("use_node_name_sharing"):
            self._name, self._private = ctx.name, False
        else:  # TF's ContainerInfo: a name of its own, the table dies with the kernel
            self._name, self._private = f"_{next(_private_ids)}_{ctx.name}", True

    def _make(self) -> LookupTable:
        return self._table_class(self._key_dtype, self._value_dtype, self._value_shape)

    def compute(self, ctx: OpKernelContext) -> None:
        """Output the handle (making the table first when it does not exist)."""
        if self._anonymous:
            handle = resource_mgr.make_handle(
                ctx.device, resource_mgr.ANONYMOUS_CONTAINER, ANONYMOUS_NAME, LookupTable,
                debug_name="Resource-", resource=self._make(),
            )  # fmt: skip
            ctx.outputs[0] = resource_mgr.handle_tensor(handle)
            return
        table, _ = self._manager.lookup_or_create(self._container, self._name, LookupTable, self._make)
        if table.key_dtype != self._key_dtype or table.value_dtype != self._value_dtype:
            raise invalid_argument(
                f"Conflicting key/value dtypes {self._key_dtype.cpp_name}->{self._value_dtype.cpp_name} with "
                f"{table.key_dtype.cpp_name}-{table.value_dtype.cpp_name} for table {self._name}"
            )
        handle = resource_mgr.make_handle(ctx.device, self._container, self._name, LookupTable, manager=self._manager)
        ctx.outputs[0] = resource_mgr.handle_tensor(handle)

    def __del__(self) -> None:
        if getattr(self, "_private", False):
            with contextlib.suppress(errors.NotFoundError):  # already gone (a session reset)
                self._manager.delete(self._container, self._name, LookupTable)


_private_ids = iter(range(1, 1 << 62))


def _dtype_of(value: np.ndarray) -> dtypes.DType:
    return dtypes.as_dtype(value.dtype) if value.dtype != object else dtypes.string


class FindKernel(OpKernel):
    """LookupTableFindV2: each key's value, or the default."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Look the keys up."""
        table = _table(ctx)
        keys, default = np.asarray(ctx.inputs[1]), np.asarray(ctx.inputs[2])
        have = [dtypes.resource, _dtype_of(keys), _dtype_of(default)]
        _match_signature(ctx, have, [dtypes.resource, table.key_dtype, table.value_dtype], [have[2]],
                         [table.value_dtype])  # fmt: skip
        ctx.outputs[0] = table.find(keys, default)


class InsertKernel(OpKernel):
    """LookupTableInsertV2: add or replace entries of a mutable table."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Insert."""
        table = _table(ctx)
        keys, values = np.asarray(ctx.inputs[1]), np.asarray(ctx.inputs[2])
        _match_signature(ctx, [dtypes.resource, _dtype_of(keys), _dtype_of(values)],
                         [dtypes.resource, table.key_dtype, table.value_dtype])  # fmt: skip
        table.insert(keys, values)


class RemoveKernel(OpKernel):
    """LookupTableRemoveV2: drop entries of a mutable table."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Remove."""
        table = _table(ctx)
        keys = np.asarray(ctx.inputs[1])
        _match_signature(ctx, [dtypes.resource, _dtype_of(keys)], [dtypes.resource, table.key_dtype])
        table.remove(keys)


class SizeKernel(OpKernel):
    """LookupTableSizeV2: the number of entries (int64 scalar)."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Count."""
        ctx.outputs[0] = np.array(_table(ctx).size(), dtype=np.int64)


class ExportKernel(OpKernel):
    """LookupTableExportV2: every key and every value."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._types = (dtypes.as_dtype(ctx.get_attr("Tkeys")), dtypes.as_dtype(ctx.get_attr("Tvalues")))

    def compute(self, ctx: OpKernelContext) -> None:
        """Export (TF aborts the process on dtypes other than the table's; here they are an error)."""
        table = _table(ctx)
        if self._types != (table.key_dtype, table.value_dtype):
            _match_signature(ctx, [dtypes.resource], [dtypes.resource], list(self._types),
                             [table.key_dtype, table.value_dtype])  # fmt: skip
        ctx.outputs[0], ctx.outputs[1] = table.export()


class ImportKernel(OpKernel):
    """LookupTableImportV2: initialize a static table, or replace a mutable table's contents."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Import."""
        table = _table(ctx)
        keys, values = np.asarray(ctx.inputs[1]), np.asarray(ctx.inputs[2])
        _match_signature(ctx, [dtypes.resource, _dtype_of(keys), _dtype_of(values)],
                         [dtypes.resource, table.key_dtype, table.value_dtype])  # fmt: skip
        table.import_values(keys, values)


def _initializable(ctx: OpKernelContext) -> HashTable:
    handle = resource_mgr.handle_from_input(ctx, 0)
    table = resource_mgr.lookup_resource(ctx, handle, LookupTable)
    if not isinstance(table, HashTable):
        raise invalid_argument(f"Table {handle.container} {handle.name} is not initializable")
    return table


class InitializeKernel(OpKernel):
    """InitializeTableV2: fill a static table from a vector of keys and one of values."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Initialize."""
        table = _initializable(ctx)
        keys, values = np.asarray(ctx.inputs[1]), np.asarray(ctx.inputs[2])
        _match_signature(ctx, [dtypes.resource, _dtype_of(keys), _dtype_of(values)],
                         [dtypes.resource, table.key_dtype, table.value_dtype])  # fmt: skip
        if keys.ndim != 1:
            raise invalid_argument(f"Keys must be a vector, but received shape{shape_str(keys.shape)}")
        if keys.size != values.size:
            raise invalid_argument(f"Keys and values must have the same size {keys.size} vs {values.size}")
        table.check_keys_and_values(keys, values)
        table.initialize(table._store(keys, values), keys.size)


_WHOLE_LINE, _LINE_NUMBER = -2, -1


class InitializeFromTextFileKernel(OpKernel):
    """InitializeTableFromTextFileV2: a static table from the lines of a text file (TF's TextFileLineIterator).

    Each line gives one entry: a key and a value, each the whole line (-2), the line number (-1, plus ``offset``
    for values) or a column split on ``delimiter``. ``vocab_size`` reads only that many lines and requires at
    least that many. An empty line is an error. A table already initialized from the file is left as it is.
    """

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._key_index = int(ctx.get_attr("key_index"))
        self._value_index = int(ctx.get_attr("value_index"))
        self._vocab_size = int(ctx.get_attr("vocab_size"))
        self._offset = int(ctx.get_attr("offset"))
        delimiter = ctx.get_attr("delimiter")
        if len(delimiter) != 1:
            raise invalid_argument("delimiter should be only 1 char")
        self._delimiter = bytes(delimiter)

    def compute(self, ctx: OpKernelContext) -> None:
        """Read the file into the table."""
        table = _initializable(ctx)
        filename = np.asarray(ctx.inputs[1])
        if filename.shape != ():
            raise invalid_argument(f"filename should be a single string, but got {shape_str(filename.shape)}")
        name = filename[()]
        path = name.decode("utf-8", "surrogateescape") if isinstance(name, bytes) else str(name)
        self._check_dtypes(table)
        try:
            with open(file_system.local_path(path), "rb") as f:
                data = f.read()
        except OSError as exc:
            raise file_system.os_error(exc, path) from None
        if not data:
            raise errors.OutOfRangeError(None, None, "Read less bytes than requested")
        lines = _lines(data)
        pairs = self._pairs(path, lines, table)
        try:
            table.initialize(pairs, lambda: len(lines))
        except errors.FailedPreconditionError:
            if not table.initialized:
                raise
            # initialized from this file before: TF keeps the table as it is

    def _check_dtypes(self, table: HashTable) -> None:
        key, value = table.key_dtype, table.value_dtype
        if self._key_index == _LINE_NUMBER and key != dtypes.int64:
            raise invalid_argument(f"Key index for line number requires table key dtype of int64, got {key.cpp_name}")
        if self._key_index == _WHOLE_LINE and not key.is_integer and key != dtypes.string:
            raise invalid_argument(f"Key index for whole line requires string or integer table key, got {key.cpp_name}")
        if self._value_index == _LINE_NUMBER and value != dtypes.int64:
            raise invalid_argument(
                f"Value index for line number requires table value dtype of int64, got {value.cpp_name}"
            )
        if self._value_index == _WHOLE_LINE and not value.is_integer and value != dtypes.string:
            raise invalid_argument(
                f"Value index for whole line requires table value dtype of integer or string, got {value.cpp_name}"
            )

    def _pairs(self, path: str, lines: list[tuple[bytes, int]], table: HashTable) -> Iterator[tuple[Any, Any]]:
        split = max(self._key_index, self._value_index) >= 0
        needed = max(self._key_index, self._value_index) + 1
        for number, (line, position) in enumerate(lines):
            if self._vocab_size != -1 and number >= self._vocab_size:
                return  # the rest of the file is not read
            if not line:
                raise invalid_argument(f"Invalid content in {path}: empty line found at position {position}.")
            tokens = line.split(self._delimiter) if split else []
            if split and len(tokens) < needed:
                raise invalid_argument(
                    f"Invalid number of columns in {path} line {number} ({_text(line)}) : expected at least "
                    f"{needed} got {len(tokens)}"
                )
            key = self._field(line, tokens, self._key_index, table.key_dtype, number, 0)
            value = self._field(line, tokens, self._value_index, table.value_dtype, number, self._offset)
            yield key, value
        if self._vocab_size != -1 and len(lines) != self._vocab_size:
            raise invalid_argument(f"Invalid vocab_size in {path}: expected {self._vocab_size} but got {len(lines)}")

    @staticmethod
    def _field(line: bytes, tokens: list[bytes], index: int, dtype: dtypes.DType, number: int, offset: int) -> Any:
        """The key or value a line gives (TF adds ``offset`` to line numbers and to int32 values only)."""
        if index == _LINE_NUMBER:
            return number + offset
        token = line if index == _WHOLE_LINE else tokens[index]
        if dtype == dtypes.string:
            return token
        names = {dtypes.int32: "int32", dtypes.int64: "int64", dtypes.float32: "float", dtypes.float64: "double"}
        if dtype not in names:
            raise invalid_argument(f"Data type {dtype.cpp_name} not supported.")
        try:
            value = string_to_number(np.array(token, dtype=object), out_type=dtype.as_numpy_dtype)[()].item()
        except errors.InvalidArgumentError:
            raise invalid_argument(f"Field {_text(token)} in line {number} is not a valid {names[dtype]}.") from None
        return value + offset if dtype == dtypes.int32 else value


def _lines(data: bytes) -> list[tuple[bytes, int]]:
    """The file's lines without their line ends (LF, or CR LF), each with the byte position after it."""
    out = []
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        stop = len(data) if end < 0 else end
        line = data[start:stop]
        if line.endswith(b"\r"):
            line = line[:-1]
        start = stop + 1
        out.append((line, min(start, len(data))))
    return out


_TABLE_OPS = {
    "HashTableV2": _STATIC_PAIRS,
    "AnonymousHashTable": _STATIC_PAIRS,
    "MutableHashTableV2": _MUTABLE_PAIRS,
    "AnonymousMutableHashTable": _MUTABLE_PAIRS,
    "MutableHashTableOfTensorsV2": _MUTABLE_TENSOR_PAIRS,
    "AnonymousMutableHashTableOfTensors": _MUTABLE_TENSOR_PAIRS,
}
_TABLE_KERNELS: dict[str, type[OpKernel]] = {
    "LookupTableFindV2": FindKernel,
    "LookupTableInsertV2": InsertKernel,
    "LookupTableRemoveV2": RemoveKernel,
    "LookupTableSizeV2": SizeKernel,
    "LookupTableExportV2": ExportKernel,
    "LookupTableImportV2": ImportKernel,
    "InitializeTableV2": InitializeKernel,
    "InitializeTableFromTextFileV2": InitializeFromTextFileKernel,
}
LOOKUP_KERNELS = (*_TABLE_OPS, *_TABLE_KERNELS)


def register_lookup_kernels(registry: KernelRegistry, source: str = SOURCE) -> list[KernelRegistration]:
    """Register the lookup-table kernels for CPU with TF 2.21's type constraints, in TF's order."""
    regs = []
    for op, pairs in _TABLE_OPS.items():
        for key, value in pairs:
            regs.append(
                registry.register(
                    op,
                    "CPU",
                    TableHandleKernel,
                    constraints={"key_dtype": [key], "value_dtype": [value]},
                    source=source,
                )  # fmt: skip
            )
    for op, kernel in _TABLE_KERNELS.items():
        regs.append(registry.register(op, "CPU", kernel, source=source))
    return regs
