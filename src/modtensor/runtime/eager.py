"""Eager execution: ``EagerTensor`` and running ops immediately through cached kernels.

An op call is keyed by (op type, device scope, explicit attrs, and each input's
dtype and device). The first call of a key converts the attrs, infers type and
number attrs, validates the node, places it and creates its kernel; the entry it
stores holds the kernel and a prepared call, so later calls of that key do no
protobuf work: they convert python inputs, call the kernel and wrap its outputs.
Stateful kernels (random ops) live in their entry, so repeated calls continue
their stream, as in TensorFlow. Errors are TensorFlow's eager errors: the kernel's
OpError class and message with ``[Op:AddV2] name: ...`` appended.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from modtensor.framework import attr_inference, dtypes, errors, tensor_shape
from modtensor.framework import node_def as node_def_lib
from modtensor.framework import tape as _tape
from modtensor.framework.device_spec import DeviceSpec
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import attr_value_pb2, node_def_pb2, op_def_pb2
from modtensor.framework.tensor import Tensor, tensor_like
from modtensor.runtime import context as runtime_context
from modtensor.runtime import device_factory
from modtensor.runtime.device import Device
from modtensor.runtime.eager_conversion import convert_value, numpy_dtype
from modtensor.runtime.kernel_registry import add_kernel_change_listener

__all__ = [
    "tensor_on_device",
    "NO_NAME",
    "EagerTensor",
    "Reference",
    "apply_op_eager",
    "clear_kernel_cache",
    "constant",
    "convert_to_eager_tensor",
    "execute",
    "frozen_attrs",
    "run_cached",
    "run_cached1",
    "run_cached2",
    "run_cached_values",
    "run_with_python_operand",
    "scope_for_device",
    "signature",
    "wrap_device_value",
]

_new = object.__new__
_thread = runtime_context._thread
_RESOURCE = dtypes.resource  # resource tensors: host object arrays of handles, on the device of their resource

# ============================================================================= tensor signatures

# Every (dtype, device) pair gets a small int; cache keys hold these ints, which hash in C.
_sig_lock = threading.Lock()
_SIGS: dict[tuple[int, Device | None], int] = {}


def _sig(dtype: dtypes.DType, device: Device | None) -> int:
    key = (dtype.as_datatype_enum, device)
    found = _SIGS.get(key)
    if found is None:
        with _sig_lock:
            found = _SIGS.setdefault(key, len(_SIGS) + 1)
    return found


_NP_TO_DTYPE: dict[np.dtype, dtypes.DType] = {}


def _dtype_of(array: Any) -> dtypes.DType:
    """The DType of a device value (from its numpy dtype; object arrays are strings)."""
    found = _NP_TO_DTYPE.get(array.dtype)
    if found is None:
        found = dtypes.as_dtype(array.dtype)
        _NP_TO_DTYPE[array.dtype] = found
    return found


def _host_device() -> Device:
    return device_factory.device_set().client_device


# ============================================================================= EagerTensor


class EagerTensor(Tensor):
    """A tensor with a value: a device value (a numpy array on CPU) and the Device holding it.

    Immutable, like TensorFlow's: ``numpy()`` returns a copy and ``np.asarray`` a
    read-only view. Scalars convert with ``bool``/``int``/``float``/``index``.
    """

    __slots__ = ("_device", "_dtype", "_sig", "_value")

    def __init__(self, value: Any, device: Any = None, dtype: Any = None):
        dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        array = convert_value(value, dtype)
        dev = _host_device() if device is None else device_factory.get_device(device)
        self._dtype = dtype if dtype is not None else _dtype_of(array)
        self._value = array if dev.is_host else dev.from_host(array)
        self._device = dev
        self._sig = _sig(self._dtype, dev)

    # ------------------------------------------------------------------ properties

    @property
    def dtype(self) -> dtypes.DType:
        """The element type."""
        return self._dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The (fully defined) shape."""
        return tensor_shape.TensorShape(self._value.shape)

    def _shape_tuple(self) -> tuple[int, ...]:
        return tuple(self._value.shape)

    def _rank(self) -> int:
        return len(self._value.shape)

    @property
    def ndim(self) -> int:
        """The rank."""
        return len(self._value.shape)

    @property
    def device(self) -> str:
        """The full name of the device holding the value."""
        return self._device.name

    @property
    def backing_device(self) -> str:
        """The device whose memory holds the value (the same as ``device`` here)."""
        return self._device.name

    @property
    def name(self) -> str:
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def op(self) -> Any:
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self) -> Any:
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    def set_shape(self, shape: Any) -> None:
        """Check that ``shape`` is compatible with the actual shape (an eager shape cannot change)."""
        if not self.shape.is_compatible_with(shape):
            raise ValueError(
                f"Tensor's shape {self.shape} is not compatible with supplied shape {tensor_shape.as_shape(shape)}."
            )

    # ------------------------------------------------------------------ values

    def _host_value(self) -> Any:
        device = self._device
        if device.is_host or self._dtype is _RESOURCE:
            return self._value
        return device.to_host(self._value)

    def _numpy(self) -> Any:
        """The host value without a copy: an array, or a numpy scalar / bytes for rank 0."""
        if not self._dtype.is_numpy_compatible:
            raise ValueError(f"Cannot convert a Tensor of dtype {self._dtype.name} to a NumPy array.")
        value = self._host_value()
        return value[()] if value.ndim == 0 else value

    def numpy(self) -> Any:
        """A copy of the value as a numpy array (a numpy scalar, or bytes for strings, at rank 0)."""
        value = self._numpy()
        return value.copy() if isinstance(value, np.ndarray) else value

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        value = self._host_value()
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return value.astype(dtype)
        if copy:
            return value.copy()
        view = value.view()
        view.flags.writeable = False
        return view

    def __bool__(self) -> bool:
        x = self._numpy()
        if isinstance(x, np.ndarray):
            return bool(x.size > 0 and x)
        return bool(x)

    def __int__(self) -> int:
        return int(self._numpy())

    def __float__(self) -> float:
        return float(self._numpy())

    def __complex__(self) -> complex:
        return complex(self._numpy())

    def __index__(self) -> int:
        return self._numpy().__index__()

    def __len__(self) -> int:
        if not self._value.shape:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    def __iter__(self) -> Iterator[EagerTensor]:
        shape = self._value.shape
        if not shape:
            raise TypeError("Cannot iterate over a scalar tensor.")
        if self._device.is_host:
            value, dtype, device, sig = self._value, self._dtype, self._device, self._sig
            for i in range(shape[0]):
                yield _wrap(value[i], dtype, device, sig)
        else:
            for i in range(shape[0]):
                yield self[i]  # type: ignore[index]

    def __hash__(self) -> int:
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def ref(self) -> Reference:
        """A hashable reference to this tensor (for sets and dict keys), as ``tf.Tensor.ref()``."""
        return Reference(self)

    experimental_ref = ref

    def __format__(self, format_spec: str) -> str:
        if self._dtype.is_numpy_compatible:
            return self._numpy().__format__(format_spec)
        return "<unprintable>".__format__(format_spec)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (EagerTensor, (self.numpy(), None, self._dtype))

    def __copy__(self) -> EagerTensor:
        return self

    def __deepcopy__(self, memo: Any) -> EagerTensor:
        return self

    def __str__(self) -> str:
        text = _variant_text(self) if self._dtype == dtypes.variant else _numpy_text(self, False)
        return f"tf.Tensor({text}, shape={self.shape}, dtype={self._dtype.name})"

    def __repr__(self) -> str:
        if self._dtype == dtypes.variant:  # TF's custom summarizer: value=<TensorList>
            return f"<tf.Tensor: shape={self.shape}, dtype={self._dtype.name}, value={_variant_text(self)}>"
        kind = "value" if self._dtype is _RESOURCE else "numpy"  # TF: a resource shows its handle as "value="
        return f"<tf.Tensor: shape={self.shape}, dtype={self._dtype.name}, {kind}={_numpy_text(self, True)}>"


