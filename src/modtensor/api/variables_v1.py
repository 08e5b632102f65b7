"""TensorFlow 1's variable API (``modtensor.compat.v1``): collections, initializers, ``get_variable``, scopes.

v1 graphs keep their variables in the graph's ``variables`` / ``trainable_variables``
collections; ``global_variables_initializer()`` groups their initializers into one
``NoOp`` named ``init`` that a Session runs before anything reads them. ``get_variable``
creates or reuses variables by name inside ``variable_scope``s, with TF's default
initializer (Glorot uniform for floats, zeros otherwise) and TF's reuse errors.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from modtensor.api import context
from modtensor.api.variables import (
    GLOBAL_VARIABLES,
    TRAINABLE_VARIABLES,
    Variable,
    VariableAggregation,
    VariableSynchronization,
    init_scope,
)
from modtensor.framework import dtypes, op_def_library, tensor_shape
from modtensor.framework import graph as graph_lib

__all__ = [
    "AUTO_REUSE",
    "VariableV1",
    "assign",
    "assign_add",
    "assign_sub",
    "get_variable",
    "get_variable_scope",
    "global_variables",
    "global_variables_initializer",
    "initialize_all_variables",
    "is_variable_initialized",
    "local_variables",
    "local_variables_initializer",
    "trainable_variables",
    "variable_scope",
    "variables_initializer",
]

LOCAL_VARIABLES = "local_variables"  # TF's GraphKeys.LOCAL_VARIABLES

_log = logging.getLogger("modtensor")


def _collection_keys(collections: Any) -> list[str] | None:
    """``collections`` as a list (None stays None), with TF's error for anything but a list, tuple or set."""
    if collections is None:
        return None
    if not isinstance(collections, (list, tuple, set)):
        raise ValueError(
            "collections argument to Variable constructor must be a list, tuple, or set. Got "
            f"{collections} of type {type(collections)}"
        )
    return list(collections)


class VariableV1(Variable):
    """``tf.compat.v1.Variable``: ``tf.Variable`` with TF 1's ``collections``, ``expected_shape`` and ``use_resource``.

    In a v1 graph the variable joins ``collections`` (default: the global variables) and, when trainable, the
    trainable variables. ``expected_shape`` is ignored, as in TF. modtensor has no reference variables: with
    ``use_resource=False`` in a graph (where TF would make a ``RefVariable``) it makes a resource variable and logs a
    warning; in eager code TF makes a resource variable too.
    """

    def __init__(
        self,
        initial_value: Any = None,
        trainable: bool | None = None,
        collections: Any = None,
        validate_shape: bool = True,
        caching_device: Any = None,
        name: str | None = None,
        variable_def: Any = None,
        dtype: Any = None,
        expected_shape: Any = None,
        import_scope: str | None = None,
        constraint: Callable[[Any], Any] | None = None,
        use_resource: bool | None = None,
        synchronization: VariableSynchronization = VariableSynchronization.AUTO,
        aggregation: VariableAggregation = VariableAggregation.NONE,
        shape: Any = None,
    ):
        del expected_shape  # deprecated and ignored in TF
        self._v1_collections = _collection_keys(collections)
        if use_resource is False and not context.executing_eagerly():
            _log.warning(
                "tf.compat.v1.Variable(use_resource=False): modtensor has no reference variables; %s is a resource "
                "variable",
                name or "Variable",
            )
        super().__init__(
            initial_value,
            trainable=trainable,
            validate_shape=validate_shape,
            caching_device=caching_device,
            name=name,
            variable_def=variable_def,
            dtype=dtype,
            import_scope=import_scope,
            constraint=constraint,
            synchronization=synchronization,
            aggregation=aggregation,
            shape=shape,
        )

    def _graph_collections(self) -> list[str]:
        keys = list(self._v1_collections) if self._v1_collections is not None else [GLOBAL_VARIABLES]
        if self._trainable and TRAINABLE_VARIABLES not in keys:
            keys.append(TRAINABLE_VARIABLES)
        return keys


class _ReuseMode:
    """TF's ``tf.compat.v1.AUTO_REUSE``: create a variable when it does not exist, else reuse it."""

    def __repr__(self) -> str:
        return "AUTO_REUSE"


AUTO_REUSE = _ReuseMode()


def _collection(name: str, scope: str | None = None) -> list[Any]:
    if context.executing_eagerly():
        return []  # eager code keeps no collections, as TF 2
    return graph_lib.get_default_graph().get_collection(name, scope)


def global_variables(scope: str | None = None) -> list[Any]:
    """The default graph's variables (``GLOBAL_VARIABLES``), optionally those whose names match ``scope``."""
    return _collection(GLOBAL_VARIABLES, scope)


