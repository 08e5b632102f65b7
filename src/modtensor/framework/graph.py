"""Graphs of operations, as TensorFlow's graph mode builds them.

``Graph`` owns ``Operation`` nodes whose outputs are ``SymbolicTensor`` objects.
Building one follows TensorFlow: names come from name scopes and are made unique
case-insensitively (``add``, ``add_1``, ``scope/add``); ops created inside
``control_dependencies`` and ``device`` scopes record those; ``create_op`` fills
type attrs from the inputs, adds defaults, validates the node against its OpDef
and infers static output shapes, so a bad graph fails while it is built.
``as_graph_def`` exports a GraphDef TensorFlow loads.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from modtensor.framework import attr_inference, dtypes, errors, op_spec, shape_refiner, tensor_shape
from modtensor.framework import attr_value as attr_value_lib
from modtensor.framework import device_spec as device_spec_lib
from modtensor.framework import node_def as node_def_lib
from modtensor.framework import tape as _tape
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import (
    attr_value_pb2,
    function_pb2,
    graph_pb2,
    node_def_pb2,
    op_def_pb2,
    versions_pb2,
)
from modtensor.framework.tensor import Tensor

__all__ = [
    "GRAPH_DEF_VERSION",
    "GRAPH_DEF_VERSION_MIN_CONSUMER",
    "GRAPH_DEF_VERSION_MIN_PRODUCER",
    "Graph",
    "Operation",
    "OperatorNotAllowedInGraphError",
    "SymbolicTensor",
    "get_default_graph",
    "reset_default_graph",
]

# The GraphDef versions TensorFlow 2.21 writes (tf.Graph().as_graph_def().versions).
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
# TF's C++ graphs with allow_internal_ops (grappler's view of a runtime graph): "_recv_x_0" is valid.
_VALID_INTERNAL_OP_NAME = re.compile(r"^[A-Za-z0-9._][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")

_GRAPH_MODE_HINT = (
    "You can attempt the following resolutions to the problem: build and run the graph with a Session, "
    "or use eager execution, where tensors hold values."
)


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operator (bool(), iteration) that needs a value was used on a symbolic tensor."""


def _dtype_name(enum: int) -> str:
    """TF's DataTypeString ("float", "int32", "float_ref") for messages of the C++ layer."""
    return op_spec.data_type_string(enum)


# =============================================================================== tensors


class SymbolicTensor(Tensor):
    """An output of an Operation in a Graph: a dtype and a static shape, no value."""

    __slots__ = ("_consumers", "_dtype", "_handle_data", "_op", "_shape", "_value_index")

    def __init__(self, op: Operation, value_index: int, dtype: dtypes.DType):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = tensor_shape.TensorShape(None)
        self._consumers: list[Operation] = []
        # Handle data of a resource/variant tensor: ((element TensorShape, element DType), ...) or None, as
        # TF's tensor._handle_data; shape inference sets it (a TensorList's element shape and dtype).
        self._handle_data: tuple[tuple[tensor_shape.TensorShape, dtypes.DType], ...] | None = None

    @property
    def op(self) -> Operation:
        """The Operation that produces this tensor."""
        return self._op

    @property
    def value_index(self) -> int:
        """The index of this tensor among its op's outputs."""
        return self._value_index

    @property
    def dtype(self) -> dtypes.DType:
        """The element type."""
        return self._dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The static shape that shape inference (and set_shape) established."""
        return self._shape

    @property
    def name(self) -> str:
        """``"op_name:index"``."""
        return f"{self._op.name}:{self._value_index}"

    @property
    def graph(self) -> Graph:
        """The graph of the producing op."""
        return self._op.graph

    @property
    def device(self) -> str:
        """The device of the producing op."""
        return self._op.device

    def consumers(self) -> list[Operation]:
        """The ops that take this tensor as a data input, in creation order."""
        return list(self._consumers)

    def set_shape(self, shape: Any) -> None:
        """Refine the static shape with ``shape``; ValueError (TF's message) if they are incompatible."""
        self._shape = shape_refiner.merge_shapes(self._shape, tensor_shape.as_shape(shape))

    def _as_node_def_input(self) -> str:
        """How a NodeDef names this tensor as an input: "op" for output 0, else "op:i"."""
        return self._op.name if self._value_index == 0 else f"{self._op.name}:{self._value_index}"

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self) -> str:
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self._dtype.name})'

    def __hash__(self) -> int:
        return id(self)

    def __bool__(self) -> bool:
        raise OperatorNotAllowedInGraphError(
            f"Using a symbolic `tf.Tensor` as a Python `bool` is not allowed ({self.name}). {_GRAPH_MODE_HINT}"
        )

    def __iter__(self) -> Iterator[Any]:
        raise OperatorNotAllowedInGraphError(
            f"Iterating over a symbolic `tf.Tensor` is not allowed ({self.name}). {_GRAPH_MODE_HINT}"
        )

    def __len__(self) -> int:
        raise TypeError(
            f"len is not well defined for a symbolic Tensor ({self.name}). "
            "Please call `x.shape` rather than `len(x)` for shape information."
        )

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error may indicate that "
            "you're trying to pass a Tensor to a NumPy call, which is not supported."
        )