def _variant_text(tensor: EagerTensor) -> str:
    """A variant tensor's value as TF summarizes it: ``<TensorList>`` (its values' type names, space-separated)."""
    value = tensor._host_value()
    names = [type(v).__name__ for v in np.asarray(value, dtype=object).reshape(-1)]
    return "<" + " ".join(names) + ">"


def _numpy_text(tensor: EagerTensor, is_repr: bool) -> str:
    """The value as TensorFlow prints it: numpy's repr/str, python repr for scalars, newline before blocks."""
    if tensor.dtype is _RESOURCE and tensor._value.shape == ():
        return repr(tensor._value[()])  # the ResourceHandle's summary, as TF prints it
    if not tensor.dtype.is_numpy_compatible:
        return "<unprintable>"
    value = tensor._numpy()
    if not is_repr:
        text = str(value)
    elif np.isscalar(value) and not isinstance(value, bytes):
        text = repr(value.item())
    else:
        text = repr(value)
        # ml_dtypes (bfloat16, float8): numpy 2.4 + ml_dtypes 0.7 print dtype=dtype(bfloat16); TF: dtype=bfloat16
        if getattr(value, "dtype", None) is not None and value.dtype.kind == "V":
            text = text.replace(f"dtype=dtype({value.dtype.name})", f"dtype={value.dtype.name}")
    return "\n" + text if "\n" in text else text


def tensor_on_device(value: Any, dtype: dtypes.DType, device: Device) -> EagerTensor:
    """An EagerTensor over ``value``, a value already in ``device``'s memory (a function's output), no copy."""
    return _wrap(value, dtype, device, _sig(dtype, device))


def _wrap(value: Any, dtype: dtypes.DType, device: Device, sig: int) -> EagerTensor:
    t = _new(EagerTensor)
    t._value = value
    t._dtype = dtype
    t._device = device
    t._sig = sig
    return t


def wrap_device_value(value: Any, dtype: dtypes.DType, device: Device | None = None) -> EagerTensor:
    """An EagerTensor of ``dtype`` holding the device value ``value`` as is (no conversion), on ``device``
    (default: the host); for values no conversion applies to, such as variant (TensorList) arrays."""
    dev = _host_device() if device is None else device
    return _wrap(value, dtype, dev, _sig(dtype, dev))


class Reference:
    """A hashable reference to a tensor, compared by identity (TF's ``object_identity.Reference``)."""

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped: Any):
        self._wrapped = wrapped

    def deref(self) -> Any:
        """The referenced tensor."""
        return self._wrapped

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reference) and self._wrapped is other._wrapped

    def __hash__(self) -> int:
        return id(self._wrapped)

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._wrapped!r}>"


# ============================================================================= making tensors


def _scope_device(scope: runtime_context.EagerScope | None) -> Device:
    """The device a value created under ``scope`` lives on (soft placement: host when the device is absent)."""
    if scope is None:
        return _host_device()
    _check_local(scope)
    devices = device_factory.device_set()
    spec = scope.spec
    if spec.device_type is not None:
        found = devices.find(spec.replace(job=None, replica=None, task=None))
        if found:
            return found[0]
    return devices.client_device


def constant(value: Any, dtype: Any = None, shape: Any = None) -> EagerTensor:
    """An EagerTensor of ``value`` on the scoped device (no kernel runs), with TF's ``constant`` rules.

    ``shape`` broadcasts a single value or reshapes one with the same number of
    elements; anything else is TensorFlow's TypeError.
    """
    value = tensor_like(value, dtype)
    if isinstance(value, EagerTensor):
        if dtype is not None and dtypes.as_dtype(dtype).base_dtype != value.dtype:
            raise TypeError(
                f"Expected tensor {value._numpy()} with dtype {dtypes.as_dtype(dtype)!r}, "
                f"but got dtype {value.dtype!r}."
            )
        array = value._host_value()
    else:
        array = convert_value(value, None if dtype is None else dtypes.as_dtype(dtype).base_dtype)
    if shape is not None:
        dims = tensor_shape.as_shape(shape if not isinstance(shape, EagerTensor) else shape.numpy().tolist())
        target = tuple(dims.as_list())
        if array.shape != target:
            if array.size == 1:
                array = np.broadcast_to(array.reshape(()), target).copy()
            elif array.size == int(np.prod(target, dtype=np.int64)):
                array = array.reshape(target)
            else:
                raise TypeError(
                    f"Eager execution of tf.constant with unsupported shape. Tensor {array} (converted from {value}) "
                    f"has {array.size} elements, but got `shape` {dims} with {int(np.prod(target, dtype=np.int64))} "
                    "elements)."
                )
    dt = _dtype_of(array) if dtype is None else dtypes.as_dtype(dtype).base_dtype
    device = _scope_device(runtime_context.eager_device_scope())
    return _wrap(array if device.is_host else device.from_host(array), dt, device, _sig(dt, device))


