"""Shape inference: TensorFlow's ``InferenceContext`` with shape and dimension handles.

A shape function gets an :class:`InferenceContext` for one node, reads its input
shapes (and constant input values where known), checks and combines them with the
methods below, and sets the output shapes. Handles are immutable and their
*identity* carries meaning, as in TensorFlow: two shapes holding the same unknown
:class:`DimensionHandle` are known to have equal (if unknown) sizes there.

Failures raise :class:`~modtensor.framework.errors.InvalidArgumentError` with
TensorFlow's wording; :func:`run_shape_fn` adds the node summary and the input
shapes, as TensorFlow's graph construction reports them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from modtensor.framework import errors
from modtensor.framework.protos import tensor_shape_pb2

__all__ = [
    "DimensionHandle",
    "InferenceContext",
    "ShapeAndType",
    "ShapeHandle",
    "run_shape_fn",
    "summarize_value",
    "summarize_value_v2",
]

_INT64_MAX = 2**63 - 1
_INT32_MAX = 2**31 - 1
_MAX_DIMENSIONS = 254  # TensorShape::MaxDimensions()
_SUMMARIZE_MAX_VALUES = 256  # how many values of a constant input an error message shows


class DimensionHandle:
    """One dimension: a size (``int``) or unknown (``None``); compare handles with ``is``.

    Each unknown dimension made by :meth:`InferenceContext.unknown_dim` is distinct;
    reusing one handle in several shapes states that those sizes are equal.
    """

    __slots__ = ("_value",)

    def __init__(self, value: int | None = None):
        if value is not None:
            value = operator.index(value)
            if value == -1:
                value = None
            elif value < 0:
                raise errors.InvalidArgumentError(
                    None, None, f"Dimension size must be non-negative or -1 (unknown), but is {value}"
                )
        object.__setattr__(self, "_value", value)

    @property
    def value(self) -> int | None:
        """The size, or None when unknown."""
        return self._value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("DimensionHandle is immutable")

    def __repr__(self) -> str:
        return f"DimensionHandle({'?' if self._value is None else self._value})"

    # Immutable: copies are the handle itself, so copying keeps "same unknown size" facts.
    def __copy__(self) -> DimensionHandle:
        return self

    def __deepcopy__(self, memo: dict) -> DimensionHandle:
        return self


class ShapeHandle:
    """A shape: a tuple of :class:`DimensionHandle`, or ``dims is None`` for an unknown rank."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Iterable[DimensionHandle | int | None] | None = None):
        if dims is not None:
            dims = tuple(d if isinstance(d, DimensionHandle) else DimensionHandle(d) for d in dims)
        object.__setattr__(self, "_dims", dims)

    @property
    def dims(self) -> tuple[DimensionHandle, ...] | None:
        """The dimension handles, or None when the rank is unknown."""
        return self._dims

    @property
    def rank(self) -> int | None:
        """The number of dimensions, or None when unknown."""
        return None if self._dims is None else len(self._dims)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ShapeHandle is immutable")

    def __repr__(self) -> str:
        return f"ShapeHandle({_shape_string(self)})"

    def __copy__(self) -> ShapeHandle:
        return self

    def __deepcopy__(self, memo: dict) -> ShapeHandle:
        return self


DimensionOrConstant = DimensionHandle | int | None


class ShapeAndType:
    """TF's ShapeAndType: one entry of a resource or variant tensor's *handle data*.

    A TensorList handle carries one entry, its element shape and element dtype (a
    DataType enum); shape functions of list ops read it from their list input and set
    it on their list output, so the static shapes of list reads are known.
    """

    __slots__ = ("dtype", "shape")

    def __init__(self, shape: ShapeHandle, dtype: int):
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "dtype", int(dtype))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ShapeAndType is immutable")

    def __repr__(self) -> str:
        return f"ShapeAndType({_shape_string(self.shape)}, {self.dtype})"