# ============================================================================ operations


class Operation:
    """A node of a Graph: an op type, attrs, data and control inputs, and output tensors."""

    def __init__(
        self,
        graph: Graph,
        node_def: node_def_pb2.NodeDef,
        op_def: op_def_pb2.OpDef,
        inputs: Sequence[SymbolicTensor],
        control_inputs: Sequence[Operation],
        output_types: Sequence[int],
    ):
        self._graph = graph
        self._node_def = node_def
        self._op_def = op_def
        self._inputs: list[SymbolicTensor] = list(inputs)
        self._control_inputs: list[Operation] = []
        for op in control_inputs:
            if op not in self._control_inputs:
                self._control_inputs.append(op)
        self._outputs = [SymbolicTensor(self, i, dtypes.as_dtype(t)) for i, t in enumerate(output_types)]
        self._id = -1
        # The v1 control-flow context (cond branch, while loop) the op was made in: api/control_flow_v1.py.
        self._control_flow_context: Any = None
        # value_index -> constant value (or None) found by the shape refiner; see shape_refiner.
        self._constant_cache: dict[Any, Any] = {}
        self._sync_node_def_inputs()

    # ----------------------------------------------------------------- identity

    @property
    def name(self) -> str:
        """The node name, unique in the graph."""
        return self._node_def.name

    @property
    def type(self) -> str:
        """The op type, e.g. ``"AddV2"``."""
        return self._node_def.op

    @property
    def graph(self) -> Graph:
        """The graph holding this op."""
        return self._graph

    @property
    def op_def(self) -> op_def_pb2.OpDef:
        """The OpDef of this op's type."""
        return self._op_def

    @property
    def node_def(self) -> node_def_pb2.NodeDef:
        """A copy of this op's NodeDef (inputs as "x", "x:1", "^ctrl")."""
        copy = node_def_pb2.NodeDef()
        copy.CopyFrom(self._node_def)
        return copy

    @property
    def device(self) -> str:
        """The requested device ("" when none)."""
        return self._node_def.device

    # ----------------------------------------------------------------- edges

    @property
    def inputs(self) -> tuple[SymbolicTensor, ...]:
        """The data inputs, in order."""
        return tuple(self._inputs)

    @property
    def outputs(self) -> list[SymbolicTensor]:
        """The output tensors, in order."""
        return list(self._outputs)

    @property
    def control_inputs(self) -> list[Operation]:
        """The ops that must run before this one."""
        return list(self._control_inputs)

    def values(self) -> tuple[SymbolicTensor, ...]:
        """The output tensors as a tuple."""
        return tuple(self._outputs)

    @property
    def _input_types(self) -> list[dtypes.DType]:
        return [t.dtype for t in self._inputs]

    @property
    def _output_types(self) -> list[int]:
        return [t.dtype.as_datatype_enum for t in self._outputs]

    def _sync_node_def_inputs(self) -> None:
        del self._node_def.input[:]
        self._node_def.input.extend(t._as_node_def_input() for t in self._inputs)
        self._node_def.input.extend(f"^{op.name}" for op in self._control_inputs)

    def _add_control_input(self, op: Operation) -> None:
        """Make ``op`` run before this op (a no-op if it already does)."""
        self._add_control_inputs([op])

    def _add_control_inputs(self, ops: Iterable[Operation]) -> None:
        """Add several control inputs, skipping ones already present."""
        for op in ops:
            if not isinstance(op, Operation):
                raise TypeError(f"op must be an Operation: {op!r}")
            if op.graph is not self._graph:
                raise ValueError(f"Control input {op!r} of {self!r} is from a different graph")
            if op not in self._control_inputs:
                self._control_inputs.append(op)
        self._sync_node_def_inputs()

    def _remove_all_control_inputs(self) -> None:
        """Drop every control input of this op."""
        self._control_inputs = []
        self._sync_node_def_inputs()

    def _update_input(self, index: int, tensor: SymbolicTensor) -> None:
        """Replace data input ``index`` with ``tensor`` (same dtype); shapes already inferred stay as they are."""
        if not isinstance(tensor, SymbolicTensor):
            raise TypeError(f"tensor must be a SymbolicTensor: {tensor!r}")
        old = self._inputs[index]
        if tensor.dtype.base_dtype != old.dtype.base_dtype:
            raise TypeError(
                f"Cannot update input {index} of op '{self.name}' from {old.dtype.name} to {tensor.dtype.name}"
            )
        old._consumers.remove(self)
        self._inputs[index] = tensor
        tensor._consumers.append(self)
        self._sync_node_def_inputs()
        self._graph._invalidate_constants()

    def _add_outputs(self, types: Sequence[dtypes.DType], shapes: Sequence[Any]) -> list[SymbolicTensor]:
        """Append outputs of ``types`` and static ``shapes`` (a call op rewritten to a function returning more:
        TF's ``Operation._add_outputs``); existing outputs and their consumers are unchanged."""
        added = []
        for dtype, shape in zip(types, shapes, strict=True):
            t = SymbolicTensor(self, len(self._outputs), dtypes.as_dtype(dtype))
            t._shape = tensor_shape.as_shape(shape)
            self._outputs.append(t)
            added.append(t)
        return added

    # ----------------------------------------------------------------- attrs

    def get_attr(self, name: str) -> Any:
        """The python value of attr ``name`` (TF's types: DType, bytes, TensorShapeProto, lists, ...)."""
        if name not in self._node_def.attr:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.")
        return attr_value_lib.from_attr_value(self._node_def.attr[name])

    def _get_attr_value(self, name: str) -> attr_value_pb2.AttrValue | None:
        return self._node_def.attr.get(name)

    def _set_attr(self, name: str, value: attr_value_pb2.AttrValue) -> None:
        """Set attr ``name`` to an AttrValue (or a python value of an inferable type)."""
        self._node_def.attr[name].CopyFrom(attr_value_lib.to_attr_value(value, name=name))

    def _clear_attr(self, name: str) -> None:
        if name in self._node_def.attr:
            del self._node_def.attr[name]

    def _set_device(self, device: str | device_spec_lib.DeviceSpec | None) -> None:
        """Set the requested device (a DeviceSpec prints canonically; a string is kept as given)."""
        if device is None:
            device = ""
        elif isinstance(device, device_spec_lib.DeviceSpec):
            device = device.to_string()
        self._node_def.device = device

    def colocation_groups(self) -> list[bytes]:
        """The ``loc:@name`` groups from the ``_class`` attr, else this op's own group."""
        if "_class" in self._node_def.attr:
            groups = [s for s in self._node_def.attr["_class"].list.s if s.startswith(b"loc:@")]
            if groups:
                return groups
        return [f"loc:@{self.name}".encode()]

    def __repr__(self) -> str:
        return f"<tf.Operation '{self.name}' type={self.type}>"

    def __str__(self) -> str:
        return str(self._node_def)