def convert_to_eager_tensor(value: Any, dtype: Any = None) -> EagerTensor:
    """``value`` as an EagerTensor: tensors pass through (dtype checked), other values are converted."""
    value = tensor_like(value, dtype)
    if isinstance(value, EagerTensor):
        if dtype is not None and dtypes.as_dtype(dtype).base_dtype != value.dtype:
            raise ValueError(
                f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for Tensor with dtype "
                f"{value.dtype.name}: {value!r}"
            )
        return value
    return constant(value, dtype=dtype)


# ============================================================================= op descriptions

_SINGLE, _NUMBER_LIST, _TYPE_LIST = attr_inference.SINGLE, attr_inference.NUMBER_LIST, attr_inference.TYPE_LIST


class _OpInfo:
    """What eager needs of an OpDef, computed once per op type (the arg and attr tables are the OpDef's
    ``attr_inference.OpSignature``, which also drives attr inference on a cache miss)."""

    __slots__ = (
        "attr_defs",
        "input_keys",
        "inputs",
        "n_inputs",
        "name",
        "op_def",
        "output_kind",
        "sig",
        "single_names",
        "type_allowed",
        "type_attr_args",
        "type_defaults",
    )

    def __init__(self, op_def: op_def_pb2.OpDef):
        sig = attr_inference.signature(op_def)
        self.sig = sig
        self.op_def = op_def
        self.name = op_def.name
        self.inputs = sig.inputs
        self.n_inputs = len(self.inputs)
        # The input names when every input is a single tensor (the hot path), else None.
        self.single_names = tuple(a.name for a in self.inputs) if all(a.kind == _SINGLE for a in self.inputs) else None
        self.input_keys = frozenset([a.name for a in self.inputs] + [a.alt for a in self.inputs])
        self.attr_defs = sig.attr_defs
        self.type_defaults = sig.type_defaults
        self.type_allowed = sig.type_allowed
        # type attr -> indices of the input args using it (to find a tensor's dtype for python inputs)
        self.type_attr_args = sig.type_attr_args
        outs = op_def.output_arg
        if not outs:
            self.output_kind = 0
        elif len(outs) == 1 and not outs[0].number_attr and not outs[0].type_list_attr:
            self.output_kind = 1
        else:
            self.output_kind = 2


_INFOS: dict[str, _OpInfo] = {}


def _op_info(op_type: str) -> _OpInfo:
    info = _INFOS.get(op_type)
    if info is None:
        info = _OpInfo(global_registry().get(op_type).op_def)
        _INFOS[op_type] = info
    return info


# ============================================================================= input conversion


def _arg_value(info: _OpInfo, arg: attr_inference.ArgInfo, kwargs: dict[str, Any]) -> Any:
    if arg.name in kwargs:
        return kwargs[arg.name]
    if arg.alt in kwargs:
        return kwargs[arg.alt]
    raise TypeError(f"No argument for input {arg.name} found in {info.name} Op")


def _tensor_dtype_for(info: _OpInfo, type_attr: str, kwargs: dict[str, Any]) -> dtypes.DType | None:
    """The dtype of the first EagerTensor among the inputs sharing ``type_attr`` (TF's MaybeGetDTypeForAttr)."""
    for index in info.type_attr_args.get(type_attr, ()):
        arg = info.inputs[index]
        value = kwargs.get(arg.name, kwargs.get(arg.alt))
        if arg.kind == _SINGLE:
            if isinstance(value, EagerTensor):
                return value._dtype
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, EagerTensor):
                    return item._dtype
    return None


def _fast_kind(value: Any) -> bool:
    """Whether TF's eager fast path takes ``value`` as is (tensor, ndarray, python number); others fall back."""
    return type(value) is EagerTensor or type(value) is np.ndarray or isinstance(value, (int, float))


class _Inputs:
    """The conversion state of one op call: dtypes chosen per type attr, whether TF would take its slow path."""

    __slots__ = ("chosen", "slow")

    def __init__(self) -> None:
        self.chosen: dict[str, dtypes.DType] = {}
        self.slow = False


def _convert_input(
    value: Any, info: _OpInfo, arg: attr_inference.ArgInfo, kwargs: dict[str, Any], state: _Inputs
) -> tuple[Any, dtypes.DType]:
    """A python/numpy input as a host array of the dtype TF's eager execution gives it.

    The dtype is the arg's fixed type, else the one already chosen for its type attr,
    else that of an eager tensor sharing the attr, else the attr's default (strict on
    TF's fast path; on its slow path only preferred, and the value's own type wins when
    the attr allows it), else the value's own type.
    """
    if isinstance(value, Tensor):
        raise TypeError(
            f"An op outside of the function building code is being passed a graph tensor: {value!r} was passed "
            f"to input '{arg.name}' of the eager op '{info.name}'. Graph tensors can only be used while building "
            "their graph (in a v1 Session or inside modtensor.function)."
        )
    type_attr = arg.type_attr
    if arg.fixed is not None:
        array = convert_value(value, arg.fixed)
        return array, arg.fixed
    desired = None
    if type_attr is not None:
        desired = state.chosen.get(type_attr) or _tensor_dtype_for(info, type_attr, kwargs)
        if desired is None and type_attr in info.type_defaults:
            default = info.type_defaults[type_attr]
            if state.slow:
                array = convert_value(value, None)
                dtype = _dtype_of(array)
                if dtype.as_datatype_enum not in info.type_allowed.get(type_attr, ()):
                    with contextlib.suppress(TypeError, ValueError):
                        array, dtype = convert_value(value, default), default
                state.chosen[type_attr] = dtype
                return array, dtype
            desired = default
    array = convert_value(value, desired)
    dtype = desired if desired is not None else _dtype_of(array)
    if type_attr is not None and type_attr not in state.chosen:
        state.chosen[type_attr] = dtype
    return array, dtype