def trainable_variables(scope: str | None = None) -> list[Any]:
    """The default graph's trainable variables."""
    return _collection(TRAINABLE_VARIABLES, scope)


def local_variables(scope: str | None = None) -> list[Any]:
    """The default graph's local variables (modtensor creates none itself)."""
    return _collection(LOCAL_VARIABLES, scope)


def variables_initializer(var_list: Sequence[Any], name: str = "init") -> Any:
    """One op running every variable's initializer (a ``NoOp`` with them as control inputs)."""
    if context.executing_eagerly():
        return None
    graph = graph_lib.get_default_graph()
    initializers = [v.initializer for v in var_list if v.initializer is not None]
    with graph.control_dependencies(initializers):
        return op_def_library.apply_op("NoOp", name=name)


def global_variables_initializer() -> Any:
    """``variables_initializer(global_variables())``, the op named ``init`` (None eagerly)."""
    if context.executing_eagerly():
        return None
    return variables_initializer(global_variables())


initialize_all_variables = global_variables_initializer


def local_variables_initializer() -> Any:
    """``variables_initializer(local_variables())``, named ``init_1`` when ``init`` exists, as TF."""
    if context.executing_eagerly():
        return None
    return variables_initializer(local_variables())


def is_variable_initialized(variable: Variable) -> Any:
    """A bool tensor: whether ``variable`` holds a value in the session that runs it."""
    return variable.is_initialized()


def assign(ref: Variable, value: Any, validate_shape: Any = None, use_locking: Any = None, name: Any = None) -> Any:
    """v1 ``tf.assign``: ``ref.assign(value)``."""
    del validate_shape, use_locking
    return ref.assign(value, name=name)


def assign_add(ref: Variable, value: Any, use_locking: Any = None, name: Any = None) -> Any:
    """v1 ``tf.assign_add``: ``ref.assign_add(value)``."""
    del use_locking
    return ref.assign_add(value, name=name)


def assign_sub(ref: Variable, value: Any, use_locking: Any = None, name: Any = None) -> Any:
    """v1 ``tf.assign_sub``: ``ref.assign_sub(value)``."""
    del use_locking
    return ref.assign_sub(value, name=name)


# ---------------------------------------------------------------------------------------------- scopes


class VariableScope:
    """A v1 variable scope: a name prefix for ``get_variable`` and whether it reuses variables."""

    def __init__(self, name: str = "", reuse: Any = None, initializer: Any = None, dtype: Any = None):
        self.name = name
        self.reuse = reuse
        self.initializer = initializer
        self.dtype = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)

    @property
    def original_name_scope(self) -> str:
        """The name scope opened with this variable scope."""
        return self.name + "/" if self.name else ""

    def reuse_variables(self) -> None:
        """Reuse variables from now on in this scope."""
        self.reuse = True


class _ScopeState(threading.local):
    def __init__(self) -> None:
        self.stack: list[VariableScope] = []


_SCOPES = _ScopeState()
_STORE_ATTR = "_modtensor_variable_store"


def get_variable_scope() -> VariableScope:
    """The innermost ``variable_scope`` (the root scope outside any)."""
    return _SCOPES.stack[-1] if _SCOPES.stack else VariableScope()


@contextlib.contextmanager
def variable_scope(
    name_or_scope: str | VariableScope | None,
    default_name: str | None = None,
    values: Any = None,
    initializer: Any = None,
    reuse: Any = None,
    dtype: Any = None,
    **_: Any,
) -> Iterator[VariableScope]:
    """``tf.compat.v1.variable_scope``: nest a variable name prefix (and the same name scope), set reuse."""
    del values
    outer = get_variable_scope()
    if isinstance(name_or_scope, VariableScope):
        full = name_or_scope.name
    else:
        base = name_or_scope if name_or_scope is not None else default_name
        if base is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        full = f"{outer.name}/{base}" if outer.name else base
    if reuse is False:
        reuse = None
    inherited = True if outer.reuse is True else reuse
    scope = VariableScope(
        full,
        reuse=inherited if inherited is not None else None,
        initializer=initializer if initializer is not None else outer.initializer,
        dtype=dtype if dtype is not None else outer.dtype,
    )
    _SCOPES.stack.append(scope)
    try:
        with context.name_scope(full.rsplit("/", 1)[-1] if full else "") as _:
            yield scope
    finally:
        _SCOPES.stack.pop()


def _store() -> dict[str, Variable]:
    graph = graph_lib.get_default_graph()
    store = graph.__dict__.get(_STORE_ATTR)
    if store is None:
        store = {}
        setattr(graph, _STORE_ATTR, store)
    return store