# ============================================================================ scopes


class _DeviceScope:
    """One ``Graph.device(...)`` entry: a merging spec, a device function, or None (clears outer scopes)."""

    __slots__ = ("function", "spec")

    def __init__(self, device: Any):
        self.function: Callable[[Operation], Any] | None = None
        self.spec: device_spec_lib.DeviceSpec | None = None
        if device is None:
            return
        if isinstance(device, device_spec_lib.DeviceSpec):
            self.spec = device
        elif isinstance(device, str):
            self.spec = device_spec_lib.DeviceSpec.from_string(device)
        elif callable(device):
            self.function = device
        else:
            raise TypeError(
                f"A device must be a string, a DeviceSpec, a function of an Operation, or None; "
                f"got {type(device).__name__}: {device!r}"
            )

    @property
    def is_null_merge(self) -> bool:
        return self.spec is not None and not self.spec.to_string()

    @property
    def is_clear(self) -> bool:
        return self.spec is None and self.function is None


class _ControlScope:
    """One ``Graph.control_dependencies(...)`` entry and the ops created while it is active."""

    __slots__ = ("clears", "control_inputs", "seen")

    def __init__(self, control_inputs: list[Operation] | None):
        self.clears = control_inputs is None
        self.control_inputs = control_inputs or []
        self.seen: set[int] = set()


class _ThreadState(threading.local):
    def __init__(self) -> None:
        self.name_stack = ""
        self.device_stack: list[_DeviceScope] = []
        self.control_stack: list[_ControlScope] = []
        self.colocation_stack: list[Operation] = []


def _op_to_colocate_with(value: Any) -> Operation | None:
    """The op a colocate_with argument stands for: an Operation, a tensor's op, or a variable's handle op."""
    if value is None or isinstance(value, Operation):
        return value
    handle = getattr(value, "handle", None)
    if isinstance(handle, SymbolicTensor):
        return handle.op
    if isinstance(value, SymbolicTensor):
        return value.op
    op = getattr(value, "op", None)
    if isinstance(op, Operation):
        return op
    raise TypeError(f"colocate_with expects an Operation, a graph tensor or a variable, not {type(value).__name__}.")


# ============================================================================ graph


