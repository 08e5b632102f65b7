"""Element structures of datasets (TF's ``tf.data`` ``structure`` and ``nest``): specs, flattening, conversion.

tf.data's nesting differs from ``tf.function``'s: tuples, namedtuples and dicts are
structure, but a *list* is a value (converted to one tensor), as in TensorFlow. An
element structure ("element_spec") has a ``TensorSpec`` (or a ``DatasetSpec`` for a nested
dataset) at each leaf; flat, it gives the ``output_types``/``output_shapes`` attrs of the
dataset ops.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.func_graph import is_namedtuple
from modtensor.framework.tensor import Tensor, TensorSpec

__all__ = [
    "DatasetSpec",
    "are_compatible",
    "batch_spec",
    "flatten",
    "flat_shapes",
    "flat_types",
    "map_structure",
    "normalize_element",
    "pack",
    "spec_from_value",
    "unbatch_spec",
]


class DatasetSpec:
    """The spec of a dataset-valued element (``tf.data.DatasetSpec``): its element_spec and its own shape."""

    def __init__(self, element_spec: Any, dataset_shape: Any = ()):
        self._element_spec = element_spec
        self._dataset_shape = tensor_shape.as_shape(dataset_shape)

    @property
    def element_spec(self) -> Any:
        """The element structure of the nested dataset."""
        return self._element_spec

    @property
    def shape(self) -> tensor_shape.TensorShape:
        return self._dataset_shape

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.variant

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DatasetSpec) and (self._element_spec, self._dataset_shape) == (
            other._element_spec,
            other._dataset_shape,
        )

    def __hash__(self) -> int:
        return hash(self._dataset_shape)

    def __repr__(self) -> str:
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"


def _is_structure(value: Any) -> bool:
    return isinstance(value, (tuple, Mapping))


def _sorted_keys(mapping: Mapping[Any, Any]) -> list[Any]:
    try:
        return sorted(mapping)
    except TypeError:
        return list(mapping)


def flatten(structure: Any) -> list[Any]:
    """The leaves of a tf.data structure (tuples, namedtuples, dicts in sorted key order; lists are leaves)."""
    if isinstance(structure, tuple):
        return [leaf for item in structure for leaf in flatten(item)]
    if isinstance(structure, Mapping):
        return [leaf for key in _sorted_keys(structure) for leaf in flatten(structure[key])]
    return [structure]


def pack(structure: Any, flat: Sequence[Any]) -> Any:
    """``structure`` rebuilt with ``flat`` as its leaves, in order (a variant tensor at a DatasetSpec: a Dataset)."""
    it = iter(flat)
    result = _pack(structure, it)
    return result


def _pack(structure: Any, it: Any) -> Any:
    if is_namedtuple(structure):
        return type(structure)(*(_pack(item, it) for item in structure))
    if isinstance(structure, tuple):
        return tuple(_pack(item, it) for item in structure)
    if isinstance(structure, Mapping):
        values = {key: _pack(structure[key], it) for key in _sorted_keys(structure)}
        try:
            return type(structure)((key, values[key]) for key in structure)
        except TypeError:
            return {key: values[key] for key in structure}
    value = next(it)
    if isinstance(structure, DatasetSpec) and isinstance(value, Tensor) and value.dtype == dtypes.variant:
        return _variant_dataset(value, structure)
    return value


def _variant_dataset(variant: Tensor, spec: DatasetSpec) -> Any:
    """A dataset-valued element (a scalar variant tensor, e.g. a window) as a Dataset (TF's _VariantDataset)."""
    from modtensor.api.data.dataset_ops import _VariantDataset

    return _VariantDataset(variant, spec.element_spec)


def map_structure(fn: Callable[[Any], Any], structure: Any) -> Any:
    """``fn`` applied to every leaf, structure kept."""
    return pack(structure, [fn(leaf) for leaf in flatten(structure)])


def _spec_of(leaf: Any) -> Any:
    from modtensor.api.data.dataset_ops import DatasetV2

    if isinstance(leaf, DatasetV2):
        return DatasetSpec(leaf.element_spec)
    if isinstance(leaf, (TensorSpec, DatasetSpec)):
        return leaf
    if isinstance(leaf, Tensor):
        return TensorSpec(leaf.shape, leaf.dtype.base_dtype)
    raise TypeError(f"Could not build a `TypeSpec` for {leaf!r} with type {type(leaf).__name__}")


def spec_from_value(element: Any) -> Any:
    """The element_spec of a (normalized) element: TensorSpec(shape, dtype) per tensor leaf."""
    return map_structure(_spec_of, element)


def normalize_element(element: Any, spec: Any = None) -> Any:
    """``element`` with every leaf a tensor (or dataset), converted as TF's ``normalize_element`` does."""
    from modtensor.api.constant_op import convert_to_tensor
    from modtensor.api.data.dataset_ops import DatasetV2

    leaves = flatten(element)
    specs = flatten(spec) if spec is not None else [None] * len(leaves)
    out = []
    for i, (leaf, leaf_spec) in enumerate(zip(leaves, specs, strict=True)):
        if isinstance(leaf, DatasetV2) or (isinstance(leaf, Tensor) and leaf_spec is None):
            out.append(leaf)
            continue
        dtype = leaf_spec.dtype if isinstance(leaf_spec, TensorSpec) else None
        try:
            out.append(convert_to_tensor(leaf, dtype=dtype, name=f"component_{i}"))
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"Failed to convert elements of {element!r} to Tensor. Consider casting elements to a supported "
                f"type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes."
            ) from e
    return pack(element, out)