def _default_initializer(name: str, shape: tensor_shape.TensorShape, dtype: dtypes.DType) -> Any:
    """TF's default: Glorot uniform for floating dtypes, zeros for integers, bool and strings; else TF's error."""
    dims = shape.as_list()
    if dtype.is_floating:
        from modtensor.api.random_ops import uniform

        fan_in, fan_out = _fans(dims)
        limit = math.sqrt(3.0 / max(1.0, (fan_in + fan_out) / 2.0))  # TF: variance scaling 1.0, fan_avg, uniform
        return lambda: uniform(dims, -limit, limit, dtype=dtype)
    if dtype.is_integer or dtype == dtypes.bool or dtype == dtypes.string:
        from modtensor.api.array_ops import zeros

        return lambda: zeros(dims, dtype=dtype)
    raise ValueError(f"An initializer for variable {name} of {dtype.name} is required")


def _fans(dims: list[int]) -> tuple[float, float]:
    """TF's _compute_fans: (fan_in, fan_out) of a kernel shape."""
    if len(dims) < 1:
        return 1.0, 1.0
    if len(dims) == 1:
        return float(dims[0]), float(dims[0])
    if len(dims) == 2:
        return float(dims[0]), float(dims[1])
    receptive = math.prod(dims[:-2])
    return float(dims[-2] * receptive), float(dims[-1] * receptive)


def get_variable(
    name: str,
    shape: Any = None,
    dtype: Any = None,
    initializer: Any = None,
    regularizer: Any = None,
    trainable: bool | None = None,
    collections: Any = None,
    caching_device: Any = None,
    partitioner: Any = None,
    validate_shape: bool = True,
    use_resource: Any = None,
    custom_getter: Any = None,
    constraint: Any = None,
    synchronization: Any = None,
    aggregation: Any = None,
) -> Variable:
    """``tf.compat.v1.get_variable``: the variable ``scope/name``, created (unless the scope reuses) or reused.

    ``initializer`` may be a callable ``(shape, dtype=..)``, a tensor or a Python/numpy value;
    without one, floats get TF's Glorot uniform and integers zeros.
    """
    del regularizer, caching_device, custom_getter, synchronization, aggregation
    if partitioner is not None:
        raise NotImplementedError("get_variable(partitioner=...) is not supported by modtensor")
    scope = get_variable_scope()
    full = f"{scope.name}/{name}" if scope.name else name
    store = _store()
    existing = store.get(full)
    if scope.reuse is True or (scope.reuse is AUTO_REUSE and existing is not None):
        if existing is None:
            raise ValueError(
                f"Variable {full} does not exist, or was not created with tf.get_variable(). Did you mean to set "
                "reuse=tf.AUTO_REUSE in VarScope?"
            )
        if shape is not None and not tensor_shape.as_shape(shape).is_compatible_with(existing.shape):
            raise ValueError(
                f"Trying to share variable {full}, but specified shape {tensor_shape.as_shape(shape)} and found "
                f"shape {existing.shape}."
            )
        return existing
    if existing is not None:
        raise ValueError(
            f"Variable {full} already exists, disallowed. Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in "
            "VarScope?"
        )
    dtype = dtypes.as_dtype(dtype) if dtype is not None else scope.dtype
    initializer = initializer if initializer is not None else scope.initializer
    if initializer is None:
        if shape is None:
            raise ValueError(f"Shape of a new variable ({full}) must be fully defined, but instead was None.")
        shape = tensor_shape.as_shape(shape)
        initial: Any = _default_initializer(full, shape, dtype)
    elif callable(initializer):
        init_shape = tensor_shape.as_shape(shape).as_list() if shape is not None else None
        initial = lambda: initializer(init_shape, dtype=dtype)  # noqa: E731 - TF calls it lazily, inside the scope
    else:
        initial = initializer
        if shape is not None and not hasattr(initializer, "shape"):
            shape = None  # a Python value gives its own shape (TF rejects a shape with a constant initializer)
    with contextlib.ExitStack() as stack:
        if not context.executing_eagerly():
            graph = graph_lib.get_default_graph()
            stack.enter_context(graph.name_scope(None))
            if scope.name:
                stack.enter_context(graph.name_scope(scope.name + "/"))
        else:
            stack.enter_context(init_scope())
        variable = VariableV1(
            initial,
            trainable=trainable,
            collections=collections,
            name=name,
            dtype=dtype,
            shape=shape,
            validate_shape=validate_shape,
            constraint=constraint,
            use_resource=use_resource,
        )
    store[full] = variable
    return variable
