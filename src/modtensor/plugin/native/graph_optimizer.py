"""Graph optimizer plugins: ``TF_InitGraph`` (grappler.h) and calling a plugin's ``optimize_func``.

``init_graph_optimizer`` zero-fills ``TP_OptimizerRegistrationParams`` (struct sizes and
``GO_MAJOR/MINOR/PATCH`` set), calls the plugin's entry point, validates what it filled
(version, every ``struct_size``, ``device_type``, ``optimize_func``), calls ``create_func``
once and returns a ``NativeGraphOptimizer`` whose ``plugin_optimizer()`` is what the
grappler registry holds. Each optimization serializes the GraphDef into a ``TF_Buffer``,
builds a ``TF_GrapplerItem`` (csrc/shim/grappler.c) and parses the output buffer; an
error status or an output that is not a GraphDef raises, so the meta-optimizer keeps the
input and warns naming the plugin. ``TF_InferStatically`` and ``TF_LookUpOpDef`` come back
here through two ctypes callbacks installed on the shim.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from ctypes import POINTER, Structure, c_char_p, c_int, c_int32, c_int64, c_size_t, c_void_p
from typing import Any

from modtensor.framework import errors
from modtensor.framework.protos import graph_pb2, op_performance_data_pb2
from modtensor.grappler.config import PLUGIN_CONFIG_FIELDS
from modtensor.plugin.native.c_struct import struct_size
from modtensor.plugin.native.crash_report import plugin_call

__all__ = ["GO_MAJOR", "GO_MINOR", "GO_PATCH", "NativeGraphOptimizer", "init_graph_optimizer", "loaded_optimizers"]

GO_MAJOR, GO_MINOR, GO_PATCH = 0, 0, 1

_P = c_void_p
_OPTIMIZE = ctypes.CFUNCTYPE(None, _P, _P, _P, _P, _P)
_CREATE = ctypes.CFUNCTYPE(_P)
_DESTROY = ctypes.CFUNCTYPE(None, _P)

# TP_OptimizerConfigs's tri-state fields, in the struct's order: the merge's fields plus TF's deprecated
# auto_mixed_precision_mkl (an alias of auto_mixed_precision_onednn_bfloat16), which sits right after it.
_AMP_ONEDNN = PLUGIN_CONFIG_FIELDS.index("auto_mixed_precision_onednn_bfloat16") + 1
CONFIG_FIELDS = (*PLUGIN_CONFIG_FIELDS[:_AMP_ONEDNN], "auto_mixed_precision_mkl", *PLUGIN_CONFIG_FIELDS[_AMP_ONEDNN:])


class TP_OptimizerConfigs(Structure):  # noqa: N801 - the C name
    _fields_ = [("struct_size", c_size_t), ("ext", c_void_p), *((name, c_int) for name in CONFIG_FIELDS)]


class TP_Optimizer(Structure):  # noqa: N801
    _fields_ = [
        ("struct_size", c_size_t),
        ("ext", c_void_p),
        ("create_func", c_void_p),
        ("optimize_func", c_void_p),
        ("destroy_func", c_void_p),
    ]


class TP_OptimizerRegistrationParams(Structure):  # noqa: N801
    _fields_ = [
        ("struct_size", c_size_t),
        ("ext", c_void_p),
        ("major_version", c_int32),
        ("minor_version", c_int32),
        ("patch_version", c_int32),
        ("device_type", c_char_p),
        ("optimizer_configs", POINTER(TP_OptimizerConfigs)),
        ("optimizer", POINTER(TP_Optimizer)),
    ]


class _Buffer(Structure):
    _fields_ = [("data", c_void_p), ("length", c_size_t), ("data_deallocator", c_void_p)]


class _Shim:
    """The shim's functions this module calls, typed once."""

    _lock = threading.Lock()
    lib: ctypes.CDLL | None = None

    @classmethod
    def get(cls) -> ctypes.CDLL:
        with cls._lock:
            if cls.lib is None:
                from modtensor.plugin.native import bridge, shim_path

                bridge()
                lib = ctypes.CDLL(str(shim_path()))
                sigs: dict[str, tuple[Any, list[Any]]] = {
                    "TF_NewStatus": (_P, []),
                    "TF_DeleteStatus": (None, [_P]),
                    "TF_GetCode": (c_int, [_P]),
                    "TF_Message": (c_char_p, [_P]),
                    "TF_SetStatus": (None, [_P, c_int, c_char_p]),
                    "TF_NewBuffer": (POINTER(_Buffer), []),
                    "TF_NewBufferFromString": (POINTER(_Buffer), [c_char_p, c_size_t]),
                    "TF_DeleteBuffer": (None, [POINTER(_Buffer)]),
                    "MT_NewGrapplerItem": (_P, [c_int64, POINTER(c_char_p), c_int, POINTER(c_char_p), c_int]),
                    "MT_DeleteGrapplerItem": (None, [_P]),
                    "MT_GraphPropertiesAdd": (None, [_P, c_char_p, c_int, c_int, POINTER(c_char_p), POINTER(c_size_t)]),
                    "MT_SetBufferBytes": (None, [_P, c_char_p, c_size_t]),
                    "MT_SetGrapplerCallbacks": (None, [_P, _P]),
                }
                for name, (restype, argtypes) in sigs.items():
                    fn = getattr(lib, name)
                    fn.restype, fn.argtypes = restype, argtypes
                lib.MT_SetGrapplerCallbacks(ctypes.cast(_INFER_CALLBACK, _P), ctypes.cast(_LOOK_UP_CALLBACK, _P))
                cls.lib = lib
            return cls.lib


