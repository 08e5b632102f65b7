"""``tf.lookup``: hash tables from tensors or vocabulary files, vocabulary tables with out-of-vocabulary buckets, and
mutable hash tables, built on the hash-table ops (``ops/lookup_ops.py``) as TensorFlow 2.21 builds them.

A table owns a resource handle made once, outside any function being traced (``init_scope``), so a ``tf.function``
or a dataset map captures the handle like a variable's. Eagerly a static table is initialized on construction;
in a v1 graph its initializer joins the ``table_initializer`` collection that ``tables_initializer()`` groups,
and a lookup before it has run fails with TF's "Table not initialized." Names, shared names and name scopes are
TF's, so graphs equal TF's node for node. An eager table whose resource is named (TF's default) deletes it when
the Python object goes away, as TF's resource deleter does.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

from modtensor.api import context, trackable
from modtensor.api.control_flow_util import uid
from modtensor.api.dispatch import apply_op
from modtensor.api.logging_ops import apply_stateful_op
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.api.variables import init_scope
from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.graph import get_default_graph

__all__ = [
    "KeyValueTensorInitializer",
    "MutableHashTable",
    "StaticHashTable",
    "StaticHashTableV1",
    "StaticVocabularyTable",
    "StaticVocabularyTableV1",
    "TextFileIndex",
    "TextFileInitializer",
    "initialize_all_tables",
    "tables_initializer",
]

TABLE_INITIALIZERS = "table_initializer"  # TF's GraphKeys.TABLE_INITIALIZERS


def tables_initializer(name: str = "init_all_tables") -> Any:
    """An op that runs the initializers of every table of the default graph (a NoOp when there are none)."""
    from modtensor.api import graph_control

    initializers = get_default_graph().get_collection(TABLE_INITIALIZERS)
    if initializers:
        return graph_control.group(*initializers, name=name)
    return graph_control.no_op(name=name)


def initialize_all_tables(name: str = "init_all_tables") -> Any:
    """TF 1's older name of :func:`tables_initializer`."""
    return tables_initializer(name)


def _add_initializer(op: Any) -> None:
    if not context.executing_eagerly():
        get_default_graph().add_to_collection(TABLE_INITIALIZERS, op)


def _colocated(handle: Any) -> contextlib.AbstractContextManager[Any]:
    """Ops made inside sit with the table (TF's ``colocate_with``); eagerly nothing to do."""
    if context.executing_eagerly():
        return contextlib.nullcontext()
    graph = get_default_graph()
    if not hasattr(handle, "op") and hasattr(graph, "capture"):  # an eager table used in a function: its capture
        handle = graph.capture(handle)
    return graph.colocate_with(handle)


def check_table_dtypes(table: LookupInterface, key_dtype: dtypes.DType, value_dtype: dtypes.DType) -> None:
    """TypeError when ``key_dtype``/``value_dtype`` are not the table's."""
    if key_dtype.base_dtype != table.key_dtype:
        raise TypeError(f"Invalid key dtype for table, expected {table.key_dtype} but got {key_dtype}.")
    if value_dtype.base_dtype != table.value_dtype:
        raise TypeError(f"Invalid value dtype for table, expected {table.value_dtype} but got {value_dtype}.")