class Graph:
    """A dataflow graph: Operations, their output tensors, scopes used while building, collections."""

    # True for graphs the runtime builds from its own GraphDefs (names of internal nodes such as
    # "_recv_x_0" start with "_"), as TF's C++ graphs with allow_internal_ops; user graphs keep TF's rule.
    _allow_internal_names = False

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._ops: list[Operation] = []
        self._ops_by_name: dict[str, Operation] = {}
        self._names_in_use: dict[str, int] = {}
        self._collections: dict[str, list[Any]] = {}
        self._finalized = False
        self._versions = versions_pb2.VersionDef(
            producer=GRAPH_DEF_VERSION, min_consumer=GRAPH_DEF_VERSION_MIN_CONSUMER
        )
        self._functions: dict[str, function_pb2.FunctionDef] = {}
        self._gradient_override_map: dict[str, str] = {}
        self._gradients: dict[str, str] = {}
        self._thread = _ThreadState()
        self.seed: int | None = None
        self._constants_generation = 0
        # The v1 control-flow context ops are made in (TF's Graph._control_flow_context): it may rewrite their
        # inputs (Switch into a cond branch, Enter into a while loop) once they exist. api/control_flow_v1.py.
        self._control_flow_context: Any = None

    # ----------------------------------------------------------------- default graph

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        """Make this graph the default graph of the current thread inside the ``with`` block."""
        stack = _default_graph_stack()
        stack.append(self)
        try:
            yield self
        finally:
            if stack and stack[-1] is self:
                stack.pop()
            else:  # pragma: no cover - only when a caller unbalances the stack
                with contextlib.suppress(ValueError):
                    stack.remove(self)

    # ----------------------------------------------------------------- state

    @property
    def version(self) -> int:
        """A number that grows as ops are added (the number of ops)."""
        return len(self._ops)

    @property
    def graph_def_versions(self) -> versions_pb2.VersionDef:
        """The VersionDef written into GraphDefs (producer = TF 2.21's graph version)."""
        copy = versions_pb2.VersionDef()
        copy.CopyFrom(self._versions)
        return copy

    @property
    def finalized(self) -> bool:
        """True after finalize(): no more ops may be added."""
        return self._finalized

    def finalize(self) -> None:
        """Make the graph read-only; adding ops afterwards raises RuntimeError."""
        self._finalized = True

    def _unsafe_unfinalize(self) -> None:
        self._finalized = False

    def _check_not_finalized(self) -> None:
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    @property
    def building_function(self) -> bool:
        """False: a plain Graph is not a function body being traced."""
        return False

    def _invalidate_constants(self) -> None:
        for op in self._ops:
            op._constant_cache.clear()

    # ----------------------------------------------------------------- names

    def get_name_scope(self) -> str:
        """The current name scope, without a trailing slash ("" at the root)."""
        return self._thread.name_stack

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """``name`` under the current scope, with ``_N`` appended if taken (case-insensitively)."""
        if self._thread.name_stack:
            name = f"{self._thread.name_stack}/{name}"
        return self._unique_full_name(name, mark_as_used)

    def _unique_full_name(self, name: str, mark_as_used: bool = True) -> str:
        with self._lock:
            key = name.lower()
            count = self._names_in_use.get(key, 0)
            if mark_as_used:
                self._names_in_use[key] = count + 1
            if count == 0:
                return name
            base_key = key
            candidate_key = key
            while candidate_key in self._names_in_use:
                candidate_key = f"{base_key}_{count}"
                count += 1
            if mark_as_used:
                self._names_in_use[candidate_key] = 1
            return f"{name}_{count - 1}"

    def _name_in_use(self, name: str) -> bool:
        return name.lower() in self._names_in_use

    @contextlib.contextmanager
    def name_scope(self, name: str | None) -> Iterator[str]:
        """Open a name scope; yields the scope string ending in "/" ("" for None or "" = back to the root).

        A name ending in "/" re-enters that exact scope; other names are made unique
        (``scope``, ``scope_1``). Invalid names raise ValueError.
        """
        if isinstance(name, bytes):
            name = name.decode("utf-8")
        if name:
            if self._thread.name_stack:
                if not _VALID_SCOPE_NAME.match(name):
                    raise ValueError(
                        f"'{name}' is not a valid scope name. A scope name has to match "
                        f"the following pattern: {_VALID_SCOPE_NAME.pattern}"
                    )
            elif not _VALID_OP_NAME.match(name):
                raise ValueError(
                    f"'{name}' is not a valid root scope name. A root scope name has "
                    f"to match the following pattern: {_VALID_OP_NAME.pattern}"
                )
        old = self._thread.name_stack
        if not name:
            new_stack, scope = "", ""
        elif name.endswith("/"):
            new_stack, scope = name[:-1], name
        else:
            new_stack = self.unique_name(name)
            scope = new_stack + "/"
        self._thread.name_stack = new_stack
        try:
            yield scope
        finally:
            self._thread.name_stack = old

    # ----------------------------------------------------------------- control dependencies

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Iterable[Any] | None) -> Iterator[None]:
        """Ops created inside run after ``control_inputs`` (Operations or Tensors); None clears outer ones."""
        if control_inputs is None:
            scope = _ControlScope(None)
            saved = self._thread.control_stack
            self._thread.control_stack = [scope]
            try:
                yield
            finally:
                self._thread.control_stack = saved
            return
        current = {id(op) for s in self._thread.control_stack for op in s.control_inputs}
        ops: list[Operation] = []
        for c in control_inputs:
            element = self.as_graph_element(c)
            op = element.op if isinstance(element, SymbolicTensor) else element
            if not isinstance(op, Operation):
                raise TypeError(f"Control input must be Operation or Tensor: {c!r}")
            if id(op) not in current:
                current.add(id(op))
                ops.append(op)
                # TensorFlow marks ops used as manual control inputs (automatic control deps read it).
                op._node_def.attr["_has_manual_control_dependencies"].CopyFrom(attr_value_pb2.AttrValue(b=True))
        scope = _ControlScope(ops)
        self._thread.control_stack.append(scope)
        try:
            yield
        finally:
            self._thread.control_stack.remove(scope)

    def _control_dependencies_for_inputs(self, input_ops: Sequence[Operation]) -> list[Operation]:
        """The control inputs a new op with these input ops gets: those of every active scope that
        none of the input ops was created in, minus the input ops themselves."""
        result: list[Operation] = []
        input_ids = {id(op) for op in input_ops}
        for scope in self._thread.control_stack:
            if any(id(op) in scope.seen for op in input_ops):
                continue
            for op in scope.control_inputs:
                if id(op) not in input_ids and op not in result:
                    result.append(op)
        return result

    def _record_op_seen_by_control_dependencies(self, op: Operation) -> None:
        for scope in self._thread.control_stack:
            scope.seen.add(id(op))

    # ----------------------------------------------------------------- devices

    @contextlib.contextmanager
    def device(self, device_name_or_function: Any) -> Iterator[None]:
        """Ops created inside get this device: a string or DeviceSpec merges with outer scopes
        (inner fields win), a function of the Operation returns the device, None clears outer scopes."""
        scope = _DeviceScope(device_name_or_function)
        self._thread.device_stack.append(scope)
        try:
            yield
        finally:
            self._thread.device_stack.remove(scope)

    def _apply_device_functions(self, op: Operation) -> None:
        """Apply the device scopes innermost first; each fills only what inner scopes left unset."""
        for scope in reversed(self._thread.device_stack):
            if scope.is_null_merge:
                continue
            if scope.is_clear:
                break
            if scope.function is not None:
                result = scope.function(op)
                if isinstance(result, device_spec_lib.DeviceSpec):
                    result = result.to_string()
                op._set_device(result or "")
            else:
                current = device_spec_lib.DeviceSpec.from_string(op.device)
                op._set_device(scope.spec.make_merged_spec(current).to_string())  # type: ignore[union-attr]

    # ----------------------------------------------------------------- colocation

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict[str, str]) -> Iterator[None]:
        """Ops of the mapped types created inside get their gradient from the mapped name (TF's
        ``gradient_override_map``: a ``_gradient_op_type`` attr, looked up before the op's type)."""
        if not isinstance(op_type_map, dict):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        for key, value in op_type_map.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    @contextlib.contextmanager
    def colocate_with(self, op: Any, ignore_existing: bool = False) -> Iterator[None]:
        """Ops created inside are colocated with ``op`` (an Operation, tensor or variable), as in TF.

        They get ``_class: ["loc:@<group>"]`` (the union of the colocation groups of all enclosing
        colocate_with ops, sorted) and the device of the innermost colocated op that has one; outer
        device scopes do not apply inside. ``ignore_existing`` drops the enclosing colocation scopes;
        ``op=None`` with ``ignore_existing=True`` only clears them.
        """
        if op is None and not ignore_existing:
            raise ValueError("Trying to reset colocation (op is None) but ignore_existing is not True")
        target = _op_to_colocate_with(op)
        saved_devices = self._thread.device_stack
        saved_colocation = self._thread.colocation_stack
        self._thread.device_stack = []
        if ignore_existing:
            self._thread.colocation_stack = []
        else:
            self._thread.colocation_stack = list(saved_colocation)
        if target is not None:
            self._thread.colocation_stack.append(target)
        try:
            yield
        finally:
            self._thread.device_stack = saved_devices
            self._thread.colocation_stack = saved_colocation

    def _apply_colocation(self, op: Operation) -> None:
        """Set ``_class`` and the device from the colocation scopes (innermost device wins), as TF does."""
        stack = self._thread.colocation_stack
        if not stack:
            return
        groups: set[bytes] = set()
        device_set = False
        for target in reversed(stack):
            groups.update(target.colocation_groups())
            if target.device and not device_set:
                op._set_device(target.device)
                device_set = True
        value = attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(s=sorted(groups)))
        op._set_attr("_class", value)

    # ----------------------------------------------------------------- creating ops

    def create_op(
        self,
        op_type: str,
        inputs: Sequence[SymbolicTensor],
        dtypes: Sequence[Any] | None = None,
        input_types: Sequence[Any] | None = None,
        name: str | None = None,
        attrs: dict[str, Any] | None = None,
        op_def: op_def_pb2.OpDef | None = None,
        compute_shapes: bool = True,
        compute_device: bool = True,
    ) -> Operation:
        """Add an op of ``op_type`` with data ``inputs`` and return it.

        Type, number and type-list attrs that the inputs determine are filled in
        (conflicts raise ValueError naming the attr); ``attrs`` values may be AttrValues
        or python values; defaults are added and the node is validated against its
        OpDef (ValueError). ``dtypes`` (output types) is accepted for TF compatibility
        and ignored. ``name`` ending in "/" is used as is; otherwise it is made unique
        in the current name scope. Shape-inference errors raise ValueError with TF's
        message.
        """
        del dtypes  # output types always follow from the OpDef, as in TF 2
        self._check_not_finalized()
        inputs = list(inputs)
        for i, t in enumerate(inputs):
            if not isinstance(t, SymbolicTensor):
                raise TypeError(f"Input #{i} is not a tensor: {t!r}")
        if name is None:
            name = op_type
        name = name[:-1] if name.endswith("/") else self.unique_name(name)
        if op_def is None:
            op_def = global_registry().get(op_type).op_def

        node = node_def_pb2.NodeDef(name=name, op=op_type)
        sig = attr_inference.signature(op_def)
        if attrs:
            # Given list sizes first: two adjacent list args (ReduceDataset's initial_state, other_arguments)
            # split the flat inputs only when their type lists are known.
            for key, value in attrs.items():
                if key in sig.size_attrs:
                    _set_explicit_attr(node, sig, key, value)
        attr_inference.infer_node_attrs(node, sig, [t.dtype for t in inputs])
        if attrs:
            for key, value in attrs.items():
                _set_explicit_attr(node, sig, key, value)

        if input_types is not None:
            expected = [_as_dtype_or_none(t) for t in input_types]
            if len(expected) != len(inputs) or any(
                e is not None and e.base_dtype != t.dtype.base_dtype for e, t in zip(expected, inputs, strict=False)
            ):
                raise TypeError(
                    f"In op '{name}', input types ({[t.dtype for t in inputs]}) are not compatible "
                    f"with expected types ({list(input_types)})"
                )
        input_ops = [t.op for t in inputs]
        control_inputs = self._control_dependencies_for_inputs(input_ops)
        override = self._gradient_override_map.get(op_type) if self._gradient_override_map else None
        if override is not None:
            node.attr["_gradient_op_type"].s = override.encode()
        op = self._add_node(node, op_def, inputs, control_inputs, compute_shapes, compute_device)
        if _tape.ACTIVE and _tape.should_record(op._inputs):
            _tape.record_op(op, op._inputs, op._outputs)  # a gradient tape records graph ops too (tf.function)
        return op

    def _add_node(
        self,
        node: node_def_pb2.NodeDef,
        op_def: op_def_pb2.OpDef,
        inputs: Sequence[SymbolicTensor],
        control_inputs: Sequence[Operation],
        compute_shapes: bool = True,
        compute_device: bool = True,
        output_shape_hints: Sequence[Any] | None = None,
        unknown_input_shapes: frozenset[int] = frozenset(),
    ) -> Operation:
        """Validate a complete NodeDef (name and attrs set), infer shapes, and add it as an Operation.

        Shared by create_op and import_graph_def. ``output_shape_hints`` (TensorShapes,
        from an imported ``_output_shapes`` attr) refine the inferred shapes. Inputs at
        ``unknown_input_shapes`` count as of unknown shape (a while loop's back edge, whose
        tensor is wired in later with ``Operation._update_input``).
        """
        self._check_not_finalized()
        name = node.name
        if not _VALID_OP_NAME.match(name) and not (self._allow_internal_names and _VALID_INTERNAL_OP_NAME.match(name)):
            raise ValueError(
                f"`{name}` is not a valid node name. Accepted names conform to Regex /{_VALID_OP_NAME.pattern}/"
            )
        for t in inputs:
            if t.graph is not self:
                raise ValueError(
                    f"Input {t!r} of node '{name}' is from a different graph; all inputs of an op must come "
                    "from the graph the op is created in."
                )
        for op in control_inputs:
            if op.graph is not self:
                raise ValueError(f"Control input {op!r} of node '{name}' is from a different graph.")
        node_def_lib.add_default_attrs(node, op_def)
        op = Operation(self, node, op_def, inputs, control_inputs, [])
        try:
            node_def_lib.validate_node_def(op._node_def, op_def)
            output_types = node_def_lib.output_types(op._node_def, op_def)
            expected_inputs = node_def_lib.input_types(op._node_def, op_def)
        except errors.InvalidArgumentError as e:
            raise ValueError(e.message) from None
        for i, (t, expected) in enumerate(zip(inputs, expected_inputs, strict=True)):
            if not _types_compatible(expected, t.dtype.as_datatype_enum):
                raise ValueError(
                    f"Input {i} of node {name} was passed {_dtype_name(t.dtype.as_datatype_enum)} "
                    f"from {t.name} incompatible with expected {_dtype_name(expected)}."
                )
        op._outputs = [SymbolicTensor(op, i, dtypes.as_dtype(t)) for i, t in enumerate(output_types)]
        if compute_shapes:
            try:
                shapes, handle_data = shape_refiner.infer_output_shapes_and_handle_data(op, unknown_input_shapes)
            except errors.OpError as e:
                raise ValueError(e.message) from None
            for t, s, h in zip(op._outputs, shapes, handle_data, strict=True):
                t._shape = s
                t._handle_data = h
        if output_shape_hints is not None:
            for i, (t, hint) in enumerate(zip(op._outputs, output_shape_hints, strict=False)):
                try:
                    t._shape = shape_refiner.merge_shapes(t._shape, tensor_shape.as_shape(hint))
                except ValueError as e:
                    raise ValueError(
                        f"Node '{name}' has an _output_shapes attribute inconsistent with the GraphDef "
                        f"for output #{i}: {e}"
                    ) from None
        with self._lock:
            if name in self._ops_by_name:
                raise ValueError(f"Duplicate node name in graph: '{name}'")
            op._id = len(self._ops)
            self._ops.append(op)
            self._ops_by_name[name] = op
            for t in inputs:
                t._consumers.append(op)
        self._record_op_seen_by_control_dependencies(op)
        if compute_device:
            self._apply_device_functions(op)
        self._apply_colocation(op)
        context = self._control_flow_context
        if context is not None:
            op._control_flow_context = context
            context.add_op(op)
        return op

    def _get_control_flow_context(self) -> Any:
        """The v1 control-flow context new ops are made in (None outside ``cond``/``while_loop`` building)."""
        return self._control_flow_context

    def _set_control_flow_context(self, context: Any) -> None:
        self._control_flow_context = context

    def _rollback(self, num_ops: int, function_names: Iterable[str] = ()) -> None:
        """Remove the ops added after the graph had ``num_ops`` (and the named functions): a failed import
        leaves the graph as it was."""
        with self._lock:
            removed = self._ops[num_ops:]
            del self._ops[num_ops:]
            for op in removed:
                self._ops_by_name.pop(op.name, None)
                for t in op._inputs:
                    if op in t._consumers:
                        t._consumers.remove(op)
            for name in function_names:
                self._functions.pop(name, None)
                self._gradients.pop(name, None)

    # ----------------------------------------------------------------- lookups

    def get_operations(self) -> list[Operation]:
        """All ops, in creation order."""
        with self._lock:
            return list(self._ops)

    def _get_operation_by_name(self, name: str) -> Operation | None:
        return self._ops_by_name.get(name)

    def get_operation_by_name(self, name: str) -> Operation:
        """The op called ``name``; KeyError if there is none, ValueError for a tensor name."""
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name: str) -> SymbolicTensor:
        """The tensor called ``"op:index"``; KeyError if absent, ValueError for an op name."""
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj: Any, allow_tensor: bool = True, allow_operation: bool = True) -> Any:
        """The Tensor or Operation that ``obj`` (an element, or a name) denotes in this graph."""
        if allow_tensor and allow_operation:
            kinds = "Tensor or Operation"
        elif allow_tensor:
            kinds = "Tensor"
        elif allow_operation:
            kinds = "Operation"
        else:
            raise ValueError("allow_tensor and allow_operation can't both be False.")
        if hasattr(obj, "_as_graph_element") and not isinstance(obj, (SymbolicTensor, Operation)):
            obj = obj._as_graph_element()
        if isinstance(obj, str):
            return self._element_by_name(obj, allow_tensor, allow_operation, kinds)
        if isinstance(obj, SymbolicTensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {kinds}.")

    def _element_by_name(self, name: str, allow_tensor: bool, allow_operation: bool, kinds: str) -> Any:
        if ":" in name:
            if not allow_tensor:
                raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a {kinds}.")
            parts = name.split(":")
            if len(parts) != 2 or not parts[1].isdigit() or not parts[1].isascii():
                raise ValueError(
                    f"The name {name!r} looks a like a Tensor name, but is not a valid one. "
                    'Tensor names must be of the form "<op_name>:<output_index>".'
                )
            op_name, index = parts[0], int(parts[1])
            op = self._ops_by_name.get(op_name)
            if op is None:
                raise KeyError(
                    f"The name {name!r} refers to a Tensor which does not exist. "
                    f"The operation, {op_name!r}, does not exist in the graph."
                )
            if index >= len(op._outputs):
                raise KeyError(
                    f"The name {name!r} refers to a Tensor which does not exist. "
                    f"The operation, {op_name!r}, exists but only has {len(op._outputs)} outputs."
                )
            return op._outputs[index]
        if allow_operation:
            op = self._ops_by_name.get(name)
            if op is None:
                raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")
            return op
        if name in self._ops_by_name:
            message = f"The name {name!r} refers to an Operation, not a {kinds}."
        else:
            message = f"The name {name!r} looks like an (invalid) Operation name, not a {kinds}."
        raise ValueError(message + ' Tensor names must be of the form "<op_name>:<output_index>".')

    # ----------------------------------------------------------------- export

    def as_graph_def(self, from_version: int | None = None, add_shapes: bool = False) -> graph_pb2.GraphDef:
        """The GraphDef of this graph: nodes in creation order, versions, and the function library.

        Each node's control inputs follow its data inputs sorted by name, as TF's ``Graph::ToGraphDef`` writes them.
        ``from_version`` keeps only ops added after ``version`` had that value;
        ``add_shapes`` writes each op's static output shapes into ``_output_shapes``.
        """
        graph_def = graph_pb2.GraphDef()
        graph_def.versions.CopyFrom(self._versions)
        with self._lock:
            ops = list(self._ops)
        for op in ops:
            if from_version is not None and op._id < from_version:
                continue
            node = graph_def.node.add()
            node.CopyFrom(op._node_def)
            if len(op._control_inputs) > 1:
                controls = sorted(node.input[len(op._inputs) :])
                del node.input[len(op._inputs) :]
                node.input.extend(controls)
            if add_shapes and op._outputs:
                shapes = node.attr["_output_shapes"].list.shape
                for t in op._outputs:
                    shapes.add().CopyFrom(t.shape.as_proto())
        if self._functions:
            graph_def.library.function.extend(self._functions.values())
        for function_name, gradient in self._gradients.items():
            graph_def.library.gradient.add(function_name=function_name, gradient_func=gradient)
        return graph_def

    # ----------------------------------------------------------------- functions

    def _add_function(self, function_def: function_pb2.FunctionDef) -> None:
        """Add (or keep an identical) FunctionDef to the graph's library; a different one of the same name fails."""
        name = function_def.signature.name
        existing = self._functions.get(name)
        if existing is not None:
            if existing.SerializeToString(deterministic=True) != function_def.SerializeToString(deterministic=True):
                raise ValueError(
                    f"Cannot add function '{name}' because a different function with the same name exists."
                )
            return
        copy = function_pb2.FunctionDef()
        copy.CopyFrom(function_def)
        self._functions[name] = copy

    def _add_gradient(self, function_name: str, gradient_func: str) -> None:
        self._gradients[function_name] = gradient_func

    def _is_function(self, name: str) -> bool:
        return name in self._functions

    def _get_function(self, name: str) -> function_pb2.FunctionDef | None:
        return self._functions.get(name)

    def _function_library(self) -> function_pb2.FunctionDefLibrary:
        library = function_pb2.FunctionDefLibrary()
        library.function.extend(self._functions.values())
        for function_name, gradient in self._gradients.items():
            library.gradient.add(function_name=function_name, gradient_func=gradient)
        return library

    # ----------------------------------------------------------------- collections

    def add_to_collection(self, name: str, value: Any) -> None:
        """Append ``value`` to collection ``name``."""
        self._check_not_finalized()
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names: str | Iterable[str], value: Any) -> None:
        """Append ``value`` to each collection in ``names`` (a string is one name); duplicates once."""
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name: str) -> list[Any]:
        """The collection's list itself (created if missing), for in-place edits."""
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_collection(self, name: str, scope: str | None = None) -> list[Any]:
        """A copy of collection ``name``; with ``scope``, only items whose ``name`` matches it (re.match)."""
        with self._lock:
            items = list(self._collections.get(name, []))
        if scope is None:
            return items
        pattern = re.compile(scope)
        return [item for item in items if hasattr(item, "name") and pattern.match(item.name) is not None]

    def get_all_collection_keys(self) -> list[str]:
        """Names of the collections that exist (created, and not cleared)."""
        with self._lock:
            return [key for key in self._collections if key is not None]

    def clear_collection(self, name: str) -> None:
        """Remove collection ``name``."""
        self._check_not_finalized()
        with self._lock:
            self._collections.pop(name, None)

    def __repr__(self) -> str:
        return f"<modtensor.Graph at 0x{id(self):x} with {len(self._ops)} ops>"