def _status_error(lib: ctypes.CDLL, status: int) -> tuple[type[errors.OpError], str] | None:
    code = lib.TF_GetCode(status)
    if code == 0:
        return None
    message = (lib.TF_Message(status) or b"").decode("utf-8", "replace")
    return errors.exception_type_from_error_code(code), message


# Python GrapplerItems by the token their TF_GrapplerItem carries (for TF_InferStatically).
_items: dict[int, Any] = {}
_tokens = itertools.count(1)


def _set_status(status: int, exc: BaseException) -> None:
    code = exc.error_code if isinstance(exc, errors.OpError) else 13  # INTERNAL
    message = exc.message if isinstance(exc, errors.OpError) else f"{type(exc).__name__}: {exc}"
    _Shim.get().TF_SetStatus(status, code, message.encode())


def _tensor_properties(shape: Any, dtype: Any, value: Any) -> bytes:
    """OpInfo.TensorProperties; ``shape`` a TensorShapeProto whose unknown dims are symbols (as TF's grappler)."""
    props = op_performance_data_pb2.OpInfo.TensorProperties()
    if dtype is not None:
        props.dtype = dtype.as_datatype_enum
    props.shape.CopyFrom(shape)
    if value is not None:
        from modtensor.framework.tensor_proto import make_tensor_proto

        props.value.CopyFrom(make_tensor_proto(value))
    return props.SerializeToString()


def _infer(
    token: int, handle: int, assume_valid_feeds: int, aggressive: int, in_values: int, out_values: int, status: int
) -> None:
    """TF_InferStatically: run GraphProperties and hand every node's input/output properties to C.

    Unknown dimensions are reported as TF's grappler reports them: symbols (-2, -3, ...) shared by the
    tensors whose shape functions pass the dimension on (``grappler.symbolic_shapes``), never -1; plugins
    compare shapes with them (ITEX's remapper fuses ``Add(conv, bias)`` only for symbolically defined shapes).
    """
    try:
        from modtensor.framework.node_def import parse_tensor_name
        from modtensor.grappler.graph_properties import GraphProperties
        from modtensor.grappler.symbolic_shapes import SymbolicShapes

        item = _items[token]
        props = GraphProperties(item)
        if not props.infer_statically(bool(assume_valid_feeds)):
            raise errors.InvalidArgumentError(None, None, f"static shape inference failed: {props.error}")
        symbolic = SymbolicShapes({node.name: node for node in item.graph_def.node}, props)
        lib = _Shim.get()
        outputs: dict[str, list[tuple[Any, Any]]] = {}
        for node in item.graph_def.node:
            found = []
            while (dtype := props.output_dtype(node.name, len(found))) is not None:
                found.append((symbolic.proto(f"{node.name}:{len(found)}"), dtype))
            outputs[node.name] = found

        def add(name: str, is_output: int, entries: list[bytes]) -> None:
            data = (c_char_p * max(len(entries), 1))(*entries)
            lengths = (c_size_t * max(len(entries), 1))(*(len(e) for e in entries))
            lib.MT_GraphPropertiesAdd(handle, name.encode(), is_output, len(entries), data, lengths)

        for node in item.graph_def.node:
            outs = [
                _tensor_properties(shape, dtype, props.constant_value(node.name, i) if out_values else None)
                for i, (shape, dtype) in enumerate(outputs[node.name])
            ]
            add(node.name, 1, outs)
            ins = []
            for text in node.input:
                if text.startswith("^"):
                    continue
                producer, index = parse_tensor_name(text)
                produced = outputs.get(producer, [])
                if index < len(produced):
                    shape, dtype = produced[index]
                    value = props.constant_value(producer, index) if in_values else None
                    ins.append(_tensor_properties(shape, dtype, value))
            add(node.name, 0, ins)
    except BaseException as exc:  # noqa: BLE001 - never let an exception cross into C
        _set_status(status, exc)


