"""``Dataset.from_generator`` as TensorFlow builds it: ``from_tensors(0).flat_map`` of a ``GeneratorDataset``
whose init/next/finalize functions call the Python generator through ``tf.numpy_function`` (``PyFunc``).

Each iteration gets its own generator (an id from ``init_func``); ``next_func`` converts what it
yields to the ``output_signature`` (TF's texts for a wrong structure, dtype or shape) and its
StopIteration ends the dataset; ``finalize_func`` drops the generator.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.api import dispatch
from modtensor.api.data import structure
from modtensor.api.data.structured_function import StructuredFunctionWrapper
from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.tensor import TensorSpec

__all__ = ["from_generator"]


class _GeneratorState:
    """The generators of the live iterations, by id (TF's ``_GeneratorState``)."""

    def __init__(self, generator: Callable[..., Any]):
        self._generator = generator
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._iterators: dict[int, Any] = {}

    def get_next_id(self, *args: Any) -> np.ndarray:
        with self._lock:
            iterator_id = next(self._ids)
        self._iterators[iterator_id] = iter(self._generator(*args))
        return np.array(iterator_id, dtype=np.int64)

    def get_iterator(self, iterator_id: Any) -> Any:
        return self._iterators[int(iterator_id)]

    def iterator_completed(self, iterator_id: Any) -> None:
        self._iterators.pop(int(iterator_id), None)


def _convert(value: Any, dtype: dtypes.DType) -> np.ndarray:
    if dtype == dtypes.string:
        array = np.asarray(value, dtype=object)
        return array
    return np.asarray(value, dtype=dtype.as_numpy_dtype)


def from_generator(
    generator: Callable[..., Any],
    output_types: Any,
    output_shapes: Any,
    args: Any,
    output_signature: Any,
    name: str | None,
) -> Any:
    """See ``Dataset.from_generator``."""
    from modtensor.api.data.dataset_ops import DatasetV2, _GeneratorDatasetBase, _metadata
    from modtensor.api.script_ops import numpy_function

    if not callable(generator):
        raise TypeError("`generator` must be a Python callable.")
    if output_signature is not None:
        if output_types is not None:
            raise TypeError(
                "The `output_types` argument can not be used together with the `output_signature` argument."
            )
        if output_shapes is not None:
            raise TypeError(
                "The `output_shapes` argument can not be used together with the `output_signature` argument."
            )
        for spec in structure.flatten(output_signature):
            if not isinstance(spec, TensorSpec):
                raise TypeError(
                    f"`output_signature` must contain objects that are subclass of `tf.TypeSpec` but found "
                    f"{type(spec)} which is not."
                )
    else:
        if output_types is None:
            raise TypeError(
                "To specify the output signature you need to provide either the `output_signature` argument or the "
                "`output_types` argument."
            )
        if output_shapes is None:
            output_shapes = structure.map_structure(lambda _: tensor_shape.TensorShape(None), output_types)
        flat_types = structure.flatten(output_types)
        flat_shapes = [tensor_shape.as_shape(s) for s in _flatten_shapes(output_shapes, len(flat_types))]
        output_signature = structure.pack(
            output_types, [TensorSpec(s, t) for s, t in zip(flat_shapes, flat_types, strict=True)]
        )
    flat_specs = structure.flatten(output_signature)
    types = [s.dtype for s in flat_specs]
    state = _GeneratorState(generator)
    gen_args = () if args is None else tuple(args)

    def init_func(_dummy: Any) -> Any:
        return numpy_function(state.get_next_id, list(gen_args), dtypes.int64)

    def generator_py_func(iterator_id: Any) -> list[np.ndarray]:
        values = next(state.get_iterator(iterator_id))
        try:
            flat = structure.flatten(values) if isinstance(output_signature, (tuple, dict)) else [values]
            if len(flat) != len(flat_specs):
                raise ValueError("structure")
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"`generator` yielded an element that did not match the expected structure. The expected structure "
                f"was {structure.map_structure(lambda s: s.dtype, output_signature)}, but the yielded element was "
                f"{values}."
            ) from e
        out = []
        for value, spec in zip(flat, flat_specs, strict=True):
            try:
                array = _convert(value, spec.dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(
                    f"`generator` yielded an element that could not be converted to the expected type. The expected "
                    f"type was {spec.dtype.name}, but the yielded element was {value}."
                ) from e
            if not spec.shape.is_compatible_with(tensor_shape.TensorShape(array.shape)):
                raise TypeError(
                    f"`generator` yielded an element of shape {array.shape} where an element of shape {spec.shape} "
                    "was expected."
                )
            out.append(array)
        return out

    def next_func(iterator_id: Any) -> Any:
        values = numpy_function(generator_py_func, [iterator_id], types)
        values = values if isinstance(values, list) else [values]
        for value, spec in zip(values, flat_specs, strict=True):
            value.set_shape(spec.shape)
        return structure.pack(output_signature, values) if isinstance(output_signature, (tuple, dict)) else values[0]

    def finalize_func(iterator_id: Any) -> Any:
        def finalize(i: Any) -> np.ndarray:
            state.iterator_completed(i)
            return np.array(0, dtype=np.int64)

        return numpy_function(finalize, [iterator_id], dtypes.int64)

    def flat_map_fn(dummy: Any) -> Any:
        init = StructuredFunctionWrapper(init_func, "Dataset.from_generator()", TensorSpec([], dtypes.int32))
        step = StructuredFunctionWrapper(next_func, "Dataset.from_generator()", init.output_structure)
        final = StructuredFunctionWrapper(finalize_func, "Dataset.from_generator()", init.output_structure)
        variant = dispatch.apply_op(
            "GeneratorDataset",
            init_func_other_args=[dummy, *init.captured_inputs],
            next_func_other_args=step.captured_inputs,
            finalize_func_other_args=final.captured_inputs,
            init_func=init.function_name,
            next_func=step.function_name,
            finalize_func=final.function_name,
            output_types=types,
            output_shapes=[s.shape for s in flat_specs],
            metadata=_metadata(name),
        )
        dataset = _GeneratorDatasetBase(variant, output_signature)
        dataset._functions.extend([init, step, final])
        return dataset

    dataset = DatasetV2.from_tensors(0, name=name).flat_map(flat_map_fn, name=name)
    dataset._generator_state = state
    return dataset


def _flatten_shapes(shapes: Any, count: int) -> list[Any]:
    if count == 1 and not isinstance(shapes, (tuple, dict)):
        return [shapes]
    if isinstance(shapes, tuple) and all(isinstance(s, (int, type(None))) for s in shapes) and count == 1:
        return [shapes]
    return structure.flatten(shapes) if isinstance(shapes, (tuple, dict)) else [shapes]
