"""``tf.data.Dataset`` with TensorFlow's names and semantics, over the dataset ops (``kernels/cpu/data``).

A Dataset object holds a scalar ``variant`` tensor made by a dataset op (eagerly an eager
tensor holding the runtime's DatasetBase, inside ``tf.function`` a graph tensor) and its
``element_spec``. Transformations make new datasets from it; user functions are traced once
(``structured_function``). Iterating (``for x in ds``, ``iter``) makes an iterator resource
(``AnonymousIteratorV3`` + ``MakeIterator``) and calls ``IteratorGetNext``, eagerly or in graphs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from modtensor.api import dispatch
from modtensor.api.data import structure
from modtensor.api.data.structured_function import StructuredFunctionWrapper
from modtensor.framework import dtypes, errors
from modtensor.framework.tensor import Tensor, TensorSpec

__all__ = ["AUTOTUNE", "INFINITE", "UNKNOWN", "Dataset", "DatasetV2"]

AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2


def _executing_eagerly() -> bool:
    from modtensor.api.context import executing_eagerly

    return executing_eagerly()


def _inside_function() -> bool:
    from modtensor.framework import graph as graph_lib

    stack = graph_lib._default_graph_stack()
    return bool(stack) and getattr(stack[-1], "building_function", False)


def _int64(value: Any, name: str) -> Tensor:
    from modtensor.api.constant_op import convert_to_tensor

    return convert_to_tensor(value, dtype=dtypes.int64, name=name)


def _bool(value: Any, name: str) -> Tensor:
    from modtensor.api.constant_op import convert_to_tensor

    return convert_to_tensor(value, dtype=dtypes.bool, name=name)


def _string(value: Any, name: str) -> Tensor:
    from modtensor.api.constant_op import convert_to_tensor

    return convert_to_tensor(value, dtype=dtypes.string, name=name)


class DatasetV2:
    """A sequence of elements (``tf.data.Dataset``): build it with the static constructors, transform, iterate."""

    def __init__(self, variant_tensor: Tensor, element_spec: Any, inputs: tuple[DatasetV2, ...] = ()):
        self._variant_tensor = variant_tensor
        self._structure = element_spec
        self._input_datasets = inputs
        self._functions: list[StructuredFunctionWrapper] = []

    # ------------------------------------------------------------------ structure

    @property
    def element_spec(self) -> Any:
        """The structure of an element: a (nested) TensorSpec per component."""
        return self._structure

    def _common_args(self) -> dict[str, Any]:
        return {
            "output_types": structure.flat_types(self._structure),
            "output_shapes": structure.flat_shapes(self._structure),
        }

    @staticmethod
    def _args_for(spec: Any) -> dict[str, Any]:
        return {"output_types": structure.flat_types(spec), "output_shapes": structure.flat_shapes(spec)}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} element_spec={self._structure!r}>"

    def __bool__(self) -> bool:
        return True

    def __len__(self) -> int:
        if not _executing_eagerly():
            raise TypeError(
                "`tf.data.Dataset` only supports `len` in eager mode. Use `tf.data.Dataset.cardinality()` instead."
            )
        length = int(self.cardinality().numpy())
        if length == INFINITE:
            raise TypeError("The dataset is infinite.")
        if length == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return length

    # ------------------------------------------------------------------ iteration

    def __iter__(self) -> Any:
        if _executing_eagerly() or _inside_function():
            from modtensor.api.data.iterator_ops import OwnedIterator

            return OwnedIterator(self)
        raise RuntimeError(
            "`tf.data.Dataset` only supports Python-style iteration in eager mode or within tf.function."
        )

    def as_numpy_iterator(self) -> Iterator[Any]:
        """An iterator of the elements as numpy values (bytes for strings), eagerly only."""
        if not _executing_eagerly():
            raise RuntimeError("`tf.data.Dataset.as_numpy_iterator()` is only supported in eager mode.")
        for leaf in structure.flatten(self._structure):
            if not isinstance(leaf, TensorSpec):
                raise TypeError(
                    f"`tf.data.Dataset.as_numpy_iterator()` is not supported for datasets that produce values of "
                    f"type {type(leaf)}"
                )
        return _NumpyIterator(self)

    def cardinality(self) -> Tensor:
        """The number of elements as an int64 scalar tensor (INFINITE -1, UNKNOWN -2)."""
        return dispatch.apply_op("DatasetCardinality", input_dataset=self._variant_tensor)

    def options(self) -> Any:
        """The options of this dataset (its own and its inputs', merged)."""
        from modtensor.api.data.options import Options

        result = Options()
        for dataset in self._input_datasets:
            result = result.merge(dataset.options())
        own = getattr(self, "_options_attr", None)
        if own is not None:
            result = result.merge(own)
        return result

    # ------------------------------------------------------------------ sources

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> DatasetV2:
        """A dataset of one element, ``tensors``."""
        element = structure.normalize_element(tensors)
        spec = structure.spec_from_value(element)
        variant = dispatch.apply_op(
            "TensorDataset",
            components=[_component(c) for c in structure.flatten(element)],
            output_shapes=structure.flat_shapes(spec),
            metadata=_metadata(name),
        )
        return _TensorDataset(variant, spec)

    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> DatasetV2:
        """A dataset of the slices of ``tensors`` along their first dimension."""
        element = structure.normalize_element(tensors)
        batched = structure.spec_from_value(element)
        for leaf in structure.flatten(batched):
            if leaf.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        spec = structure.unbatch_spec(batched)
        variant = dispatch.apply_op(
            "TensorSliceDataset",
            components=[_component(c) for c in structure.flatten(element)],
            output_shapes=structure.flat_shapes(spec),
            metadata=_metadata(name),
        )
        return _TensorSliceDataset(variant, spec)

    @staticmethod
    def list_files(file_pattern: Any, shuffle: bool | None = None, seed: int | None = None,
                   name: str | None = None) -> DatasetV2:  # fmt: skip
        """The names of the files matching ``file_pattern`` (a glob or a list of them), sorted, then shuffled
        (``shuffle`` defaults to True; ``seed`` as ``shuffle``'s). No match is InvalidArgumentError, as in TF."""
        from modtensor.api import array_ops, check_ops, graph_control, io_ops, math_ops, string_ops
        from modtensor.api.op_scope import convert_to_tensor, op_scope

        with op_scope(None, "list_files", []):
            shuffle = True if shuffle is None else shuffle
            file_pattern = convert_to_tensor(file_pattern, dtype=dtypes.string, name="file_pattern")
            matching = io_ops.matching_files(file_pattern)
            condition = math_ops.greater(array_ops.shape(matching)[0], 0, name="match_not_empty")
            message = math_ops.add(
                "No files matched pattern: ", string_ops.reduce_join(file_pattern, separator=", "), name="message"
            )
            assert_not_empty = check_ops.Assert(condition, [message], summarize=1, name="assert_not_empty")
            with graph_control.control_dependencies([assert_not_empty]):
                matching = array_ops.identity(matching)
            dataset = DatasetV2.from_tensor_slices(matching, name=name)
            if shuffle:
                buffer_size = math_ops.maximum(array_ops.shape(matching, out_type=dtypes.int64)[0], 1)
                dataset = dataset.shuffle(buffer_size, seed=seed)
            return dataset

    @staticmethod
    def range(*args: Any, output_type: Any = dtypes.int64, name: str | None = None) -> DatasetV2:
        """``range(stop)``, ``range(start, stop[, step])`` as int64 (or ``output_type``) scalars."""
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            start, stop, step = args[0], args[1], 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError(f"Invalid `args`. The length of `args` should be between 1 and 3 but was {len(args)}.")
        spec = TensorSpec([], dtypes.as_dtype(output_type))
        variant = dispatch.apply_op(
            "RangeDataset",
            start=_int64(start, "start"),
            stop=_int64(stop, "stop"),
            step=_int64(step, "step"),
            output_types=[spec.dtype],
            output_shapes=[spec.shape],
            metadata=_metadata(name),
        )
        return _RangeDataset(variant, spec)

    @staticmethod
    def from_generator(
        generator: Callable[..., Any],
        output_types: Any = None,
        output_shapes: Any = None,
        args: Any = None,
        output_signature: Any = None,
        name: str | None = None,
    ) -> DatasetV2:
        """A dataset of what ``generator()`` yields, converted to ``output_signature`` (see TF's docs)."""
        from modtensor.api.data.from_generator import from_generator

        return from_generator(generator, output_types, output_shapes, args, output_signature, name)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: str | None = None) -> DatasetV2:
        """Elements of several datasets side by side (a nested structure of datasets)."""
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else args
        elif args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        flat = structure.flatten(datasets)
        for ds in flat:
            if not isinstance(ds, DatasetV2):
                if isinstance(ds, list):
                    raise TypeError(
                        "Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` "
                        "objects. Python `list` is not supported and you should use `tuple` instead."
                    )
                raise TypeError(
                    "Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` "
                    f"objects but encountered object of type {type(ds)}."
                )
        spec = structure.pack(datasets, [ds.element_spec for ds in flat])
        variant = dispatch.apply_op(
            "ZipDataset",
            input_datasets=[ds._variant_tensor for ds in flat],
            metadata=_metadata(name),
            **DatasetV2._args_for(spec),
        )
        return _ZipDataset(variant, spec, tuple(flat))

    # ------------------------------------------------------------------ transformations

    def _unary(self, cls: type, op: str, spec: Any = None, name: str | None = None, **inputs: Any) -> DatasetV2:
        spec = self._structure if spec is None else spec
        if not structure.flatten(spec):  # a function returned nothing: TF's op validation error
            from modtensor.framework.op_def_builder import summarize_op_def
            from modtensor.framework.op_registry import global_registry

            raise errors.InvalidArgumentError(
                None,
                None,
                f"Length for attr 'output_types' of 0 must be at least minimum 1\n\t; NodeDef: {{{{node {op}}}}}; "
                f"{summarize_op_def(global_registry().get(op).op_def)}",
            )
        variant = dispatch.apply_op(
            op, input_dataset=self._variant_tensor, metadata=_metadata(name), **inputs, **DatasetV2._args_for(spec)
        )
        return cls(variant, spec, (self,))

    def map(
        self,
        map_func: Callable[..., Any],
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        synchronous: bool | None = None,
        use_unbounded_threadpool: bool = False,
        name: str | None = None,
    ) -> DatasetV2:
        """``map_func`` on each element (``num_parallel_calls`` at once, or AUTOTUNE)."""
        fn = StructuredFunctionWrapper(map_func, "Dataset.map()", self._structure)
        common = {"f": fn.function_name, "other_arguments": fn.captured_inputs, "preserve_cardinality": True}
        if num_parallel_calls is None or synchronous:
            dataset = self._unary(
                _MapDataset, "MapDataset", fn.output_structure, name, use_inter_op_parallelism=True, **common
            )
        else:
            det = "default" if deterministic is None else ("true" if deterministic else "false")
            dataset = self._unary(
                _ParallelMapDataset,
                "ParallelMapDatasetV2",
                fn.output_structure,
                name,
                num_parallel_calls=_int64(num_parallel_calls, "num_parallel_calls"),
                deterministic=det,
                use_unbounded_threadpool=use_unbounded_threadpool,
                **common,
            )
        dataset._functions.append(fn)
        return dataset

    def filter(self, predicate: Callable[..., Any], name: str | None = None) -> DatasetV2:
        """The elements for which ``predicate`` returns True (a scalar bool tensor)."""
        fn = StructuredFunctionWrapper(predicate, "Dataset.filter()", self._structure)
        _check_predicate(fn, "predicate")
        dataset = self._unary(
            _FilterDataset, "FilterDataset", None, name, predicate=fn.function_name, other_arguments=fn.captured_inputs
        )
        dataset._functions.append(fn)
        return dataset

    def flat_map(self, map_func: Callable[..., Any], name: str | None = None) -> DatasetV2:
        """The elements of the datasets ``map_func`` returns, one after the other."""
        fn = StructuredFunctionWrapper(map_func, "Dataset.flat_map()", self._structure, returns_dataset=True)
        dataset = self._unary(
            _FlatMapDataset,
            "FlatMapDataset",
            fn.output_dataset_spec,
            name,
            f=fn.function_name,
            other_arguments=fn.captured_inputs,
        )
        dataset._functions.append(fn)
        return dataset

    def interleave(
        self,
        map_func: Callable[..., Any],
        cycle_length: int | None = None,
        block_length: int | None = None,
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> DatasetV2:
        """Elements of ``map_func``'s datasets, ``cycle_length`` of them read round-robin ``block_length`` at a time."""
        fn = StructuredFunctionWrapper(map_func, "Dataset.interleave()", self._structure, returns_dataset=True)
        cycle = AUTOTUNE if cycle_length is None else cycle_length
        block = 1 if block_length is None else block_length
        common = {
            "f": fn.function_name,
            "other_arguments": fn.captured_inputs,
            "cycle_length": _int64(cycle, "cycle_length"),
            "block_length": _int64(block, "block_length"),
        }
        if num_parallel_calls is None:
            dataset = self._unary(_InterleaveDataset, "InterleaveDataset", fn.output_dataset_spec, name, **common)
        else:
            det = "default" if deterministic is None else ("true" if deterministic else "false")
            dataset = self._unary(
                _ParallelInterleaveDataset,
                "ParallelInterleaveDatasetV4",
                fn.output_dataset_spec,
                name,
                buffer_output_elements=_int64(AUTOTUNE, "buffer_output_elements"),
                prefetch_input_elements=_int64(AUTOTUNE, "prefetch_input_elements"),
                num_parallel_calls=_int64(num_parallel_calls, "num_parallel_calls"),
                deterministic=det,
                **common,
            )
        dataset._functions.append(fn)
        return dataset

    def batch(
        self,
        batch_size: Any,
        drop_remainder: bool = False,
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> DatasetV2:
        """``batch_size`` consecutive elements stacked (the last batch smaller unless ``drop_remainder``)."""
        static = _constant_value(batch_size)
        known = static if drop_remainder is True and static is not None else None
        spec = structure.batch_spec(self._structure, known)
        return self._unary(
            _BatchDataset,
            "BatchDatasetV2",
            spec,
            name,
            batch_size=_int64(batch_size, "batch_size"),
            drop_remainder=_bool(drop_remainder, "drop_remainder"),
            parallel_copy=False,
        )

    def padded_batch(
        self,
        batch_size: Any,
        padded_shapes: Any = None,
        padding_values: Any = None,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> DatasetV2:
        """Batches whose components are padded to ``padded_shapes`` (default: each batch's longest)."""
        from modtensor.api.data.padded_batch import padded_batch

        return padded_batch(self, batch_size, padded_shapes, padding_values, drop_remainder, name)

    def unbatch(self, name: str | None = None) -> DatasetV2:
        """The rows of each element (the inverse of ``batch``)."""
        for leaf in structure.flatten(self._structure):
            if leaf.shape.rank == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
        return self._unary(_UnbatchDataset, "UnbatchDataset", structure.unbatch_spec(self._structure), name)

    def window(
        self, size: Any, shift: Any = None, stride: Any = 1, drop_remainder: bool = False, name: str | None = None
    ) -> DatasetV2:
        """Windows of ``size`` elements, ``shift`` apart (default ``size``), taking every ``stride``-th element.

        Each element is a window: a dataset per component (a structure of datasets for structured
        elements); the last windows are shorter unless ``drop_remainder``.
        """
        spec = structure.map_structure(structure.DatasetSpec, self._structure)
        return self._unary(
            _WindowDataset,
            "WindowDataset",
            spec,
            name,
            size=_int64(size, "size"),
            shift=_int64(size if shift is None else shift, "shift"),
            stride=_int64(stride, "stride"),
            drop_remainder=_bool(drop_remainder, "drop_remainder"),
        )

    def shuffle(
        self, buffer_size: Any, seed: int | None = None, reshuffle_each_iteration: bool = True, name: str | None = None
    ) -> DatasetV2:
        """Elements drawn at random from a buffer of ``buffer_size`` (TF's order for a given seed)."""
        from modtensor.api.random_ops import get_seed

        seed1, seed2 = get_seed(seed)
        seed1 = 0 if seed1 is None else seed1
        seed2 = 0 if seed2 is None else seed2
        if seed1 == 0 and seed2 == 0 and seed is not None:
            seed2 = 2**31 - 1
        generator = dispatch.apply_op("DummySeedGenerator")
        return self._unary(
            _ShuffleDataset,
            "ShuffleDatasetV3",
            None,
            name,
            buffer_size=_int64(buffer_size, "buffer_size"),
            seed=_int64(seed1, "seed"),
            seed2=_int64(seed2, "seed2"),
            seed_generator=generator,
            reshuffle_each_iteration=bool(reshuffle_each_iteration),
        )

    def repeat(self, count: Any = None, name: str | None = None) -> DatasetV2:
        """The elements ``count`` times (None or -1: forever)."""
        count = _int64(-1 if count is None else count, "count")
        return self._unary(_RepeatDataset, "RepeatDataset", None, name, count=count)

    def take(self, count: Any, name: str | None = None) -> DatasetV2:
        """At most ``count`` elements (-1: all)."""
        return self._unary(_TakeDataset, "TakeDataset", None, name, count=_int64(count, "count"))

    def skip(self, count: Any, name: str | None = None) -> DatasetV2:
        """All but the first ``count`` elements (-1: skips everything)."""
        return self._unary(_SkipDataset, "SkipDataset", None, name, count=_int64(count, "count"))

    def prefetch(self, buffer_size: Any, name: str | None = None) -> DatasetV2:
        """The elements read ahead by a background thread (``buffer_size`` elements; AUTOTUNE)."""
        return self._unary(
            _PrefetchDataset, "PrefetchDataset", None, name, buffer_size=_int64(buffer_size, "buffer_size")
        )

    def cache(self, filename: str = "", name: str | None = None) -> DatasetV2:
        """The elements kept after the first full pass: in memory, or in files named ``filename``."""
        return self._unary(
            CacheDataset,
            "CacheDatasetV2",
            None,
            name,
            filename=_string(filename, "filename"),
            cache=dispatch.apply_op("DummyMemoryCache"),
        )

    def concatenate(self, dataset: DatasetV2, name: str | None = None) -> DatasetV2:
        """This dataset's elements, then ``dataset``'s (structures must be compatible)."""
        if not structure.are_compatible(self._structure, dataset._structure) and (
            structure.flat_types(self._structure) != structure.flat_types(dataset._structure)
            or len(structure.flatten(self._structure)) != len(structure.flatten(dataset._structure))
        ):
            raise TypeError(
                f"Incompatible dataset elements:\n  {self._structure!r} vs.   {dataset._structure!r}"
            )
        try:
            spec = structure.most_specific_compatible(self._structure, dataset._structure)
        except (TypeError, ValueError):
            raise TypeError(
                f"Incompatible dataset elements:\n  {self._structure!r} vs.   {dataset._structure!r}"
            ) from None
        variant = dispatch.apply_op(
            "ConcatenateDataset",
            input_dataset=self._variant_tensor,
            another_dataset=dataset._variant_tensor,
            metadata=_metadata(name),
            **DatasetV2._args_for(spec),
        )
        return _ConcatenateDataset(variant, spec, (self, dataset))

    def enumerate(self, start: Any = 0, name: str | None = None) -> DatasetV2:
        """``(index, element)`` pairs, the index counting from ``start`` (int64)."""
        max_value = np.iinfo(np.int64).max
        return DatasetV2.zip((DatasetV2.range(start, max_value, name=name), self), name=name)

    def reduce(self, initial_state: Any, reduce_func: Callable[..., Any], name: str | None = None) -> Any:
        """``reduce_func(state, element)`` folded over the elements from ``initial_state``; the final state."""
        state = structure.normalize_element(initial_state)
        state_spec = structure.spec_from_value(state)
        while True:
            fn = StructuredFunctionWrapper(
                reduce_func, "reduce()", (state_spec, self._structure), unpack_args=True
            )
            out_spec = fn.output_structure
            if not structure._same_structure(state_spec, out_spec) or len(structure.flatten(out_spec)) != len(
                structure.flatten(state_spec)
            ):
                raise TypeError(
                    f"The element classes for the new state must match the initial state. Expected "
                    f"{state_spec!r}; got {out_spec!r}."
                )
            for a, b in zip(structure.flatten(state_spec), structure.flatten(out_spec), strict=True):
                if a.dtype != b.dtype:
                    raise TypeError(
                        f"The element types for the new state must match the initial state. Expected "
                        f"{structure.map_structure(lambda s: s.dtype, state_spec)}; got "
                        f"{structure.map_structure(lambda s: s.dtype, out_spec)}."
                    )
            relaxed = structure.most_specific_compatible(state_spec, out_spec)
            if structure.flat_shapes(relaxed) == structure.flat_shapes(state_spec):
                break
            state_spec = relaxed
        results = dispatch.apply_op(
            "ReduceDataset",
            input_dataset=self._variant_tensor,
            initial_state=[_component(c) for c in structure.flatten(state)],
            other_arguments=fn.captured_inputs,
            f=fn.function_name,
            output_types=structure.flat_types(state_spec),
            output_shapes=structure.flat_shapes(state_spec),
            metadata=_metadata(name),
        )
        if not isinstance(results, list):
            results = [results]
        self._functions.append(fn)
        return structure.pack(state_spec, results)

    def scan(self, initial_state: Any, scan_func: Callable[..., Any], name: str | None = None) -> DatasetV2:
        """``(state, element) -> (new_state, output)`` over the elements: a dataset of the outputs."""
        state = structure.normalize_element(initial_state)
        state_spec = structure.spec_from_value(state)
        fn = StructuredFunctionWrapper(scan_func, "Dataset.scan()", (state_spec, self._structure))
        out = fn.output_structure
        if not isinstance(out, tuple) or len(out) != 2:
            raise TypeError(
                "Invalid `scan_func`. `scan_func` should return a pair consisting of new state and the output "
                f"value but its return type is {out!r}."
            )
        dataset = self._unary(
            _ScanDataset,
            "ScanDataset",
            out[1],
            name,
            initial_state=[_component(c) for c in structure.flatten(state)],
            other_arguments=fn.captured_inputs,
            f=fn.function_name,
            preserve_cardinality=True,
            use_default_device=True,
        )
        dataset._functions.append(fn)
        return dataset

    def take_while(self, predicate: Callable[..., Any], name: str | None = None) -> DatasetV2:
        """The elements up to the first one for which ``predicate`` is False."""
        fn = StructuredFunctionWrapper(predicate, "Dataset.take_while()", self._structure)
        _check_predicate(fn, "predicate")
        dataset = self._unary(
            _TakeWhileDataset,
            "TakeWhileDataset",
            None,
            name,
            predicate=fn.function_name,
            other_arguments=fn.captured_inputs,
        )
        dataset._functions.append(fn)
        return dataset

    def apply(self, transformation_func: Callable[[DatasetV2], DatasetV2]) -> DatasetV2:
        """``transformation_func(self)``, which must return a Dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, DatasetV2):
            raise TypeError(
                f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(dataset)}."
            )
        return dataset

    def with_options(self, options: Any, name: str | None = None) -> DatasetV2:
        """This dataset with ``options`` (``tf.data.Options``) attached."""
        from modtensor.api.data.options import Options

        if not isinstance(options, Options):
            raise TypeError(f"`options` must be a `tf.data.Options` object. Got {type(options)}.")
        dataset = self._unary(
            _OptionsDataset, "OptionsDataset", None, name, serialized_options=options._to_proto().SerializeToString()
        )
        dataset._options_attr = options
        return dataset


Dataset = DatasetV2


def _metadata(name: str | None) -> bytes:
    if name is None:
        return b""
    from modtensor.framework.protos import dataset_metadata_pb2

    return dataset_metadata_pb2.Metadata(name=name).SerializeToString()


def _component(value: Any) -> Any:
    return value._variant_tensor if isinstance(value, DatasetV2) else value


def _constant_value(value: Any) -> int | None:
    if isinstance(value, (int, np.integer)):
        return int(value)
    numpy = getattr(value, "numpy", None)
    if callable(numpy) and _executing_eagerly():
        return int(numpy())
    return None


def _check_predicate(fn: StructuredFunctionWrapper, what: str) -> None:
    spec = fn.output_structure
    if not isinstance(spec, TensorSpec) or spec.dtype != dtypes.bool or spec.shape.rank not in (0, None):
        raise ValueError(
            f"Invalid `{what}`. `{what}` must return a `tf.bool` scalar tensor, but its return type is {spec!r}."
        )


class _NumpyIterator:
    """``as_numpy_iterator``: each element converted with ``.numpy()`` (structure kept)."""

    def __init__(self, dataset: DatasetV2):
        self._iterator = iter(dataset)

    def __iter__(self) -> _NumpyIterator:
        return self

    def __next__(self) -> Any:
        element = next(self._iterator)
        return structure.map_structure(lambda t: t.numpy(), element)

    next = __next__


# The classes TF names its datasets with (repr shows them: `<_MapDataset element_spec=...>`).
class _TensorDataset(DatasetV2):
    pass


class _TensorSliceDataset(DatasetV2):
    pass


class _RangeDataset(DatasetV2):
    pass


class _ZipDataset(DatasetV2):
    pass


class _MapDataset(DatasetV2):
    pass


class _ParallelMapDataset(DatasetV2):
    pass


class _FilterDataset(DatasetV2):
    pass


class _FlatMapDataset(DatasetV2):
    pass


class _InterleaveDataset(DatasetV2):
    pass


class _ParallelInterleaveDataset(DatasetV2):
    pass


class _BatchDataset(DatasetV2):
    pass


class _PaddedBatchDataset(DatasetV2):
    pass


class _UnbatchDataset(DatasetV2):
    pass


class _WindowDataset(DatasetV2):
    pass


class _VariantDataset(DatasetV2):
    """A dataset held by a variant tensor of an element (a window, a dataset-valued component)."""


class _ShuffleDataset(DatasetV2):
    pass


class _RepeatDataset(DatasetV2):
    pass


class _TakeDataset(DatasetV2):
    pass


class _SkipDataset(DatasetV2):
    pass


class _PrefetchDataset(DatasetV2):
    pass


class CacheDataset(DatasetV2):
    pass


class _ConcatenateDataset(DatasetV2):
    pass


class _ScanDataset(DatasetV2):
    pass


class _TakeWhileDataset(DatasetV2):
    pass


class _GeneratorDatasetBase(DatasetV2):
    pass


class _OptionsDataset(DatasetV2):
    pass