def _look_up(graph: int, length: int, name: bytes, buf: int, status: int) -> None:
    """TF_LookUpOpDef: a function of the graph's library, else the op registry's OpDef."""
    try:
        from modtensor.framework.op_registry import global_registry

        text = name.decode()
        graph_def = graph_pb2.GraphDef.FromString(ctypes.string_at(graph, length) if length else b"")
        op_def = next((f.signature for f in graph_def.library.function if f.signature.name == text), None)
        if op_def is None:
            registration = global_registry().lookup(text)
            if registration is None:
                raise errors.NotFoundError(None, None, f"Op type not registered '{text}'")
            op_def = registration.op_def
        data = op_def.SerializeToString()
        _Shim.get().MT_SetBufferBytes(buf, data, len(data))
    except BaseException as exc:  # noqa: BLE001
        _set_status(status, exc)


_INFER_CALLBACK = ctypes.CFUNCTYPE(None, c_int64, _P, c_int, c_int, c_int, c_int, _P)(_infer)
_LOOK_UP_CALLBACK = ctypes.CFUNCTYPE(None, _P, c_size_t, c_char_p, _P, _P)(_look_up)


class NativeGraphOptimizer:
    """One plugin's registered optimizer: its state (from ``create_func``), configs and functions."""

    def __init__(self, plugin: str, device_type: str, optimizer: TP_Optimizer, configs: dict[str, int]):
        self.plugin = plugin
        self.device_type = device_type
        self.configs = configs
        self._optimize = _OPTIMIZE(optimizer.optimize_func)
        self._destroy = _DESTROY(optimizer.destroy_func) if optimizer.destroy_func else None
        self.state = None
        if optimizer.create_func:
            with plugin_call(plugin, "TP_Optimizer.create_func"):
                self.state = _CREATE(optimizer.create_func)()
        self._torn_down = False
        # What the plugin filled: struct name -> {"struct_size", "expected"} (+ version); init_graph_optimizer sets it.
        self.struct_info: dict[str, dict[str, Any]] = {}

    def teardown(self) -> None:
        """Call ``destroy_func`` with the state (once)."""
        if not self._torn_down:
            self._torn_down = True
            if self._destroy is not None:
                with plugin_call(self.plugin, "TP_Optimizer.destroy_func"):
                    self._destroy(self.state)
            if _LOADED.get(self.plugin) is self:
                del _LOADED[self.plugin]

    def optimize(self, graph_def: graph_pb2.GraphDef, item: Any) -> graph_pb2.GraphDef:
        """Run ``optimize_func`` on ``graph_def``; raises the OpError of a failure or an unparsable output."""
        from modtensor.grappler.item import GrapplerItem

        lib = _Shim.get()
        if not isinstance(item, GrapplerItem):
            item = GrapplerItem(graph_def)
        item = item.with_graph(graph_def)
        data = graph_def.SerializeToString()
        preserve = sorted(item.keep_nodes() | item.feed_nodes())
        fetch = list(item.fetches)
        token = next(_tokens)
        _items[token] = item
        pres = (c_char_p * max(len(preserve), 1))(*(n.encode() for n in preserve))
        fetches = (c_char_p * max(len(fetch), 1))(*(n.encode() for n in fetch))
        c_item = lib.MT_NewGrapplerItem(token, pres, len(preserve), fetches, len(fetch))
        source, output, status = lib.TF_NewBufferFromString(data, len(data)), lib.TF_NewBuffer(), lib.TF_NewStatus()
        try:
            with plugin_call(self.plugin, "TP_Optimizer.optimize_func"):
                self._optimize(self.state, ctypes.cast(source, _P), c_item, ctypes.cast(output, _P), status)
            failure = _status_error(lib, status)
            if failure is not None:
                cls, message = failure
                raise cls(None, None, f"optimize_func of plugin {self.plugin} failed: {message}")
            out = output.contents
            raw = ctypes.string_at(out.data, out.length) if out.data and out.length else b""
        finally:
            lib.TF_DeleteStatus(status)
            lib.TF_DeleteBuffer(source)
            lib.TF_DeleteBuffer(output)
            lib.MT_DeleteGrapplerItem(c_item)
            _items.pop(token, None)
        result = graph_pb2.GraphDef()
        try:
            result.ParseFromString(raw)
        except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError
            raise errors.InvalidArgumentError(
                None, None, f"plugin {self.plugin} returned an output buffer that is not a serialized GraphDef ({exc})"
            ) from None
        if not result.node and graph_def.node:
            raise errors.InvalidArgumentError(
                None, None, f"plugin {self.plugin} returned an empty GraphDef (did optimize_func fill the output?)"
            )
        return result