def _snake_case(op_type: str) -> str:
    """The python name TF generates for an op: ``ConcatV2`` -> ``concat_v2``, ``Conv2D`` -> ``conv2d``."""
    out = []
    for i, c in enumerate(op_type):
        if c.isupper() and i > 0:
            before = op_type[i - 1]
            after = op_type[i + 1] if i + 1 < len(op_type) else ""
            if before.islower() or (after.islower() and before != "_"):
                out.append("_")
        out.append(c.lower())
    return "".join(out)


def _gather_inputs(info: _OpInfo, kwargs: dict[str, Any], flat: list[Any], key: list[Any]) -> tuple[list[Any], bool]:
    """Append each input's device value to ``flat`` and its signature to ``key``.

    Returns, per flat input, the EagerTensor or None (a converted python value), and
    whether TF would run the call on its slow path (an input that is a list, string,
    numpy scalar, ... rather than a tensor, array or python number).
    """
    state = _Inputs()
    for arg in info.inputs:
        value = _arg_value(info, arg, kwargs)
        if arg.kind == _SINGLE:
            if not _fast_kind(value):
                state.slow = True
        elif not isinstance(value, (list, tuple)):
            raise TypeError(f"Expected list for '{arg.name}' argument to '{_snake_case(info.name)}' Op, not {value}.")
        elif not all(_fast_kind(v) for v in value):
            state.slow = True
    sources: list[Any] = []
    for arg in info.inputs:
        value = _arg_value(info, arg, kwargs)
        if arg.kind == _SINGLE:
            if type(value) is EagerTensor:
                flat.append(value._value)
                key.append(value._sig)
                sources.append(value)
                continue
            array, dtype = _convert_input(value, info, arg, kwargs, state)
            flat.append(array)
            key.append(_sig(dtype, None))
            sources.append(None)
            continue
        key.append(len(value))
        for item in value:
            if type(item) is EagerTensor:
                flat.append(item._value)
                key.append(item._sig)
                sources.append(item)
            else:
                array, dtype = _convert_input(item, info, arg, kwargs, state)
                flat.append(array)
                key.append(_sig(dtype, None))
                sources.append(None)
    return sources, state.slow


def _freeze(value: Any) -> Any:
    """A hashable stand-in for an attr value (type included, so ``1`` and ``True`` differ)."""
    kind = type(value)
    if kind is bool or kind is int or kind is float:
        return (kind, value)
    if kind is str or kind is bytes or value is None:
        return value
    if kind is list or kind is tuple:
        return (list, tuple(_freeze(v) for v in value))
    if isinstance(value, attr_value_pb2.AttrValue):
        return (attr_value_pb2.AttrValue, value.SerializeToString(deterministic=True))
    if isinstance(value, np.ndarray):
        return (np.ndarray, value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, EagerTensor):
        return _freeze(value.numpy())
    try:
        hash(value)
    except TypeError:
        return (kind, repr(value))
    return (kind, value)


# ============================================================================= errors


# The op-name marker for calls whose error messages carry no " name: " part (TF's slow path with name=None).
NO_NAME: Any = type("_NoName", (), {"__repr__": lambda self: "NO_NAME"})()


def _with_op(exc: errors.OpError, op_type: str, name: str | None, prefix: str = "") -> errors.OpError:
    """The same error class, message as TF's eager layer prints it: ``... [Op:AddV2] name: ...``."""
    suffix = "" if name is NO_NAME else f" name: {'' if name is None else name}"
    error = type(exc)(None, None, f"{prefix}{exc.message} [Op:{op_type}]{suffix}")
    error.error_code = exc.error_code
    return error


def _kernel_error(exc: BaseException, op_type: str, name: str | None, device: Device) -> errors.OpError:
    """A kernel failure as TF's eager error (function-node prefix, op and name suffix)."""
    if not isinstance(exc, errors.OpError):
        exc = errors.InternalError(
            None, None, f"The {device.device_type} kernel of op '{op_type}' raised {type(exc).__name__}: {exc}"
        )
    prefix = f"{{{{function_node __wrapped__{op_type}_device_{device.name}}}}} "
    return _with_op(exc, op_type, name, prefix)


# ============================================================================= kernel cache