class LookupInterface(trackable.Trackable):
    """What every table offers: its dtypes, ``size``, ``lookup`` (also as ``table[keys]``) and its handle."""

    def __init__(self, key_dtype: Any, value_dtype: Any):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        self._resource_handle: Any = None
        self._owns_named_resource = False

    @property
    def key_dtype(self) -> dtypes.DType:
        """The dtype of the keys."""
        return self._key_dtype

    @property
    def value_dtype(self) -> dtypes.DType:
        """The dtype of the values."""
        return self._value_dtype

    @property
    def resource_handle(self) -> Any:
        """The table's resource tensor."""
        return self._resource_handle

    @property
    def name(self) -> str | None:
        """The table op's name in a graph (None eagerly, as in TF)."""
        return getattr(self, "_table_name", None)

    def size(self, name: str | None = None) -> Any:
        """The number of entries (an int64 scalar tensor)."""
        raise NotImplementedError

    def lookup(self, keys: Any, name: str | None = None) -> Any:
        """The values of ``keys``."""
        raise NotImplementedError

    def __getitem__(self, keys: Any) -> Any:
        return self.lookup(keys)

    def _make_table(self, op: str, anonymous: bool, name: str, **attrs: Any) -> Any:
        """Run or add the table op (``op``, or its Anonymous form) and remember what TF remembers of it."""
        if anonymous:  # HashTableV2 -> AnonymousHashTable, ...: no container or shared name
            kept = {k: v for k, v in attrs.items() if k in ("key_dtype", "value_dtype", "value_shape")}
            op, attrs = "Anonymous" + op.removesuffix("V2"), kept
        self._table_op = (op, name, attrs)  # what a SavedModel's _create_resource function runs again
        handle = apply_op(op, name=name, **attrs)
        if context.executing_eagerly():
            self._table_name = None
            self._owns_named_resource = not anonymous
        else:
            self._table_name = handle.op.name.split("/")[-1]
        return handle

    # ------------------------------------------------------------------ SavedModels

    _saved_model_resource = True  # tf.saved_model.save writes the table as a resource node (saved_model_save.py)

    def _trackable_children(self, save_type: str = "checkpoint") -> dict[str, Any]:
        """The tracked dependencies; in a SavedModel also the table's functions, as TF saves a resource:
        ``_create_resource`` (the table op again, by its shared name), ``_initialize`` (fill it) and
        ``_destroy_resource``."""
        children = super()._trackable_children(save_type)
        if save_type == "savedmodel":
            children.update(self._resource_functions())
        return children

    def _resource_functions(self) -> dict[str, Any]:
        from modtensor.api.function import function

        cached = self.__dict__.get("_saved_functions")
        if cached is not None:
            return cached
        op, name, attrs = self._table_op

        def _creator() -> Any:
            return apply_op(op, name=name, **attrs)

        def _initializer() -> Any:
            self._initialize()
            return convert_to_tensor(1)

        def _destroyer() -> Any:
            apply_stateful_op("DestroyResourceOp", None, resource=self.resource_handle, ignore_lookup_error=True)
            return convert_to_tensor(1)

        cached = {
            "_create_resource": function(_creator, input_signature=[]),
            "_initialize": function(_initializer, input_signature=[]),
            "_destroy_resource": function(_destroyer, input_signature=[]),
        }
        self._saved_functions = cached
        return cached

    def _initialize(self) -> Any:
        """Fill the table (tables without an initializer have nothing to do)."""
        return None

    def __del__(self) -> None:
        # An eager table whose resource has a name deletes it with the object (TF's CapturableResourceDeleter).
        if not getattr(self, "_owns_named_resource", False) or self._resource_handle is None:
            return
        try:
            if context.executing_eagerly():
                apply_op("DestroyResourceOp", resource=self._resource_handle, ignore_lookup_error=True)
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown or a device gone: nothing left to free
            pass


def _keys_of(keys: Any) -> Any:
    """The dense keys of a dense, sparse or ragged ``keys`` (TF looks up a composite's values)."""
    from modtensor.api.ragged import RaggedTensor
    from modtensor.api.sparse_tensor import SparseTensor

    return keys.values if isinstance(keys, (SparseTensor, RaggedTensor)) else keys


def _like(keys: Any, values: Any) -> Any:
    """``values`` in the form of ``keys`` (a SparseTensor of the same indices, a RaggedTensor of the same rows, or
    the dense tensor)."""
    from modtensor.api.ragged import RaggedTensor
    from modtensor.api.sparse_tensor import SparseTensor

    if isinstance(keys, SparseTensor):
        return SparseTensor(keys.indices, values, keys.dense_shape)
    if isinstance(keys, RaggedTensor):
        return keys.with_values(values)
    return values


