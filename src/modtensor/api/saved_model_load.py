"""``tf.saved_model.load``: TF2 SavedModels (``saved_model.pb`` + ``variables/`` + ``assets/``) as Python objects.

The ``SavedObjectGraph`` of the MetaGraphDef is revived node by node: user objects become
``_UserObject``s (``AutoTrackable``), variables ``tf.Variable``s (then restored from the
``variables/variables`` checkpoint by the usual object-graph restore), assets :class:`Asset`s,
constants eager tensors, ``signature_map`` a :class:`SignatureMap`, functions
:class:`RestoredFunction` (dispatching over their traced concrete functions by input signature)
and bare concrete functions :class:`RestoredConcreteFunction`. Children are set as attributes (or
list/dict items), so ``loaded.layer.kernel`` and ``loaded.signatures["serving_default"]`` work.

A concrete function runs its library ``FunctionDef`` through a one-node call graph
(``StatefulPartitionedCall`` fed by placeholders: the user's flat inputs, then the captured
values its ``bound_inputs`` name: variable handles, asset paths, constants), compiled once per
device scope like a traced ``modtensor.function``; its outputs are packed into the recorded
output structure (a dict for signatures). Every op of the functions the objects can reach is
looked up at load time: a SavedModel needing an op modtensor does not have fails to load with
an error naming the op and the function.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from modtensor.api import nested_structure
from modtensor.api import trackable as trackable_lib
from modtensor.framework import dtypes, errors, tensor_shape
from modtensor.framework import tape as _tape
from modtensor.framework.func_graph import flatten_structure, pack_structure
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import function_pb2, graph_pb2, meta_graph_pb2, saved_model_pb2, saved_object_graph_pb2
from modtensor.framework.tensor import Tensor, TensorSpec

__all__ = ["Asset", "RestoredConcreteFunction", "RestoredFunction", "SignatureMap", "load", "read_saved_model"]

SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
ASSETS_DIRECTORY = "assets"
_CALL_OPS = ("PartitionedCall", "StatefulPartitionedCall")


# ============================================================================ reading the files


def read_saved_model(export_dir: str) -> saved_model_pb2.SavedModel:
    """The SavedModel proto of ``export_dir`` (``saved_model.pb``, or ``saved_model.pbtxt``)."""
    export_dir = os.fspath(export_dir)
    pb = os.path.join(export_dir, SAVED_MODEL_FILENAME_PB)
    pbtxt = os.path.join(export_dir, SAVED_MODEL_FILENAME_PBTXT)
    if os.path.exists(pb):
        with open(pb, "rb") as f:
            data = f.read()
        try:
            return saved_model_pb2.SavedModel.FromString(data)
        except Exception as e:  # noqa: BLE001 - protobuf's DecodeError
            raise OSError(f"Cannot parse file {pb}: {e}.") from None
    if os.path.exists(pbtxt):
        from google.protobuf import text_format

        with open(pbtxt) as f:
            try:
                return text_format.Parse(f.read(), saved_model_pb2.SavedModel())
            except text_format.ParseError as e:
                raise OSError(f"Cannot parse file {pbtxt}: {e}.") from None
    raise OSError(
        f"SavedModel file does not exist at: {export_dir}{os.sep}{{{SAVED_MODEL_FILENAME_PBTXT}|"
        f"{SAVED_MODEL_FILENAME_PB}}}"
    )


def select_meta_graph(saved_model: saved_model_pb2.SavedModel, tags: Any, export_dir: str) -> Any:
    """The MetaGraphDef with exactly ``tags`` (a string or a list; default: the only one, or ``serve``)."""
    metas = list(saved_model.meta_graphs)
    if not metas:
        raise ValueError(f"The SavedModel at {export_dir} has no MetaGraphDef")
    if tags is None:
        if len(metas) == 1:
            return metas[0]
        tags = ["serve"]
    if isinstance(tags, str):
        tags = [tags]
    for meta in metas:
        if set(meta.meta_info_def.tags) == set(tags):
            return meta
    available = [list(m.meta_info_def.tags) for m in metas]
    raise RuntimeError(
        f"MetaGraphDef associated with tags {list(tags)} could not be found in SavedModel, with available tags "
        f"'{available}'. To inspect available tag-sets in the SavedModel, please use the SavedModel CLI: "
        "`saved_model_cli`."
    )


# ============================================================================ functions


class _Library:
    """The function library of a MetaGraphDef: FunctionDefs by name and what each one calls."""

    def __init__(self, library: function_pb2.FunctionDefLibrary, versions: Any):
        self.library = library
        self.versions = versions
        self.functions = {f.signature.name: f for f in library.function}
        self._closure: dict[str, list[str]] = {}

    def callees(self, function: function_pb2.FunctionDef) -> list[str]:
        names = []
        for node in function.node_def:
            if node.op in self.functions:
                names.append(node.op)
            for value in node.attr.values():
                if value.HasField("func") and value.func.name in self.functions:
                    names.append(value.func.name)
                names += [f.name for f in value.list.func if f.name in self.functions]
        return names

    def closure(self, name: str) -> list[str]:
        """``name`` and every function it calls, directly or not."""
        found = self._closure.get(name)
        if found is not None:
            return found
        seen = [name]
        pending = [name]
        while pending:
            for callee in self.callees(self.functions[pending.pop()]):
                if callee not in seen:
                    seen.append(callee)
                    pending.append(callee)
        self._closure[name] = seen
        return seen

    def check_ops(self, names: Sequence[str], export_dir: str) -> None:
        """Every op the functions (and their callees) use is registered; NotFoundError naming op and function.

        The attrs a SavedModel stripped because they had their default values (``stripped_default_attrs``:
        a Conv2D's ``data_format``, ...) are put back from the OpDefs, as TF's loader does.
        """
        from modtensor.framework import node_def as node_def_lib

        registry = global_registry()
        checked: set[str] = set()
        for name in names:
            for function_name in self.closure(name):
                if function_name in checked:
                    continue
                checked.add(function_name)
                for node in self.functions[function_name].node_def:
                    if node.op in self.functions:
                        continue
                    registration = registry.lookup(node.op)
                    if registration is not None:
                        node_def_lib.add_default_attrs(node, registration.op_def)
                        continue
                    raise errors.NotFoundError(
                        None,
                        None,
                        f"Op type not registered '{node.op}' in binary running on modtensor. The SavedModel at "
                        f"{export_dir} uses it in function {function_name} (node {node.name}). Load a plugin that "
                        "registers the op (modtensor.load_op_library) or export the model without it.",
                    )


class _FunctionRunner:
    """Runs one library function on flat device values; the call graph is compiled per eager device scope."""

    def __init__(self, library: _Library, name: str):
        self._library = library
        self.name = name
        self.function = library.functions[name]
        self._compiled: dict[str | None, Any] = {}
        self._lock = threading.Lock()
        self._differentiable: Any = None  # a ConcreteFunction of the body, for calls under a gradient tape

    def _graph_def(self, resource_devices: Sequence[str | None] = ()) -> graph_pb2.GraphDef:
        """The call graph with the body inlined; ops using a resource argument whose device is known
        (``resource_devices``, per argument) get that device, as the ops a variable builds into a traced
        function carry the variable's device."""
        signature = self.function.signature
        graph = graph_pb2.GraphDef()
        graph.versions.CopyFrom(self._library.versions)
        keep = set(self._library.closure(self.name))
        graph.library.function.extend(f for f in self._library.library.function if f.signature.name in keep)
        inputs = []
        for i, arg in enumerate(signature.input_arg):
            node = graph.node.add(name=f"arg_{i}", op="Placeholder")
            node.attr["dtype"].type = arg.type
            inputs.append(node.name)
        call = graph.node.add(name="call", op="StatefulPartitionedCall", input=inputs)
        call.attr["f"].func.name = self.name
        call.attr["Tin"].list.type.extend(arg.type for arg in signature.input_arg)
        call.attr["Tout"].list.type.extend(arg.type for arg in signature.output_arg)
        # The body is inlined here (TF inlines function calls before its graph optimizer too): the call
        # graph of a small function is below the meta-optimizer's min_graph_nodes, which would skip it.
        from modtensor.grappler.item import GrapplerItem
        from modtensor.grappler.optimizer import OptimizerContext
        from modtensor.grappler.passes.function_inliner import FunctionInliner

        item = GrapplerItem(
            graph,
            feeds=tuple(f"{name}:0" for name in inputs),
            fetches=tuple(f"call:{i}" for i in range(len(signature.output_arg))),
            nodes_to_preserve=frozenset(["call"]),
            device_types=("CPU",),
        )
        inlined = FunctionInliner().optimize(item, OptimizerContext())
        if any(resource_devices):
            _place_resource_users(inlined, {f"arg_{i}:0": d for i, d in enumerate(resource_devices) if d})
        return inlined

    def _plan(self, feed_devices: tuple[Any, ...], resource_devices: tuple[str | None, ...] = ()) -> Any:
        """The call graph compiled for the eager device scope of the call and the devices of the fed values
        (a variable's handle on a plugin device is fed there, so its reads are placed with it, as TF does)."""
        from modtensor.api.function import compile_function_graph
        from modtensor.runtime import context as runtime_context

        scope = runtime_context.eager_device_scope()
        scope_name = None if scope is None else scope.name
        placed = any(d is not None for d in feed_devices) or any(resource_devices)
        key = (scope_name, feed_devices, resource_devices) if placed else scope_name
        plan = self._compiled.get(key)
        if plan is None:
            with self._lock:
                plan = self._compiled.get(key)
                if plan is None:
                    signature = self.function.signature
                    plan = self._compiled[key] = compile_function_graph(
                        self._graph_def(resource_devices),
                        [f"arg_{i}:0" for i in range(len(signature.input_arg))],
                        [f"call:{i}" for i in range(len(signature.output_arg))],
                        ["call"],
                        default_device=scope_name,
                        feed_devices=feed_devices if any(d is not None for d in feed_devices) else None,
                    )
        return plan

    def callees(self) -> list[function_pb2.FunctionDef]:
        """The library functions this one calls, directly or not (not itself)."""
        return [self._library.functions[name] for name in self._library.closure(self.name)[1:]]

    def arg_dtypes(self) -> list[dtypes.DType]:
        return [dtypes.as_dtype(arg.type) for arg in self.function.signature.input_arg]

    def call_in_graph(self, inputs: Sequence[Any]) -> list[Any]:
        """Import the (inlined) body into the graph being built, wired to ``inputs``; returns its outputs."""
        from modtensor.framework import graph as graph_lib
        from modtensor.framework import importer, op_def_library

        graph = graph_lib.get_default_graph()
        body = graph_pb2.GraphDef()
        body.CopyFrom(self._graph_def())
        arg_names = {f"arg_{i}" for i in range(len(inputs))}
        kept = [node for node in body.node if node.name not in arg_names]
        del body.node[:]
        body.node.extend(kept)
        input_map = {}
        with graph.name_scope("StatefulPartitionedCall") as prefix:  # the call node TF would add
            for i, (value, arg) in enumerate(zip(inputs, self.function.signature.input_arg, strict=True)):
                input_map[f"arg_{i}:0"] = op_def_library.convert_to_tensor(
                    value, dtype=dtypes.as_dtype(arg.type), graph=graph
                )
        outputs = [f"call:{i}" for i in range(len(self.function.signature.output_arg))]
        first = len(graph.get_operations())
        results = list(importer.import_graph_def(body, input_map=input_map, return_elements=outputs, name=prefix) or [])
        if _tape.ACTIVE:  # a tape in the function being built follows the imported body op by op
            for op in graph.get_operations()[first:]:
                if _tape.should_record(op.inputs):
                    _tape.record_op(op, op.inputs, op.outputs)
        return results

    def call_recorded(self, values: Sequence[Any]) -> list[Any]:
        """Run on eager tensors under a gradient tape: the body, imported into a FuncGraph (once), runs as a traced
        function does, and the call is recorded with that function's backward function
        (``api/gradients/function_grad.py``), so restored functions are differentiable."""
        differentiable = self._differentiable
        if differentiable is None:
            with self._lock:
                differentiable = self._differentiable
                if differentiable is None:
                    from modtensor.api.function import ConcreteFunction
                    from modtensor.api.gradients.control_flow_grad import library_func_graph

                    graph = library_func_graph(self._library.library, self.name)
                    differentiable = self._differentiable = ConcreteFunction(graph)
        return differentiable._call_with_inputs(list(values))

    def run(self, values: Sequence[Any]) -> list[Any]:
        """Run on eager tensors (or numpy values), arguments then captures; outputs stay where they were made."""
        from modtensor.runtime import eager

        feeds = [_feed_of(v) for v in values]
        devices = tuple(_device_of(v) for v in values)
        resources = tuple(_resource_device(f) for f in feeds)
        try:
            results = self._plan(devices, resources).run_placed(feeds)
        except errors.OpError as e:
            raise type(e)(e.node_def, e.op, f"Graph execution error:\n\n{e.message} [Op:{self.name}]") from e
        types = [dtypes.as_dtype(arg.type) for arg in self.function.signature.output_arg]
        return [eager.tensor_on_device(value, dtype, device) for (value, device), dtype in zip(results, types,
                                                                                                 strict=True)]


def _resource_device(value: Any) -> str | None:
    """The device of the resource a fed handle value (a 0-d object array of ResourceHandle) points to."""
    if isinstance(value, np.ndarray) and value.dtype == np.object_ and value.shape == ():
        return getattr(value[()], "device", None) or None
    return None


def _place_resource_users(graph: graph_pb2.GraphDef, devices: dict[str, str]) -> None:
    """Give every node without a device that uses (through Identity chains) a resource of known device that
    device: TF colocates resource users with the resource, which a fed handle's placeholder cannot tell."""
    from modtensor.framework import node_def as node_def_lib

    known = dict(devices)
    changed = True
    while changed:
        changed = False
        for node in graph.node:
            for text in node.input:
                if text.startswith("^"):
                    continue
                name, index = node_def_lib.parse_tensor_name(text)
                device = known.get(f"{name}:{index}")
                if device is None:
                    continue
                if not node.device:
                    node.device = device
                    changed = True
                if node.op in ("Identity", "IdentityN"):  # forwards the handle: output i is input i
                    position = [t for t in node.input if not t.startswith("^")].index(text)
                    key = f"{node.name}:{position}"
                    if key not in known:
                        known[key] = device
                        changed = True


def _device_of(value: Any) -> Any:
    """The device an eager tensor's value is in (None for host values)."""
    device = getattr(value, "_device", None)
    return None if device is None or device.is_host else device


def _feed_of(value: Any) -> Any:
    device_value = getattr(value, "_value", None)
    if device_value is not None:
        return device_value
    return np.asarray(value)


def _tensor_for(value: Any, spec: TensorSpec) -> Any:
    """``value`` as an eager tensor fitting ``spec`` (dtype equal, shape compatible), or None when it does not fit."""
    from modtensor.api import context
    from modtensor.runtime import eager

    if hasattr(value, "__tf_tensor__") and not isinstance(value, Tensor):
        value = value.__tf_tensor__()
    if isinstance(value, Tensor):
        if value.dtype.base_dtype != spec.dtype:
            return None
        tensor = value
    elif not context.executing_eagerly():
        from modtensor.framework import op_def_library

        try:
            tensor = op_def_library.convert_to_tensor(value, dtype=spec.dtype)
        except (TypeError, ValueError):
            return None
    else:
        try:
            tensor = eager.convert_to_eager_tensor(value, spec.dtype)
        except (TypeError, ValueError):
            return None
    shape = tensor.shape if isinstance(tensor.shape, tensor_shape.TensorShape) else tensor_shape.TensorShape(
        tuple(tensor.shape)
    )
    if not spec.shape.is_compatible_with(shape):
        return None
    return tensor


class RestoredConcreteFunction:
    """One traced function of a SavedModel, callable with its flat arguments (positional and by keyword)."""

    _is_restored_saved_model_function = True  # tf.saved_model.save writes it again (api/saved_model_save.py)

    def __init__(
        self,
        runner: _FunctionRunner,
        saved: saved_object_graph_pb2.SavedConcreteFunction,
        captures: list[Any],
        argument_keywords: Sequence[str] = (),
        allowed_positional_arguments: int | None = None,
    ):
        self._runner = runner
        self._captures = captures
        self.structured_input_signature = nested_structure.decode(saved.canonicalized_input_signature)
        self.structured_outputs = nested_structure.decode(saved.output_signature)
        self._input_specs = [leaf for leaf in flatten_structure(self.structured_input_signature)
                             if isinstance(leaf, TensorSpec)]
        self._arg_keywords = list(argument_keywords)
        self._num_positional = len(argument_keywords) if allowed_positional_arguments is None else int(
            allowed_positional_arguments
        )
        expected = len(self._input_specs) + len(captures)
        actual = len(runner.function.signature.input_arg)
        if expected != actual:
            raise ValueError(
                f"SavedModel function {runner.name} takes {actual} inputs, but its signature has "
                f"{len(self._input_specs)} tensors and {len(captures)} captured values"
            )

    @property
    def name(self) -> str:
        """The library function's name (``__inference_...``)."""
        return self._runner.name

    @property
    def captured_inputs(self) -> list[Any]:
        """The captured values fed after the arguments (variable handles, asset paths, constants)."""
        return list(self._captures)

    def __repr__(self) -> str:
        return f"<RestoredConcreteFunction {self.name} {self.structured_input_signature!r}>"

    def _call_flat(self, tensors: Sequence[Any]) -> Any:
        from modtensor.api import context

        captures = [capture.handle if hasattr(capture, "handle") else capture for capture in self._captures]
        if _tape.ACTIVE:
            for capture in self._captures:  # the call reads its variables (tapes watch them), as TF's
                if hasattr(capture, "handle") and getattr(capture, "trainable", False):
                    _tape.variable_accessed(capture)
        if context.executing_eagerly():
            inputs = [*tensors, *captures]
            if _tape.could_record() and _tape.should_record(inputs):
                outputs = self._runner.call_recorded(inputs)
            else:
                outputs = self._runner.run(inputs)
        else:  # called while a function (or v1 graph) is built: the body goes into that graph
            outputs = self._runner.call_in_graph([*tensors, *captures])
        structure = self.structured_outputs
        if structure is None:
            return None
        leaves = flatten_structure(structure)
        it = iter(outputs)
        values = [next(it) if isinstance(leaf, TensorSpec) else leaf for leaf in leaves]
        return pack_structure(structure, values)

    def _flat_tensors(self, flat: Sequence[Any]) -> list[Any] | None:
        tensors = []
        for value, spec in zip(flat, self._input_specs, strict=True):
            tensor = _tensor_for(value, spec)
            if tensor is None:
                return None
            tensors.append(tensor)
        return tensors

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call with the flat arguments: positionally (as many as the function allows), or by keyword."""
        if len(args) > self._num_positional:
            raise TypeError(
                f"{self.name} takes {self._num_positional} positional arguments, got {len(args)}. Pass the others "
                f"by keyword: {self._arg_keywords}"
            )
        flat = list(args)
        for keyword in self._arg_keywords[len(args) :]:
            if keyword not in kwargs:
                raise TypeError(f"{self.name} missing required argument: '{keyword}' (arguments: {self._arg_keywords})")
            flat.append(kwargs.pop(keyword))
        if kwargs:
            raise TypeError(f"{self.name} got unexpected keyword arguments: {sorted(kwargs)}")
        if len(flat) != len(self._input_specs):
            raise TypeError(f"{self.name} takes {len(self._input_specs)} tensor arguments, got {len(flat)}")
        tensors = self._flat_tensors(flat)
        if tensors is None:
            raise TypeError(
                f"{self.name}: arguments {flat!r} do not match the signature {self._input_specs!r}"
            )
        return self._call_flat(tensors)

    def _match(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any] | None:
        """The flat tensors of a canonical (args, kwargs) call when it fits this trace, else None."""
        signature = self.structured_input_signature
        try:
            leaves = flatten_structure((tuple(args), dict(kwargs)))
            specs = flatten_structure((tuple(signature[0]), dict(signature[1])))
            pack_structure((tuple(signature[0]), dict(signature[1])), leaves)
        except (TypeError, ValueError):
            return None
        if len(leaves) != len(specs) or sorted(kwargs) != sorted(signature[1]):
            return None
        tensors = []
        for value, spec in zip(leaves, specs, strict=True):
            if isinstance(spec, TensorSpec):
                tensor = _tensor_for(value, spec)
                if tensor is None:
                    return None
                tensors.append(tensor)
            elif not _python_equal(value, spec):
                return None
        return tensors


def _python_equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - values that cannot be compared are different
        return False


def _describe_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    lines = [f"  Positional arguments ({len(args)} total):"]
    lines += [f"    * {a!r}" for a in args]
    lines.append(f"  Keyword arguments: {kwargs!r}")
    return "\n".join(lines)


class RestoredFunction:
    """A ``tf.function`` of a SavedModel: calls go to the first traced concrete function the arguments fit."""

    _is_restored_saved_model_function = True

    def __init__(self, name: str, spec: Any, concrete: list[RestoredConcreteFunction]):
        self._name = name
        self._concrete = concrete
        fullargspec = spec.get("fullargspec") if isinstance(spec, dict) else None
        self._fullargspec = fullargspec
        self._is_method = bool(spec.get("is_method")) if isinstance(spec, dict) else False
        self._input_signature = spec.get("input_signature") if isinstance(spec, dict) else None

    @property
    def concrete_functions(self) -> list[RestoredConcreteFunction]:
        """The traces saved with the function."""
        return list(self._concrete)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> RestoredConcreteFunction:
        """The saved trace that a call with these arguments (or TensorSpecs) would use."""
        if not args and not kwargs and len(self._concrete) == 1:
            return self._concrete[0]
        args, kwargs = self._canonicalize(args, kwargs)
        for concrete in self._concrete:
            if concrete._match(args, kwargs) is not None:
                return concrete
        raise ValueError(self._no_match(args, kwargs))

    def _canonicalize(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        spec = self._fullargspec
        if spec is None:
            return tuple(args), dict(kwargs)
        names = list(getattr(spec, "args", None) or [])
        if self._is_method and names and names[0] == "self":
            names = names[1:]
        defaults = list(getattr(spec, "defaults", None) or [])
        kwonly = list(getattr(spec, "kwonlyargs", None) or [])
        kwonly_defaults = dict(getattr(spec, "kwonlydefaults", None) or {})
        if len(args) > len(names) and not getattr(spec, "varargs", None):
            return tuple(args), dict(kwargs)  # let matching fail with the full picture
        positional = list(args[: len(names)])
        remaining = dict(kwargs)
        for i, name in enumerate(names[len(positional) :], start=len(positional)):
            if name in remaining:
                positional.append(remaining.pop(name))
            else:
                default_index = i - (len(names) - len(defaults))
                if default_index < 0:
                    return tuple(args), dict(kwargs)
                positional.append(defaults[default_index])
        positional += list(args[len(names) :])
        keyword = {}
        for name in kwonly:
            if name in remaining:
                keyword[name] = remaining.pop(name)
            elif name in kwonly_defaults:
                keyword[name] = kwonly_defaults[name]
        keyword.update(remaining)
        return tuple(positional), keyword

    def _no_match(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
        options = []
        for i, concrete in enumerate(self._concrete, start=1):
            signature = concrete.structured_input_signature
            options.append(f"Option {i}:\n{_describe_call(tuple(signature[0]), dict(signature[1]))}")
        return (
            "Could not find matching concrete function to call loaded from the SavedModel. Got:\n"
            f"{_describe_call(args, kwargs)}\n\n Expected these arguments to match one of the following "
            f"{len(self._concrete)} option(s):\n\n" + "\n\n".join(options)
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run the first saved trace whose input signature the arguments fit (ValueError when none does)."""
        args, kwargs = self._canonicalize(args, kwargs)
        for concrete in self._concrete:
            tensors = concrete._match(args, kwargs)
            if tensors is not None:
                return concrete._call_flat(tensors)
        raise ValueError(self._no_match(args, kwargs))

    def __repr__(self) -> str:
        return f"<RestoredFunction {self._name} ({len(self._concrete)} traces)>"


class SignatureMap(Mapping, trackable_lib.Trackable):
    """``loaded.signatures``: signature key -> concrete function called by keyword, returning a dict."""

    def __init__(self) -> None:
        self._signatures: dict[str, RestoredConcreteFunction] = {}

    def _add(self, name: str, function: RestoredConcreteFunction) -> None:
        self._signatures[name] = function

    def __getitem__(self, key: str) -> RestoredConcreteFunction:
        return self._signatures[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._signatures)

    def __len__(self) -> int:
        return len(self._signatures)

    def __repr__(self) -> str:
        return f"_SignatureMap({dict(self._signatures)!r})"


class Asset(trackable_lib.Trackable):
    """``tf.saved_model.Asset``: a file that goes with a SavedModel; ``asset_path`` is a string tensor."""

    def __init__(self, path: Any):
        from modtensor.runtime import eager

        if isinstance(path, Tensor):
            self._path = path
        else:
            self._path = eager.convert_to_eager_tensor(os.fspath(path), dtypes.string)

    @property
    def asset_path(self) -> Any:
        """The file's path (a string tensor)."""
        return self._path

    def __repr__(self) -> str:
        return f"<Asset {self._path.numpy()!r}>"


class _UserObject(trackable_lib.AutoTrackable):
    """A revived object of a SavedModel (TF's ``_UserObject``): its children are its attributes."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Objects saved with a ``__call__`` function are callable again."""
        function = self.__dict__.get("__call__")
        if function is None:
            raise TypeError(f"'{type(self).__name__}' object is not callable")
        return function(*args, **kwargs)


class _RestoredResource(trackable_lib.AutoTrackable):
    """A revived resource of a SavedModel (TF's ``RestoredResource``: a lookup table, for instance).

    Its children are the functions TF saved with it: ``_create_resource`` makes the resource and returns its
    handle, ``_initialize`` fills it (run once at load, after the checkpoint restore). The handle is made on
    first use, so functions capturing the resource get it whenever they run. State saved in the checkpoint
    through a saveable (a mutable table's ``table-keys``/``table-values``) goes back through the restore
    function saved with it.
    """

    def __init__(self, node_id: int, restore_functions: dict[str, int], loader_nodes: list[Any]):
        # plain attributes, not children (AutoTrackable would track and wrap the dict and the list)
        object.__setattr__(self, "_node_id", node_id)
        object.__setattr__(self, "_restore_functions", restore_functions)  # saveable -> its restore function
        object.__setattr__(self, "_loader_nodes", loader_nodes)
        object.__setattr__(self, "_handle", None)

    @property
    def handle(self) -> Any:
        """The resource tensor (the resource is made by ``_create_resource`` on first use)."""
        if self._handle is None:
            create = self.__dict__.get("_create_resource")
            if create is None:
                raise ValueError(
                    f"The SavedModel's resource (object {self._node_id}) has no _create_resource function"
                )
            object.__setattr__(self, "_handle", create())
        return self._handle

    resource_handle = handle

    def _serialize_to_tensors(self) -> dict[str, Any]:
        raise NotImplementedError("modtensor does not write restored SavedModel resources to checkpoints yet")

    def _restore_from_tensors(self, tensors: dict[str, Any]) -> None:
        for saveable, node_id in self._restore_functions.items():
            values = [value for name, value in tensors.items() if name.startswith(saveable)]
            self._loader_nodes[node_id](*values)


# ============================================================================ the loader


class _Loader:
    def __init__(self, export_dir: str, meta: meta_graph_pb2.MetaGraphDef):
        self.export_dir = export_dir
        self.meta = meta
        self.proto = meta.object_graph_def
        self.library = _Library(meta.graph_def.library, meta.graph_def.versions)
        self.nodes: list[Any] = [None] * len(self.proto.nodes)
        self._runners: dict[str, _FunctionRunner] = {}
        self._constants = {n.name: n for n in meta.graph_def.node if n.op == "Const"}

    def load(self) -> Any:
        if not self.proto.nodes:
            raise ValueError(
                f"The SavedModel at {self.export_dir} has no object graph (a TF1 SavedModel); modtensor loads TF2 "
                "SavedModels (saved with tf.saved_model.save or model.export())"
            )
        self.library.check_ops(list(self.proto.concrete_functions), self.export_dir)
        order = self._creation_order()
        for node_id in order:
            self.nodes[node_id] = self._revive(node_id)
        self._connect()
        self._restore_variables()
        for obj in self.nodes:  # resources filled after the restore, as TF's loader does
            if isinstance(obj, _RestoredResource) and "_initialize" in obj.__dict__:
                obj._initialize()
        root = self.nodes[0]
        if isinstance(root, trackable_lib.AutoTrackable):
            info = self.meta.meta_info_def
            object.__setattr__(root, "tensorflow_version", info.tensorflow_version)
            object.__setattr__(root, "tensorflow_git_version", info.tensorflow_git_version)
            if not hasattr(root, "signatures"):
                object.__setattr__(root, "signatures", SignatureMap())
        return root

    def _creation_order(self) -> list[int]:
        """Functions after the objects they capture; everything else first, in node order."""
        functions = {"function", "bare_concrete_function"}
        first = [i for i, n in enumerate(self.proto.nodes) if n.WhichOneof("kind") not in functions]
        later = [i for i, n in enumerate(self.proto.nodes) if n.WhichOneof("kind") == "bare_concrete_function"]
        last = [i for i, n in enumerate(self.proto.nodes) if n.WhichOneof("kind") == "function"]
        return first + later + last

    def _runner(self, name: str) -> _FunctionRunner:
        runner = self._runners.get(name)
        if runner is None:
            if name not in self.library.functions:
                raise ValueError(f"The SavedModel at {self.export_dir} lists function {name}, which its library lacks")
            runner = self._runners[name] = _FunctionRunner(self.library, name)
        return runner

    def _concrete(self, name: str, keywords: Sequence[str] = (), positional: int | None = None) -> Any:
        saved = self.proto.concrete_functions[name]
        captures = []
        for node_id in saved.bound_inputs:
            value = self.nodes[node_id]
            if value is None:
                raise ValueError(f"Function {name} captures object {node_id}, which could not be revived")
            if isinstance(value, Asset):
                value = value.asset_path
            captures.append(value)
        return RestoredConcreteFunction(self._runner(name), saved, captures, keywords, positional)

    def _revive(self, node_id: int) -> Any:
        node = self.proto.nodes[node_id]
        kind = node.WhichOneof("kind")
        if kind == "user_object":
            identifier = node.user_object.identifier
            if identifier == "signature_map":
                return SignatureMap()
            if identifier == "trackable_list_wrapper":
                return trackable_lib.ListWrapper()
            if identifier == "trackable_dict_wrapper":
                return trackable_lib.DictWrapper()
            return _UserObject()
        if kind == "variable":
            return self._variable(node.variable)
        if kind == "asset":
            asset_def = self.meta.asset_file_def[node.asset.asset_file_def_index]
            return Asset(os.path.join(self.export_dir, ASSETS_DIRECTORY, asset_def.filename))
        if kind == "constant":
            return self._constant(node.constant.operation)
        if kind == "bare_concrete_function":
            bare = node.bare_concrete_function
            return self._concrete(
                bare.concrete_function_name, bare.argument_keywords, bare.allowed_positional_arguments
            )
        if kind == "function":
            names = list(node.function.concrete_functions)
            concrete = [self._concrete(n) for n in names]
            spec = self._function_spec(node.function.function_spec)
            return RestoredFunction(names[0] if names else "function", spec, concrete)
        if kind == "resource":
            restore = {name: saveable.restore_function for name, saveable in node.saveable_objects.items()}
            return _RestoredResource(node_id, restore, self.nodes)
        if kind == "captured_tensor":
            return _UserObject()  # not revived: functions capturing them fail to load with a clear error
        return _UserObject()

    def _function_spec(self, spec: saved_object_graph_pb2.FunctionSpec) -> dict[str, Any]:
        return {
            "fullargspec": nested_structure.decode(spec.fullargspec) if spec.HasField("fullargspec") else None,
            "is_method": spec.is_method,
            "input_signature": nested_structure.decode(spec.input_signature)
            if spec.HasField("input_signature")
            else None,
        }

    def _variable(self, saved: saved_object_graph_pb2.SavedVariable) -> Any:
        from modtensor.api import variables

        dtype = dtypes.as_dtype(saved.dtype)
        shape = tensor_shape.as_shape(saved.shape)
        dims = [0 if d is None else d for d in shape.as_list()] if shape.rank is not None else []
        is_string = dtype == dtypes.string
        initial = np.full(dims, b"", dtype=object) if is_string else np.zeros(dims, dtype.as_numpy_dtype)
        with variables.init_scope():
            return variables.Variable(
                initial,
                trainable=saved.trainable,
                name=saved.name or None,
                dtype=dtype,
                shape=shape if shape.rank is not None else None,
            )

    def _constant(self, operation: str) -> Any:
        from modtensor.framework import tensor_proto
        from modtensor.runtime import eager

        node = self._constants.get(operation)
        if node is None:
            raise ValueError(f"The SavedModel at {self.export_dir} has no constant {operation}")
        return eager.convert_to_eager_tensor(tensor_proto.make_ndarray(node.attr["value"].tensor))

    def _connect(self) -> None:
        for node_id, node in enumerate(self.proto.nodes):
            obj = self.nodes[node_id]
            for ref in node.children:
                child = self.nodes[ref.node_id]
                if isinstance(obj, SignatureMap):
                    if isinstance(child, RestoredConcreteFunction):
                        obj._add(ref.local_name, child)
                elif isinstance(obj, trackable_lib.ListWrapper):
                    index = int(ref.local_name)
                    while len(obj) <= index:
                        list.append(obj, None)
                    list.__setitem__(obj, index, child)
                elif isinstance(obj, trackable_lib.DictWrapper):
                    dict.__setitem__(obj, ref.local_name, child)
                elif isinstance(obj, trackable_lib.AutoTrackable):
                    setattr(obj, ref.local_name, child)

    def _restore_variables(self) -> None:
        from modtensor.api import checkpoint

        prefix = os.path.join(self.export_dir, VARIABLES_DIRECTORY, VARIABLES_FILENAME)
        if not os.path.exists(prefix + ".index"):
            if any(n.WhichOneof("kind") == "variable" for n in self.proto.nodes):
                raise errors.NotFoundError(
                    None, None, f"The SavedModel at {self.export_dir} has variables but no checkpoint at {prefix}"
                )
            return
        root = self.nodes[0]
        checkpoint.restore_object_graph(prefix, root, lambda: trackable_lib.TrackableGraph(root))


def load(export_dir: str, tags: Any = None, options: Any = None) -> Any:
    """Load a TF2 SavedModel directory: the root object with its variables, functions and signatures."""
    del options
    export_dir = os.fspath(export_dir)
    saved_model = read_saved_model(export_dir)
    meta = select_meta_graph(saved_model, tags, export_dir)
    return _Loader(export_dir, meta).load()
