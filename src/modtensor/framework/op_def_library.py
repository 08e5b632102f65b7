"""``apply_op``: build a graph node from keyword arguments named after its OpDef, as op wrappers do.

The keywords are the OpDef's input and attr names (a trailing ``_`` is allowed
for names that are Python keywords). Python and numpy values become ``Const``
nodes named ``<op>/<arg>`` of the type the op needs; type attrs (``T``), number
attrs (``N``) and type-list attrs are inferred from the inputs; other attrs are
converted by their OpDef type, and the errors read as TensorFlow's.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from modtensor.framework import attr_inference, dtypes, errors, tensor_proto, tensor_shape
from modtensor.framework import attr_value as attr_value_lib
from modtensor.framework.graph import Graph, Operation, SymbolicTensor, get_default_graph
from modtensor.framework.op_def_builder import summarize_op_def, validate_attr_value
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import attr_value_pb2, op_def_pb2
from modtensor.framework.tensor import Tensor, tensor_like

__all__ = ["apply_op", "apply_op_outputs", "attr_value_from_python", "constant", "convert_to_tensor", "outputs_of"]


def _capture_if_foreign(value: Any, graph: Graph, name: str) -> Any:
    """A tensor from outside ``graph`` (an eager tensor, another graph's tensor) captured by a function graph.

    A function body being traced (``graph.building_function``) uses outside tensors through
    placeholders fed at call time (``FuncGraph.capture``); any other value is returned unchanged.
    """
    if isinstance(value, Tensor) and graph.building_function and getattr(value, "graph", None) is not graph:
        return graph.capture(value, name=name)  # type: ignore[attr-defined]
    return value


def _contains_tensor(value: Any) -> bool:
    if isinstance(value, Tensor):
        return True
    return isinstance(value, (list, tuple)) and any(_contains_tensor(v) for v in value)


def _first_tensor_dtype(values: Any) -> dtypes.DType:
    for item in values:
        if isinstance(item, Tensor):
            return item.dtype.base_dtype
        if isinstance(item, (list, tuple)) and _contains_tensor(item):
            return _first_tensor_dtype(item)
    raise ValueError("no tensor in the list")  # pragma: no cover - callers check _contains_tensor


def _autopack(values: Sequence[Any], dtype: Any, name: str, graph: Graph) -> SymbolicTensor:
    """A (nested) list holding tensors as one tensor: TF's autopacking, a ``Pack`` of the converted elements."""
    if dtype is None:
        dtype = _first_tensor_dtype(values)
    with graph.name_scope(name) as scope:
        elements = []
        for i, item in enumerate(values):
            if isinstance(item, (list, tuple)) and _contains_tensor(item):
                elements.append(_autopack(item, dtype, str(i), graph))
            else:
                elements.append(convert_to_tensor(item, dtype=dtype, name=str(i), graph=graph))
        op = graph.create_op(
            "Pack",
            elements,
            name=scope,
            attrs={"N": len(elements), "axis": 0, "T": dtypes.as_dtype(dtype).as_datatype_enum},
        )
        return op.outputs[0]


def constant(
    value: Any, dtype: Any = None, shape: Any = None, name: str = "Const", graph: Graph | None = None
) -> SymbolicTensor:
    """A ``Const`` node holding ``value`` (python or numpy) in ``graph`` (default: the default graph)."""
    graph = graph or get_default_graph()
    if isinstance(value, tensor_shape.TensorShape):  # TF's TensorShape conversion: its dims, int32 or int64
        value, dtype = tensor_shape.shape_conversion_dims(value, dtype)
    proto = tensor_proto.make_tensor_proto(value, dtype=dtype, shape=shape, allow_broadcast=shape is not None)
    op = graph.create_op(
        "Const",
        [],
        name=name,
        attrs={"value": attr_value_pb2.AttrValue(tensor=proto), "dtype": attr_value_pb2.AttrValue(type=proto.dtype)},
    )
    return op.outputs[0]


def convert_to_tensor(
    value: Any, dtype: Any = None, name: str = "Const", preferred_dtype: Any = None, graph: Graph | None = None
) -> SymbolicTensor:
    """``value`` as a graph tensor: tensors pass through (dtype checked), other values become a Const.

    ``preferred_dtype`` is tried first and dropped silently if the value does not fit it.
    """
    value = tensor_like(value, dtype, name)
    value = _capture_if_foreign(value, graph or get_default_graph(), name)
    if isinstance(value, SymbolicTensor):
        if dtype is not None and dtypes.as_dtype(dtype).base_dtype != value.dtype.base_dtype:
            raise ValueError(
                f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for Tensor with dtype "
                f"{value.dtype.name}: {value!r}"
            )
        return value
    if isinstance(value, Operation):
        raise TypeError(f"Can't convert Operation '{value.name}' to Tensor (target dtype={dtype}, name={name!r})")
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        return _autopack(value, dtype, "packed" if name == "Const" else name, graph or get_default_graph())
    if dtype is None and preferred_dtype is not None:
        try:
            return constant(value, dtype=preferred_dtype, name=name, graph=graph)
        except (TypeError, ValueError):
            pass
    return constant(value, dtype=dtype, name=name, graph=graph)


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _type_name(value: Any) -> str:
    return type(value).__name__


class _Builder:
    """State of one apply_op call: the inputs converted so far and the attrs inferred from them.

    The inference (``framework.attr_inference``, TF's wrapper texts) owns the inferred attrs;
    conversion reads them to give python values the type the op needs.
    """

    def __init__(self, sig: attr_inference.OpSignature, graph: Graph):
        self.sig = sig
        self.op_def = sig.op_def
        self.graph = graph
        self.name = sig.name
        self.inference = attr_inference.Inference(sig, attr_inference.WRAPPER)
        self.attrs: dict[str, Any] = self.inference.values  # inferred attrs, then explicit ones and defaults
        self.inputs: list[SymbolicTensor] = []
        self.default_types = sig.type_defaults
        self.allowed_types = sig.type_allowed

    # ------------------------------------------------------------------ inputs

    def convert_list(self, arg: attr_inference.ArgInfo, input_name: str, values: Any) -> list[SymbolicTensor]:
        if not _is_list(values):
            raise TypeError(f"Expected list for '{input_name}' argument to '{self.name}' Op, not {values}.")
        dtype = None
        preferred = None
        if arg.fixed is not None:
            dtype = arg.fixed
        elif arg.number_attr:
            if arg.type_attr in self.attrs:
                dtype = self.attrs[arg.type_attr]
            else:
                dtype = next((v.dtype.base_dtype for v in values if isinstance(v, SymbolicTensor)), None)
            if dtype is None:
                preferred = self.default_types.get(arg.type_attr)
        try:
            tensors = [
                convert_to_tensor(v, dtype=dtype, name=f"{arg.name}_{i}", preferred_dtype=preferred, graph=self.graph)
                for i, v in enumerate(values)
            ]
            if arg.number_attr and len({t.dtype.base_dtype for t in tensors}) > 1:
                raise TypeError("types differ")
        except (TypeError, ValueError):
            observed = ", ".join(self._observed_type(v) for v in values)
            prefix = f"Tensors in list passed to '{input_name}' of '{self.name}' Op have types [{observed}]"
            if arg.number_attr:
                if arg.fixed is not None:
                    raise TypeError(f"{prefix} that do not match expected type {dtype.name}.") from None
                if arg.type_attr in self.attrs:
                    raise TypeError(
                        f"{prefix} that do not match type {dtype.name} inferred from earlier arguments."
                    ) from None
                raise TypeError(f"{prefix} that don't all match.") from None
            raise TypeError(f"{prefix} that are invalid. Tensors: {values}") from None
        return tensors

    @staticmethod
    def _observed_type(value: Any) -> str:
        if isinstance(value, SymbolicTensor):
            return value.dtype.base_dtype.name
        try:
            return dtypes.as_dtype(tensor_proto.make_tensor_proto(value).dtype).name
        except (TypeError, ValueError):
            return "<NOT CONVERTIBLE TO TENSOR>"

    def convert_single(self, arg: attr_inference.ArgInfo, input_name: str, value: Any) -> SymbolicTensor:
        dtype = None
        preferred = None
        allowed = None
        if arg.fixed is not None:
            dtype = arg.fixed
        elif arg.type_attr in self.attrs:
            dtype = self.attrs[arg.type_attr]
        elif arg.type_attr in self.default_types:
            preferred = self.default_types[arg.type_attr]
            allowed = self.allowed_types.get(arg.type_attr)
        value = tensor_like(value, dtype, arg.name)
        value = _capture_if_foreign(value, self.graph, arg.name)
        if isinstance(value, SymbolicTensor):
            if dtype is not None and value.dtype.base_dtype != dtype.base_dtype:
                self._raise_mismatch(arg, input_name, value.dtype.base_dtype)
            return value
        try:
            if dtype is None and allowed:
                try:
                    proto = tensor_proto.make_tensor_proto(value)
                except (TypeError, ValueError):
                    proto = None
                if proto is not None and proto.dtype in allowed:
                    return convert_to_tensor(value, dtype=proto.dtype, name=arg.name, graph=self.graph)
                return convert_to_tensor(value, name=arg.name, preferred_dtype=preferred, graph=self.graph)
            return convert_to_tensor(value, dtype=dtype, name=arg.name, preferred_dtype=preferred, graph=self.graph)
        except TypeError as err:
            if dtype is None:
                raise
            raise TypeError(
                f"Expected {dtype.name} passed to parameter '{arg.name}' of op '{self.name}', got "
                f"{value!r} of type '{_type_name(value)}' instead. Error: {err}"
            ) from None
        except ValueError as err:
            raise ValueError(f"Tried to convert '{input_name}' to a tensor and failed. Error: {err}") from None

    def _raise_mismatch(self, arg: attr_inference.ArgInfo, input_name: str, actual: dtypes.DType) -> None:
        expected = arg.fixed if arg.fixed is not None else self.attrs[arg.type_attr]
        attr_inference.WRAPPER.type_mismatch(self.inference, arg, input_name, 0, actual, expected)

    def add_input(self, arg: attr_inference.ArgInfo, input_name: str, values: Any) -> None:
        if arg.kind != attr_inference.SINGLE:
            tensors = self.convert_list(arg, input_name, values)
        else:
            tensors = [self.convert_single(arg, input_name, values)]
        self.inference.add_arg(arg, [t.dtype.base_dtype for t in tensors], input_name)
        if arg.is_ref and not all(t.dtype.is_ref_dtype for t in tensors):
            raise TypeError(
                f"'{self.name}' Op requires that input '{input_name}' be a mutable tensor (e.g.: a tf.Variable)"
            )
        self.inputs.extend(tensors)

    # ------------------------------------------------------------------ attrs

    def attr_protos(self) -> dict[str, attr_value_pb2.AttrValue]:
        protos: dict[str, attr_value_pb2.AttrValue] = {}
        for attr in self.op_def.attr:
            if attr.name not in self.attrs:
                continue
            value = self.attrs[attr.name]
            protos[attr.name] = _value_to_attr_value(value, attr, self.name)
        return protos


def _converted(value: Any, attr: op_def_pb2.OpDef.AttrDef, check_allowed: bool = True) -> attr_value_pb2.AttrValue:
    """``value`` as an AttrValue with TF's per-kind messages (TypeError), and with ``check_allowed`` its types'
    allowed lists checked as TF's graph wrappers check them (TypeError)."""
    attr_type = attr.type
    _check_scalar_kind(value, attr_type, attr.name)
    try:
        proto = attr_value_lib.to_attr_value(value, attr_type, name=attr.name)
    except TypeError as e:
        raise TypeError(f"{e}") from None
    if not check_allowed:
        return proto
    if attr_type == "type":
        attr_inference.check_type_allowed(dtypes.as_dtype(proto.type), attr, attr.name)
    elif attr_type == "list(type)":
        for t in proto.list.type:
            attr_inference.check_type_allowed(dtypes.as_dtype(t), attr, attr.name)
    return proto


def _value_to_attr_value(value: Any, attr: op_def_pb2.OpDef.AttrDef, op_name: str) -> attr_value_pb2.AttrValue:
    """Convert with TF's per-type messages, then check allowed values and minimums as TF's wrappers do."""
    if isinstance(value, attr_value_pb2.AttrValue):
        return value
    proto = _converted(value, attr)
    attr_type = attr.type
    if attr_type == "string" and attr.HasField("allowed_values"):
        allowed = [s.decode() for s in attr.allowed_values.list.s]
        if proto.s.decode(errors="replace") not in allowed:
            quoted = '", "'.join(allowed)
            raise ValueError(
                f"Attr '{attr.name}' of '{op_name}' Op passed string '{proto.s.decode(errors='replace')}' "
                f'not in: "{quoted}".'
            )
    elif attr_type == "int" and attr.has_minimum and proto.i < attr.minimum:
        raise ValueError(f"Attr '{attr.name}' of '{op_name}' Op passed {proto.i} less than minimum {attr.minimum}.")
    elif attr_type.startswith("list(") and attr.has_minimum:
        length = len(getattr(proto.list, _LIST_FIELD.get(attr_type, "i")))
        if length < attr.minimum:
            raise ValueError(
                f"Attr '{attr.name}' of '{op_name}' Op passed list of length {length} less than minimum {attr.minimum}."
            )
    return proto


def attr_value_from_python(
    value: Any, attr: op_def_pb2.OpDef.AttrDef, op_def: op_def_pb2.OpDef
) -> attr_value_pb2.AttrValue:
    """``value`` as the AttrValue of ``attr`` of an op run eagerly, checked as TF's eager execution checks it.

    The value's kind as TF's Python wrappers check it (TypeError); a type attr's allowed types, allowed string
    values and minimums as TF's runtime validates the op (InvalidArgumentError naming the node and the op: a graph's
    op constructor raises TypeError or ValueError for these instead, as TF's does).
    """
    if isinstance(value, attr_value_pb2.AttrValue):
        return value
    proto = _converted(value, attr, check_allowed=False)
    try:
        validate_attr_value(proto, attr)
    except errors.InvalidArgumentError as e:
        raise errors.InvalidArgumentError(
            None, None, f"{e.message}\n\t; NodeDef: {{{{node {op_def.name}}}}}; {summarize_op_def(op_def)}"
        ) from None
    return proto


_LIST_FIELD = {
    "list(string)": "s",
    "list(int)": "i",
    "list(float)": "f",
    "list(bool)": "b",
    "list(type)": "type",
    "list(shape)": "shape",
    "list(tensor)": "tensor",
    "list(func)": "func",
}


def _check_scalar_kind(value: Any, attr_type: str, name: str) -> None:
    """TF's wrapper checks for scalar attr values: ints are not bools, bools are bools, strings are strings."""
    items = value if attr_type.startswith("list(") and _is_list(value) else [value]
    kind = attr_type[5:-1] if attr_type.startswith("list(") else attr_type
    for item in items:
        if kind == "bool" and not isinstance(item, (bool, np.bool_)):
            raise TypeError(f"Expected bool for argument '{name}' not {item!r}.")
        if kind == "int" and (isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer))):
            raise TypeError(f"Expected int for argument '{name}' not {item!r}.")
        if kind == "float" and not isinstance(item, (int, float, np.integer, np.floating)):
            raise TypeError(f"Expected float for argument '{name}' not {item!r}.")
        if kind == "string" and not isinstance(item, (str, bytes)):
            raise TypeError(f"Expected string for argument '{name}' not {item!r}.")
        if kind == "shape" and item is not None:
            try:
                tensor_shape.as_shape(item)
            except (TypeError, ValueError) as e:
                raise TypeError(f"Error converting {item!r} (arg name = {name}) to a TensorShape: {e}") from None