class InitializableLookupTableBase(LookupInterface):
    """A table filled once by an initializer: eagerly on construction, in a graph by ``tables_initializer()``."""

    def __init__(self, default_value: Any, initializer: TableInitializerBase):
        super().__init__(initializer.key_dtype, initializer.value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._default_value.shape.merge_with(tensor_shape.TensorShape([]))
        self._initializer = self._track_trackable(initializer, "_initializer")
        with init_scope():
            self._resource_handle = self._create_resource()
        if not context.executing_eagerly() and get_default_graph()._get_control_flow_context() is not None:
            with init_scope():
                self._init_op = self._initialize()
        else:
            self._init_op = self._initialize()

    def _create_resource(self) -> Any:
        raise NotImplementedError

    def _initialize(self) -> Any:
        return self._initializer.initialize(self)

    @property
    def default_value(self) -> Any:
        """The value of a key the table lacks."""
        return self._default_value

    def size(self, name: str | None = None) -> Any:
        """The number of entries (0 before initialization)."""
        with op_scope(name, f"{self.name}_Size", [self.resource_handle]):
            return apply_op("LookupTableSizeV2", table_handle=self.resource_handle)

    def lookup(self, keys: Any, name: str | None = None) -> Any:
        """The values of ``keys`` (a dense or sparse tensor of the key dtype), the default for missing keys."""
        key_tensor = _keys_of(keys)
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}")
        values_in = [self.resource_handle, key_tensor, self._default_value]
        with op_scope(name, f"{self.name}_Lookup", values_in):
            values = apply_op("LookupTableFindV2", table_handle=self.resource_handle, keys=key_tensor,
                              default_value=self._default_value)  # fmt: skip
        values.set_shape(key_tensor.shape)
        return _like(keys, values)


class StaticHashTable(InitializableLookupTableBase):
    """A hash table that is immutable once initialized (``tf.lookup.StaticHashTable``)."""

    def __init__(self, initializer: TableInitializerBase, default_value: Any, name: str | None = None,
                 experimental_is_anonymous: bool = False):  # fmt: skip
        self._is_anonymous = experimental_is_anonymous
        if not experimental_is_anonymous:
            shared = initializer._shared_name
            self._shared_name = shared or f"hash_table_{uuid.uuid4()}"
        self._name = name or "hash_table"
        super().__init__(default_value, initializer)
        self._value_shape = self._default_value.shape

    def _create_resource(self) -> Any:
        attrs = {"key_dtype": self._key_dtype, "value_dtype": self._value_dtype}
        if self._is_anonymous:
            return self._make_table("HashTableV2", True, self._name, **attrs)
        return self._make_table("HashTableV2", False, self._name, shared_name=self._shared_name, **attrs)

    def export(self, name: str | None = None) -> tuple[Any, Any]:
        """All keys and all values (in no particular order)."""
        with op_scope(name, f"{self.name}_Export", [self.resource_handle]):
            keys, values = apply_op("LookupTableExportV2", table_handle=self.resource_handle,
                                    Tkeys=self._key_dtype, Tvalues=self._value_dtype)  # fmt: skip
        values.set_shape(keys.shape.concatenate(self._value_shape))
        return keys, values


class StaticHashTableV1(StaticHashTable):
    """TF 1's ``tf.compat.v1.lookup.StaticHashTable``: the same table with its ``initializer`` op."""

    @property
    def initializer(self) -> Any:
        """The op that fills the table (run it, or ``tables_initializer()``, before a lookup)."""
        return self._init_op


