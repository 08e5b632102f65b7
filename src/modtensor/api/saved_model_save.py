"""``tf.saved_model.save(obj, export_dir, signatures=None)``: a TF2 SavedModel that TensorFlow loads and calls.

What is written, as TensorFlow writes it:

- ``saved_model.pb``: one MetaGraphDef (tag ``serve``) whose library holds a FunctionDef per traced
  concrete function (``__inference_<name>_<n>``: arguments, then one resource/tensor argument per
  captured value) and per signature (``__inference_signature_wrapper_<name>_<n>``: keyword
  inputs in sorted order, a ``StatefulPartitionedCall`` of the traced function, a dict of
  outputs), the ``SavedObjectGraph`` (objects breadth-first from ``obj``: user objects,
  variables, assets, lists, dicts, ``tf.function``s with their traces, the signature map;
  ``concrete_functions`` with bound inputs and structured signatures), the ``signature_def``s with
  their graph nodes (placeholders, variable handles, call nodes) for TF1-style clients;
- ``variables/variables.{index,data-00000-of-00001}``: the checkpoint of ``obj`` (api.checkpoint);
- ``assets/``: the files of ``tf.saved_model.Asset`` objects.

Traced graphs become FunctionDefs here (``_function_def``): placeholders are the arguments, edges
are written as ``node:output_arg:index``, the automatic control dependencies are ``control_ret``.
"""

from __future__ import annotations

import collections
import inspect
import os
import re
import shutil
from typing import Any

import numpy as np

from modtensor.api import checkpoint as checkpoint_lib
from modtensor.api import nested_structure
from modtensor.api import trackable as trackable_lib
from modtensor.framework import dtypes, tensor_proto
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.func_graph import flatten_structure, pack_structure
from modtensor.framework.protos import (
    function_pb2,
    meta_graph_pb2,
    saved_model_pb2,
    versions_pb2,
)
from modtensor.framework.tensor import TensorSpec

__all__ = ["save"]

_ARG_NAME = re.compile(r"[^a-z0-9_]")
DEFAULT_SIGNATURE_KEY = "serving_default"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"
GRAPH_PRODUCER = 1882  # TF 2.21's graph def version
GRAPH_MIN_CONSUMER = 12


def _function_types() -> tuple[type, type]:
    from modtensor.api import function as function_lib

    return function_lib.Function, function_lib.ConcreteFunction


class _UniqueNames:
    def __init__(self) -> None:
        self._used: set[str] = set()

    def __call__(self, base: str) -> str:
        name = base
        index = 0
        while name in self._used:
            index += 1
            name = f"{base}_{index}"
        self._used.add(name)
        return name


def _arg_name(name: str) -> str:
    """A FunctionDef argument name (lower case letters, digits, underscores) from a node name."""
    text = _ARG_NAME.sub("_", name.lower())
    if not text or not text[0].isalpha():
        text = "arg_" + text
    return text


# ============================================================================ graph -> FunctionDef


def _function_def(graph: Any, name: str) -> function_pb2.FunctionDef:
    """The FunctionDef of a traced FuncGraph: inputs are its placeholders (arguments, then captures)."""
    from modtensor.framework.op_registry import global_registry

    registry = global_registry()
    function = function_pb2.FunctionDef()
    function.signature.name = name
    unique = _UniqueNames()
    arg_of: dict[str, str] = {}
    input_ops = set()
    for tensor in graph.inputs:
        arg = unique(_arg_name(tensor.op.name))
        function.signature.input_arg.add(name=arg, type=tensor.dtype.base_dtype.as_datatype_enum)
        arg_of[tensor.op.name] = arg
        input_ops.add(tensor.op.name)
    ranges: dict[str, dict[int, str]] = {}

    def reference(text: str) -> str | None:
        if text.startswith("^"):
            op = text[1:]
            return None if op in input_ops else text
        op, _, index = text.partition(":")
        position = int(index or 0)
        if op in arg_of:
            return arg_of[op]
        return f"{op}:{ranges[op][position]}"

    for op in graph.get_operations():
        if op.name in input_ops:
            continue
        node = op.node_def
        registration = registry.lookup(node.op)
        if registration is not None:
            spans = node_def_lib.arg_ranges(node, registration.op_def, "output")
            ranges[op.name] = {
                i: f"{arg}:{i - start}" for arg, (start, stop) in spans.items() for i in range(start, stop)
            }
        copy = function.node_def.add()
        copy.CopyFrom(node)
        copy.ClearField("device")
        del copy.input[:]
        copy.input.extend(r for r in (reference(t) for t in node.input) if r is not None)
        if op.op_def.is_stateful:
            function.signature.is_stateful = True
    outputs = _UniqueNames()
    for tensor in graph.outputs:
        out = outputs(_arg_name(tensor.op.name))
        function.signature.output_arg.add(name=out, type=tensor.dtype.base_dtype.as_datatype_enum)
        function.ret[out] = reference(tensor.name)
    for op in getattr(graph, "control_outputs", []):
        if op.name in input_ops:
            continue
        function.signature.control_output.append(op.name)
        function.control_ret[op.name] = op.name
    return function