def _graph_of(values: Sequence[Any]) -> Graph:
    """The graph of the tensor arguments (all must agree), else the default graph.

    While a function body is traced, the default graph (the FuncGraph) is used: it captures tensors of other graphs.
    """
    default = get_default_graph()
    if default.building_function:
        return default
    found: Graph | None = None
    stack = list(values)
    while stack:
        v = stack.pop()
        if _is_list(v):
            stack.extend(v)
        elif isinstance(v, (SymbolicTensor, Operation)):
            if found is None:
                found = v.graph
            elif v.graph is not found:
                raise ValueError(f"{v!r} must be from the same graph as the other inputs ({found!r}).")
    return found or default


def apply_op(op_type_name: str, name: str | None = None, **keywords: Any) -> Operation:
    """Add an ``op_type_name`` node built from keyword arguments to the inputs' graph; return the Operation.

    Inputs are passed by their OpDef arg names; attrs that the inputs do not determine
    are passed by name or take their defaults. The op is named ``name`` (default: the
    op type) in the current name scope, and Const nodes made from python values are
    named ``<op name>/<arg name>``.
    """
    op_def = global_registry().get(op_type_name).op_def
    graph = _graph_of(list(keywords.values()))
    builder = _Builder(attr_inference.signature(op_def), graph)
    with graph.name_scope(name or op_type_name) as scope:
        for arg in builder.sig.inputs:
            input_name = arg.name
            if input_name in keywords:
                values = keywords.pop(input_name)
            elif input_name + "_" in keywords:
                input_name += "_"
                values = keywords.pop(input_name)
            else:
                raise TypeError(f"No argument for input {input_name} found in {op_type_name} Op")
            builder.add_input(arg, input_name, values)
        for attr in op_def.attr:
            if attr.name in builder.attrs:
                if attr.name in keywords or attr.name + "_" in keywords:
                    raise TypeError(f"Should not specify value for inferred attr '{attr.name}' for {op_type_name}.")
                continue
            if attr.name in keywords:
                builder.attrs[attr.name] = keywords.pop(attr.name)
            elif attr.name + "_" in keywords:
                builder.attrs[attr.name] = keywords.pop(attr.name + "_")
            elif attr.name in builder.default_types:
                builder.attrs[attr.name] = builder.default_types[attr.name]
            elif not attr.HasField("default_value"):
                raise TypeError(f"No argument found for attr {attr.name} for {op_type_name}")
        if keywords:
            raise TypeError(f"{op_type_name} got unexpected keyword arguments: {', '.join(sorted(keywords))}.")
        attrs = builder.attr_protos()
        input_types = [t.dtype for t in builder.inputs]
        return graph.create_op(
            op_type_name, builder.inputs, name=scope, attrs=attrs, op_def=op_def, input_types=input_types
        )