def init_graph_optimizer(plugin: str, address: int, entry_point: str) -> NativeGraphOptimizer:
    """Call ``entry_point`` (TF_InitGraph or TF_InitGraphPlugin) and validate what the plugin filled."""
    lib = _Shim.get()
    configs = TP_OptimizerConfigs(struct_size=struct_size(TP_OptimizerConfigs))
    optimizer = TP_Optimizer(struct_size=struct_size(TP_Optimizer))
    params = TP_OptimizerRegistrationParams(
        struct_size=struct_size(TP_OptimizerRegistrationParams),
        major_version=GO_MAJOR,
        minor_version=GO_MINOR,
        patch_version=GO_PATCH,
        optimizer_configs=ctypes.pointer(configs),
        optimizer=ctypes.pointer(optimizer),
    )
    status = lib.TF_NewStatus()
    try:
        with plugin_call(plugin, entry_point):
            ctypes.CFUNCTYPE(None, POINTER(TP_OptimizerRegistrationParams), _P)(address)(ctypes.byref(params), status)
        failure = _status_error(lib, status)
    finally:
        lib.TF_DeleteStatus(status)
    if failure is not None:
        cls, message = failure
        raise cls(None, None, f"the plugin reported: {message}")

    def fail(text: str) -> errors.OpError:
        return errors.FailedPreconditionError(None, None, text)

    if params.major_version != GO_MAJOR:
        raise fail(
            f"the plugin's Graph C API major version {params.major_version} does not match modtensor's "
            f"{GO_MAJOR} (GO_MAJOR); rebuild the plugin against modtensor's grappler.h"
        )
    for struct, size, macro in (
        (TP_OptimizerRegistrationParams, params.struct_size, "TP_OPTIMIZER_REGISTRATION_PARAMS_STRUCT_SIZE"),
        (TP_Optimizer, optimizer.struct_size, "TP_OPTIMIZER_STRUCT_SIZE"),
        (TP_OptimizerConfigs, configs.struct_size, "TP_OPTIMIZER_CONFIGS_STRUCT_SIZE"),
    ):
        if size != struct_size(struct):
            raise fail(
                f"{struct.__name__}.struct_size is {size}, expected {struct_size(struct)} "
                f"(set it to {macro} of grappler.h)"
            )
    if not params.device_type:
        raise fail("TP_OptimizerRegistrationParams.device_type is not set")
    if not optimizer.optimize_func:
        raise fail("required function 'TP_Optimizer.optimize_func' is not set")
    values = {}
    for name in CONFIG_FIELDS:
        value = getattr(configs, name)
        if value not in (0, 1, 2):
            raise fail(f"TP_OptimizerConfigs.{name} is {value}, not a TF_TriState")
        if name == "auto_mixed_precision_mkl":  # TensorFlow's deprecated alias
            name = "auto_mixed_precision_onednn_bfloat16"
            value = value or values.get(name, 0)
        if value:
            values[name] = value
    native = NativeGraphOptimizer(plugin, params.device_type.decode(), optimizer, values)
    native.struct_info = {
        "TP_OptimizerRegistrationParams": {
            "struct_size": int(params.struct_size),
            "expected": struct_size(TP_OptimizerRegistrationParams),
            "version": f"{params.major_version}.{params.minor_version}.{params.patch_version}",
            "expected_version": f"{GO_MAJOR}.{GO_MINOR}.{GO_PATCH}",
        },
        "TP_Optimizer": {"struct_size": int(optimizer.struct_size), "expected": struct_size(TP_Optimizer)},
        "TP_OptimizerConfigs": {"struct_size": int(configs.struct_size), "expected": struct_size(TP_OptimizerConfigs)},
    }
    _LOADED[plugin] = native
    return native


_LOADED: dict[str, NativeGraphOptimizer] = {}


def loaded_optimizers() -> dict[str, NativeGraphOptimizer]:
    """The graph optimizers registered by native plugins in this process, by plugin path."""
    return dict(_LOADED)