class TableInitializerBase(trackable.Trackable):
    """What fills a table: its key and value dtypes and ``initialize(table)``."""

    def __init__(self, key_dtype: Any, value_dtype: Any):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self) -> dtypes.DType:
        """The dtype of the keys it gives."""
        return self._key_dtype

    @property
    def value_dtype(self) -> dtypes.DType:
        """The dtype of the values it gives."""
        return self._value_dtype

    def initialize(self, table: LookupInterface) -> Any:
        """Fill ``table`` (eagerly now; in a graph, return the op that does)."""
        raise NotImplementedError

    @property
    def _shared_name(self) -> str:
        return str(uid()) if context.executing_eagerly() else ""


class KeyValueTensorInitializer(TableInitializerBase):
    """A table's contents from a vector of keys and a vector of values."""

    def __init__(self, keys: Any, values: Any, key_dtype: Any = None, value_dtype: Any = None,
                 name: str | None = None):  # fmt: skip
        in_control_flow = not context.executing_eagerly() and get_default_graph()._get_control_flow_context()
        with init_scope() if in_control_flow else contextlib.nullcontext():
            self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name if name is not None else "key_value_init"
        if context.executing_eagerly():
            self._name += str(uid())
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table: LookupInterface) -> Any:
        """Import the keys and values into ``table`` (LookupTableImportV2)."""
        check_table_dtypes(table, self._keys.dtype, self._values.dtype)
        with op_scope(self._name, self._name, (table.resource_handle, self._keys, self._values)):
            init_op = apply_stateful_op("LookupTableImportV2", None, table_handle=table.resource_handle,
                               keys=self._keys, values=self._values)  # fmt: skip
        _add_initializer(init_op)
        return init_op


class TextFileIndex:
    """Where a text-file table takes a key or value from: the whole line, the line number, or a column >= 0."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TextFileInitializer(TableInitializerBase):
    """A table's contents from the lines of a text file (one entry per line, see ``TextFileIndex``)."""

    def __init__(self, filename: Any, key_dtype: Any, key_index: int, value_dtype: Any, value_index: int,
                 vocab_size: int | None = None, delimiter: str = "\t", name: str | None = None,
                 value_index_offset: int = 0):  # fmt: skip
        from modtensor.framework.tensor import Tensor

        if not isinstance(filename, Tensor) and not filename:
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        self._filename_arg = filename
        key_dtype, value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        if key_index < -2:
            raise ValueError(f"`key_index` should be >= -2, received: {key_index}.")
        if key_index == TextFileIndex.LINE_NUMBER and key_dtype != dtypes.int64:
            raise ValueError(
                f"`key_dtype` must be int64 if `key_index` is {TextFileIndex.LINE_NUMBER}, received: {key_dtype}"
            )
        if key_index == TextFileIndex.WHOLE_LINE and not key_dtype.is_integer and key_dtype != dtypes.string:
            raise ValueError(
                f"`key_dtype` should be either integer or string for `key_index` {TextFileIndex.WHOLE_LINE}, "
                f"received: {key_dtype}"
            )
        if value_index < -2:
            raise ValueError(f"`value_index` should be >= -2, received: {value_index}")
        if value_index == TextFileIndex.LINE_NUMBER and value_dtype != dtypes.int64:
            raise ValueError(
                f"`value_dtype` must be int64 for `value_index` {TextFileIndex.LINE_NUMBER}, received: {value_dtype}"
            )
        if value_index == TextFileIndex.WHOLE_LINE and not value_dtype.is_integer and value_dtype != dtypes.string:
            raise ValueError(
                f"`value_dtype` should be either integer or string for `value_index` {TextFileIndex.WHOLE_LINE}, "
                f"received: {value_dtype}"
            )
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter, self._name = vocab_size, delimiter, name
        self._offset = value_index_offset
        self._filename: Any = None
        if context.executing_eagerly():  # the file is an asset: a SavedModel carries it along (TF's)
            from modtensor.api.saved_model_load import Asset

            self._filename = self._track_trackable(Asset(filename), "_filename")
        super().__init__(key_dtype, value_dtype)

    def initialize(self, table: LookupInterface) -> Any:
        """Read the file into ``table`` (InitializeTableFromTextFileV2)."""
        check_table_dtypes(table, self.key_dtype, self.value_dtype)
        with op_scope(self._name, "text_file_init", (table.resource_handle,)):
            source = self._filename.asset_path if self._filename is not None else self._filename_arg
            filename = convert_to_tensor(source, dtypes.string, name="asset_filepath")
            init_op = apply_stateful_op(
                "InitializeTableFromTextFileV2", None, table_handle=table.resource_handle, filename=filename,
                key_index=self._key_index, value_index=self._value_index,
                vocab_size=-1 if self._vocab_size is None else self._vocab_size, delimiter=self._delimiter,
                offset=self._offset,
            )  # fmt: skip
        _add_initializer(init_op)
        return init_op

    @property
    def _shared_name(self) -> str:
        parts = [str(self._filename_arg)]
        if self._vocab_size:
            parts.append(str(self._vocab_size))
        parts += [str(self._key_index), str(self._value_index)]
        if self._offset:
            parts.append(str(self._offset))
        return "hash_table_" + "_".join(parts)


