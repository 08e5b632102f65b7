"""``modtensor.Variable``: TensorFlow's resource variable, eagerly, in functions and in v1 graphs.

A variable is a resource handle (a ``VarHandleOp`` output) plus Python bookkeeping;
every read and write is an op on the handle (``ReadVariableOp``, ``AssignVariableOp``,
``AssignAddVariableOp``, ...), so the same code works in every mode:

- Eagerly the handle is an anonymous one that owns its ``Var`` (TF's ref-counting
  handle): the variable dies with its handle. The value lives on the device the
  ``VarHandleOp`` ran on (the device scope, else TF's choice: a plugin device first).
- Inside a ``modtensor.function`` trace, an eager variable's handle is captured (fed
  to a resource placeholder at every call) and its ops are placed on its device;
  the automatic control dependencies (``framework.auto_control_deps``) keep its
  reads and writes in program order. A variable created during a trace is lifted
  out of it (``init_scope``), as TF does.
- In a v1 graph the variable is a named ``VarHandleOp`` (``shared_name`` = its name)
  with an ``initializer`` (``AssignVariableOp`` of ``initial_value``) that
  ``compat.v1.global_variables_initializer()`` groups; values live in the session.

Conversion to a tensor (TF's ``__tf_tensor__`` protocol) reads the value, so any op
takes a variable where it takes a tensor; the Python operators go through it too.
"""

from __future__ import annotations

import contextlib
import enum
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from modtensor.api import context
from modtensor.api.dispatch import apply_op
from modtensor.api.trackable import Trackable
from modtensor.framework import dtypes, op_def_library, tensor_shape
from modtensor.framework import graph as graph_lib
from modtensor.framework import tape as _tape
from modtensor.framework.tensor import OVERLOADABLE_OPERATORS, Tensor
from modtensor.runtime import context as runtime_context

__all__ = [
    "GLOBAL_VARIABLES",
    "TRAINABLE_VARIABLES",
    "Variable",
    "VariableAggregation",
    "VariableSynchronization",
    "init_scope",
]

ANONYMOUS_NAME = "cd2c89b7-88b7-44c8-ad83-06c2a9158347"  # TF's ResourceHandle::ANONYMOUS_NAME
GLOBAL_VARIABLES = "variables"  # TF's GraphKeys.GLOBAL_VARIABLES
TRAINABLE_VARIABLES = "trainable_variables"  # TF's GraphKeys.TRAINABLE_VARIABLES

_graph_stack = graph_lib._default_graph_stack
_uids = itertools.count(1)