def _library_functions(graph: Any) -> list[function_pb2.FunctionDef]:
    """Library functions the traced graph calls (nested functions kept as calls)."""
    library = graph._function_library() if hasattr(graph, "_function_library") else None
    return list(library.function) if library is not None else []


# ============================================================================ the object graph


class _Trace:
    """One concrete function to save, traced here (a ConcreteFunction) or loaded (a RestoredConcreteFunction):
    its FunctionDef name, user inputs (TensorSpecs named by keyword), captured values and structures."""

    def __init__(self, function: Any, name: str):
        self.function = function
        self.name = name
        self.restored = _is_restored(function)
        if self.restored:
            self.arg_specs = list(function._input_specs)
            self.captures = list(function.captured_inputs)
            self.structured_input_signature = function.structured_input_signature
            self.output_structure = function.structured_outputs
        else:
            graph = function.graph
            num_args = len(graph.inputs) - len(graph.internal_captures)
            self.arg_specs = [TensorSpec(t.shape, t.dtype, _input_key(t)) for t in graph.inputs[:num_args]]
            self.captures = list(graph.external_captures)
            self.structured_input_signature = function.structured_input_signature or ((), {})
            outputs = function.structured_outputs
            leaves = [_named_spec(leaf, "unknown") if leaf is not None else None for leaf in flatten_structure(outputs)]
            self.output_structure = pack_structure(outputs, leaves)

    @property
    def base_name(self) -> str:
        return self.function.graph.name if not self.restored else self.function.name


def _is_restored(function: Any) -> bool:
    return getattr(function, "_is_restored_saved_model_function", False)


class _SignatureWrapper:
    """A signature: keyword inputs, dict outputs, calling a saved function."""

    def __init__(self, key: str, trace: _Trace, name: str):
        self.key = key
        self.trace = trace
        self.name = name
        self.arg_specs = trace.arg_specs
        self.keywords = [spec.name or f"input_{i}" for i, spec in enumerate(self.arg_specs)]
        if len(set(self.keywords)) != len(self.keywords):
            raise ValueError(f"Signature '{key}' has inputs with the same name: {self.keywords}")
        structured = trace.output_structure
        if isinstance(structured, dict):
            keys = [str(k) for k in sorted(structured)]
            values = [structured[k] for k in sorted(structured)]
            if any(flatten_structure(v) != [v] for v in values):
                raise ValueError(f"Signature '{key}': a dict result must map names to single tensors")
            self.output_keys = keys
        else:
            values = flatten_structure(structured)
            self.output_keys = [f"output_{i}" for i in range(len(values))]
        self.outputs = [v for v in values if v is not None]


def _input_key(tensor: Any) -> str:
    """The keyword of a signature input: its placeholder's name (the TensorSpec's name, else the argument's)."""
    return tensor.op.name


class _SignatureMapNode:
    def __init__(self, wrappers: list[_SignatureWrapper]):
        self.wrappers = wrappers