class StaticVocabularyTable(LookupInterface):
    """Ids of a vocabulary (an initializer's int64 values), and for other keys one of ``num_oov_buckets`` ids
    after them, chosen by the key's fast string hash (``StringToHashBucketFast``)."""

    def __init__(self, initializer: TableInitializerBase | None, num_oov_buckets: int, lookup_key_dtype: Any = None,
                 name: str | None = None, experimental_is_anonymous: bool = False):  # fmt: skip
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if name:
            name = name.rstrip("/")
        if initializer:
            lookup_key_dtype = dtypes.as_dtype(lookup_key_dtype) if lookup_key_dtype is not None else None
            if lookup_key_dtype is None:
                lookup_key_dtype = initializer.key_dtype
            supported = (dtypes.int64, dtypes.string)
            if initializer.key_dtype not in supported:
                raise TypeError(f"Invalid `key_dtype`, expected one of {supported}, but got {initializer.key_dtype}.")
            if initializer.key_dtype.is_integer != lookup_key_dtype.is_integer:
                expected = "integer" if lookup_key_dtype.is_integer else "non-integer"
                raise TypeError(f"Invalid `key_dtype`, expected {expected} but got {initializer.key_dtype}.")
            if initializer.value_dtype != dtypes.int64:
                raise TypeError(f"Invalid `value_dtype`, expected {dtypes.int64} but got {initializer.value_dtype}.")
            self._initializer = self._track_trackable(initializer, "_initializer")
            self._table: StaticHashTableV1 | None = StaticHashTableV1(
                initializer, default_value=-1, experimental_is_anonymous=experimental_is_anonymous
            )
            name = name or self._table.name
        else:
            lookup_key_dtype = dtypes.string
            self._table = None
            name = name or "hash_bucket"
        if not lookup_key_dtype.is_integer and lookup_key_dtype != dtypes.string:
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got {lookup_key_dtype}")
        self._num_oov_buckets = num_oov_buckets
        self._table_name = name.split("/")[-1] if name is not None else None
        super().__init__(lookup_key_dtype, dtypes.int64)
        self._resource_handle = self._table.resource_handle if self._table is not None else None

    @property
    def name(self) -> str | None:
        """The name given, else the inner table's op name (None eagerly)."""
        return self._table_name

    @property
    def _saved_model_resource(self) -> bool:  # type: ignore[override]
        return self._table is not None  # without a vocabulary there is no table, only hashing

    @property
    def _table_op(self) -> Any:
        return self._table._table_op if self._table is not None else None

    def _initialize(self) -> Any:
        return self._table._initialize() if self._table is not None else None

    def size(self, name: str | None = None) -> Any:
        """The vocabulary's size plus the number of buckets."""
        with op_scope(name, f"{self.name}_Size", []):
            known = self._table.size() if self._table is not None else convert_to_tensor(0, dtype=dtypes.int64)
            return known + self._num_oov_buckets

    def lookup(self, keys: Any, name: str | None = None) -> Any:
        """Each key's id: its vocabulary id, else the vocabulary size plus its hash bucket."""
        from modtensor.api import array_ops, math_ops, string_ops

        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}")
        values = _keys_of(keys)
        if self._table is not None and self._table.key_dtype.base_dtype == dtypes.int64:
            values = math_ops.cast(values, dtypes.int64)
        with op_scope(name, f"{self.name}_Lookup", []):
            text = values if values.dtype.base_dtype == dtypes.string else string_ops.as_string(values)
            buckets = string_ops.to_hash_bucket_fast(text, num_buckets=self._num_oov_buckets, name="hash_bucket")
            if self._table is not None:
                ids = self._table.lookup(values)
                buckets = math_ops.add(buckets, self._table.size())
                known = math_ops.not_equal(ids, self._table.default_value)
                ids = array_ops.where(known, ids, buckets)
            else:
                ids = buckets
        return _like(keys, ids)