def outputs_of(op: Operation) -> Any:
    """The flat form modtensor's API layer builds on: None for no outputs, the tensor for one, else the list.

    (``wrapper_outputs`` groups outputs as TF's generated wrappers return them, for ``tf.raw_ops``.)
    """
    outputs = op.outputs
    if not outputs:
        return None
    if len(outputs) == 1 and not (len(op.op_def.output_arg) == 1 and _is_list_arg(op.op_def.output_arg[0])):
        return outputs[0]
    return outputs


def op_outputs_as_wrapper(op: Operation) -> Any:
    """``op``'s outputs as TF's generated wrapper returns them (see :func:`wrapper_outputs`); None for none."""
    if not op.outputs:
        return None
    counts = [_arg_length(op, arg) for arg in op.op_def.output_arg]
    return wrapper_outputs(op.op_def, list(op.outputs), counts)


def wrapper_outputs(op_def: op_def_pb2.OpDef, outputs: list[Any], counts: Sequence[int] | None = None) -> Any:
    """Group an op's flat outputs as TF's generated wrapper returns them.

    One non-list output arg: the tensor; one list arg: the list; several args: ``OpName(arg1=..., ...)``,
    a namedtuple whose list args are lists (``tf.math.top_k(...).indices``). ``counts`` gives each arg's
    number of tensors; without it, it is derived when at most one arg is a list (else the flat list).
    """
    args = op_def.output_arg
    if len(args) == 1:
        return outputs if _is_list_arg(args[0]) else outputs[0]
    if counts is None:
        lists = [i for i, arg in enumerate(args) if _is_list_arg(arg)]
        if len(lists) > 1:
            return outputs
        counts = [1] * len(args)
        if lists:
            counts[lists[0]] = len(outputs) - (len(args) - 1)
    grouped, start = [], 0
    for arg, count in zip(args, counts, strict=True):
        grouped.append(list(outputs[start : start + count]) if _is_list_arg(arg) else outputs[start])
        start += count
    return _result_type(op_def.name, tuple(arg.name for arg in args))(*grouped)


@functools.cache
def _result_type(op_name: str, fields: tuple[str, ...]) -> type:
    return collections.namedtuple(op_name, fields)


def _is_list_arg(arg: op_def_pb2.OpDef.ArgDef) -> bool:
    return bool(arg.number_attr or arg.type_list_attr)


def _arg_length(op: Operation, arg: op_def_pb2.OpDef.ArgDef) -> int:
    if arg.number_attr:
        return int(op.get_attr(arg.number_attr))
    if arg.type_list_attr:
        return len(op.get_attr(arg.type_list_attr))
    return 1


def apply_op_outputs(op_type_name: str, name: str | None = None, **keywords: Any) -> Any:
    """``apply_op`` and return the outputs as a generated wrapper does (see :func:`outputs_of`)."""
    return outputs_of(apply_op(op_type_name, name=name, **keywords))