# =========================================================================== attr helpers


def _as_dtype_or_none(value: Any) -> dtypes.DType | None:
    return None if value is None else dtypes.as_dtype(value)


def _types_compatible(expected: int, actual: int) -> bool:
    """TF's TypesCompatible: equal, or a ref value given where its base type is expected."""
    return expected == actual or (expected < 100 <= actual and actual - 100 == expected)


def _set_explicit_attr(node: node_def_pb2.NodeDef, sig: attr_inference.OpSignature, key: str, value: Any) -> None:
    attr_def = sig.attr_defs.get(key)
    try:
        converted = attr_value_lib.to_attr_value(value, attr_def.type if attr_def is not None else None, name=key)
    except (TypeError, ValueError) as e:
        raise type(e)(f"{e} (attr '{key}' of node '{node.name}', op {sig.name})") from None
    attr_inference.set_attr_checked(node, sig.op_def, key, converted)


# ============================================================================ default graph


class _DefaultGraphState(threading.local):
    def __init__(self) -> None:
        self.stack: list[Graph] = []


_default_state = _DefaultGraphState()
_global_default_graph: Graph | None = None
_global_lock = threading.Lock()


def _default_graph_stack() -> list[Graph]:
    return _default_state.stack


def get_default_graph() -> Graph:
    """The innermost graph of this thread's ``as_default()`` blocks, else the process-wide default graph."""
    stack = _default_state.stack
    if stack:
        return stack[-1]
    global _global_default_graph
    with _global_lock:
        if _global_default_graph is None:
            _global_default_graph = Graph()
        return _global_default_graph


def reset_default_graph() -> None:
    """Replace the process-wide default graph with a new, empty one (not allowed inside ``as_default()``)."""
    if _default_state.stack:
        raise AssertionError(
            "Do not use tf.reset_default_graph() to clear nested graphs. If you need a cleared graph, "
            "exit the nesting and create a new graph."
        )
    global _global_default_graph
    with _global_lock:
        _global_default_graph = Graph()