class StaticVocabularyTableV1(StaticVocabularyTable):
    """TF 1's ``tf.compat.v1.lookup.StaticVocabularyTable``: with its ``initializer`` op."""

    @property
    def initializer(self) -> Any:
        """The op that fills the vocabulary (a NoOp without one)."""
        if self._table is not None:
            return self._table._init_op
        from modtensor.api import graph_control

        with op_scope(None, "init", []):
            return graph_control.no_op()


class MutableHashTable(LookupInterface):
    """A table that changes (``tf.lookup.experimental.MutableHashTable``): insert, remove, lookup, export; its
    contents are saved in checkpoints. A default value of rank >= 1 makes a table of tensors of that shape."""

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any, name: str = "MutableHashTable",
                 checkpoint: bool = True, experimental_is_anonymous: bool = False):  # fmt: skip
        self._default_value = convert_to_tensor(default_value, dtype=value_dtype)
        self._value_shape = self._default_value.shape
        self._checkpoint = checkpoint
        self._name = name
        self._is_anonymous = experimental_is_anonymous
        self._shared_name: str | None = None
        if not experimental_is_anonymous and context.executing_eagerly():
            self._shared_name = f"table_{uid()}"
        super().__init__(key_dtype, value_dtype)
        self._resource_handle = self._create_resource()

    def _create_resource(self) -> Any:
        tensors = self._default_value.shape.rank != 0
        op = "MutableHashTableOfTensorsV2" if tensors else "MutableHashTableV2"
        attrs: dict[str, Any] = {"key_dtype": self._key_dtype, "value_dtype": self._value_dtype}
        if tensors:
            attrs["value_shape"] = self._default_value.shape
        if self._is_anonymous:
            return self._make_table(op, True, self._name, **attrs)
        sharing = self._checkpoint and self._shared_name is None
        return self._make_table(op, False, self._name, shared_name=self._shared_name or "",
                                use_node_name_sharing=sharing, **attrs)  # fmt: skip

    def size(self, name: str | None = None) -> Any:
        """The number of entries."""
        with op_scope(name, f"{self.name}_Size", [self.resource_handle]), _colocated(self.resource_handle):
            return apply_op("LookupTableSizeV2", table_handle=self.resource_handle)

    def remove(self, keys: Any, name: str | None = None) -> Any:
        """Drop the entries of ``keys`` (missing keys are ignored); eagerly done, in a graph the op."""
        if keys.dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}")
        values_in = (self.resource_handle, keys, self._default_value)
        with op_scope(name, f"{self.name}_lookup_table_remove", values_in):
            return apply_stateful_op("LookupTableRemoveV2", None, table_handle=self.resource_handle, keys=keys)

    def lookup(self, keys: Any, dynamic_default_values: Any = None, name: str | None = None) -> Any:
        """The values of ``keys``; for missing keys the default, or ``dynamic_default_values`` (one per key)."""
        values_in = (self.resource_handle, keys, self._default_value)
        with op_scope(name, f"{self.name}_lookup_table_find", values_in):
            keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            default = dynamic_default_values if dynamic_default_values is not None else self._default_value
            with _colocated(self.resource_handle):
                return apply_op("LookupTableFindV2", table_handle=self.resource_handle, keys=keys,
                                default_value=default)  # fmt: skip

    def insert(self, keys: Any, values: Any, name: str | None = None) -> Any:
        """Add or replace the entries ``keys`` -> ``values``."""
        values_in = [self.resource_handle, keys, values]
        with op_scope(name, f"{self.name}_lookup_table_insert", values_in):
            keys = convert_to_tensor(keys, self._key_dtype, name="keys")
            values = convert_to_tensor(values, self._value_dtype, name="values")
            with _colocated(self.resource_handle):
                return apply_stateful_op("LookupTableInsertV2", None, table_handle=self.resource_handle, keys=keys,
                                values=values)  # fmt: skip

    def export(self, name: str | None = None) -> tuple[Any, Any]:
        """All keys and all values (in no particular order)."""
        scope = op_scope(name, f"{self.name}_lookup_table_export_values", [self.resource_handle])
        with scope, _colocated(self.resource_handle):
            keys, values = apply_op("LookupTableExportV2", table_handle=self.resource_handle, Tkeys=self._key_dtype,
                                    Tvalues=self._value_dtype)  # fmt: skip
        return keys, values

    # ------------------------------------------------------------------ checkpoints

    _legacy_saveable_name = "table"  # TF's checkpoint keys: <path>/.ATTRIBUTES/table-keys and table-values

    def _saveable_functions(self) -> dict[str, tuple[Any, Any]]:
        """The saveable's save and restore functions a SavedModel holds for the entries (TF's ``save_fn``:
        the tensors with their checkpoint names; ``restore_fn``: import them), by saveable name."""
        from modtensor.api.function import function
        from modtensor.framework.tensor import TensorSpec

        if not self._checkpoint:
            return {}
        cached = self.__dict__.get("_saveables")
        if cached is not None:
            return cached

        def save_fn(checkpoint_key: Any) -> list[dict[str, Any]]:
            keys, values = self.export()
            return [{"tensor": tensor, "slice_spec": convert_to_tensor(""), "name": checkpoint_key + suffix}
                    for tensor, suffix in ((keys, "-keys"), (values, "-values"))]  # fmt: skip

        def restore_fn(restored_tensors_0: Any, restored_tensors_1: Any) -> Any:
            apply_stateful_op("LookupTableImportV2", None, table_handle=self.resource_handle, keys=restored_tensors_0,
                              values=restored_tensors_1)  # fmt: skip
            return convert_to_tensor(1)

        save = function(save_fn, input_signature=[TensorSpec([], dtypes.string, "checkpoint_key")])
        restored = [TensorSpec(None, self._key_dtype, "restored_tensors_0"),
                    TensorSpec(None, self._value_dtype, "restored_tensors_1")]  # fmt: skip
        restore = function(restore_fn, input_signature=restored)
        cached = {"table": (save.get_concrete_function(), restore.get_concrete_function())}
        self._saveables = cached
        return cached

    def _serialize_to_tensors(self) -> dict[str, Any]:
        if not self._checkpoint:
            return {}
        keys, values = self.export()
        return {"table-keys": keys, "table-values": values}

    def _restore_from_tensors(self, tensors: dict[str, Any]) -> None:
        if not self._checkpoint or "table-keys" not in tensors:
            return
        keys = convert_to_tensor(tensors["table-keys"], self._key_dtype)
        values = convert_to_tensor(tensors["table-values"], self._value_dtype)
        apply_stateful_op("LookupTableImportV2", None, table_handle=self.resource_handle, keys=keys, values=values)