class VariableSynchronization(enum.Enum):
    """When a distributed variable is aggregated (accepted for TF compatibility; modtensor has one replica)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates combine (accepted for TF compatibility)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """Leave every function being traced (TF's ``tf.init_scope``): eager code, or the outermost v1 graph.

    Variables created while tracing a function are made here, so they exist once,
    outside the function, which captures them. Control dependencies do not carry in.
    """
    stack = _graph_stack()
    saved = list(stack)
    outer = []
    for graph in stack:
        if graph.building_function:
            break
        outer.append(graph)
    stack[:] = outer
    try:
        if outer:
            with outer[-1].control_dependencies(None):
                yield
        else:
            yield
    finally:
        stack[:] = saved


def _executing_eagerly() -> bool:
    return runtime_context._eager_enabled and not _graph_stack()


def _is_eager_tensor(value: Any) -> bool:
    from modtensor.runtime.eager import EagerTensor

    return isinstance(value, EagerTensor)


def _convert(value: Any, dtype: Any, name: str = "initial_value") -> Any:
    from modtensor.api.constant_op import convert_to_tensor

    return convert_to_tensor(value, dtype=dtype, name=name)


def _apply_update(op_type: str, name: str | None = None, **kwargs: Any) -> Any:
    """Run an op without outputs; returns its Operation when building a graph (None eagerly)."""
    if _executing_eagerly():
        return apply_op(op_type, name=name, **kwargs)
    return op_def_library.apply_op(op_type, name=name, **kwargs)


def _shape_text(shape: tensor_shape.TensorShape) -> str:
    """A shape as TF's Python prints tuples in messages: ``(2,)``, ``()``, ``None``."""
    if shape.rank is None:
        return "None"
    dims = shape.as_list()
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


class Variable(Trackable):
    """``tf.Variable``: a mutable tensor in a resource; see the module docstring for the modes."""

    _in_graph_mode = False

    def __init__(
        self,
        initial_value: Any = None,
        trainable: bool | None = None,
        validate_shape: bool = True,
        caching_device: Any = None,
        name: str | None = None,
        variable_def: Any = None,
        dtype: Any = None,
        import_scope: str | None = None,
        constraint: Callable[[Any], Any] | None = None,
        synchronization: VariableSynchronization = VariableSynchronization.AUTO,
        aggregation: VariableAggregation = VariableAggregation.NONE,
        shape: Any = None,
        experimental_enable_variable_lifting: bool = True,
    ):
        del caching_device, import_scope
        if variable_def is not None:
            raise NotImplementedError("Variable(variable_def=...) (restoring from a VariableDef) is not supported yet")
        if initial_value is None:
            raise ValueError(
                "The `initial_value` arg to `tf.Variable` must be specified except when you are not providing a "
                "`variable_def`. You provided neither."
            )
        if constraint is not None and not callable(constraint):
            raise ValueError(f"The `constraint` argument must be a callable. Received: {constraint}")
        if trainable is None:
            trainable = synchronization != VariableSynchronization.ON_READ
        self._trainable = bool(trainable)
        self._constraint = constraint
        self._synchronization = synchronization
        self._aggregation = aggregation
        self._unique_id = next(_uids)
        dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        lift = init_scope() if experimental_enable_variable_lifting else contextlib.nullcontext()
        with lift:
            if _executing_eagerly():
                self._init_eager(initial_value, dtype, name, shape, validate_shape)
            else:
                self._init_graph(initial_value, dtype, name, shape, validate_shape)

    # ------------------------------------------------------------------ construction

    def _initial_tensor(self, initial_value: Any, dtype: Any) -> Any:
        value = initial_value() if callable(initial_value) else initial_value
        try:
            return _convert(value, dtype)
        except ValueError as exc:
            if isinstance(value, Tensor):
                raise ValueError(f"initial_value: {exc}") from None
            raise

    def _check_shape(self, value_shape: tensor_shape.TensorShape, shape: Any, validate_shape: bool) -> Any:
        if shape is None:
            return value_shape if validate_shape else tensor_shape.TensorShape(None)
        given = shape
        shape = tensor_shape.as_shape(shape)
        if not shape.is_compatible_with(value_shape):
            raise ValueError(
                f"In this `tf.Variable` creation, the initial value's shape ({_shape_text(value_shape)}) is not "
                f"compatible with the explicitly supplied `shape` argument ({given})."
            )
        return shape

    def _init_eager(self, initial_value: Any, dtype: Any, name: str | None, shape: Any, validate_shape: bool) -> None:
        scope = runtime_context.eager_name_scope()
        base = "Variable" if name is None else name
        with context.name_scope(base):
            debug_name = runtime_context.eager_name_scope()  # "w/" (with the enclosing scopes)
            value = self._initial_tensor(initial_value, dtype)
        self._dtype = value.dtype.base_dtype
        self._shape = self._check_shape(value.shape, shape, validate_shape)
        handle_name = f"{scope}{base}"
        self._handle = apply_op(
            "VarHandleOp",
            dtype=self._dtype,
            shape=self._shape,
            shared_name=ANONYMOUS_NAME,
            debug_name=debug_name,
        )
        self._handle_name = handle_name + ":0"
        self._in_graph_mode = False
        self._initializer_op = None
        self._initial_value = None
        self._graph_element = None
        apply_op("AssignVariableOp", resource=self._handle, value=value)

    def _init_graph(self, initial_value: Any, dtype: Any, name: str | None, shape: Any, validate_shape: bool) -> None:
        graph = graph_lib.get_default_graph()
        self._in_graph_mode = True
        with graph.name_scope(name or "Variable") as scope:
            handle_name = scope[:-1]
            with graph.name_scope("Initializer"):
                value = self._initial_tensor(initial_value, dtype)
            self._dtype = value.dtype.base_dtype
            self._shape = self._check_shape(value.shape, shape, validate_shape)
            self._handle = apply_op(
                "VarHandleOp",
                name=scope,  # "w/": the node takes the scope's own name, "w"
                dtype=self._dtype,
                shape=self._shape,
                shared_name=handle_name,
                debug_name=scope,
            )
            with graph.name_scope("IsInitialized"):
                self._is_initialized_op = apply_op("VarIsInitializedOp", resource=self._handle)
            self._initializer_op = _apply_update("AssignVariableOp", name="Assign", resource=self._handle, value=value)
            with graph.name_scope("Read"):
                self._graph_element = self._read(None)
        self._initial_value = value
        self._handle_name = handle_name + ":0"
        if not graph.building_function:
            graph.add_to_collections(self._graph_collections(), self)

    def _graph_collections(self) -> list[str]:
        """The graph collections a variable made in a v1 graph joins (``VariableV1`` takes them as an argument)."""
        return [GLOBAL_VARIABLES, TRAINABLE_VARIABLES] if self._trainable else [GLOBAL_VARIABLES]

    # ------------------------------------------------------------------ checkpoints (Trackable)

    def _serialize_to_tensors(self) -> dict[str, Any]:
        """The value, saved under TF's attribute name ``VARIABLE_VALUE``."""
        if not _executing_eagerly():
            raise NotImplementedError(
                f"Saving variable {self.name} of a v1 graph with tf.train.Checkpoint: use "
                "tf.compat.v1.train.Saver in Session programs"
            )
        return {"VARIABLE_VALUE": np.asarray(self.value())}

    def _check_restore(self, tensors: dict[str, Any], key_of: Callable[[str], str]) -> None:
        """TF's errors for a saved value of another dtype or shape (raised before anything is assigned)."""
        value = tensors.get("VARIABLE_VALUE")
        if value is None:
            return
        saved_dtype = dtypes.as_dtype(value.dtype) if value.dtype != np.object_ else dtypes.string
        if saved_dtype != self._dtype:
            from modtensor.framework import errors

            raise errors.InvalidArgumentError(
                None,
                None,
                f"tensor_name = {key_of('VARIABLE_VALUE')}; expected dtype {self._dtype.name} does not equal original "
                f"dtype {saved_dtype.name}",
            )
        if not self._shape.is_compatible_with(tensor_shape.TensorShape(value.shape)):
            raise ValueError(
                f"Received incompatible tensor with shape {tuple(value.shape)} when attempting to restore variable "
                f"with shape {tuple(self._shape.as_list()) if self._shape.rank is not None else None} and name "
                f"{self.name}. (checkpoint key {key_of('VARIABLE_VALUE')})"
            )

    def _restore_from_tensors(self, tensors: dict[str, Any]) -> None:
        """Assign the saved value (checked by ``_check_restore`` first)."""
        value = tensors.get("VARIABLE_VALUE")
        if value is not None:
            self.assign(value, read_value=False)

    # ------------------------------------------------------------------ properties

    @property
    def name(self) -> str:
        """``name:0``, with the name scopes it was created in."""
        return self._handle_name

    @property
    def dtype(self) -> dtypes.DType:
        """The dtype of the value."""
        return self._dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The static shape."""
        return self._shape

    def get_shape(self) -> tensor_shape.TensorShape:
        """Alias of :attr:`shape`."""
        return self._shape

    @property
    def handle(self) -> Any:
        """The resource tensor (eager: on the variable's device; graph: the VarHandleOp's output)."""
        return self._handle

    @property
    def device(self) -> str:
        """The device of the variable (graph mode: the device the VarHandleOp asks for)."""
        return self._handle.device

    @property
    def trainable(self) -> bool:
        """Whether optimizers and ``trainable_variables`` see it."""
        return self._trainable

    @property
    def constraint(self) -> Callable[[Any], Any] | None:
        """The projection function given at construction (applied by optimizers after updates)."""
        return self._constraint

    @property
    def synchronization(self) -> VariableSynchronization:
        """As given (one replica: no effect)."""
        return self._synchronization

    @property
    def aggregation(self) -> VariableAggregation:
        """As given (one replica: no effect)."""
        return self._aggregation

    @property
    def initializer(self) -> Any:
        """The op that assigns ``initial_value`` (v1 graphs; None eagerly)."""
        return self._initializer_op

    @property
    def initial_value(self) -> Any:
        """The initial value tensor (graph mode); RuntimeError eagerly, as TF."""
        if not self._in_graph_mode:
            raise RuntimeError("This property is not supported when eager execution is enabled.")
        return self._initial_value

    @property
    def op(self) -> Any:
        """The VarHandleOp (graph mode)."""
        return self._handle.op

    @property
    def graph(self) -> Any:
        """The graph of the handle (graph mode)."""
        return self._handle.graph

    # ------------------------------------------------------------------ reading

    def _op_scope(self) -> Any:
        """Where this variable's ops go: on its device when built into a function that captured it."""
        if self._in_graph_mode or _executing_eagerly():
            return contextlib.nullcontext()
        return graph_lib.get_default_graph().device(self._handle.device)

    def _accessed(self) -> None:
        """Tell the recording gradient tapes that this variable was read (they watch trainable ones)."""
        if self._trainable and _tape.ACTIVE:
            _tape.variable_accessed(self)

    def _read(self, name: str | None = "ReadVariableOp") -> Any:
        self._accessed()
        with self._op_scope():
            value = apply_op("ReadVariableOp", name=name, resource=self._handle, dtype=self._dtype)
        if not _executing_eagerly() and self._shape.rank is not None:
            value.set_shape(self._shape)
        return value

    def value(self) -> Any:
        """The current value as a tensor (a ``ReadVariableOp``)."""
        return self._read()

    def read_value(self) -> Any:
        """The current value, read now (graph mode: ``Read/ReadVariableOp`` + ``Identity``)."""
        if _executing_eagerly():
            return self._read()
        with graph_lib.get_default_graph().name_scope("Read"):
            value = self._read()
        return apply_op("Identity", input=value)

    def numpy(self) -> Any:
        """The value as numpy (eager only, as TF)."""
        if not _executing_eagerly():
            raise NotImplementedError("numpy() is only available when eager execution is enabled.")
        return self._read().numpy()

    def sparse_read(self, indices: Any, name: str | None = None) -> Any:
        """Rows ``indices`` of the value (``ResourceGather``)."""
        self._accessed()
        with self._op_scope():
            value = apply_op("ResourceGather", name=name, resource=self._handle, indices=indices, dtype=self._dtype)
        return value

    def gather_nd(self, indices: Any, name: str | None = None) -> Any:
        """Slices at ``indices`` (``ResourceGatherNd``)."""
        self._accessed()
        with self._op_scope():
            return apply_op("ResourceGatherNd", name=name, resource=self._handle, indices=indices, dtype=self._dtype)

    def is_initialized(self, name: str | None = None) -> Any:
        """A bool tensor: whether the variable holds a value (``VarIsInitializedOp``)."""
        with self._op_scope():
            return apply_op("VarIsInitializedOp", name=name, resource=self._handle)

    def eval(self, session: Any = None) -> Any:
        """v1: the value computed in ``session`` (default: the default session)."""
        if session is None:
            from modtensor.runtime.session import get_default_session

            session = get_default_session()
            if session is None:
                raise ValueError(
                    "Cannot evaluate tensor using `eval()`: No default session is registered. Use `with "
                    "sess.as_default()` or pass an explicit session to `eval(session=sess)`"
                )
        return session.run(self)

    def _as_graph_element(self) -> Any:
        """What a Session fetches for the variable: its ``Read/ReadVariableOp``."""
        return self._graph_element

    # ------------------------------------------------------------------ writing

    def _value_tensor(self, value: Any, what: str) -> Any:
        converted = _convert(value, self._dtype, name="Const")
        if not converted.shape.is_compatible_with(self._shape):
            raise ValueError(
                f"Cannot {what} value to variable ' {self.name}': Shape mismatch.The variable shape "
                f"{_shape_text(self._shape)}, and the assigned value shape {_shape_text(converted.shape)} are "
                "incompatible."
            )
        return converted

    def _update(self, op: str, value: Any, what: str, read_value: bool, name: str | None, **attrs: Any) -> Any:
        value = self._value_tensor(value, what)
        with self._op_scope():
            update = _apply_update(op, name=name, resource=self._handle, value=value, **attrs)
        return self._after_update(update, read_value)

    def _after_update(self, update: Any, read_value: bool) -> Any:
        """TF's ``_lazy_read``: the variable, read (when used) after ``update``; else None eagerly, the op in graphs."""
        if not read_value:
            return None if _executing_eagerly() else update
        return _UnreadVariable(self, None if _executing_eagerly() else update)

    def assign(
        self, value: Any, use_locking: bool | None = None, name: str | None = None, read_value: bool = True
    ) -> Any:
        """Set the value (``AssignVariableOp``); returns the variable (eager) or its new value (graph)."""
        del use_locking
        return self._update("AssignVariableOp", value, "assign", read_value, name)

    def assign_add(
        self, delta: Any, use_locking: bool | None = None, name: str | None = None, read_value: bool = True
    ) -> Any:
        """Add ``delta`` (``AssignAddVariableOp``)."""
        del use_locking
        return self._update("AssignAddVariableOp", delta, "add", read_value, name)

    def assign_sub(
        self, delta: Any, use_locking: bool | None = None, name: str | None = None, read_value: bool = True
    ) -> Any:
        """Subtract ``delta`` (``AssignSubVariableOp``)."""
        del use_locking
        return self._update("AssignSubVariableOp", delta, "subtract", read_value, name)

    def _scatter(self, op: str, indices: Any, updates: Any, name: str | None) -> Any:
        with self._op_scope():
            update = _apply_update(op, name=name, resource=self._handle, indices=indices, updates=updates)
        return self._after_update(update, True)

    def scatter_add(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Any:
        """Add ``sparse_delta`` (``IndexedSlices``-like: ``.indices``, ``.values``) to the rows it names."""
        del use_locking
        return self._scatter("ResourceScatterAdd", sparse_delta.indices, sparse_delta.values, name)

    def scatter_sub(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Any:
        """Subtract ``sparse_delta`` from the rows it names."""
        del use_locking
        return self._scatter("ResourceScatterSub", sparse_delta.indices, sparse_delta.values, name)

    def scatter_update(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Any:
        """Set the rows ``sparse_delta`` names to its values."""
        del use_locking
        return self._scatter("ResourceScatterUpdate", sparse_delta.indices, sparse_delta.values, name)

    def load(self, value: Any, session: Any = None) -> None:
        """v1: assign ``value`` in ``session`` (default: the default session)."""
        if _executing_eagerly():
            self.assign(value)
            return
        op = self.assign(value, read_value=False)
        if session is None:
            from modtensor.runtime.session import get_default_session

            session = get_default_session()
        session.run(op)

    # ------------------------------------------------------------------ tensor protocol and Python

    def __tf_tensor__(self, dtype: Any = None, name: str | None = None) -> Any:
        """The value as a tensor (TF's protocol); ValueError for another dtype, as TF."""
        del name
        if dtype is not None:
            requested = dtypes.as_dtype(dtype).base_dtype
            if requested != self._dtype and requested != dtypes.resource:
                raise ValueError(
                    f"Incompatible type conversion requested to type {requested.name} for `tf.Variable of type "
                    f"{self._dtype.name}. (Variable: {self!r})"
                )
        return self.value()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        del copy
        return np.asarray(self.numpy(), dtype=dtype)

    def __bool__(self) -> bool:
        return bool(self.value())

    def __int__(self) -> int:
        return int(self.value())

    def __float__(self) -> float:
        return float(self.value())

    def __index__(self) -> int:
        return self.value().__index__()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.value())

    def __hash__(self) -> int:
        if context.executing_eagerly_outside_functions():
            raise TypeError(
                f"Variable is unhashable. Instead, use variable.ref() as the key. (Variable: {self!r})"
            )
        return id(self)

    def ref(self) -> Any:
        """A hashable reference to the variable (for sets and dict keys)."""
        from modtensor.runtime.eager import Reference

        return Reference(self)

    experimental_ref = ref

    def __repr__(self) -> str:
        head = f"<tf.Variable '{self.name}' shape={self._shape} dtype={self._dtype.name}"
        if _executing_eagerly() and not self._in_graph_mode:
            from modtensor.runtime.eager import _numpy_text

            return f"{head}, numpy={_numpy_text(self._read(), True)}>"
        return head + ">"

    __str__ = __repr__

    def __copy__(self) -> Variable:
        return self

    def __deepcopy__(self, memo: Any) -> Variable:
        if not _executing_eagerly():
            raise NotImplementedError("deepcopy() is only available when eager execution is enabled.")
        copied = Variable(self.read_value(), trainable=self._trainable, name=self.name[:-2], dtype=self._dtype)
        memo[id(self)] = copied
        return copied


class _UnreadVariable(Variable):
    """What ``assign`` and friends return (TF's ``_UnreadVariable``): the same variable, whose reads in a graph
    wait for the update that made it; eagerly the update has already run."""

    def __init__(self, parent: Variable, parent_op: Any):  # noqa: D107 - shares the parent's state
        self.__dict__.update(parent.__dict__)
        self._parent_op = parent_op
        self._graph_element = None
        if parent_op is not None and not graph_lib.get_default_graph().building_function:
            self._graph_element = self._read()  # TF: a v1 graph gets the read a Session will fetch, now

    @property
    def name(self) -> str:
        """TF's names: ``UnreadVariable`` eagerly, the update op's name in a graph."""
        return "UnreadVariable" if self._parent_op is None else self._parent_op.name

    def _read(self, name: str | None = "ReadVariableOp") -> Any:
        if self._parent_op is None or _executing_eagerly():
            return super()._read(name)
        with graph_lib.get_default_graph().control_dependencies([self._parent_op]):
            return super()._read(name)

    def _as_graph_element(self) -> Any:
        if self._graph_element is None:
            self._graph_element = self.read_value()
        return self._graph_element

    @property
    def op(self) -> Any:
        """The update op (graph mode)."""
        return self._parent_op


def _operator(name: str) -> Callable[..., Any]:
    def method(self: Variable, *args: Any) -> Any:
        return getattr(self.value(), name)(*args)

    method.__name__ = name
    return method


def _equality(name: str) -> Callable[..., Any]:
    """``==``/``!=``: elementwise eagerly and in functions, identity in v1 graphs (as TF's Variable)."""
    identity = name == "__eq__"

    def method(self: Variable, other: Any) -> Any:
        if context.executing_eagerly_outside_functions():
            return getattr(self.value(), name)(other)
        return (self is other) if identity else (self is not other)

    method.__name__ = name
    return method


for _name in OVERLOADABLE_OPERATORS:
    setattr(Variable, _name, _operator(_name))
Variable.__eq__ = _equality("__eq__")  # type: ignore[method-assign,assignment]
Variable.__ne__ = _equality("__ne__")  # type: ignore[method-assign,assignment]