class _Entry:
    """A prepared op: its kernel on its device, and how to feed it and wrap its outputs."""

    __slots__ = (
        "attrs",
        "call",
        "copies",
        "device",
        "kernel",
        "op_type",
        "out_dtype0",
        "out_dtypes",
        "out_np",
        "out_np0",
        "out_sig0",
        "out_sigs",
        "output_kind",
    )

    def __init__(self, op_type: str, kernel: Any, device: Device, output_kind: int, copies: list[Any] | None):
        from modtensor.runtime.op_kernel import FunctionKernel

        self.op_type = op_type
        self.kernel = kernel
        self.device = device
        self.output_kind = output_kind
        self.copies = copies
        self.attrs: Any = None  # the node's attrs (AttrValue map), for gradient functions (tape records)
        self.out_dtypes = tuple(t.base_dtype for t in kernel.output_types)
        self.out_np = tuple(numpy_dtype(t) if t.is_numpy_compatible else None for t in self.out_dtypes)
        host = device.is_host
        self.out_sigs = tuple(
            _sig(t, device if host or not kernel.output_host_memory[i] or t is _RESOURCE else _host_device())
            for i, t in enumerate(self.out_dtypes)
        )
        # A one-output call without an OpKernelContext, or None: a function kernel's prepared call, or the direct
        # call a kernel offers for the host CPU (``plan_call``: the built-in native CPU library's kernels, as the
        # executor's plan calls them), which serves every input size (0.47 us on scalars against numpy's 0.83;
        # on large inputs the same as the context call).
        call = None
        if output_kind == 1:
            if type(kernel) is FunctionKernel:
                call = kernel.prepared_call()
            elif device.is_host:
                plan_call = getattr(kernel, "plan_call", None)
                direct = plan_call() if plan_call is not None else None
                if direct is not None:
                    call = direct[0]
        self.call = call
        if call is not None:
            self.out_dtype0, self.out_np0, self.out_sig0 = self.out_dtypes[0], self.out_np[0], self.out_sigs[0]

    def _copy_inputs(self, flat: list[Any]) -> list[Any]:
        out = list(flat)
        for i, plan in enumerate(self.copies):  # type: ignore[arg-type]
            if plan is not None:
                src, dst = plan
                out[i] = dst.from_host(out[i]) if src is None else src.copy_to(out[i], dst)
        return out

    def run(self, flat: list[Any], name: str | None) -> Any:
        if self.copies is not None:
            flat = self._copy_inputs(flat)
        call = self.call
        if call is not None:
            try:
                out = call(*flat)
            except Exception as exc:
                raise _kernel_error(exc, self.op_type, name, self.device) from exc
            if type(out) is not np.ndarray:
                out = np.asarray(out)
            if out.dtype is not self.out_np0 and out.dtype != self.out_np0:
                self._bad_dtype(0, out)
            t = _new(EagerTensor)
            t._value = out
            t._dtype = self.out_dtype0
            t._device = self.device
            t._sig = self.out_sig0
            return t
        from modtensor.runtime.op_kernel import OpKernelContext

        kernel = self.kernel
        try:
            outputs = kernel.run(OpKernelContext(kernel, flat))
        except Exception as exc:
            raise _kernel_error(exc, self.op_type, name, self.device) from exc
        tensors = [self._output(i, v) for i, v in enumerate(outputs)]
        if self.output_kind == 1:
            return tensors[0]
        if self.output_kind == 0:
            return None
        return tensors

    def _output(self, index: int, value: Any) -> EagerTensor:
        device = self.device
        if not device.is_host and self.kernel.output_host_memory[index] and self.out_dtypes[index] is not _RESOURCE:
            device = _host_device()
        return _wrap(value, self.out_dtypes[index], device, self.out_sigs[index])

    def _bad_dtype(self, index: int, value: Any) -> None:
        kernel = self.kernel
        raise errors.InternalError(
            None,
            None,
            f"Kernel '{kernel.name}' (op {self.op_type}) on {self.device.device_type} produced output {index} of "
            f"dtype {value.dtype}, expected {self.out_dtypes[index].name}",
        )

    def close(self) -> None:
        close = getattr(self.kernel, "close", None)
        if close is not None:
            close()


_cache_lock = threading.Lock()
_CACHE: dict[tuple[Any, ...], _Entry] = {}


def clear_kernel_cache() -> None:
    """Drop every cached kernel (TF clears its caches on ``set_seed``; stateful streams restart)."""
    with _cache_lock:
        entries = list(_CACHE.values())
        _CACHE.clear()
    for entry in entries:
        entry.close()


def _forget_op(op_type: str) -> None:
    """Drop the cached kernels of one op: a kernel of it was registered or removed (a plugin loaded or unloaded),
    so the next call chooses again (priority, device) instead of running what was chosen before."""
    with _cache_lock:
        stale = [key for key in _CACHE if key[0] == op_type]
        entries = [_CACHE.pop(key) for key in stale]
    for entry in entries:
        entry.close()


add_kernel_change_listener(_forget_op)


# ============================================================================= the front door


def apply_op_eager(op_type: str, name: str | None, kwargs: dict[str, Any]) -> Any:
    """Run ``op_type`` now on keyword inputs and attrs named as in its OpDef; return TF's wrapper structure.

    Python and numpy inputs become tensors of the dtype TensorFlow's eager fast path
    gives them; ``name`` only appears in error messages. Returns None, the tensor, or
    a list of tensors (several or list outputs).
    """
    if _tape.ACTIVE:
        return _apply_recorded(op_type, name, kwargs)
    info = _INFOS.get(op_type) or _op_info(op_type)
    scope = _thread.device
    names = info.single_names
    if names is not None:
        # Hot path: every input a single eager tensor, key already cached (attrs frozen as the key holds them).
        scope_name = None if scope is None else scope.name
        n = len(names)
        if len(kwargs) == n:
            attrs: tuple[Any, ...] = ()
        else:
            keys = info.input_keys
            attrs = tuple([(k, _freeze(v)) for k, v in kwargs.items() if k not in keys])
        if n == 2:
            a, b = kwargs.get(names[0]), kwargs.get(names[1])
            if type(a) is EagerTensor and type(b) is EagerTensor:
                entry = _CACHE.get((op_type, scope_name, attrs, a._sig, b._sig))
                if entry is not None:
                    return entry.run([a._value, b._value], name)
        elif n == 1:
            a = kwargs.get(names[0])
            if type(a) is EagerTensor:
                entry = _CACHE.get((op_type, scope_name, attrs, a._sig))
                if entry is not None:
                    return entry.run([a._value], name)
        else:
            tensors = [kwargs.get(k) for k in names]
            for t in tensors:
                if type(t) is not EagerTensor:
                    break
            else:
                entry = _CACHE.get((op_type, scope_name, attrs, *[t._sig for t in tensors]))
                if entry is not None:
                    return entry.run([t._value for t in tensors], name)
    entry, flat, _, name = _entry_for(info, scope, name, kwargs)
    return entry.run(flat, name)


def _entry_for(
    info: _OpInfo, scope: runtime_context.EagerScope | None, name: str | None, kwargs: dict[str, Any]
) -> tuple[_Entry, list[Any], list[Any], str | None]:
    """The general path: convert the inputs, find (or prepare) the kernel entry for the call's key.

    Returns the entry, the flat device values to run it on, per input the EagerTensor it came
    from (None for a converted python value), and the name for error messages.
    """
    kwargs = _tensor_likes(kwargs)
    if len(kwargs) > info.n_inputs:
        attr_items = tuple([(k, _freeze(v)) for k, v in kwargs.items() if k not in info.input_keys])
    else:
        attr_items = ()
    flat: list[Any] = []
    key: list[Any] = [info.name, None if scope is None else scope.name, attr_items]
    sources, slow = _gather_inputs(info, kwargs, flat, key)
    if slow and name is None:
        name = NO_NAME  # TF's slow path prints no " name: " suffix then
    entry = _CACHE.get(tuple(key))
    if entry is None:
        entry = _prepare(info, tuple(key), kwargs, sources, flat, scope, name)
    return entry, flat, sources, name