def flat_types(spec: Any) -> list[dtypes.DType]:
    """The ``output_types`` attr of an element spec."""
    return [leaf.dtype for leaf in flatten(spec)]


def flat_shapes(spec: Any) -> list[tensor_shape.TensorShape]:
    """The ``output_shapes`` attr of an element spec."""
    return [leaf.shape for leaf in flatten(spec)]


def batch_spec(spec: Any, batch_size: int | None) -> Any:
    """Each leaf's shape with a leading batch dimension (``None`` when unknown)."""

    def batch(leaf: Any) -> Any:
        shape = tensor_shape.TensorShape([batch_size]).concatenate(leaf.shape)
        if isinstance(leaf, DatasetSpec):
            return DatasetSpec(leaf.element_spec, shape)
        return TensorSpec(shape, leaf.dtype)

    return map_structure(batch, spec)


def unbatch_spec(spec: Any) -> Any:
    """Each leaf's shape without its leading dimension (ValueError for a scalar leaf, TF's text)."""

    def unbatch(leaf: Any) -> Any:
        if leaf.shape.rank == 0:
            raise ValueError("Unbatching a dataset is only supported for rank >= 1")
        shape = tensor_shape.TensorShape(None) if leaf.shape.rank is None else leaf.shape[1:]
        return TensorSpec(shape, leaf.dtype)

    return map_structure(unbatch, spec)


def _same_structure(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) != isinstance(b, tuple) or isinstance(a, Mapping) != isinstance(b, Mapping):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same_structure(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping):
        return sorted(a) == sorted(b) and all(_same_structure(a[k], b[k]) for k in a)
    return True


def are_compatible(a: Any, b: Any) -> bool:
    """Same structure and, leaf by leaf, same dtypes and compatible shapes."""
    if not _same_structure(a, b):
        return False
    for x, y in zip(flatten(a), flatten(b), strict=True):
        if type(x) is not type(y) or x.dtype != y.dtype:
            return False
        if not x.shape.is_compatible_with(y.shape):
            return False
    return True


def most_specific_compatible(a: Any, b: Any) -> Any:
    """The spec both ``a`` and ``b`` fit (shapes relaxed where they differ)."""

    def relax(x: Any, y: Any) -> Any:
        return TensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype)

    return pack(a, [relax(x, y) for x, y in zip(flatten(a), flatten(b), strict=True)])