def _traces_of(function: Any) -> list[Any]:
    """The concrete functions a ``tf.function`` has traced (its input_signature trace made if missing)."""
    function_type, concrete_type = _function_types()
    if isinstance(function, concrete_type) or _is_restored(function) and not hasattr(function, "concrete_functions"):
        return [function]
    if _is_restored(function):
        return function.concrete_functions
    if function.input_signature is not None:
        return [function.get_concrete_function()]
    found = []
    for value in function._cache.values():
        if isinstance(value, concrete_type):
            found.append(value)
        elif isinstance(value, list):
            found += [c for _, c in value if isinstance(c, concrete_type)]
    unique = []
    for concrete in found:
        if all(concrete is not other for other in unique):
            unique.append(concrete)
    return unique


def _is_function(obj: Any) -> bool:
    """A tf.function or a loaded SavedModel's restored function (they have traces)."""
    function_type, _ = _function_types()
    return isinstance(obj, function_type) or (_is_restored(obj) and hasattr(obj, "concrete_functions"))


def _is_concrete(obj: Any) -> bool:
    _, concrete_type = _function_types()
    return isinstance(obj, concrete_type) or (_is_restored(obj) and not hasattr(obj, "concrete_functions"))


def _children(obj: Any) -> list[tuple[str, Any]]:
    from modtensor.api.saved_model_load import SignatureMap

    if isinstance(obj, _SignatureMapNode):
        return [(w.key, w) for w in obj.wrappers]
    if _is_function(obj):
        return [(f"trace_{i}", c) for i, c in enumerate(_traces_of(obj))]
    if _is_concrete(obj) or isinstance(obj, _SignatureWrapper):
        return []
    if not hasattr(obj, "_trackable_children"):
        return []
    # a loaded model's own signature map is saved again through the signatures (see _Saver._signatures)
    return [(k, v) for k, v in obj._trackable_children("savedmodel").items() if not isinstance(v, SignatureMap)]


def _function_to_export(root: Any) -> Any:
    """TF's default signature when ``save`` gets none: the root's ``_default_save_signature`` function, else
    its only function with an ``input_signature`` (or concrete function) taking tensors; None otherwise."""
    function_type, concrete_type = _function_types()
    possible = []
    for name, child in _children(root):
        if not isinstance(child, (function_type, concrete_type)):
            continue
        if name == "_default_save_signature":
            return child
        concrete = child
        if isinstance(child, function_type):
            concrete = child.get_concrete_function() if child.input_signature is not None else None
        if concrete is not None and flatten_structure(concrete.structured_input_signature or ((), {})):
            possible.append(concrete)
    return possible[0] if len(possible) == 1 else None


def _fullargspec(function: Any) -> Any:
    from modtensor.api.nested_structure import _namedtuple

    if _is_restored(function):
        return function._fullargspec
    spec = inspect.getfullargspec(function.python_function)
    args = list(spec.args)
    if inspect.ismethod(function.python_function) and args:
        args = args[1:]
    cls = _namedtuple(
        "FullArgSpec", ("args", "varargs", "varkw", "defaults", "kwonlyargs", "kwonlydefaults", "annotations")
    )
    return cls(args, spec.varargs, spec.varkw, tuple(spec.defaults) if spec.defaults else None,
               list(spec.kwonlyargs), dict(spec.kwonlydefaults) if spec.kwonlydefaults else None, {})


def _named_spec(value: Any, name: str | None) -> Any:
    if isinstance(value, TensorSpec):
        return TensorSpec(value.shape, value.dtype, value.name if value.name is not None else name)
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return TensorSpec(value.shape, value.dtype, name)
    return value


