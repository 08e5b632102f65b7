"""``modtensor.function`` (TensorFlow's ``tf.function``): trace a Python function once per signature, run the graph.

A call canonicalizes its arguments against the Python signature (defaults filled),
and builds a cache key from them: tensors (eager tensors, numpy arrays and scalars)
by dtype and shape, other Python values by value (by identity when unhashable),
nested lists/tuples/dicts by structure. A miss traces the function into a
``FuncGraph`` (``framework.func_graph``) and keeps the result as a
``ConcreteFunction``; a hit feeds the tensors to the concrete function's compiled
plan. ``input_signature=[TensorSpec(...)]`` fixes one trace whose placeholders may
have unknown dimensions; ``reduce_retracing=True`` generalizes differing dimensions
to None after a second shape is seen, as TensorFlow does.

Execution: each concrete function hands its GraphDef to execution once, in
:func:`compile_function_graph` (the single place where a graph optimizer will sit),
and runs the compiled plan on every call; outputs come back as eager tensors.
Called while a graph is being built (inside another function's trace or in a v1
``Graph``), a function becomes a ``PartitionedCall`` (``StatefulPartitionedCall``)
node naming its trace, which goes into the graph's function library as the
FunctionDef ``__inference_NAME_N``, as TensorFlow builds nested functions; the
graph optimizer inlines such calls, the call kernel runs what it does not.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from modtensor.api import context
from modtensor.framework import dtypes, errors, op_def_library, tensor_shape
from modtensor.framework import graph as graph_lib
from modtensor.framework import tape as _tape
from modtensor.framework.func_graph import (
    FuncGraph,
    flatten_structure,
    func_graph_from_py_func,
    is_namedtuple,
    pack_structure,
)
from modtensor.framework.graph import SymbolicTensor
from modtensor.framework.protos import attr_value_pb2, config_pb2
from modtensor.framework.tensor import Tensor, TensorSpec
from modtensor.runtime import context as runtime_context
from modtensor.runtime import eager, graph_execution

__all__ = ["ConcreteFunction", "Function", "compile_function_graph", "function"]


# ============================================================================ execution hook


def compile_function_graph(
    graph_def: Any,
    feeds: Sequence[str],
    fetches: Sequence[str],
    targets: Sequence[str],
    default_device: str | None = None,
    feed_devices: Sequence[Any] | None = None,
) -> Any:
    """Hand a traced function's GraphDef to graph execution and return the compiled plan (``CompiledGraph``).

    The one place where a function's graph meets the runtime: the graph optimizer goes here.
    Soft placement is on, as for TensorFlow 2's functions (``tf.config.get_soft_device_placement()``
    defaults to True): a device scope naming a device without a kernel falls back to one that has it.
    ``default_device`` (the eager device scope of the call) is where ops without a device go when they can.
    ``feed_devices`` are the devices of the argument tensors (their values are fed there, not copied through
    the host); outputs stay on the devices that produced them.
    """
    if default_device is not None:
        from modtensor.framework.device_spec import DeviceSpec
        from modtensor.runtime import device_factory

        spec = DeviceSpec.from_string(default_device).replace(job=None, replica=None, task=None)
        if not device_factory.device_set().find(spec):
            default_device = None  # soft placement: a scope naming no device of this process is ignored
    options = graph_execution.ExecutionOptions(
        allow_soft_placement=True, default_device=default_device, fetches_on_device=True
    )
    return graph_execution.compile_graph(graph_def, feeds, fetches, targets, options, feed_devices=feed_devices)


# ============================================================================ eager glue


_executing_eagerly = context.executing_eagerly


def _to_eager(value: Any, dtype: dtypes.DType | None = None) -> Any:
    """``value`` as an eager tensor of ``dtype`` (TF's conversion rules); TypeError/ValueError when it cannot be."""
    return eager.convert_to_eager_tensor(value, dtype)


def _wrap_outputs(placed: Sequence[tuple[Any, Any]], outputs: Sequence[Any]) -> list[Any]:
    """The compiled plan's (value, device) fetches as eager tensors on those devices (no copy)."""
    return [eager.tensor_on_device(v, t.dtype, d) for (v, d), t in zip(placed, outputs, strict=True)]


def _feed_value(value: Any) -> Any:
    """The device value (numpy array on CPU) of an eager tensor or numpy value, for feeding a placeholder."""
    device_value = getattr(value, "_value", None)
    if device_value is not None:
        return device_value
    return np.asarray(value)


def _feed_device(value: Any) -> Any:
    """The device an eager tensor's value is in (None for host values: numpy, CPU tensors)."""
    device = getattr(value, "_device", None)
    return None if device is None or device.is_host else device


# ============================================================================ argument handling


def _is_tensor_like(value: Any) -> bool:
    return isinstance(value, (Tensor, np.ndarray, np.generic, TensorSpec))


def _dims_of(value: Any) -> tuple[int | None, ...] | None:
    """The shape of a tensor-like value as a hashable tuple (None for unknown rank)."""
    device_value = getattr(value, "_value", None)
    if device_value is not None:
        return tuple(device_value.shape)
    if isinstance(value, (np.ndarray, np.generic)):
        return value.shape
    return _shape_dims(value.shape)


def _shape_dims(shape: Any) -> tuple[int | None, ...] | None:
    """A static shape as a tuple of sizes (None for unknown ones), or None for an unknown rank."""
    shape = tensor_shape.as_shape(shape)
    return None if shape.rank is None else tuple(shape.as_list())


def _dtype_of(value: Any) -> dtypes.DType:
    if isinstance(value, (np.ndarray, np.generic)):
        return dtypes.as_dtype(value.dtype)
    return value.dtype.base_dtype


class _ByIdentity:
    """A cache-key element for an unhashable Python value: equal only to itself (holds the value alive)."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ByIdentity) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


def _encode(value: Any, tensors: list[Any]) -> Any:
    """The cache-key part for ``value``; appends its tensor leaves to ``tensors`` in flattening order."""
    if _is_tensor_like(value):
        tensors.append(value)
        return (_dtype_of(value), _dims_of(value))
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_encode(item, tensors) for item in value))
    if isinstance(value, Mapping):
        keys = sorted(value)
        return (type(value), tuple(keys), tuple(_encode(value[k], tensors) for k in keys))
    try:
        hash(value)
    except TypeError:
        return _ByIdentity(value)
    return (type(value), value)


def _call_key(args: tuple[Any, ...], kwargs: dict[str, Any], tensors: list[Any]) -> Any:
    """The cache key of canonical call arguments; appends their tensors to ``tensors`` in placeholder order.

    Eager tensors at the top level (the common call) are keyed inline, without the generic walk.
    """
    parts = []
    eager_tensor = eager.EagerTensor
    for arg in args:
        if type(arg) is eager_tensor:
            tensors.append(arg)
            parts.append((arg._dtype, tuple(arg._value.shape)))
        else:
            parts.append(_encode(arg, tensors))
    key = tuple(parts)
    return (key, _encode(kwargs, tensors)) if kwargs else key


def _specs_for(structure: Any, shapes: Sequence[Any] | None = None) -> Any:
    """``structure`` with its tensor leaves replaced by TensorSpecs (with ``shapes``, in order, when given)."""
    out: list[Any] = []
    position = 0
    for leaf in flatten_structure(structure):
        if not _is_tensor_like(leaf):
            out.append(leaf)
            continue
        name = leaf.name if isinstance(leaf, TensorSpec) else None
        shape = _dims_of(leaf) if shapes is None else shapes[position]
        out.append(TensorSpec(shape, _dtype_of(leaf), name))
        position += 1
    return pack_structure(structure, out)


def _skeleton(structure: Any) -> Any:
    """The cache key with tensor shapes left out: what ``reduce_retracing`` generalizes over."""
    return _strip_shapes(_encode(structure, []))


def _strip_shapes(key: Any) -> Any:
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], dtypes.DType):
        return key[0]
    if isinstance(key, tuple):
        return tuple(_strip_shapes(k) for k in key)
    return key


def _most_specific_common_shape(a: Any, b: Any) -> tuple[int | None, ...] | None:
    """TF's shape supertype: same rank keeps equal dimensions and makes others None; else unknown rank."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b, strict=True))


def _shape_compatible(spec_dims: Any, dims: Any) -> bool:
    if spec_dims is None:
        return True
    if dims is None or len(spec_dims) != len(dims):
        return False
    return all(s is None or d is None or s == d for s, d in zip(spec_dims, dims, strict=True))


class _CapturedDefault:
    """How TF prints a parameter default in binding errors."""

    def __repr__(self) -> str:
        return "<captured_default_value>"


class _SpecAnnotation:
    """A nested input_signature element printed as TF prints its type (``List[TensorSpec(...), ...]``)."""

    def __init__(self, structure: Any):
        self.structure = structure

    def __repr__(self) -> str:
        return _structure_text(self.structure)


def _structure_text(structure: Any) -> str:
    if isinstance(structure, TensorSpec):
        return repr(structure)
    if isinstance(structure, list):
        return f"List[{', '.join(_structure_text(s) for s in structure)}]"
    if isinstance(structure, tuple):
        return f"Tuple[{', '.join(_structure_text(s) for s in structure)}]"
    if isinstance(structure, Mapping):
        items = ", ".join(f"[{k!r}, {_structure_text(structure[k])}]" for k in sorted(structure))
        return f"Dict[{items}]"
    return repr(structure)


def _binding_error(reason: Any, args: Sequence[Any], kwargs: Mapping[str, Any], signature_text: str) -> TypeError:
    return TypeError(
        f"Binding inputs to tf.function failed due to `{reason}`. Received args: {tuple(args)!r} and kwargs: "
        f"{dict(kwargs)!r} for signature: {signature_text}."
    )


class _CastError(Exception):
    """An argument that does not fit its input_signature element (the text TF puts in the binding error)."""


def _match_signature(value: Any, spec: Any, leaves: list[tuple[Any, TensorSpec]]) -> None:
    """Flatten ``value`` along the input_signature element ``spec``, pairing each leaf with its TensorSpec."""
    if isinstance(spec, TensorSpec):
        leaves.append((value, spec))
        return
    if isinstance(spec, (list, tuple)):
        kind = "list" if isinstance(spec, list) else "tuple"
        if not isinstance(value, (list, tuple)) or len(value) != len(spec):
            raise _CastError(f"Can not cast {value!r} to {kind} type.")
        for item, item_spec in zip(value, spec, strict=True):
            _match_signature(item, item_spec, leaves)
        return
    if isinstance(spec, Mapping):
        if not isinstance(value, Mapping) or sorted(value) != sorted(spec):
            raise _CastError(f"Can not cast {value!r} to dict type.")
        for key in sorted(spec):
            _match_signature(value[key], spec[key], leaves)
        return
    raise _CastError(f"Can not cast {value!r} to {spec!r}.")  # pragma: no cover - signatures are validated


# ============================================================================ concrete functions


_CONCRETE_IDS = itertools.count(1)


class ConcreteFunction:
    """One trace of a function: its FuncGraph and the compiled plan that runs it (compiled on first call).

    Callable with arguments of the traced signature; returns eager tensors in the
    function's result structure.
    """

    def __init__(self, graph: FuncGraph, function: Function | None = None):
        self._graph = graph
        self._function = function
        self._num_args = len(graph.inputs) - len(graph.internal_captures)
        self._compiled: dict[str | None, Any] = {}  # compiled plan per eager device scope of the call
        self._lock = threading.Lock()
        self._pack_outputs = _packer(graph.structured_outputs)
        self._inference_name = f"__inference_{graph.name}_{next(_CONCRETE_IDS)}"
        self._fdef: Any = None

    # ----------------------------------------------------------------- TF's attributes

    @property
    def graph(self) -> FuncGraph:
        """The FuncGraph the function was traced into."""
        return self._graph

    @property
    def name(self) -> str:
        """The traced function's name."""
        return self._graph.name

    @property
    def inputs(self) -> list[SymbolicTensor]:
        """The placeholders: arguments first, then one per captured tensor."""
        return list(self._graph.inputs)

    @property
    def outputs(self) -> list[SymbolicTensor]:
        """The flat output tensors (each an ``Identity``)."""
        return list(self._graph.outputs)

    @property
    def structured_outputs(self) -> Any:
        """The outputs in the structure the Python function returned."""
        return self._graph.structured_outputs

    @property
    def output_shapes(self) -> Any:
        """The static shape of each output, in the structure of ``structured_outputs`` (TF's property)."""
        outputs = self.structured_outputs
        return pack_structure(outputs, [getattr(t, "shape", None) for t in flatten_structure(outputs)])

    @property
    def output_dtypes(self) -> Any:
        """The dtype of each output, in the structure of ``structured_outputs`` (TF's property)."""
        outputs = self.structured_outputs
        return pack_structure(outputs, [getattr(t, "dtype", None) for t in flatten_structure(outputs)])

    @property
    def structured_input_signature(self) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
        """``(args, kwargs)`` of the trace, tensors shown as TensorSpecs."""
        return self._graph.structured_input_signature

    @property
    def captured_inputs(self) -> list[Tensor]:
        """The outside tensors fed to the capture placeholders on every call."""
        return self._graph.external_captures

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.name}{self._signature_text()} at 0x{id(self):X}>"

    def _signature_text(self) -> str:
        signature = self.structured_input_signature or ((), {})
        parts = [repr(a) for a in signature[0]] + [f"{k}={v!r}" for k, v in signature[1].items()]
        return f"({', '.join(parts)})"

    # ----------------------------------------------------------------- calling

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run with arguments matching the traced signature (TensorSpec positions take tensors)."""
        signature = self.structured_input_signature or ((), {})
        if self._function is not None:
            args, kwargs = self._function._canonicalize(args, kwargs)
        values = flatten_structure((tuple(args), dict(kwargs)))
        specs = flatten_structure((signature[0], signature[1]))
        if len(values) != len(specs):
            raise TypeError(
                f"{self.name}: expected arguments matching {self._signature_text()}, got args {args!r} and "
                f"kwargs {kwargs!r}."
            )
        tensors: list[Any] = []
        for value, spec in zip(values, specs, strict=True):
            if isinstance(spec, TensorSpec):
                tensors.append(_checked_tensor(value, spec, self.name))
            elif value is not spec and not _python_equal(value, spec):
                raise TypeError(
                    f"{self.name}: the concrete function was traced with the Python value {spec!r}, got {value!r}; "
                    "call the function itself (not this trace) to trace for another value."
                )
        if not _executing_eagerly():
            return _call_in_graph(self, tensors)
        return self._call_flat(tensors)

    def _function_def(self) -> Any:
        """This trace as the FunctionDef ``__inference_NAME_N`` (made once) that call nodes name."""
        if self._fdef is None:
            from modtensor.api.gradients.function_grad import register_function_graph

            self._fdef = self._graph.to_function_def(self._inference_name)
            register_function_graph(self._inference_name, self._graph)  # call nodes' gradients find the graph
        return self._fdef

    def _compiled_plan(self, feed_devices: tuple[Any, ...] = (), extra_fetches: tuple[str, ...] = ()) -> Any:
        # Compiled per eager device scope of the call and per device of the arguments: as in TF, a
        # function called under `with tf.device(...)` places its ops without a device of their own
        # there, and arguments on a device are fed there (TF instantiates per argument devices).
        scope = runtime_context.eager_device_scope()
        scope_name = None if scope is None else scope.name
        key: Any = (scope_name, feed_devices) if any(d is not None for d in feed_devices) else scope_name
        if extra_fetches:
            key = (key, extra_fetches)
        plan = self._compiled.get(key)
        if plan is None:
            with self._lock:
                plan = self._compiled.get(key)
                if plan is None:
                    graph = self._graph
                    # A call without a tape runs the function as traced, without what gradients added to it
                    # (accumulators of loops, intermediates of conds: api/gradients/function_grad.py).
                    snapshot = None if extra_fetches else self.__dict__.get("_inference_snapshot")
                    if snapshot is None:
                        targets = [op.name for op in graph.get_operations() if op.op_def.is_stateful]
                        snapshot = (graph.as_graph_def(), targets)
                    graph_def, targets = snapshot
                    plan = self._compiled[key] = compile_function_graph(
                        graph_def,
                        [t.name for t in graph.inputs],
                        [*[t.name for t in graph.outputs], *extra_fetches],
                        targets,
                        default_device=scope_name,
                        feed_devices=feed_devices or None,
                    )
        return plan

    def _call_flat(self, tensors: Sequence[Any]) -> Any:
        """Run on flat argument tensors (in placeholder order); returns the structured eager outputs."""
        inputs = list(tensors)
        for external in self._graph.external_captures:
            if isinstance(external, SymbolicTensor):
                raise ValueError(
                    f"Function '{self.name}' captured the graph tensor {external.name} and can only be called while "
                    "building that graph."
                )
            inputs.append(external)
        return self._pack_outputs(iter(self._call_with_inputs(inputs)))

    def _call_with_inputs(self, inputs: Sequence[Any]) -> list[Any]:
        """Run on one value per graph input (arguments, then captures); the flat eager outputs.

        Under a gradient tape that watches an input, the call is recorded as one op whose
        backward function is this function's backward function (``gradients.function_grad``).
        """
        if _tape.could_record() and _tape.should_record(inputs):
            return self._call_recorded(inputs)
        return self._run(inputs)[0]

    def _run(self, inputs: Sequence[Any], extra_fetches: Sequence[Any] = ()) -> tuple[list[Any], list[Any]]:
        feeds = [_feed_value(t) for t in inputs]
        devices = [_feed_device(t) for t in inputs]
        try:
            plan = self._compiled_plan(tuple(devices), tuple(t.name for t in extra_fetches))
        except errors.OpError as e:  # building the graph's plan failed (TF: no "Graph execution error" text)
            raise type(e)(e.node_def, e.op, f"{e.message} [Op:{self._inference_name}]") from e
        try:
            results = plan.run_placed(feeds)
        except errors.OpError as e:
            # TF's form for errors of a function's graph: "Graph execution error:" ... "[Op:__inference_f_12]".
            raise type(e)(e.node_def, e.op, f"Graph execution error:\n\n{e.message} [Op:{self._inference_name}]") from e
        tensors = _wrap_outputs(results, [*self._graph.outputs, *extra_fetches])
        n = len(self._graph.outputs)
        return tensors[:n], tensors[n:]

    def _call_recorded(self, inputs: Sequence[Any]) -> list[Any]:
        """A call under a tape: the forward function also returns what the backward function reads; one op is
        recorded whose backward function runs the backward function on those values."""
        from modtensor.api.gradients import function_grad

        return function_grad.call_recorded(self, inputs)


def _packer(structure: Any) -> Callable[[Any], Any]:
    """A function rebuilding ``structure`` (traced outputs) from an iterator over its tensors; None leaves stay None.

    Made once per concrete function, so a call does no structure inspection.
    """
    if structure is None:
        return lambda it: None
    if is_namedtuple(structure):
        parts = [_packer(item) for item in structure]
        cls = type(structure)
        return lambda it: cls(*[part(it) for part in parts])
    if isinstance(structure, (list, tuple)):
        parts = [_packer(item) for item in structure]
        if isinstance(structure, list):
            return lambda it: [part(it) for part in parts]
        cls = type(structure)
        return lambda it: cls([part(it) for part in parts])
    if isinstance(structure, Mapping):
        keys = sorted(structure)
        key_parts = [(key, _packer(structure[key])) for key in keys]
        order = list(structure)
        cls = type(structure)

        def pack_mapping(it: Any) -> Any:
            values = {key: part(it) for key, part in key_parts}
            return cls((key, values[key]) for key in order)

        return pack_mapping
    return next


def _python_equal(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - values whose == raises or is not a bool are simply different
        return False


def _checked_tensor(value: Any, spec: TensorSpec, name: str) -> Any:
    """``value`` for a placeholder of ``spec`` in a direct ConcreteFunction call: converted and checked."""
    if isinstance(value, Tensor):
        tensor = value
    else:
        try:
            tensor = _to_eager(value, spec.dtype) if _executing_eagerly() else value
        except (TypeError, ValueError) as e:
            raise TypeError(f"{name}: cannot convert {value!r} to a tensor of dtype {spec.dtype.name}: {e}") from None
        if not isinstance(tensor, Tensor):
            return tensor
    if tensor.dtype.base_dtype != spec.dtype or not _shape_compatible(_shape_dims(spec.shape), _dims_of(tensor)):
        raise TypeError(
            f"{name}: argument {tensor!r} does not match {spec!r} of the concrete function (dtype {tensor.dtype.name}, "
            f"shape {tensor.shape})."
        )
    return tensor


def _call_in_graph(concrete: ConcreteFunction, tensors: Sequence[Any], all_inputs: bool = False) -> Any:
    """A call of ``concrete`` in the graph being built: a ``PartitionedCall`` node (``StatefulPartitionedCall``
    when the function has stateful ops) naming the function, which goes into the graph's library with the
    functions it calls, as TensorFlow builds nested functions. The captured tensors follow the arguments.
    """
    outer = graph_lib.get_default_graph()
    graph = concrete.graph
    name = concrete._inference_name
    if not outer._is_function(name):
        graph.add_to_graph(outer, concrete._function_def())
    inputs: list[Any] = []
    values = list(tensors) if all_inputs else [*tensors, *graph.external_captures]
    for value, placeholder in zip(values, graph.inputs, strict=True):
        if isinstance(value, eager.EagerTensor) and not outer.building_function:
            value = value.numpy()  # a v1 graph holds an eager value as a Const
        if not isinstance(value, SymbolicTensor) or value.graph is not outer:
            value = op_def_library.convert_to_tensor(value, dtype=placeholder.dtype, graph=outer)
        inputs.append(value)
    stateful = any(op.op_def.is_stateful for op in graph.get_operations())
    op_type = "StatefulPartitionedCall" if stateful else "PartitionedCall"
    config = config_pb2.ConfigProto(allow_soft_placement=True).SerializeToString(deterministic=True)
    attrs = {
        "f": attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name=name)),
        "Tin": attr_value_pb2.AttrValue(
            list=attr_value_pb2.AttrValue.ListValue(type=[t.dtype.as_datatype_enum for t in inputs])
        ),
        "Tout": attr_value_pb2.AttrValue(
            list=attr_value_pb2.AttrValue.ListValue(type=[t.dtype.as_datatype_enum for t in graph.outputs])
        ),
        "config_proto": attr_value_pb2.AttrValue(s=config),
        "executor_type": attr_value_pb2.AttrValue(s=b""),
        "config": attr_value_pb2.AttrValue(s=b""),
    }
    op = outer.create_op(op_type, inputs, name=op_type, attrs=attrs)
    empty = attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue())
    op._set_attr("_read_only_resource_inputs", empty)
    op._set_attr("_collective_manager_ids", empty)
    for result, traced in zip(op.outputs, graph.outputs, strict=True):
        result.set_shape(traced.shape)
    return concrete._pack_outputs(iter(op.outputs))


# ============================================================================ tf.function


_GRAPH_CACHE_ATTR = "_modtensor_function_traces"


def _graph_cache(graph: Any, function: Function) -> dict[Any, Any]:
    """The traces ``function`` made for calls while ``graph`` was being built, kept on the graph itself.

    Those traces may capture the graph's tensors, so they live and die with the graph (a cache
    keyed by the graph elsewhere would keep it alive); functions are weak keys.
    """
    caches = graph.__dict__.get(_GRAPH_CACHE_ATTR)
    if caches is None:
        caches = weakref.WeakKeyDictionary()
        setattr(graph, _GRAPH_CACHE_ATTR, caches)
    cache = caches.get(function)
    if cache is None:
        cache = caches[function] = {}
    return cache


class Function:
    """A Python function compiled to graphs: traced per input signature, each trace cached and reused.

    Made by :func:`function`; calling it runs the graph of the matching trace (tracing on a miss).
    """

    def __init__(
        self,
        python_function: Callable[..., Any],
        name: str | None = None,
        input_signature: Sequence[Any] | None = None,
        reduce_retracing: bool = False,
        jit_compile: bool | None = None,
        autograph: bool = True,
        experimental_autograph_options: Any = None,
    ):
        if not callable(python_function):
            raise TypeError(f"function: {python_function!r} is not callable")
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._reduce_retracing = bool(reduce_retracing)
        self._jit_compile = jit_compile
        self._autograph = bool(autograph)
        self._autograph_options = experimental_autograph_options
        self._signature = inspect.signature(python_function)
        params = list(self._signature.parameters.values())
        self._positional_names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self._varargs_name = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), None)
        # Fast path: positional arguments only, for a function with positional-or-keyword parameters only:
        # the trailing defaults are appended without inspect's binding.
        simple = all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params)
        self._defaults = tuple(p.default for p in params if p.default is not p.empty) if simple else None
        self._min_args = len(params) - len(self._defaults) if simple else len(params) + 1
        self._max_args = len(params)
        self._input_signature = None if input_signature is None else self._validate_signature(input_signature)
        self._cache: dict[Any, Any] = {}  # call key -> ConcreteFunction (and reduce_retracing lists)
        self._signature_concrete: ConcreteFunction | None = None
        self._tracing_count = 0
        self._lock = threading.RLock()
        self._bound_instances: weakref.WeakKeyDictionary[Any, Function] = weakref.WeakKeyDictionary()
        functools.update_wrapper(self, python_function)

    # ----------------------------------------------------------------- public

    @property
    def python_function(self) -> Callable[..., Any]:
        """The wrapped Python function."""
        return self._python_function

    @property
    def input_signature(self) -> tuple[Any, ...] | None:
        """The input_signature given to ``function``, or None."""
        return self._input_signature

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function has been traced."""
        return self._tracing_count

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """Methods: one Function per instance, bound to it (so each instance traces and caches on its own)."""
        if instance is None:
            return self
        try:
            bound = self._bound_instances.get(instance)
        except TypeError:
            bound = None
        if bound is None:
            bound = Function(
                self._python_function.__get__(instance, owner),
                name=self._name,
                input_signature=self._input_signature,
                reduce_retracing=self._reduce_retracing,
                jit_compile=self._jit_compile,
                autograph=self._autograph,
                experimental_autograph_options=self._autograph_options,
            )
            with contextlib.suppress(TypeError):  # instances that cannot be weakly referenced get a fresh one
                self._bound_instances[instance] = bound
        return bound

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run the function's graph for these arguments (tracing it first if this signature is new)."""
        if not _executing_eagerly():
            return self._call_in_graph(args, kwargs)
        if self._input_signature is not None:
            concrete, tensors = self._signature_call(args, kwargs)
            return concrete._call_flat(tensors)
        if kwargs or not self._min_args <= len(args) <= self._max_args:
            args, kwargs = self._canonicalize(args, kwargs)
        elif len(args) < self._max_args:
            args = args + self._defaults[len(args) - self._max_args :]
        tensors: list[Any] = []
        key = _call_key(args, kwargs, tensors)
        concrete = self._cache.get(key)
        if concrete is None:
            concrete = self._lookup_or_trace(key, args, kwargs, self._cache, None)
        return concrete._call_flat(tensors)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The concrete function (trace) for these arguments; TensorSpecs stand for tensors. Traces on a miss."""
        if self._input_signature is not None and not args and not kwargs:
            return self._concrete_for_signature()
        if self._input_signature is not None:
            return self._signature_call(args, kwargs)[0]
        args, kwargs = self._canonicalize(args, kwargs)
        tensors: list[Any] = []
        key = _call_key(args, kwargs, tensors)
        if _executing_eagerly():
            cache, outer = self._cache, None
        else:
            outer = graph_lib.get_default_graph()
            cache = _graph_cache(outer, self)
        concrete = cache.get(key)
        if concrete is None:
            concrete = self._lookup_or_trace(key, args, kwargs, cache, outer)
        return concrete

    def __repr__(self) -> str:
        return f"<modtensor.function {self._name} at 0x{id(self):x}>"

    # ----------------------------------------------------------------- binding

    def _signature_text(self) -> str:
        """The signature as TF prints it in binding errors."""
        params = list(self._signature.parameters.values())
        if self._input_signature is not None:
            params = params[: len(self._input_signature)]
            params = [
                p.replace(annotation=_SpecAnnotation(spec), default=p.empty)
                for p, spec in zip(params, self._input_signature, strict=False)
            ]
        else:
            params = [
                p.replace(annotation=p.empty, default=_CapturedDefault() if p.default is not p.empty else p.empty)
                for p in params
            ]
        return str(inspect.Signature(params))

    def _canonicalize(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Positional arguments in parameter order with defaults filled; keyword-only ones in a dict."""
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise _binding_error(e, args, kwargs, self._signature_text()) from None
        bound.apply_defaults()
        return tuple(bound.args), dict(bound.kwargs)

    def _arg_names(self, num_args: int) -> list[str]:
        names = list(self._positional_names[:num_args])
        names += [self._varargs_name or "args"] * (num_args - len(names))
        return names

    def _validate_signature(self, input_signature: Sequence[Any]) -> tuple[Any, ...]:
        if not isinstance(input_signature, (list, tuple)):
            raise TypeError(f"input_signature must be either a tuple or a list, got {type(input_signature)}.")
        for leaf in flatten_structure(list(input_signature)):
            if not isinstance(leaf, TensorSpec):
                raise TypeError(
                    "input_signature must be a possibly nested sequence of TensorSpec objects, got invalid args "
                    f"{leaf!r} with type {type(leaf)}."
                )
        params = list(self._signature.parameters.values())
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if len(input_signature) > len(positional) and self._varargs_name is None:
            raise TypeError(
                f"input_signature has {len(input_signature)} elements but {self._name} takes "
                f"{len(positional)} positional arguments: {[p.name for p in positional]}."
            )
        return tuple(input_signature)

    # ----------------------------------------------------------------- input_signature calls

    def _concrete_for_signature(self) -> ConcreteFunction:
        if _executing_eagerly():
            if self._signature_concrete is None:
                with self._lock:
                    if self._signature_concrete is None:
                        self._signature_concrete = self._trace(tuple(self._input_signature or ()), {}, None)
            return self._signature_concrete
        outer = graph_lib.get_default_graph()
        cache = _graph_cache(outer, self)
        concrete = cache.get("signature")
        if concrete is None:
            with self._lock:
                concrete = cache.get("signature")
                if concrete is None:
                    concrete = self._trace(tuple(self._input_signature or ()), {}, outer)
                    cache["signature"] = concrete
        return concrete

    def _signature_call(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[ConcreteFunction, list[Any]]:
        """Bind arguments to the input_signature: the concrete function and the flat argument tensors.

        Raises TF's "Binding inputs to tf.function failed" TypeError for arguments that do not fit.
        """
        assert self._input_signature is not None
        signature = self._input_signature
        tensors: list[Any] = []
        if kwargs or len(args) != len(signature):
            params = list(self._signature.parameters.values())[: len(signature)]
            try:
                bound = inspect.Signature(params).bind(*args, **kwargs)
            except TypeError as e:
                raise _binding_error(e, args, kwargs, self._signature_text()) from None
            values = list(bound.args)
            if len(values) != len(signature):
                missing = params[len(values)].name
                raise _binding_error(f"missing a required argument: '{missing}'", args, kwargs, self._signature_text())
        else:
            values = list(args)
        leaves: list[tuple[Any, TensorSpec]] = []
        try:
            for value, spec in zip(values, signature, strict=True):
                _match_signature(value, spec, leaves)
            eagerly = _executing_eagerly()
            for value, spec in leaves:
                tensors.append(self._signature_tensor(value, spec, eagerly))
        except _CastError as e:
            raise _binding_error(e, args, kwargs, self._signature_text()) from None
        return self._concrete_for_signature(), tensors

    @staticmethod
    def _signature_tensor(value: Any, spec: TensorSpec, eagerly: bool) -> Any:
        if not isinstance(value, Tensor):
            if eagerly:
                try:
                    value = _to_eager(value, spec.dtype)
                except (TypeError, ValueError):
                    raise _CastError(f"Cannot convert {value!r} to EagerTensor of dtype {spec.dtype.name}") from None
            else:
                try:
                    value = op_def_library.convert_to_tensor(value, dtype=spec.dtype)
                except (TypeError, ValueError):
                    raise _CastError(f"Cannot convert {value!r} to Tensor of dtype {spec.dtype.name}") from None
        dims = _dims_of(value)
        if value.dtype.base_dtype != spec.dtype or not _shape_compatible(_shape_dims(spec.shape), dims):
            given = TensorSpec(dims, value.dtype.base_dtype)
            raise _CastError(f"Can not cast {given!r} to {spec!r}")
        return value

    # ----------------------------------------------------------------- tracing

    def _lookup_or_trace(
        self,
        key: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        cache: dict[Any, Any],
        outer: Any,
    ) -> ConcreteFunction:
        with self._lock:
            concrete = cache.get(key)
            if concrete is not None:
                return concrete
            structure = (args, kwargs)
            if not self._reduce_retracing:
                concrete = self._trace(*_specs_for(structure), outer)
            else:
                concrete = self._trace_relaxed(structure, outer, cache)
            cache[key] = concrete
            return concrete

    def _trace_relaxed(self, structure: Any, outer: Any, cache: dict[Any, Any]) -> ConcreteFunction:
        """reduce_retracing: reuse a compatible trace of the same skeleton, else trace with generalized shapes.

        The traces of each skeleton (the key without shapes) are listed in ``cache`` under
        ``("reduce_retracing", skeleton)``, most recent last.
        """
        shapes = [_dims_of(leaf) for leaf in flatten_structure(structure) if _is_tensor_like(leaf)]
        candidates = cache.setdefault(("reduce_retracing", _skeleton(structure)), [])
        for traced_shapes, concrete in reversed(candidates):
            if all(_shape_compatible(t, s) for t, s in zip(traced_shapes, shapes, strict=True)):
                return concrete
        if candidates:
            previous = candidates[-1][0]
            shapes = [_most_specific_common_shape(p, s) for p, s in zip(previous, shapes, strict=True)]
        concrete = self._trace(*_specs_for(structure, shapes), outer)
        candidates.append((shapes, concrete))
        return concrete

    def _trace(self, args: tuple[Any, ...], kwargs: dict[str, Any], outer: Any) -> ConcreteFunction:
        python_function = self._python_function
        if self._autograph:  # AutoGraph converts Python control flow on tensors (api/autograph), loaded on first use
            from modtensor.api.autograph import tf_convert

            python_function = tf_convert(python_function, self._autograph_options)
        graph = func_graph_from_py_func(
            self._name,
            python_function,
            args,
            kwargs,
            self._arg_names(len(args)),
            outer_graph=outer,
            seed=runtime_context.global_seed() if outer is None else None,
        )
        self._tracing_count += 1
        return ConcreteFunction(graph, self)

    # ----------------------------------------------------------------- graph mode

    def _call_in_graph(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Called while a graph is built: trace for the calling graph (cached per graph) and add a call node."""
        outer = graph_lib.get_default_graph()
        if self._input_signature is not None:
            concrete, tensors = self._signature_call(args, kwargs)
            return _call_in_graph(concrete, tensors)
        args, kwargs = self._canonicalize(args, kwargs)
        tensors: list[Any] = []
        key = _call_key(args, kwargs, tensors)
        cache = _graph_cache(outer, self)
        concrete = cache.get(key)
        if concrete is None:
            concrete = self._lookup_or_trace(key, args, kwargs, cache, outer)
        return _call_in_graph(concrete, tensors)


def function(
    func: Callable[..., Any] | None = None,
    input_signature: Sequence[Any] | None = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    experimental_implements: str | None = None,
    experimental_autograph_options: Any = None,
    experimental_attributes: dict[str, Any] | None = None,
    experimental_relax_shapes: bool | None = None,
    experimental_compile: bool | None = None,
    experimental_follow_type_hints: bool | None = None,
) -> Any:
    """Compile ``func`` into graphs, as ``tf.function``: a decorator with or without arguments.

    ``input_signature`` (a list of possibly nested TensorSpecs) fixes one trace for every
    matching call; ``reduce_retracing`` (or the old ``experimental_relax_shapes``) traces
    shape-generic graphs once a second shape is seen. ``autograph`` (default True) converts
    Python control flow on tensors into graph control flow before tracing (``modtensor.autograph``),
    with the optional ``experimental_autograph_options`` features; ``jit_compile`` and the
    other ``experimental_*`` options are accepted for compatibility and have no effect.
    """
    del experimental_implements, experimental_attributes
    del experimental_follow_type_hints
    relax = bool(reduce_retracing or experimental_relax_shapes)
    jit = jit_compile if jit_compile is not None else experimental_compile

    def decorate(fn: Callable[..., Any]) -> Function:
        return Function(
            fn,
            input_signature=input_signature,
            reduce_retracing=relax,
            jit_compile=jit,
            autograph=autograph,
            experimental_autograph_options=experimental_autograph_options,
        )

    if func is None:
        return decorate
    return decorate(func)