def _error(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _dim_string(d: DimensionHandle) -> str:
    return "?" if d.value is None else str(d.value)


def _shape_string(s: ShapeHandle) -> str:
    if s.dims is None:
        return "?"
    return "[" + ",".join(_dim_string(d) for d in s.dims) + "]"


def _proto_string(proto: tensor_shape_pb2.TensorShapeProto) -> str:
    """TF's TensorShape DebugString of a proto: `[2,-1]`, `<unknown>`."""
    text = "<unknown>" if proto.unknown_rank else ""
    if proto.unknown_rank and not proto.dim:
        return text
    return text + "[" + ",".join(str(d.size) for d in proto.dim) + "]"


# TF's DataTypeString names where they differ from numpy's.
_TF_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half", "object": "string"}


def _dtype_string(dtype: np.dtype) -> str:
    name = np.dtype(dtype).name
    if np.dtype(dtype).kind in "SUO":
        return "string"
    return _TF_DTYPE_NAMES.get(name, name)


def _is_int_dtype(t: np.ndarray, names: Sequence[str]) -> bool:
    return t.dtype.name in names


class InferenceContext:
    """What a shape function sees of one node: input shapes and constants, attrs, and its outputs.

    ``input_shapes[i]`` may be a :class:`ShapeHandle`, a ``TensorShape`` (or anything
    with ``.rank`` and ``.as_list()``), a ``TensorShapeProto``, a list of ``int | None``
    or ``None`` (unknown). ``input_tensors[i]`` is the constant value of input ``i``
    (a numpy array) or None; ``input_tensors_as_shapes[i]`` is the partial shape that
    a shape-valued input is known to hold (e.g. the output of a ``Shape`` op), or None.

    Methods that need no node (constructors of handles, queries, checks, combinators,
    dimension arithmetic) are static, so helpers can call them without a context.
    """

    def __init__(
        self,
        node_def: Any,
        op_def: Any,
        input_shapes: Sequence[Any],
        input_tensors: Sequence[Any] = (),
        input_tensors_as_shapes: Sequence[Any] = (),
        input_handle_shapes_and_types: Sequence[Sequence[ShapeAndType] | None] = (),
    ):
        self._node_def = node_def
        self._op_def = op_def
        self._inputs = [_as_shape_handle(s) for s in input_shapes]
        n = len(self._inputs)
        if len(input_tensors) > n or len(input_tensors_as_shapes) > n:
            raise _error(
                f"Node '{self.node_name}' has {n} input shapes but {len(input_tensors)} input tensors "
                f"and {len(input_tensors_as_shapes)} input tensors as shapes; pass at most one per input"
            )
        self._input_tensors: list[np.ndarray | None] = [None if t is None else np.asarray(t) for t in input_tensors]
        self._input_tensors += [None] * (n - len(self._input_tensors))
        self._input_tensors_as_shapes: list[ShapeHandle | None] = [
            None if s is None else _as_shape_handle(s) for s in input_tensors_as_shapes
        ]
        self._input_tensors_as_shapes += [None] * (n - len(self._input_tensors_as_shapes))
        self._requested_input_tensor = [False] * n
        self._requested_input_tensor_as_partial_shape = [False] * n
        self._input_ranges = _arg_ranges(node_def, op_def, "input")
        self._output_ranges = _arg_ranges(node_def, op_def, "output")
        if self._input_ranges is not None:
            expected = max((stop for _, stop in self._input_ranges.values()), default=0)
            if expected != n:
                raise _error(
                    f"Wrong number of inputs passed: {n} while {expected} expected based on NodeDef "
                    f"of node '{self.node_name}'"
                )
        num_outputs = max((stop for _, stop in (self._output_ranges or {}).values()), default=0)
        self._outputs = [ShapeHandle(None) for _ in range(num_outputs)]
        self._input_handle_data: list[list[ShapeAndType] | None] = [
            None if d is None else list(d) for d in input_handle_shapes_and_types
        ]
        self._input_handle_data += [None] * (n - len(self._input_handle_data))
        self._output_handle_data: list[list[ShapeAndType] | None] = [None] * num_outputs

    # ----------------------------------------------------------------- the node

    @property
    def node_def(self) -> Any:
        """The NodeDef whose shapes are inferred."""
        return self._node_def

    @property
    def op_def(self) -> Any:
        """The OpDef of the node's op."""
        return self._op_def

    @property
    def node_name(self) -> str:
        """The node's name."""
        return getattr(self._node_def, "name", "")

    @property
    def op_type(self) -> str:
        """The node's op type, e.g. ``"MatMul"``."""
        return getattr(self._node_def, "op", "")

    def num_inputs(self) -> int:
        """Number of (data) inputs of the node."""
        return len(self._inputs)

    def num_outputs(self) -> int:
        """Number of outputs of the node, from its OpDef and attrs."""
        return len(self._outputs)

    def input(self, i: int) -> ShapeHandle:
        """The shape of input ``i``."""
        return self._inputs[self._check_index(i, len(self._inputs), "input")]

    def inputs_for_arg(self, name: str) -> list[ShapeHandle]:
        """The shapes of the inputs of the OpDef input arg ``name`` (several for ``N * T``)."""
        if self._input_ranges is None or name not in self._input_ranges:
            raise _error(f"Unknown input name: {name}")
        start, stop = self._input_ranges[name]
        return self._inputs[start:stop]

    def input_tensor(self, i: int) -> np.ndarray | None:
        """The constant value of input ``i`` if known, else None (error messages then show it)."""
        i = self._check_index(i, len(self._inputs), "input")
        self._requested_input_tensor[i] = True
        return self._input_tensors[i]

    def set_output(self, i: int, shape: Any) -> None:
        """Set the shape of output ``i`` (a ShapeHandle, or anything ``input_shapes`` accepts)."""
        self._outputs[self._check_index(i, len(self._outputs), "output")] = _as_shape_handle(shape)

    def set_outputs_for_arg(self, name: str, shapes: Sequence[Any]) -> None:
        """Set the shapes of all outputs of the OpDef output arg ``name``."""
        if self._output_ranges is None or name not in self._output_ranges:
            raise _error(f"Unknown output name: {name}")
        start, stop = self._output_ranges[name]
        if len(shapes) != stop - start:
            raise _error(f"Must provide exactly {stop - start} shapes.")
        for offset, shape in enumerate(shapes):
            self.set_output(start + offset, shape)

    def output(self, i: int) -> ShapeHandle:
        """The shape of output ``i`` (unknown until the shape function sets it)."""
        return self._outputs[self._check_index(i, len(self._outputs), "output")]

    def outputs(self) -> list[ShapeHandle]:
        """The shapes of all outputs, in order."""
        return list(self._outputs)

    def input_handle_shapes_and_types(self, i: int) -> list[ShapeAndType] | None:
        """The handle data of input ``i`` (a resource or variant tensor), None when it has none."""
        return self._input_handle_data[self._check_index(i, len(self._inputs), "input")]

    def set_output_handle_shapes_and_types(self, i: int, shapes_and_types: Sequence[ShapeAndType]) -> None:
        """Set the handle data of output ``i`` (what a consumer's shape function reads as its input's)."""
        self._output_handle_data[self._check_index(i, len(self._outputs), "output")] = list(shapes_and_types)

    def output_handle_shapes_and_types(self, i: int) -> list[ShapeAndType] | None:
        """The handle data set for output ``i``, None when the shape function set none."""
        return self._output_handle_data[self._check_index(i, len(self._outputs), "output")]

    def get_attr(self, name: str) -> Any:
        """The Python value of attr ``name`` (TF's Operation.get_attr types), falling back to the OpDef default."""
        attrs = getattr(self._node_def, "attr", {})
        if name in attrs:
            return _from_attr_value(attrs[name])
        for attr_def in getattr(self._op_def, "attr", ()):
            if attr_def.name == name and attr_def.HasField("default_value"):
                return _from_attr_value(attr_def.default_value)
        message = f"No attr named '{name}' in NodeDef:"
        if not name.startswith("_"):  # TF names the node except for internal attrs
            message += f"\n\t [[{{{{node {self.node_name}}}}}]]"
        raise _error(message)

    def _check_index(self, i: int, n: int, what: str) -> int:
        i = operator.index(i)
        if not 0 <= i < n:
            raise IndexError(f"{what} index {i} out of range for node '{self.node_name}' with {n} {what}s")
        return i

    # ------------------------------------------------------------ constructors

    @staticmethod
    def make_dim(d: DimensionOrConstant) -> DimensionHandle:
        """The handle itself if ``d`` is one, else a new dimension of size ``d`` (-1 or None: unknown)."""
        if isinstance(d, DimensionHandle):
            return d
        return DimensionHandle(d)

    @staticmethod
    def unknown_dim() -> DimensionHandle:
        """A new unknown dimension, distinct from every other."""
        return DimensionHandle(None)

    @staticmethod
    def make_shape(dims: Iterable[DimensionOrConstant]) -> ShapeHandle:
        """A shape of known rank from dimension handles or sizes (-1 or None: a new unknown dim)."""
        return ShapeHandle([InferenceContext.make_dim(d) for d in dims])

    @staticmethod
    def scalar() -> ShapeHandle:
        """The shape ``[]``."""
        return ShapeHandle(())

    @staticmethod
    def vector(d: DimensionOrConstant) -> ShapeHandle:
        """The shape ``[d]``."""
        return InferenceContext.make_shape([d])

    @staticmethod
    def matrix(d0: DimensionOrConstant, d1: DimensionOrConstant) -> ShapeHandle:
        """The shape ``[d0, d1]``."""
        return InferenceContext.make_shape([d0, d1])

    @staticmethod
    def unknown_shape() -> ShapeHandle:
        """A shape of unknown rank."""
        return ShapeHandle(None)

    @staticmethod
    def unknown_shape_of_rank(rank: int | None) -> ShapeHandle:
        """A shape of ``rank`` new unknown dimensions (None or -1: unknown rank)."""
        if rank is None or rank == -1:
            return ShapeHandle(None)
        if rank < 0:
            raise _error(f"rank must not be negative, but is {rank}")
        return ShapeHandle([DimensionHandle(None) for _ in range(rank)])

    @staticmethod
    def make_shape_from_shape_proto(proto: tensor_shape_pb2.TensorShapeProto) -> ShapeHandle:
        """The shape a TensorShapeProto describes (size -1: unknown dim; unknown_rank: unknown shape)."""
        if proto.unknown_rank:
            if proto.dim:
                raise _error("An unknown shape must not have any dimensions set.")
            return ShapeHandle(None)
        if len(proto.dim) > _MAX_DIMENSIONS:
            raise _error(f"Shape {_proto_string(proto)} has too many dimensions")
        if any(d.size < -1 for d in proto.dim):
            raise _error(f"Shape {_proto_string(proto)} has dimensions with values below -1 (where -1 means unknown)")
        return ShapeHandle([DimensionHandle(d.size) for d in proto.dim])

    @staticmethod
    def make_shape_from_tensor_shape(shape: Any) -> ShapeHandle:
        """The shape a static ``TensorShape`` (or list of ``int | None``) describes."""
        return _as_shape_handle(shape)

    def make_shape_from_shape_tensor(self, i: int) -> ShapeHandle:
        """The shape that 1-D int32/int64 input ``i`` holds (as Reshape's ``shape``); -1 entries are unknown.

        Uses, in order: the partial shape known for the input, its constant value, or
        else its static length (a shape of that rank with unknown dims).
        """
        input_shape = self.with_rank(self.input(i), 1)
        return self._make_shape_from_shape_input(i, input_shape, treat_scalar_as_unknown_shape=False)

    def make_shape_from_shape_tensor_treat_scalar_as_unknown_shape(self, i: int) -> ShapeHandle:
        """As :meth:`make_shape_from_shape_tensor`, and a scalar input of value -1 means an unknown shape."""
        input_shape = self.with_rank_at_most(self.input(i), 1)
        return self._make_shape_from_shape_input(i, input_shape, treat_scalar_as_unknown_shape=True)

    def _make_shape_from_shape_input(
        self, i: int, input_shape: ShapeHandle, *, treat_scalar_as_unknown_shape: bool
    ) -> ShapeHandle:
        self._requested_input_tensor_as_partial_shape[i] = True
        known = self._input_tensors_as_shapes[i]
        if known is not None and known.dims is not None:
            return known
        out = self._shape_from_tensor(self.input_tensor(i), input_shape, treat_scalar_as_unknown_shape)
        if out.dims is not None:
            # What TF's shape refiner would have handed in as the input's partial
            # shape; error messages show it in that form.
            self._input_tensors_as_shapes[i] = out
        return out

    def _shape_from_tensor(
        self, t: np.ndarray | None, tensor_shape: ShapeHandle, treat_scalar_as_unknown_shape: bool
    ) -> ShapeHandle:
        if not treat_scalar_as_unknown_shape:
            tensor_shape = self.with_rank(tensor_shape, 1)
        if t is None:
            if tensor_shape.rank == 0:  # only with treat_scalar_as_unknown_shape; TF 2.21 wants the value known
                raise _error(
                    "Received a shape scalar with unknown static value.  A static value of '-1' is required to "
                    "represent an unknown shape."
                )
            length = self.dim(tensor_shape, 0).value
            return ShapeHandle(None) if length is None else self.unknown_shape_of_rank(length)
        if t.ndim == 0:
            if not _is_int_dtype(t, ("int32", "int64")):
                raise _error(f"Input tensor must be int32 or int64, but was {_dtype_string(t.dtype)}")
            if int(t) != -1:  # TF's shape refiner rejects it before the shape function, in these words
                raise _error(
                    "Received an invalid shape scalar with a static value that is not '-1': "
                    f"Tensor<type: {_dtype_string(t.dtype)} shape: [] values: {int(t)}>"
                )
            return ShapeHandle(None)
        if t.ndim != 1:
            raise _error(
                f"Input tensor must be rank 1, but was rank {t.ndim}. Saw tensor shape "
                f"[{','.join(str(n) for n in t.shape)}]"
            )
        if not _is_int_dtype(t, ("int32", "int64")):
            raise _error(f"Input tensor must be int32 or int64, but was {_dtype_string(t.dtype)}")
        dims = []
        for v in t.tolist():
            if v < -1:
                raise _error(f"Invalid value in tensor used for shape: {v}")
            dims.append(DimensionHandle(v))
        return ShapeHandle(dims)

    def make_dim_for_scalar_input(self, i: int) -> DimensionHandle:
        """A dimension whose size is the int16/32/64 scalar constant input ``i``; unknown if not constant."""
        t = self.input_tensor(i)
        if t is None:
            return DimensionHandle(None)
        if t.ndim != 0:
            raise _error(f"Input must be scalar but has rank {t.ndim}")
        if not _is_int_dtype(t, ("int16", "int32", "int64")):
            raise _error("Scalar input must be int16, int32 or int64.")
        value = int(t)
        if value < 0:
            raise _error(f"Dimension size, given by scalar input {i}, must be non-negative but is {value}")
        return DimensionHandle(value)

    # ----------------------------------------------------------------- queries

    @staticmethod
    def rank(s: ShapeHandle) -> int | None:
        """Number of dimensions of ``s``, or None when unknown."""
        return s.rank

    @staticmethod
    def rank_known(s: ShapeHandle) -> bool:
        """Whether the rank of ``s`` is known."""
        return s.dims is not None

    @staticmethod
    def value(d: DimensionOrConstant) -> int | None:
        """The size of ``d`` (a handle or a constant), or None when unknown."""
        if isinstance(d, DimensionHandle):
            return d.value
        if d is None or d == -1:
            return None
        return operator.index(d)

    @staticmethod
    def value_known(d: DimensionOrConstant) -> bool:
        """Whether the size of ``d`` is known."""
        return InferenceContext.value(d) is not None

    @staticmethod
    def dim(s: ShapeHandle, i: int) -> DimensionHandle:
        """Dimension ``i`` of ``s`` (negative counts from the end); a new unknown dim if the rank is unknown."""
        if s.dims is None:
            return DimensionHandle(None)
        rank = len(s.dims)
        if not -rank <= i < rank:
            raise _error(f"Dimension index {i} out of range for shape {_shape_string(s)} of rank {rank}")
        return s.dims[i]

    @staticmethod
    def num_elements(s: ShapeHandle) -> DimensionHandle:
        """The product of the dims of ``s``: known if all are known or one is 0."""
        if s.dims is None:
            return DimensionHandle(None)
        size = 1
        found_unknown = False
        for d in s.dims:
            if d.value is None:
                found_unknown = True
            elif d.value == 0:
                return DimensionHandle(0)
            else:
                size *= d.value
        return DimensionHandle(None) if found_unknown else DimensionHandle(size)

    @staticmethod
    def fully_defined(s: ShapeHandle) -> bool:
        """Whether the rank and every dimension of ``s`` are known."""
        return s.dims is not None and all(d.value is not None for d in s.dims)

    @staticmethod
    def debug_string(x: ShapeHandle | DimensionHandle) -> str:
        """TF's text: ``[2,?]`` for a shape, ``?`` for unknown rank, ``[]`` for a scalar, ``3``/``?`` for a dim."""
        if isinstance(x, DimensionHandle):
            return _dim_string(x)
        return _shape_string(x)

    # ------------------------------------------------------------------ checks

    @staticmethod
    def with_rank(s: ShapeHandle, rank: int) -> ShapeHandle:
        """``s`` if its rank is ``rank``; a shape of ``rank`` unknown dims if its rank is unknown; else an error."""
        if rank > _INT32_MAX:
            raise _error("Rank cannot exceed std::numeric_limits<int32_t>::max()")
        if s.rank == rank:
            return s
        if s.dims is None:
            return InferenceContext.unknown_shape_of_rank(rank)
        raise _error(f"Shape must be rank {rank} but is rank {s.rank}")

    @staticmethod
    def with_rank_at_least(s: ShapeHandle, rank: int) -> ShapeHandle:
        """``s`` if its rank is unknown or at least ``rank``, else an error."""
        if rank > _INT32_MAX:
            raise _error("Rank cannot exceed std::numeric_limits<int32_t>::max()")
        if s.dims is None or s.rank >= rank:
            return s
        raise _error(f"Shape must be at least rank {rank} but is rank {s.rank}")

    @staticmethod
    def with_rank_at_most(s: ShapeHandle, rank: int) -> ShapeHandle:
        """``s`` if its rank is unknown or at most ``rank``, else an error."""
        if rank > _INT32_MAX:
            raise _error("Rank cannot exceed std::numeric_limits<int32_t>::max()")
        if s.dims is None or s.rank <= rank:
            return s
        raise _error(f"Shape must be at most rank {rank} but is rank {s.rank}")

    @staticmethod
    def with_value(d: DimensionHandle, value: int) -> DimensionHandle:
        """``d`` if its size is ``value``; a new dim of size ``value`` if ``d`` is unknown; else an error."""
        if d.value == value:
            return d
        if d.value is None:
            return DimensionHandle(value)
        raise _error(f"Dimension must be {value} but is {d.value}")

    # ------------------------------------------------------------- combinators

    @staticmethod
    def merge_dim(d0: DimensionHandle, d1: DimensionHandle) -> DimensionHandle:
        """The more known of two dims that must be equal (``d0`` on a tie); error if both known and different."""
        if d0 is d1 or d1.value is None:
            return d0
        if d0.value is None:
            return d1
        if d0.value == d1.value:
            return d0
        raise _error(f"Dimensions must be equal, but are {d0.value} and {d1.value}")

    @staticmethod
    def merge(s0: ShapeHandle, s1: ShapeHandle) -> ShapeHandle:
        """The combination of two shapes that must be equal, keeping the known dims of both.

        Returns ``s0`` or ``s1`` itself when one already carries all that is known.
        """
        if s0 is s1 or s1.dims is None:
            return s0
        if s0.dims is None:
            return s1
        if len(s0.dims) != len(s1.dims):
            raise _error(f"Shapes must be equal rank, but are {len(s0.dims)} and {len(s1.dims)}")
        return_s0 = return_s1 = True
        for i, (d0, d1) in enumerate(zip(s0.dims, s1.dims, strict=True)):
            if d0 is d1:
                continue
            if d0.value is None:
                if d1.value is not None:
                    return_s0 = False
            elif d1.value is None:
                return_s1 = False
            elif d0.value != d1.value:
                raise _error(
                    f"Dimension {i} in both shapes must be equal, but are {d0.value} and {d1.value}. "
                    f"Shapes are {_shape_string(s0)} and {_shape_string(s1)}."
                )
        if return_s0 or return_s1:
            return s0 if return_s0 else s1
        return ShapeHandle([InferenceContext.merge_dim(d0, d1) for d0, d1 in zip(s0.dims, s1.dims, strict=True)])

    @staticmethod
    def merge_prefix(s: ShapeHandle, prefix: ShapeHandle) -> tuple[ShapeHandle, ShapeHandle]:
        """Merge ``prefix`` into the leading dims of ``s``; returns the refined ``(s, prefix)``."""
        if s.dims is None or prefix.dims is None:
            return s, prefix
        rank = len(prefix.dims)
        s = InferenceContext.with_rank_at_least(s, rank)
        dims = [InferenceContext.merge_dim(s.dims[i], prefix.dims[i]) for i in range(rank)]
        return ShapeHandle(dims + list(s.dims[rank:])), ShapeHandle(dims)

    @staticmethod
    def concatenate(s0: ShapeHandle, s1: ShapeHandle) -> ShapeHandle:
        """The dims of ``s0`` followed by those of ``s1``; unknown if either rank is unknown."""
        if s0.dims is None or s1.dims is None:
            return ShapeHandle(None)
        return ShapeHandle(s0.dims + s1.dims)

    @staticmethod
    def subshape(s: ShapeHandle, start: int, end: int | None = None, stride: int = 1) -> ShapeHandle:
        """Dims ``start:end:stride`` of ``s`` with TF's rules (negative indices count from the end).

        ``s`` itself when the slice is the whole shape (also for an unknown rank);
        otherwise unknown when the rank is unknown.
        """
        start_in = start
        end_in = end = _INT64_MAX if end is None else end
        if stride == 0:
            raise _error("Subshape stride must not be 0")
        rank = s.rank
        if start == 0 and stride == 1 and ((rank is not None and end >= rank) or end == _INT64_MAX):
            return s
        if rank is None:
            return ShapeHandle(None)
        start = min(start, rank)
        end = min(end, rank)
        if stride < 0 and start == rank:
            start -= 1
        if start < 0:
            start += rank
            if start < 0:
                raise _error(f"Subshape start out of bounds: {start_in}, for shape with rank {rank}")
        if end < 0:
            end += rank
            if end < 0:
                raise _error(f"Subshape end out of bounds: {end_in}, for shape with rank {rank}")
        if stride > 0 and start > end:
            raise _error(
                f"Subshape must have computed start <= end, but is {start} and {end} "
                f"(computed from start {start_in} and end {end_in} over shape with rank {rank})"
            )
        if stride < 0 and start < end:
            raise _error(
                "Subshape must have computed start >= end since stride is negative, "
                f"but is {start} and {end} (computed from start {start_in} and end {end_in} "
                f"over shape with rank {rank} and stride{stride})"
            )
        return ShapeHandle(s.dims[start:end:stride])

    @staticmethod
    def replace_dim(s: ShapeHandle, i: int, d: DimensionOrConstant) -> ShapeHandle:
        """``s`` with dim ``i`` (negative from the end) replaced by ``d``; unknown if the rank is unknown."""
        if s.dims is None:
            return ShapeHandle(None)
        index = i + len(s.dims) if i < 0 else i
        if not 0 <= index < len(s.dims):
            raise _error(f"Out of range dim_index {i} for shape with {len(s.dims)} dimensions")
        dims = list(s.dims)
        dims[index] = InferenceContext.make_dim(d)
        return ShapeHandle(dims)

    # ------------------------------------------------------ dimension arithmetic

    @staticmethod
    def add(first: DimensionHandle, second: DimensionOrConstant) -> DimensionHandle:
        """``first + second``; unknown if either is unknown (adding 0 returns ``first``)."""
        v0, v1 = first.value, InferenceContext.value(second)
        if v0 == 0:
            return InferenceContext.make_dim(second)
        if v1 == 0:
            return first
        if v0 is None or v1 is None:
            return DimensionHandle(None)
        total = v0 + v1
        if total > _INT64_MAX:
            raise _error(f"Dimension size overflow from adding {v0} and {v1}")
        return DimensionHandle(total)

    @staticmethod
    def subtract(first: DimensionHandle, second: DimensionOrConstant) -> DimensionHandle:
        """``first - second``; an error if the result would be negative."""
        v0, v1 = first.value, InferenceContext.value(second)
        if v1 == 0:
            return first
        if v0 is None or v1 is None:
            return DimensionHandle(None)
        if v0 < v1:
            raise _error(f"Negative dimension size caused by subtracting {v1} from {v0}")
        return DimensionHandle(v0 - v1)

    @staticmethod
    def multiply(first: DimensionHandle, second: DimensionOrConstant) -> DimensionHandle:
        """``first * second``; known if either is 0, the other operand if one is 1."""
        v0, v1 = first.value, InferenceContext.value(second)
        if v0 == 0:
            return first
        if v1 == 0 or v0 == 1:
            return InferenceContext.make_dim(second)
        if v1 == 1:
            return first
        if v0 is None or v1 is None:
            return DimensionHandle(None)
        product = v0 * v1
        if product > _INT64_MAX:
            raise _error(f"Negative dimension size caused by overflow when multiplying {v0} and {v1}")
        return DimensionHandle(product)

    @staticmethod
    def divide(dividend: DimensionHandle, divisor: DimensionOrConstant, evenly_divisible: bool) -> DimensionHandle:
        """``dividend // divisor``; with ``evenly_divisible`` a remainder is an error."""
        v1 = InferenceContext.value(divisor)
        if v1 == 1:
            return dividend
        if dividend.value is None or v1 is None:
            return DimensionHandle(None)
        if v1 <= 0:
            raise _error(f"Divisor must be positive but is {v1}")
        if evenly_divisible and dividend.value % v1 != 0:
            raise _error(f"Dimension size must be evenly divisible by {v1} but is {dividend.value}")
        return DimensionHandle(dividend.value // v1)

    @staticmethod
    def min(first: DimensionHandle, second: DimensionOrConstant) -> DimensionHandle:
        """The smaller dim; known (0) if either is 0, else unknown if either is unknown."""
        v0, v1 = first.value, InferenceContext.value(second)
        if v0 == 0:
            return first
        if v1 == 0:
            return InferenceContext.make_dim(second)
        if v0 is None or v1 is None:
            return DimensionHandle(None)
        return first if v0 <= v1 else InferenceContext.make_dim(second)

    @staticmethod
    def max(first: DimensionHandle, second: DimensionOrConstant) -> DimensionHandle:
        """The larger dim; unknown if either is unknown."""
        v0, v1 = first.value, InferenceContext.value(second)
        if v0 is None or v1 is None:
            return DimensionHandle(None)
        return first if v0 >= v1 else InferenceContext.make_dim(second)

    # ------------------------------------------------------------- conversions

    @staticmethod
    def to_tensor_shape(s: ShapeHandle) -> Any:
        """The static ``TensorShape`` of ``s`` (unknown dims as None)."""
        from modtensor.framework.tensor_shape import TensorShape

        if s.dims is None:
            return TensorShape(None)
        return TensorShape([d.value for d in s.dims])

    @staticmethod
    def to_shape_proto(s: ShapeHandle) -> tensor_shape_pb2.TensorShapeProto:
        """``s`` as a TensorShapeProto (unknown dims as -1, unknown rank as ``unknown_rank``)."""
        proto = tensor_shape_pb2.TensorShapeProto()
        if s.dims is None:
            proto.unknown_rank = True
        else:
            for d in s.dims:
                proto.dim.add(size=-1 if d.value is None else d.value)
        return proto

    # ----------------------------------------------------------- error context

    def attach_context(self, message: str) -> str:
        """``message`` followed by TF's context: the node summary, input shapes and the constants used.

        Constants show only for inputs the shape function asked for, as in TF.
        """
        context = f" for '{_summarize_node(self._node_def)}' with input shapes: " + ", ".join(
            _shape_string(s) for s in self._inputs
        )
        tensors, partial_shapes = [], []
        for i in range(len(self._inputs)):
            as_shape = self._input_tensors_as_shapes[i]
            tensor = self._input_tensors[i]
            if self._requested_input_tensor_as_partial_shape[i] and as_shape is not None and as_shape.dims is not None:
                partial_shapes.append(f"input[{i}] = {_shape_string(as_shape)}")
            elif self._requested_input_tensor[i] and tensor is not None:
                tensors.append(f"input[{i}] = <{summarize_value(tensor, _SUMMARIZE_MAX_VALUES)}>")
        if tensors:
            context += " and with computed input tensors: " + ", ".join(tensors)
        if partial_shapes:
            context += " and with input tensors computed as partial shapes: " + ",".join(partial_shapes)
        return message + context + "."


def run_shape_fn(shape_fn: Any, ctx: InferenceContext) -> list[ShapeHandle]:
    """Run a shape function (or an op registration's) on ``ctx``; returns the output shapes.

    ``shape_fn`` is ``fn(ctx) -> None``, an object with a ``shape_fn`` attribute
    (``OpRegistrationData``), or None (all outputs unknown). An ``OpError`` (or a
    ``ValueError``, as InvalidArgumentError) raised inside is re-raised with TF's
    context: ``<msg> for '<node summary>' with input shapes: [2,3], [4,5].``
    """
    fn: Callable[[InferenceContext], Any] | None
    if shape_fn is not None and not callable(shape_fn) and hasattr(shape_fn, "shape_fn"):
        fn = shape_fn.shape_fn
    else:
        fn = shape_fn
    if fn is None:
        for i in range(ctx.num_outputs()):
            ctx.set_output(i, ShapeHandle(None))
        return ctx.outputs()
    try:
        fn(ctx)
    except errors.OpError as e:
        raise type(e)(ctx.node_def, None, ctx.attach_context(e.message)) from e
    except ValueError as e:
        raise errors.InvalidArgumentError(ctx.node_def, None, ctx.attach_context(str(e))) from e
    return ctx.outputs()


# -------------------------------------------------------------- value summaries


def _format_float(x: float, short: int, long: int, ftype: type) -> str:
    """TF's float printing: %.{short}g if it reads back exactly, else %.{long}g."""
    text = f"{x:.{short}g}"
    if np.isfinite(x) and ftype(float(text)) != ftype(x):
        text = f"{x:.{long}g}"
    return text


_C_ESCAPES = {
    ord("\n"): b"\\n",
    ord("\r"): b"\\r",
    ord("\t"): b"\\t",
    ord('"'): b'\\"',
    ord("'"): b"\\'",
    ord("\\"): b"\\\\",
}


def _c_escape(b: bytes) -> str:
    """TF's Utf8SafeCEscape: quotes, backslashes and control bytes escaped, UTF-8 kept."""
    out = bytearray()
    for byte in b:
        if byte in _C_ESCAPES:
            out += _C_ESCAPES[byte]
        elif 0x20 <= byte < 0x7F or byte >= 0x80:
            out.append(byte)
        else:
            out += b"\\%03o" % byte
    return out.decode("utf-8", errors="replace")


def _element_printer(dtype: np.dtype) -> Callable[[Any], str]:
    if dtype.kind == "b":
        return lambda v: "1" if v else "0"
    if dtype.kind in "iu":
        return lambda v: str(int(v))
    if dtype.kind == "f":
        if dtype.itemsize == 8:
            return lambda v: _format_float(float(v), 15, 17, float)
        # float32 and narrower float types (half, bfloat16) print as float32.
        return lambda v: _format_float(float(v), 6, 9, np.float32)
    if dtype.kind == "c":
        return lambda v: f"({v.real:g},{v.imag:g})"
    if dtype.kind == "S":
        return lambda v: _c_escape(bytes(v))
    if dtype.kind in "UO":
        return lambda v: _c_escape(v if isinstance(v, bytes) else str(v).encode("utf-8"))
    # Other registered numpy dtypes (ml_dtypes' bfloat16, float8, ...) print via float.
    return lambda v: _format_float(float(v), 6, 9, np.float32)


def summarize_value(array: Any, max_values: int = _SUMMARIZE_MAX_VALUES) -> str:
    """TF's Tensor::SummarizeValue: values space-separated, inner dims in brackets, "..." past ``max_values``.

    ``[[1,2],[3,4]]`` -> ``[1 2][3 4]``; a vector -> ``1 2 3``.
    """
    t = np.asarray(array)
    num_elements = t.size
    limit = min(max_values, num_elements) if max_values >= 0 else num_elements
    fmt = _element_printer(t.dtype)
    flat = t.reshape(-1)
    if t.ndim == 0:
        text = " ".join(fmt(flat[i]) for i in range(limit))
        return text + ("..." if num_elements > limit else "")
    parts: list[str] = []
    index = 0

    def print_dim(dim: int) -> None:
        nonlocal index
        if index >= limit:
            return
        count = t.shape[dim]
        if dim == t.ndim - 1:
            for i in range(count):
                if index >= limit:
                    if dim != 0:
                        parts.append("...")
                    return
                if i > 0:
                    parts.append(" ")
                parts.append(fmt(flat[index]))
                index += 1
            return
        for _ in range(count):
            opened = False
            if index < limit:
                parts.append("[")
                opened = True
            print_dim(dim + 1)
            if index < limit or opened:
                parts.append("]")

    print_dim(0)
    return "".join(parts) + ("..." if num_elements > limit else "")


def _element_printer_v2(dtype: np.dtype) -> Callable[[Any], str] | None:
    """PrintOneElement(print_v2=true): strings quoted and C-escaped; None for types TF prints as ``?``."""
    if dtype.kind in "SUO":
        escape = _element_printer(dtype)
        return lambda v: '"' + escape(v) + '"'
    if dtype.kind == "c":
        return None
    return _element_printer(dtype)


def summarize_value_v2(array: Any, summarize: int = 3) -> str:
    """TF's ``Tensor::SummarizeValue(summarize, print_v2=true)``, what ``tf.print`` and ``tf.strings.format`` show.

    Each dimension prints its first and last ``summarize`` entries with ``...`` between
    (all of them for a negative ``summarize``), brackets per dimension, rows of a matrix
    on new lines: ``[[0 1 ... 8 9]\n [10 11 ... 18 19]]``. Strings are quoted; complex
    values print as ``?`` (TF has no printer for them); ``variant`` values as ``<TypeName>``.
    """
    t = np.asarray(array)
    num_elements = t.size
    limit = num_elements if summarize < 0 else min(summarize, num_elements)
    flat = t.reshape(-1)
    if t.dtype == object and num_elements and not isinstance(flat[0], (bytes, str)):
        # variant / resource values: TF prints "<" + the value's summary + ">" per element
        text = " ".join(f"<{type(flat[i]).__name__}>" for i in range(limit))
        text += "..." if summarize >= 0 and summarize < num_elements else ""
        return f"[{text}]" if t.ndim > 0 else text
    fmt = _element_printer_v2(t.dtype)
    if fmt is None:  # TF's "irregular" types: one "?" per printed element
        text = " ".join("?" for _ in range(limit)) + ("..." if 0 <= summarize < num_elements else "")
        return f"[{text}]" if t.ndim > 0 else text
    if t.ndim == 0:
        text = " ".join(fmt(flat[i]) for i in range(limit))
        return text + ("..." if num_elements > limit else "")
    shape = t.shape
    ndim = t.ndim
    parts: list[str] = []

    def spacing(dim: int) -> None:
        if dim == ndim - 1:
            parts.append(" ")
        else:
            parts.append("\n" * (ndim - dim - 1) + " " * (dim + 1))

    def print_dim(dim: int, offset: int) -> None:
        if dim == ndim:
            parts.append(fmt(flat[offset]))
            return
        parts.append("[")
        count = shape[dim]
        start_of_end = max(limit, count - limit)
        stride = int(np.prod(shape[dim + 1 :], dtype=np.int64))
        for i in range(min(limit, count)):
            if i > 0:
                spacing(dim)
            print_dim(dim + 1, offset + stride * i)
        if count > 2 * limit:
            spacing(dim)
            parts.append("...")
        for i in range(start_of_end, count):
            spacing(dim)
            print_dim(dim + 1, offset + stride * i)
        parts.append("]")

    print_dim(0, 0)
    return "".join(parts)


# ---------------------------------------------------------------- conversions


def _as_shape_handle(s: Any) -> ShapeHandle:
    """A ShapeHandle from any form an input shape may take (see InferenceContext)."""
    if isinstance(s, ShapeHandle):
        return s
    if s is None:
        return ShapeHandle(None)
    if isinstance(s, tensor_shape_pb2.TensorShapeProto) or (
        hasattr(s, "unknown_rank") and hasattr(s, "dim") and hasattr(s, "DESCRIPTOR")
    ):
        return InferenceContext.make_shape_from_shape_proto(s)
    if hasattr(s, "rank") and hasattr(s, "as_list"):
        if s.rank is None:
            return ShapeHandle(None)
        return ShapeHandle([DimensionHandle(v) for v in s.as_list()])
    if isinstance(s, list | tuple):
        return ShapeHandle([_as_dim_handle(d) for d in s])
    raise TypeError(f"Cannot use {type(s).__name__} {s!r} as a shape; pass a ShapeHandle, TensorShape or list")


def _as_dim_handle(d: Any) -> DimensionHandle:
    if isinstance(d, DimensionHandle):
        return d
    if d is None or isinstance(d, int | np.integer):
        return DimensionHandle(d)
    if hasattr(d, "value"):  # TensorShape's Dimension
        return DimensionHandle(d.value)
    raise TypeError(f"Cannot use {type(d).__name__} {d!r} as a dimension; pass an int, None or DimensionHandle")


def _arg_ranges(node_def: Any, op_def: Any, which: str) -> dict[str, tuple[int, int]] | None:
    if op_def is None:
        return None
    from modtensor.framework import node_def as node_def_lib

    return node_def_lib.arg_ranges(node_def, op_def, which)


def _summarize_node(node_def: Any) -> str:
    from modtensor.framework import node_def as node_def_lib

    return node_def_lib.summarize_node_def(node_def)


def _from_attr_value(value: Any) -> Any:
    from modtensor.framework.attr_value import from_attr_value

    return from_attr_value(value)