class _Saver:
    def __init__(self, root: Any, export_dir: str, signatures: Any):
        self.root = root
        self.export_dir = export_dir
        self.meta = meta_graph_pb2.MetaGraphDef()
        self.library: dict[str, function_pb2.FunctionDef] = {}
        self._ids = iter(range(1, 1 << 62))
        self.traces: dict[int, _Trace] = {}
        self.wrappers = self._signatures(signatures)

    # ----------------------------------------------------------------- functions

    def _trace(self, concrete: Any) -> _Trace:
        found = self.traces.get(id(concrete))
        if found is not None:
            return found
        if _is_restored(concrete):  # a loaded function keeps its FunctionDef and the functions it calls
            callees = concrete._runner.callees()
            name = concrete.name
            found = self.traces[id(concrete)] = _Trace(concrete, name)
            for function in [concrete._runner.function, *callees]:
                self.library.setdefault(function.signature.name, function)
            return found
        for function in _library_functions(concrete.graph):  # functions the trace calls, by their own names
            self.library.setdefault(function.signature.name, function)
        name = self._unique(f"__inference_{_arg_name(concrete.graph.name)}")
        found = self.traces[id(concrete)] = _Trace(concrete, name)
        self.library[name] = _function_def(concrete.graph, name)
        return found

    def _unique(self, base: str) -> str:
        """``base_<n>`` with the next number not naming a library function yet."""
        while True:
            name = f"{base}_{next(self._ids)}"
            if name not in self.library:
                return name

    def _signatures(self, signatures: Any) -> list[_SignatureWrapper]:
        from modtensor.api.saved_model_load import SignatureMap

        function_type, concrete_type = _function_types()
        if signatures is None:
            loaded = getattr(self.root, "signatures", None)
            if isinstance(loaded, SignatureMap) and loaded:
                signatures = dict(loaded)  # re-saving a loaded SavedModel keeps its signatures
            else:
                signatures = _function_to_export(self.root)
                if signatures is None:
                    return []
        if isinstance(signatures, (function_type, concrete_type)):
            signatures = {DEFAULT_SIGNATURE_KEY: signatures}
        if not isinstance(signatures, dict):
            raise ValueError(
                "Expected a TensorFlow function for which to generate a signature (or a dictionary mapping "
                f"signature keys to functions), got {signatures!r}"
            )
        wrappers = []
        for key in signatures:
            function = signatures[key]
            if isinstance(function, function_type):
                if function.input_signature is None:
                    traces = _traces_of(function)
                    if len(traces) != 1:
                        raise ValueError(
                            f"Function {function.python_function.__name__} for signature '{key}' must have an "
                            "input_signature or be a concrete function (f.get_concrete_function(...))"
                        )
                    function = traces[0]
                else:
                    function = function.get_concrete_function()
            if _is_restored(function) and hasattr(function, "concrete_functions"):
                traces = function.concrete_functions
                if len(traces) != 1:
                    raise ValueError(f"Restored function for signature '{key}' has {len(traces)} traces; pick one")
                function = traces[0]
            if not isinstance(function, concrete_type) and not _is_restored(function):
                raise ValueError(f"Signature '{key}': expected a tf.function or a concrete function, got {function!r}")
            trace = self._trace(function)
            name = self._unique(f"__inference_signature_wrapper_{_arg_name(trace.base_name)}")
            wrappers.append(_SignatureWrapper(key, trace, name))
        return wrappers

    def _wrapper_def(self, wrapper: _SignatureWrapper, capture_count: int) -> function_pb2.FunctionDef:
        inner = self.library[wrapper.trace.name]
        function = function_pb2.FunctionDef()
        function.signature.name = wrapper.name
        function.signature.is_stateful = True
        order = sorted(range(len(wrapper.keywords)), key=lambda i: wrapper.keywords[i])
        arg_names = {}
        for i in order:
            arg = _arg_name(wrapper.keywords[i])
            arg_names[i] = arg
            function.signature.input_arg.add(name=arg, type=inner.signature.input_arg[i].type)
        captures = []
        for j in range(capture_count):
            arg = f"unknown_{j}" if j else "unknown"
            captures.append(arg)
            function.signature.input_arg.add(name=arg, type=inner.signature.input_arg[len(order) + j].type)
        call = function.node_def.add(name="StatefulPartitionedCall", op="StatefulPartitionedCall")
        call.input.extend([arg_names[i] for i in range(len(order))] + captures)
        call.attr["f"].func.name = inner.signature.name
        call.attr["Tin"].list.type.extend(a.type for a in inner.signature.input_arg)
        call.attr["Tout"].list.type.extend(a.type for a in inner.signature.output_arg)
        for attr in ("config", "config_proto", "executor_type"):
            call.attr[attr].s = b""
        for key, position in sorted(zip(wrapper.output_keys, range(len(wrapper.output_keys)), strict=True)):
            function.signature.output_arg.add(name=_arg_name(key), type=inner.signature.output_arg[position].type)
            function.ret[_arg_name(key)] = f"StatefulPartitionedCall:output:{position}"
        return function

    # ----------------------------------------------------------------- objects

    def build(self) -> None:
        nodes: list[Any] = [self.root]
        ids = {id(self.root): 0}
        refs: list[list[tuple[str, int]]] = []
        queue = collections.deque([self.root])
        signature_map = _SignatureMapNode(self.wrappers) if self.wrappers else None
        while queue:
            obj = queue.popleft()
            children = _children(obj)
            if obj is self.root and signature_map is not None:
                children.append(("signatures", signature_map))
            out = []
            for name, child in children:
                if id(child) not in ids:
                    ids[id(child)] = len(nodes)
                    nodes.append(child)
                    queue.append(child)
                out.append((name, ids[id(child)]))
            refs.append(out)
        # a resource's saveable functions (a mutable table's save_fn and restore_fn): nodes of their own, after
        # the rest, as TF places them
        saveables: dict[int, dict[str, tuple[int, int]]] = {}
        for node_id, obj in enumerate(list(nodes)):
            functions = obj._saveable_functions() if _is_resource(obj) and hasattr(obj, "_saveable_functions") else {}
            for name, pair in functions.items():
                ids_of = []
                for concrete in pair:
                    ids[id(concrete)] = len(nodes)
                    ids_of.append(len(nodes))
                    nodes.append(concrete)
                    refs.append([])
                saveables.setdefault(node_id, {})[name] = (ids_of[0], ids_of[1])
        # a traced function captures a variable's handle tensor, a restored one the variable itself
        variables_by_handle = {id(n.handle): i for i, n in enumerate(nodes) if _is_variable(n)}
        variables_by_handle.update({id(n): i for i, n in enumerate(nodes) if _is_variable(n)})
        # a function using a lookup table captures its handle: bound to the table's resource node
        variables_by_handle.update({id(n.resource_handle): i for i, n in enumerate(nodes) if _is_resource(n)})
        assets = {id(n.asset_path): i for i, n in enumerate(nodes) if isinstance(n, _asset_type())}
        self.nodes = nodes
        graph = self.meta.object_graph_def
        for node_id, obj in enumerate(nodes):
            saved = graph.nodes.add()
            for name, child in refs[node_id]:
                saved.children.add(node_id=child, local_name=name)
                if _is_function(obj):
                    saved.dependencies.add(node_id=child, local_name=name)
            self._describe(obj, saved, variables_by_handle, assets)
            for name, (save_id, restore_id) in saveables.get(node_id, {}).items():
                saved.saveable_objects[name].save_function = save_id
                saved.saveable_objects[name].restore_function = restore_id
        for concrete_id, trace in self.traces.items():
            del concrete_id
            self._concrete_entry(trace, variables_by_handle, assets)
        for wrapper in self.wrappers:
            self._wrapper_entry(wrapper)

    def _captures(self, trace: _Trace, variables: dict[int, int], assets: dict[int, int]) -> list[int]:
        bound = []
        for external in trace.captures:
            node_id = variables.get(id(external), assets.get(id(external)))
            if node_id is None:
                node_id = self._constant_node(external)
            bound.append(node_id)
        return bound

    def _constant_node(self, tensor: Any) -> int:
        if tensor.dtype == dtypes.resource:
            raise ValueError(
                f"Tried to export a function which references an 'untracked' resource {tensor!r}. TensorFlow objects "
                "(e.g. tf.Variable) captured by functions must be tracked by assigning them to an attribute of a "
                "tracked object or assigned to an attribute of the main object directly."
            )
        graph = self.meta.object_graph_def
        name = f"Const_{len(graph.nodes)}"
        node = self.meta.graph_def.node.add(name=name, op="Const")
        value = np.asarray(tensor)
        node.attr["dtype"].type = tensor.dtype.as_datatype_enum
        node.attr["value"].tensor.CopyFrom(tensor_proto.make_tensor_proto(value, dtype=tensor.dtype))
        saved = graph.nodes.add()
        saved.constant.operation = name
        return len(graph.nodes) - 1

    def _concrete_entry(self, trace: _Trace, variables: dict[int, int], assets: dict[int, int]) -> None:
        entry = self.meta.object_graph_def.concrete_functions[trace.name]
        entry.bound_inputs.extend(self._captures(trace, variables, assets))
        args, kwargs = trace.structured_input_signature
        entry.canonicalized_input_signature.CopyFrom(nested_structure.encode((tuple(args), dict(kwargs))))
        entry.output_signature.CopyFrom(nested_structure.encode(trace.output_structure))

    def _wrapper_entry(self, wrapper: _SignatureWrapper) -> None:
        inner = self.meta.object_graph_def.concrete_functions[wrapper.trace.name]
        entry = self.meta.object_graph_def.concrete_functions[wrapper.name]
        entry.bound_inputs.extend(inner.bound_inputs)
        pairs = zip(wrapper.keywords, wrapper.arg_specs, strict=True)
        inputs = {k: TensorSpec(t.shape, t.dtype, k) for k, t in pairs}
        entry.canonicalized_input_signature.CopyFrom(nested_structure.encode(((), inputs)))
        pairs = zip(wrapper.output_keys, wrapper.outputs, strict=True)
        outputs = {k: TensorSpec(t.shape, t.dtype, k) for k, t in pairs}
        entry.output_signature.CopyFrom(nested_structure.encode(outputs))
        self.library[wrapper.name] = self._wrapper_def(wrapper, len(inner.bound_inputs))

    def _describe(self, obj: Any, saved: Any, variables: dict[int, int], assets: dict[int, int]) -> None:
        del variables, assets
        if _is_variable(obj):
            variable = saved.variable
            variable.dtype = obj.dtype.as_datatype_enum
            variable.shape.CopyFrom(obj.shape.as_proto())
            variable.trainable = obj.trainable
            variable.name = obj.name[:-2] if obj.name.endswith(":0") else obj.name
            return
        if isinstance(obj, _asset_type()):
            self._asset(obj, saved)
            return
        if _is_resource(obj):  # its functions (_create_resource, _initialize, ...) are its children
            saved.resource.SetInParent()
            return
        if _is_function(obj):
            traces = [self._trace(c) for c in _traces_of(obj)]
            saved.function.concrete_functions.extend(t.name for t in traces)
            spec = saved.function.function_spec
            fullargspec = _fullargspec(obj)
            if fullargspec is not None:
                spec.fullargspec.CopyFrom(nested_structure.encode(fullargspec))
            signature = obj._input_signature if _is_restored(obj) else obj.input_signature
            spec.input_signature.CopyFrom(nested_structure.encode(tuple(signature) if signature is not None else None))
            return
        if _is_concrete(obj):
            trace = self._trace(obj)
            bare = saved.bare_concrete_function
            bare.concrete_function_name = trace.name
            if _is_restored(obj):
                names = list(obj._arg_keywords)
                positional = obj._num_positional
            else:
                names = [spec.name for spec in trace.arg_specs]
                positional = len(names)
            bare.argument_keywords.extend(names)
            bare.allowed_positional_arguments = positional
            return
        if isinstance(obj, _SignatureWrapper):
            bare = saved.bare_concrete_function
            bare.concrete_function_name = obj.name
            bare.argument_keywords.extend(sorted(obj.keywords))
            bare.allowed_positional_arguments = len(obj.keywords)
            return
        user = saved.user_object
        if isinstance(obj, _SignatureMapNode):
            user.identifier = "signature_map"
        elif isinstance(obj, trackable_lib.ListWrapper):
            user.identifier = "trackable_list_wrapper"
        elif isinstance(obj, trackable_lib.DictWrapper):
            user.identifier = "trackable_dict_wrapper"
        else:
            user.identifier = "_generic_user_object"
        user.version.producer = 1
        user.version.min_consumer = 1

    def _asset(self, asset: Any, saved: Any) -> None:
        source = asset.asset_path.numpy().decode()
        filename = os.path.basename(source)
        target_dir = os.path.join(self.export_dir, "assets")
        os.makedirs(target_dir, exist_ok=True)
        if os.path.abspath(source) != os.path.abspath(os.path.join(target_dir, filename)):
            shutil.copyfile(source, os.path.join(target_dir, filename))
        index = len(self.meta.asset_file_def)
        name = "asset_path_initializer" if index == 0 else f"asset_path_initializer_{index}"
        node = self.meta.graph_def.node.add(name=name, op="Const")
        node.attr["dtype"].type = dtypes.string.as_datatype_enum
        node.attr["value"].tensor.CopyFrom(tensor_proto.make_tensor_proto(filename.encode(), dtype=dtypes.string))
        self.meta.asset_file_def.add(filename=filename).tensor_info.name = f"{name}:0"
        saved.asset.asset_file_def_index = index

    # ----------------------------------------------------------------- signature_def graph nodes

    def signature_defs(self) -> None:
        graph = self.meta.graph_def
        names = _UniqueNames()
        for node in graph.node:
            names(node.name)
        handle_nodes: dict[int, str] = {}
        object_graph = self.meta.object_graph_def
        for node_id, node in enumerate(object_graph.nodes):
            if node.WhichOneof("kind") != "variable":
                continue
            name = names(node.variable.name or "Variable")
            handle = graph.node.add(name=name, op="VarHandleOp")
            handle.attr["dtype"].type = node.variable.dtype
            handle.attr["shape"].shape.CopyFrom(node.variable.shape)
            handle.attr["shared_name"].s = name.encode()
            handle.attr["container"].s = b""
            handle.attr["debug_name"].s = (name + "/").encode()
            handle.attr["allowed_devices"].list.SetInParent()
            handle_nodes[node_id] = name
        handle_nodes.update(self._resource_nodes(names))
        for wrapper in self.wrappers:
            signature = self.meta.signature_def[wrapper.key]
            signature.method_name = PREDICT_METHOD_NAME
            inner = self.library[wrapper.trace.name]
            inputs = []
            for keyword, tensor in zip(wrapper.keywords, wrapper.arg_specs, strict=True):
                placeholder = graph.node.add(name=names(f"{wrapper.key}_{keyword}"), op="Placeholder")
                placeholder.attr["dtype"].type = tensor.dtype.as_datatype_enum
                placeholder.attr["shape"].shape.CopyFrom(tensor.shape.as_proto())
                inputs.append(placeholder.name)
                info = signature.inputs[keyword]
                info.name = f"{placeholder.name}:0"
                info.dtype = tensor.dtype.as_datatype_enum
                info.tensor_shape.CopyFrom(tensor.shape.as_proto())
            bound = object_graph.concrete_functions[wrapper.trace.name].bound_inputs
            for node_id in bound:
                if node_id not in handle_nodes:
                    raise ValueError(f"Signature '{wrapper.key}' captures a value that is not a variable")
                inputs.append(handle_nodes[node_id])
            call = graph.node.add(name=names("StatefulPartitionedCall"), op="StatefulPartitionedCall", input=inputs)
            call.attr["f"].func.name = inner.signature.name
            call.attr["Tin"].list.type.extend(a.type for a in inner.signature.input_arg)
            call.attr["Tout"].list.type.extend(a.type for a in inner.signature.output_arg)
            for attr in ("config", "config_proto", "executor_type"):
                call.attr[attr].s = b""
            for position, (key, tensor) in enumerate(zip(wrapper.output_keys, wrapper.outputs, strict=True)):
                info = signature.outputs[key]
                info.name = f"{call.name}:{position}"
                info.dtype = tensor.dtype.as_datatype_enum
                info.tensor_shape.CopyFrom(tensor.shape.as_proto())
        noop = graph.node.add(name=names("NoOp"), op="NoOp")
        noop.input.extend(f"^{call}" for call in self._initializer_calls(names, handle_nodes))
        init = self.meta.signature_def[INIT_OP_SIGNATURE_KEY].outputs[INIT_OP_SIGNATURE_KEY]
        init.name = noop.name
        init.tensor_shape.unknown_rank = True

    def _resource_nodes(self, names: Any) -> dict[int, str]:
        """Graph nodes for what signatures and initializers capture besides variables, by object node id: each
        resource's op (a lookup table's HashTableV2 with its shared name), constant's Const and asset's path."""
        from modtensor.framework.attr_value import to_attr_value

        graph = self.meta.graph_def
        found = {}
        for node_id, node in enumerate(self.meta.object_graph_def.nodes):
            if node.WhichOneof("kind") == "constant":
                found[node_id] = node.constant.operation
            elif node.WhichOneof("kind") == "asset":  # its path's node (TF 1 loaders feed the file's path)
                found[node_id] = self.meta.asset_file_def[node.asset.asset_file_def_index].tensor_info.name[:-2]
            elif node.WhichOneof("kind") == "resource":
                op, name, attrs = self.nodes[node_id]._table_op
                table = graph.node.add(name=names(name), op=op)
                for key, value in attrs.items():
                    table.attr[key].CopyFrom(to_attr_value(value))
                found[node_id] = table.name
        return found

    def _initializer_calls(self, names: Any, handle_nodes: dict[int, str]) -> list[str]:
        """A call of every resource's ``_initialize`` function (what ``__saved_model_init_op`` runs for TF 1
        loaders and TF Serving), with the nodes of what it captures."""
        graph, object_graph = self.meta.graph_def, self.meta.object_graph_def
        calls = []
        for node in object_graph.nodes:
            if node.WhichOneof("kind") != "resource":
                continue
            child = next((c.node_id for c in node.children if c.local_name == "_initialize"), None)
            if child is None or not object_graph.nodes[child].function.concrete_functions:
                continue
            concrete = object_graph.nodes[child].function.concrete_functions[0]
            function = self.library[concrete]
            call = graph.node.add(name=names("StatefulPartitionedCall"), op="StatefulPartitionedCall")
            call.input.extend(handle_nodes[b] for b in object_graph.concrete_functions[concrete].bound_inputs)
            call.attr["f"].func.name = function.signature.name
            call.attr["Tin"].list.type.extend(a.type for a in function.signature.input_arg)
            call.attr["Tout"].list.type.extend(a.type for a in function.signature.output_arg)
            for attr in ("config", "config_proto", "executor_type"):
                call.attr[attr].s = b""
            calls.append(call.name)
        return calls

    def write(self) -> None:
        from modtensor import __version__

        self.build()
        self.signature_defs()
        self.meta.graph_def.versions.CopyFrom(
            versions_pb2.VersionDef(producer=GRAPH_PRODUCER, min_consumer=GRAPH_MIN_CONSUMER)
        )
        self.meta.graph_def.library.function.extend(self.library[name] for name in sorted(self.library))
        info = self.meta.meta_info_def
        info.tags.append("serve")
        info.tensorflow_version = ""
        info.tensorflow_git_version = f"modtensor {__version__}"
        info.stripped_default_attrs = False
        saved_model = saved_model_pb2.SavedModel(saved_model_schema_version=1)
        saved_model.meta_graphs.append(self.meta)
        os.makedirs(os.path.join(self.export_dir, "variables"), exist_ok=True)
        checkpoint_lib.write_object_graph(
            trackable_lib.TrackableGraph(self.root), os.path.join(self.export_dir, "variables", "variables")
        )
        path = os.path.join(self.export_dir, "saved_model.pb")
        temp = path + ".tmp"
        with open(temp, "wb") as f:
            f.write(saved_model.SerializeToString(deterministic=True))
        os.replace(temp, path)


def _is_variable(obj: Any) -> bool:
    from modtensor.api.variables import Variable

    return isinstance(obj, Variable)


def _is_resource(obj: Any) -> bool:
    """An object TF saves as a resource node (a lookup table), not a variable."""
    return bool(getattr(obj, "_saved_model_resource", False)) and not _is_variable(obj)


def _asset_type() -> type:
    from modtensor.api.saved_model_load import Asset

    return Asset


def save(obj: Any, export_dir: str, signatures: Any = None, options: Any = None) -> None:
    """Write ``obj`` (a trackable: ``tf.Module``, ...) as a SavedModel in ``export_dir`` (see the module doc)."""
    del options
    if not trackable_lib.is_trackable(obj):
        raise ValueError(
            f"Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the `Trackable` class, for "
            f"export. Got {obj} with type {type(obj)}."
        )
    export_dir = os.fspath(export_dir)
    os.makedirs(export_dir, exist_ok=True)
    _Saver(obj, export_dir, signatures).write()