def _apply_recorded(op_type: str, name: str | None, kwargs: dict[str, Any]) -> Any:
    """The front door while a gradient tape exists: run the op, then record it on the tapes that watch an input.

    Every eager op reaches this one place while any tape records (the operators' and
    wrappers' cached shortcuts step aside), so the tape sees each op with its inputs,
    outputs and attrs.
    """
    info = _INFOS.get(op_type) or _op_info(op_type)
    entry, flat, sources, name = _entry_for(info, _thread.device, name, kwargs)
    result = entry.run(flat, name)
    if _tape.could_record():
        inputs = [
            s if s is not None else _wrap(v, _dtype_of(v), _host_device(), _sig(_dtype_of(v), None))
            for s, v in zip(sources, flat, strict=True)
        ]
        if _tape.should_record(inputs):
            outputs = [] if result is None else (result if type(result) is list else [result])
            op = _tape.EagerOp(op_type, entry.attrs, inputs, outputs)
            _tape.record_op(op, inputs, outputs)
    return result


def _tensor_likes(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with tensor-like values (``__tf_tensor__``: variables), also inside lists, as eager tensors."""
    out = None
    for key, value in kwargs.items():
        kind = type(value)
        if kind is EagerTensor:
            continue
        if getattr(kind, "__tf_tensor__", None) is not None:
            value = tensor_like(value)
        elif (kind is list or kind is tuple) and any(getattr(type(v), "__tf_tensor__", None) for v in value):
            value = [tensor_like(v) for v in value]
        else:
            continue
        if out is None:
            out = dict(kwargs)
        out[key] = value
    return kwargs if out is None else out


def run_cached(op_type: str, attr_items: tuple[Any, ...], inputs: tuple[Any, ...], name: str | None) -> Any:
    """The result of ``op_type`` on eager tensors ``inputs`` when its kernel is cached, else None.

    ``attr_items`` must be what :func:`apply_op_eager` derives from the call's attr
    keywords (:func:`frozen_attrs`); operators use it to skip building kwargs.
    """
    if _tape.ACTIVE:
        return None  # the recording front door takes the call
    scope = _thread.device
    key = (op_type, None if scope is None else scope.name, attr_items, *[t._sig for t in inputs])
    entry = _CACHE.get(key)
    if entry is None:
        return None
    return entry.run([t._value for t in inputs], name)


def run_cached_values(
    op_type: str, attr_items: tuple[Any, ...], sigs: tuple[int, ...], values: list[Any], name: str | None
) -> Any:
    """:func:`run_cached` for inputs given as device values and their :func:`signature`s; None on a miss."""
    if _tape.ACTIVE:
        return None  # the recording front door takes the call
    scope = _thread.device
    entry = _CACHE.get((op_type, None if scope is None else scope.name, attr_items, *sigs))
    if entry is None:
        return None
    return entry.run(values, name)


def signature(dtype: dtypes.DType, device: Device | None = None) -> int:
    """The cache-key signature of an input of ``dtype`` on ``device`` (None: a converted host value)."""
    return _sig(dtype, device)


def run_cached1(op_type: str, attr_items: tuple[Any, ...], x: EagerTensor, name: str | None) -> Any:
    """:func:`run_cached` for a one-input op (unary wrappers' hot path)."""
    if _tape.ACTIVE:
        return None  # the recording front door takes the call
    scope = _thread.device
    entry = _CACHE.get((op_type, None if scope is None else scope.name, attr_items, x._sig))
    if entry is None:
        return None
    call = entry.call
    if call is None or entry.copies is not None:
        return entry.run([x._value], name)
    try:
        out = call(x._value)
    except Exception as exc:
        raise _kernel_error(exc, op_type, name, entry.device) from exc
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    if out.dtype is not entry.out_np0 and out.dtype != entry.out_np0:
        entry._bad_dtype(0, out)
    t = _new(EagerTensor)
    t._value = out
    t._dtype = entry.out_dtype0
    t._device = entry.device
    t._sig = entry.out_sig0
    return t


def run_cached2(op_type: str, x: EagerTensor, y: EagerTensor, name: str | None) -> Any:
    """:func:`run_cached` for a two-input op without attrs (binary operators' hot path)."""
    if _tape.ACTIVE:
        return None  # the recording front door takes the call
    scope = _thread.device
    entry = _CACHE.get((op_type, None if scope is None else scope.name, (), x._sig, y._sig))
    if entry is None:
        return None
    call = entry.call
    if call is None or entry.copies is not None:
        return entry.run([x._value, y._value], name)
    # Inlined Entry.run for a prepared one-output host call: no input list, no copy plan.
    try:
        out = call(x._value, y._value)
    except Exception as exc:
        raise _kernel_error(exc, op_type, name, entry.device) from exc
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    if out.dtype is not entry.out_np0 and out.dtype != entry.out_np0:
        entry._bad_dtype(0, out)
    t = _new(EagerTensor)
    t._value = out
    t._dtype = entry.out_dtype0
    t._device = entry.device
    t._sig = entry.out_sig0
    return t


def run_with_python_operand(op_type: str, tensor: EagerTensor, value: Any, reflected: bool, name: str | None) -> Any:
    """``op_type(tensor, value)`` (``(value, tensor)`` when ``reflected``) with the python number ``value``
    converted to the tensor's dtype, as TF's operators convert it; None when it does not fit that dtype.

    The operators' hot path for ``x * 2.0``: the converted value keys the cache as any
    converted python input does, so a miss creates the entry later calls hit.
    """
    if _tape.ACTIVE:
        return None  # the recording front door takes the call
    dtype = tensor._dtype
    try:
        array = convert_value(value, dtype)
    except (TypeError, ValueError):
        return None
    scope = _thread.device
    scope_name = None if scope is None else scope.name
    sig = _sig(dtype, None)
    if reflected:
        entry = _CACHE.get((op_type, scope_name, (), sig, tensor._sig))
        if entry is None:
            return apply_op_eager(op_type, name, {"x": array, "y": tensor})
        return entry.run([array, tensor._value], name)
    entry = _CACHE.get((op_type, scope_name, (), tensor._sig, sig))
    if entry is None:
        return apply_op_eager(op_type, name, {"x": tensor, "y": array})
    return entry.run([tensor._value, array], name)


def frozen_attrs(**attrs: Any) -> tuple[Any, ...]:
    """The cache-key form of attr keywords (for :func:`run_cached`)."""
    return tuple([(k, _freeze(v)) for k, v in attrs.items()])


def execute(
    op_type: str, inputs: Sequence[Any], attrs: dict[str, Any] | None = None, device: str | Device | None = None
) -> list[EagerTensor]:
    """Run ``op_type`` on flat ``inputs`` (tensors or python values) with ``attrs``; return the outputs as a list.

    Inputs are grouped into the OpDef's args using the number/type-list attrs in
    ``attrs`` when given (else a single list arg takes what the others leave).
    ``device`` overrides the device scope. Type attrs given in ``attrs`` must match.
    """
    info = _op_info(op_type)
    attrs = dict(attrs or {})
    kwargs = _group_inputs(info, list(inputs), attrs)
    explicit: dict[str, Any] = {}
    for attr_name, value in attrs.items():
        attr_def = info.attr_defs.get(attr_name)
        if attr_def is not None and attr_name in info.sig.inferred_attrs:
            continue
        explicit[attr_name] = value
    kwargs.update(explicit)
    previous = runtime_context.eager_device_scope()
    if device is not None:
        runtime_context.set_eager_device_scope(scope_for_device(device))
    try:
        result = apply_op_eager(op_type, None, kwargs)
    finally:
        runtime_context.set_eager_device_scope(previous)
    if result is None:
        return []
    return result if isinstance(result, list) else [result]


def scope_for_device(device: str | DeviceSpec | Device) -> runtime_context.EagerScope:
    """An eager device scope for ``device`` merged onto the local task's CPU:0, as TF eager merges scopes."""
    if isinstance(device, Device):
        spec = device.parsed_name
    else:
        given = device if isinstance(device, DeviceSpec) else DeviceSpec.from_string(device)
        spec = DeviceSpec.from_string(device_factory.LOCAL_NAME_PREFIX + "/device:CPU:0").make_merged_spec(given)
    return runtime_context.EagerScope(spec.to_string(), spec)


def _group_inputs(info: _OpInfo, inputs: list[Any], attrs: dict[str, Any]) -> dict[str, Any]:
    sizes: list[int | None] = []
    for arg in info.inputs:
        if arg.kind == _SINGLE:
            sizes.append(1)
        elif arg.kind == _NUMBER_LIST and arg.number_attr in attrs:
            sizes.append(int(attrs[arg.number_attr]))
        elif arg.kind == _TYPE_LIST and arg.type_list_attr in attrs:
            sizes.append(len(attrs[arg.type_list_attr]))
        else:
            sizes.append(None)
    unknown = [i for i, s in enumerate(sizes) if s is None]
    if len(unknown) > 1:
        raise ValueError(f"execute: give the number/type-list attrs of {info.name}'s list inputs")
    if unknown:
        sizes[unknown[0]] = len(inputs) - sum(s for s in sizes if s is not None)
    if sum(sizes) != len(inputs):  # type: ignore[arg-type]
        raise ValueError(f"{info.name} takes {sum(sizes)} inputs with these attrs, got {len(inputs)}")  # type: ignore
    kwargs: dict[str, Any] = {}
    position = 0
    for arg, size in zip(info.inputs, sizes, strict=True):
        if arg.kind == _SINGLE:
            kwargs[arg.name] = inputs[position]
        else:
            kwargs[arg.name] = inputs[position : position + size]  # type: ignore[operator]
        position += size  # type: ignore[operator]
    return kwargs


# ============================================================================= preparing an op (cache miss)


def _prepare(
    info: _OpInfo,
    key: tuple[Any, ...],
    kwargs: dict[str, Any],
    sources: list[Any],
    flat: list[Any],
    scope: runtime_context.EagerScope | None,
    name: str | None,
) -> _Entry:
    """Build, check, place and create the kernel for a new cache key; store and return its entry."""
    from modtensor.framework.op_def_library import attr_value_from_python

    op_type = info.name
    input_dtypes = [s._dtype if s is not None else _dtype_of(v) for s, v in zip(sources, flat, strict=True)]
    node = node_def_pb2.NodeDef(name=op_type, op=op_type)
    inferred = _infer_attrs(info, kwargs, input_dtypes, node, name)
    for attr_name, value in kwargs.items():
        if attr_name in info.input_keys:
            continue
        attr_def = info.attr_defs.get(attr_name)
        if attr_def is None and attr_name.endswith("_"):
            attr_def = info.attr_defs.get(attr_name[:-1])
        if attr_def is None:
            unexpected = sorted(k for k in kwargs if k not in info.input_keys and k.rstrip("_") not in info.attr_defs)
            raise TypeError(f"{op_type} got unexpected keyword arguments: {', '.join(unexpected)}.")
        if attr_def.name in inferred:
            raise TypeError(f"Should not specify value for inferred attr '{attr_def.name}' for {op_type}.")
        node.attr[attr_def.name].CopyFrom(attr_value_from_python(value, attr_def, info.op_def))
    for attr_def in info.op_def.attr:
        if attr_def.name in node.attr:
            continue
        if attr_def.type == "type" and attr_def.name in info.type_defaults:
            node.attr[attr_def.name].type = info.type_defaults[attr_def.name].as_datatype_enum
        elif not attr_def.HasField("default_value"):
            raise TypeError(f"No argument found for attr {attr_def.name} for {op_type}")
    node_def_lib.add_default_attrs(node, info.op_def)
    node.input.extend(f"input{i}" for i in range(len(flat)))
    try:
        node_def_lib.validate_node_def(node, info.op_def)
    except errors.OpError as exc:
        raise _with_op(exc, op_type, name) from None
    del node.input[:]

    input_devices = [s._device if s is not None else None for s in sources]
    # TF's MaybePinToResourceDevice: an op using a resource runs on the resource's device, whatever the scope.
    device = next((s._device for s in sources if s is not None and s._dtype is _RESOURCE), None)
    if device is None:
        device = _select_device(info, node, scope, input_devices, name, flat)
    from modtensor.runtime.op_kernel import create_kernel

    try:
        kernel = create_kernel(node, info.op_def, device)
    except errors.OpError as exc:
        raise _with_op(exc, op_type, name) from exc
    copies = _copy_plan(kernel, device, input_devices)
    entry = _Entry(op_type, kernel, device, info.output_kind, copies)
    entry.attrs = node.attr
    with _cache_lock:
        existing = _CACHE.get(key)
        if existing is not None:
            return existing
        _CACHE[key] = entry
    return entry


def _infer_attrs(
    info: _OpInfo,
    kwargs: dict[str, Any],
    input_dtypes: list[dtypes.DType],
    node: node_def_pb2.NodeDef,
    name: str | None,
) -> dict[str, str]:
    """Set the type/number/type-list attrs the inputs determine (``framework.attr_inference`` with TF's eager
    texts); a dtype mismatch is TF's InvalidArgumentError with ``[Op:...]``. Returns the inferred attrs."""
    inference = attr_inference.Inference(info.sig, attr_inference.EAGER)
    position = 0
    try:
        for arg in info.inputs:
            count = 1 if arg.kind == _SINGLE else len(_arg_value(info, arg, kwargs))
            inference.add_arg(arg, input_dtypes[position : position + count], arg.name, position)
            position += count
        inference.finish(kwargs)
    except errors.InvalidArgumentError as exc:
        raise _with_op(exc, info.name, name) from None
    inference.write(node)
    return inference.inferred()


# ----------------------------------------------------------------------------- placement


def _check_local(scope: runtime_context.EagerScope) -> None:
    spec = scope.spec
    if spec.job not in (None, "localhost") or spec.replica not in (None, 0) or spec.task not in (None, 0):
        raise errors.InvalidArgumentError(None, None, f"{scope.name} unknown device.")


_SOFT_PLACED: set[tuple[str, str]] = set()


def _note_soft_placement(op: str, requested: str, device: Device, type_exists: bool) -> None:
    """Log (INFO, once per op type and device type) that soft placement moved an op off the requested device.

    TensorFlow is silent here by default; the line makes a CPU fallback visible with
    ``logging.getLogger("modtensor.placement").setLevel(logging.INFO)``.
    """
    if (op, requested) in _SOFT_PLACED:
        return
    _SOFT_PLACED.add((op, requested))
    import logging

    why = f"has no kernel on {requested}" if type_exists else f"was placed on {requested}, which has no device"
    logging.getLogger("modtensor.placement").info("Op %s %s; soft placement runs it on %s", op, why, device.name)


def _select_device(
    info: _OpInfo,
    node: node_def_pb2.NodeDef,
    scope: runtime_context.EagerScope | None,
    input_devices: list[Device | None],
    name: str | None,
    flat_inputs: list[Any] | None = None,
) -> Device:
    """TF eager placement: the scoped device (soft placement when it lacks a kernel or does not exist),
    else the inputs' common non-CPU device when it has a kernel, else (small integer ops on host inputs
    stay on the host, TF's MaybePinSmallOpsToCpu) the highest-priority device type with one: as in
    TF, an op on host tensors runs on a plugin device when that device has a kernel for it."""
    from modtensor.runtime.kernel_registry import global_kernel_registry

    registry = global_kernel_registry()
    devices = device_factory.device_set()
    op_def = info.op_def

    def has_kernel(device_type: str) -> bool:
        try:
            return registry.has_kernel(node, op_def, device_type)
        except errors.OpError as exc:
            raise _with_op(exc, info.name, name) from exc

    if scope is not None:
        _check_local(scope)
        spec = scope.spec
        if spec.device_type is not None:
            same_type = devices.find(spec.replace(job=None, replica=None, task=None, device_index=None))
            if same_type and has_kernel(same_type[0].device_type):
                exact = [d for d in same_type if spec.device_index in (None, d.ordinal)]
                return exact[0] if exact else same_type[0]
        client = devices.client_device
        if has_kernel(client.device_type):
            if spec.device_type is not None and spec.device_type != client.device_type:
                _note_soft_placement(node.op, spec.device_type, client, bool(same_type))
            return client
    else:
        present = {d for d in input_devices if d is not None}
        if len(present) == 1:
            (device,) = present
            if not device.is_host and has_kernel(device.device_type):
                return device
        if _pin_small_op_to_host(node, op_def, input_devices, flat_inputs or []):
            return devices.client_device
    for device_type in devices.prioritized_device_types():
        if has_kernel(device_type):
            return devices.devices_of_type(device_type)[0]
    from modtensor.framework.node_def import format_node_for_error, summarize_attrs

    message = (
        f"Could not find device for node: {format_node_for_error(node)} = {node.op}[{summarize_attrs(node)}]\n"
        f"All kernels registered for op {node.op}:\n{registry.registered_kernels_string(node.op)}"
    )
    raise _with_op(errors.NotFoundError(None, None, message), info.name, name)


_SMALL_OP_ELEMENTS = 64  # TF keeps ops on host int32/int64 inputs of at most 64 elements on the CPU


def _pin_small_op_to_host(
    node: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef, input_devices: list[Device | None], flat_inputs: list[Any]
) -> bool:
    """TF's MaybePinSmallOpsToCpu: an op with host inputs that are all small int32/int64 tensors (shape
    arithmetic) stays on the host instead of going to the preferred non-CPU device."""
    if not flat_inputs or any(d is not None and not d.is_host for d in input_devices):
        return False
    for value in flat_inputs:
        dtype = getattr(value, "dtype", None)
        if dtype not in (np.int32, np.int64) or getattr(value, "size", _SMALL_OP_ELEMENTS + 1) > _SMALL_OP_ELEMENTS:
            return False
    return True


def _copy_plan(kernel: Any, device: Device, input_devices: list[Device | None]) -> list[Any] | None:
    """Per flat input: None when the value is already where the kernel reads it, else (source, destination)."""
    plan: list[Any] = []
    needed = False
    host = None
    for i, src in enumerate(input_devices):
        dst = device
        if kernel.input_types[i].base_dtype is _RESOURCE:
            plan.append(None)  # a handle is a host object wherever its resource lives
            continue
        if not device.is_host and kernel.input_host_memory[i]:
            host = host or _host_device()
            dst = host
        if src is dst or (src is None and dst.is_host) or (src is not None and src.is_host and dst.is_host):
            plan.append(None)
        else:
            plan.append((src, dst))
            needed = True
    return plan if needed else None
