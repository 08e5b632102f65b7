"""The StreamExecutor C API (``SE_InitPlugin``): load a device plugin's platform and call its functions.

The structs mirror ``tensorflow/c/experimental/stream_executor/stream_executor.h``
(ctypes layouts; the layout test of the headers checks the C side). Loading calls
``SE_InitPlugin``, validates the version and every struct's ``struct_size`` (a
smaller, older struct is accepted with the fields beyond it absent; one too small
for the required fields is rejected), checks the required function pointers, then
creates the devices, device functions, stream executor and timer functions.
Everything that touches a C pointer of the plugin lives here; the runtime's
``PluggableDevice`` calls the small typed methods of ``SEDevice``.
"""

from __future__ import annotations

import ctypes
import logging
import re
import threading
from ctypes import (
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_int,
    c_int8,
    c_int32,
    c_int64,
    c_size_t,
    c_uint8,
    c_uint32,
    c_uint64,
    c_void_p,
)
from typing import Any

import numpy as np

from modtensor.framework import errors
from modtensor.plugin.native.c_struct import end_of as _end_of
from modtensor.plugin.native.c_struct import struct_size
from modtensor.plugin.native.crash_report import plugin_call

__all__ = ["SE_MAJOR", "SE_MINOR", "SE_PATCH", "SEDevice", "SEPlatform", "init_platform", "loaded_platforms"]

_LOG = logging.getLogger("modtensor.plugin")

SE_MAJOR, SE_MINOR, SE_PATCH = 0, 0, 1
SE_EVENT_UNKNOWN, SE_EVENT_ERROR, SE_EVENT_PENDING, SE_EVENT_COMPLETE = range(4)

TF_Bool = c_uint8
_P = c_void_p  # opaque handles: SP_Stream, SP_Event, SP_Timer, TF_Status*


def _fn(restype: Any, *args: Any) -> Any:
    return ctypes.CFUNCTYPE(restype, *args)


class SP_TimerFns(Structure):
    _fields_ = [("struct_size", c_size_t), ("ext", c_void_p), ("nanoseconds", _fn(c_uint64, _P))]


class SP_AllocatorStats(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("num_allocs", c_int64),
        ("bytes_in_use", c_int64),
        ("peak_bytes_in_use", c_int64),
        ("largest_alloc_size", c_int64),
        ("has_bytes_limit", c_int8),
        ("bytes_limit", c_int64),
        ("bytes_reserved", c_int64),
        ("peak_bytes_reserved", c_int64),
        ("has_bytes_reservable_limit", c_int8),
        ("bytes_reservable_limit", c_int64),
        ("largest_free_block_bytes", c_int64),
    ]


class SP_DeviceMemoryBase(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("ext", c_void_p),
        ("opaque", c_void_p),
        ("size", c_uint64),
        ("payload", c_uint64),
    ]


class SP_Device(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("ext", c_void_p),
        ("ordinal", c_int32),
        ("device_handle", c_void_p),
        ("hardware_name", c_char_p),
        ("device_vendor", c_char_p),
        ("pci_bus_id", c_char_p),
    ]


class SE_CreateDeviceParams(Structure):
    _fields_ = [("struct_size", c_size_t), ("ext", c_void_p), ("ordinal", c_int32), ("device", POINTER(SP_Device))]


_Dev = POINTER(SP_Device)
_Mem = POINTER(SP_DeviceMemoryBase)


class SP_DeviceFns(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("ext", c_void_p),
        ("get_numa_node", _fn(c_int32, _Dev)),
        ("get_memory_bandwidth", _fn(c_int64, _Dev)),
        ("get_gflops", _fn(c_double, _Dev)),
    ]


class SE_CreateDeviceFnsParams(Structure):
    _fields_ = [("struct_size", c_size_t), ("ext", c_void_p), ("device_fns", POINTER(SP_DeviceFns))]


StatusCallback = _fn(None, c_void_p, _P)

SP_STREAM_EXECUTOR_FIELDS = [
    ("allocate", _fn(None, _Dev, c_uint64, c_int64, _Mem)),
    ("deallocate", _fn(None, _Dev, _Mem)),
    ("host_memory_allocate", _fn(c_void_p, _Dev, c_uint64)),
    ("host_memory_deallocate", _fn(None, _Dev, c_void_p)),
    ("unified_memory_allocate", _fn(c_void_p, _Dev, c_uint64)),
    ("unified_memory_deallocate", _fn(None, _Dev, c_void_p)),
    ("get_allocator_stats", _fn(TF_Bool, _Dev, POINTER(SP_AllocatorStats))),
    ("device_memory_usage", _fn(TF_Bool, _Dev, POINTER(c_int64), POINTER(c_int64))),
    ("create_stream", _fn(None, _Dev, POINTER(_P), _P)),
    ("destroy_stream", _fn(None, _Dev, _P)),
    ("create_stream_dependency", _fn(None, _Dev, _P, _P, _P)),
    ("get_stream_status", _fn(None, _Dev, _P, _P)),
    ("create_event", _fn(None, _Dev, POINTER(_P), _P)),
    ("destroy_event", _fn(None, _Dev, _P)),
    ("get_event_status", _fn(c_int, _Dev, _P)),
    ("record_event", _fn(None, _Dev, _P, _P, _P)),
    ("wait_for_event", _fn(None, _Dev, _P, _P, _P)),
    ("create_timer", _fn(None, _Dev, POINTER(_P), _P)),
    ("destroy_timer", _fn(None, _Dev, _P)),
    ("start_timer", _fn(None, _Dev, _P, _P, _P)),
    ("stop_timer", _fn(None, _Dev, _P, _P, _P)),
    ("memcpy_dtoh", _fn(None, _Dev, _P, c_void_p, _Mem, c_uint64, _P)),
    ("memcpy_htod", _fn(None, _Dev, _P, _Mem, c_void_p, c_uint64, _P)),
    ("memcpy_dtod", _fn(None, _Dev, _P, _Mem, _Mem, c_uint64, _P)),
    ("sync_memcpy_dtoh", _fn(None, _Dev, c_void_p, _Mem, c_uint64, _P)),
    ("sync_memcpy_htod", _fn(None, _Dev, _Mem, c_void_p, c_uint64, _P)),
    ("sync_memcpy_dtod", _fn(None, _Dev, _Mem, _Mem, c_uint64, _P)),
    ("block_host_for_event", _fn(None, _Dev, _P, _P)),
    ("block_host_until_done", _fn(None, _Dev, _P, _P)),
    ("synchronize_all_activity", _fn(None, _Dev, _P)),
    ("mem_zero", _fn(None, _Dev, _P, _Mem, c_uint64, _P)),
    ("memset", _fn(None, _Dev, _P, _Mem, c_uint8, c_uint64, _P)),
    ("memset32", _fn(None, _Dev, _P, _Mem, c_uint32, c_uint64, _P)),
    ("host_callback", _fn(TF_Bool, _Dev, _P, StatusCallback, c_void_p)),
]


class SP_StreamExecutor(Structure):
    _fields_ = [("struct_size", c_size_t), ("ext", c_void_p), *SP_STREAM_EXECUTOR_FIELDS]


class SE_CreateStreamExecutorParams(Structure):
    _fields_ = [("struct_size", c_size_t), ("ext", c_void_p), ("stream_executor", POINTER(SP_StreamExecutor))]


class SP_Platform(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("ext", c_void_p),
        ("name", c_char_p),
        ("type", c_char_p),
        ("supports_unified_memory", TF_Bool),
        ("use_bfc_allocator", TF_Bool),
        ("force_memory_growth", TF_Bool),
    ]


_Plat = POINTER(SP_Platform)


class SP_PlatformFns(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("ext", c_void_p),
        ("get_device_count", _fn(None, _Plat, POINTER(c_int), _P)),
        ("create_device", _fn(None, _Plat, POINTER(SE_CreateDeviceParams), _P)),
        ("destroy_device", _fn(None, _Plat, _Dev)),
        ("create_device_fns", _fn(None, _Plat, POINTER(SE_CreateDeviceFnsParams), _P)),
        ("destroy_device_fns", _fn(None, _Plat, POINTER(SP_DeviceFns))),
        ("create_stream_executor", _fn(None, _Plat, POINTER(SE_CreateStreamExecutorParams), _P)),
        ("destroy_stream_executor", _fn(None, _Plat, POINTER(SP_StreamExecutor))),
        ("create_timer_fns", _fn(None, _Plat, POINTER(SP_TimerFns), _P)),
        ("destroy_timer_fns", _fn(None, _Plat, POINTER(SP_TimerFns))),
    ]


class SE_PlatformRegistrationParams(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("ext", c_void_p),
        ("major_version", c_int32),
        ("minor_version", c_int32),
        ("patch_version", c_int32),
        ("platform", _Plat),
        ("platform_fns", POINTER(SP_PlatformFns)),
        ("destroy_platform", _fn(None, _Plat)),
        ("destroy_platform_fns", _fn(None, POINTER(SP_PlatformFns))),
    ]


_MEMORY_SIZE = struct_size(SP_DeviceMemoryBase)
# What TensorFlow accepts as a platform name and a device type ("/" and ":" would break device names).
_DEVICE_TYPE_PATTERN = re.compile(r"[A-Z][A-Z_]*")

# What the runtime cannot do without; the rest is optional or emulated.
# TensorFlow 2.21 neither checks nor calls the timer functions: a plugin may leave them unset.
_OPTIONAL_PLATFORM_FNS = ("create_timer_fns", "destroy_timer_fns")
_REQUIRED_PLATFORM_FNS = [name for name, _ in SP_PlatformFns._fields_[2:] if name not in _OPTIONAL_PLATFORM_FNS]
_REQUIRED_EXECUTOR_FNS = [
    "allocate", "deallocate",
    "create_stream", "destroy_stream", "create_stream_dependency", "get_stream_status",
    "create_event", "destroy_event", "get_event_status", "record_event", "wait_for_event",
    "memcpy_dtoh", "memcpy_htod", "sync_memcpy_dtoh", "sync_memcpy_htod",
    "block_host_for_event", "synchronize_all_activity",
]  # fmt: skip
_EMULATED_EXECUTOR_FNS = ("mem_zero", "memset", "memset32")
# Also required by TensorFlow, but only staging buffers come from them: without them copies stage in numpy arrays.
_HOST_MEMORY_FNS = ("host_memory_allocate", "host_memory_deallocate")


# ---------------------------------------------------------------------- TF_Status from the shim


class _Status:
    """A TF_Status of the shim, reused per thread by the calls below."""

    _api: ctypes.CDLL | None = None
    _local = threading.local()

    @classmethod
    def api(cls) -> ctypes.CDLL:
        if cls._api is None:
            from modtensor.plugin.native import bridge, shim_path

            bridge()
            lib = ctypes.CDLL(str(shim_path()))
            lib.TF_NewStatus.restype = c_void_p
            lib.TF_GetCode.restype = c_int
            lib.TF_GetCode.argtypes = [c_void_p]
            lib.TF_Message.restype = c_char_p
            lib.TF_Message.argtypes = [c_void_p]
            lib.TF_SetStatus.argtypes = [c_void_p, c_int, c_char_p]
            lib.TF_DeleteStatus.argtypes = [c_void_p]
            cls._api = lib
        return cls._api

    @classmethod
    def fresh(cls) -> int:
        """This thread's status, reset to OK."""
        status = getattr(cls._local, "status", None)
        api = cls.api()
        if status is None:
            status = cls._local.status = api.TF_NewStatus()
        api.TF_SetStatus(status, 0, b"")
        return status

    @classmethod
    def check(cls, status: int, what: str) -> None:
        api = cls.api()
        code = api.TF_GetCode(status)
        if code != 0:
            message = (api.TF_Message(status) or b"").decode("utf-8", "replace")
            raise errors.exception_type_from_error_code(code)(None, None, f"{what}: {message}")


# ---------------------------------------------------------------------- platform


class SEPlatform:
    """A loaded StreamExecutor platform: its structs, devices, stream executor and timer functions."""

    def __init__(self, path: str, address: int):
        self.path = path
        self.closed = False
        self.notes: list[str] = []
        self._teardown: list[tuple[str, Any]] = []  # (what, callable), run in reverse
        self._device_closers: list[Any] = []
        self.params = SE_PlatformRegistrationParams()
        self.platform = SP_Platform()
        self.platform_fns = SP_PlatformFns()
        self.stream_executor = SP_StreamExecutor()
        self.timer_fns = SP_TimerFns()
        self.device_fns: list[SP_DeviceFns] = []
        self.devices: list[SEDevice] = []
        # What the plugin filled: struct name -> {"struct_size": plugin's, "expected": modtensor's} (+ version).
        self.struct_info: dict[str, dict[str, Any]] = {}
        self._init(address)

    # -------------------------------------------------------------- loading

    def _fail(self, cls: type[errors.OpError], message: str) -> errors.OpError:
        return cls(None, None, message)  # the loader adds "SE_InitPlugin of plugin PATH failed: "

    def _check_size(self, struct_name: str, size: int, minimum: int, required: str) -> None:
        if size == 0:
            raise self._fail(errors.FailedPreconditionError, f"{struct_name}.struct_size is not set (0)")
        if size < minimum:
            raise self._fail(
                errors.FailedPreconditionError,
                f"{struct_name}.struct_size is {size}, too small for its required field '{required}' "
                f"(needs at least {minimum}; modtensor's is {struct_size(type(self._structs[struct_name]))})",
            )

    def _present(self, struct: Structure, name: str) -> bool:
        """True when ``name`` lies within the struct's reported size and is set."""
        if _end_of(type(struct), name) > struct.struct_size:
            return False
        value = getattr(struct, name)
        return bool(ctypes.cast(value, c_void_p).value) if not isinstance(value, int) else bool(value)

    def _require(self, struct: Structure, struct_name: str, names: list[str]) -> None:
        last = max(names, key=lambda n: _end_of(type(struct), n))
        self._check_size(struct_name, struct.struct_size, _end_of(type(struct), last), last)
        for name in names:
            if not self._present(struct, name):
                raise self._fail(
                    errors.FailedPreconditionError,
                    f"required function '{struct_name}.{name}' is not set; the plugin cannot be used",
                )

    def _init(self, address: int) -> None:
        self._structs: dict[str, Structure] = {
            "SP_Platform": self.platform,
            "SP_PlatformFns": self.platform_fns,
            "SP_StreamExecutor": self.stream_executor,
            "SP_TimerFns": self.timer_fns,
            "SE_PlatformRegistrationParams": self.params,
        }
        p = self.params
        p.struct_size = struct_size(SE_PlatformRegistrationParams)
        p.major_version, p.minor_version, p.patch_version = SE_MAJOR, SE_MINOR, SE_PATCH
        p.platform = ctypes.pointer(self.platform)
        p.platform_fns = ctypes.pointer(self.platform_fns)
        self.platform.struct_size = struct_size(SP_Platform)
        self.platform_fns.struct_size = struct_size(SP_PlatformFns)
        init = _fn(None, POINTER(SE_PlatformRegistrationParams), _P)(address)
        status = _Status.fresh()
        with plugin_call(self.path, "SE_InitPlugin"):
            init(ctypes.byref(p), status)
        _Status.check(status, "the plugin reported")
        self.version = (p.major_version, p.minor_version, p.patch_version)
        self.struct_info["SE_PlatformRegistrationParams"] = {
            "struct_size": p.struct_size,
            "expected": struct_size(SE_PlatformRegistrationParams),
            "version": ".".join(map(str, self.version)),
            "expected_version": f"{SE_MAJOR}.{SE_MINOR}.{SE_PATCH}",
        }
        self._note_size("SP_Platform", self.platform.struct_size, SP_Platform)
        self._note_size("SP_PlatformFns", self.platform_fns.struct_size, SP_PlatformFns)
        if p.major_version != SE_MAJOR:
            raise self._fail(
                errors.FailedPreconditionError,
                f"it was built for StreamExecutor C API {p.major_version}.{p.minor_version}.{p.patch_version}, "
                f"modtensor implements {SE_MAJOR}.{SE_MINOR}.{SE_PATCH} (major versions must match)",
            )
        self._check_size("SP_Platform", self.platform.struct_size, _end_of(SP_Platform, "type"), "type")
        if not self.platform.name or not self.platform.type:
            raise self._fail(errors.FailedPreconditionError, "SP_Platform.name and SP_Platform.type must be set")
        self.name = self.platform.name.decode("utf-8", "replace")
        self.type = self.platform.type.decode("utf-8", "replace")
        for value in (self.name, self.type):
            if not _DEVICE_TYPE_PATTERN.fullmatch(value):  # TF's device_utils::ValidateDeviceType
                raise self._fail(
                    errors.FailedPreconditionError,
                    f"Device name/type '{value}' must match [A-Z][A-Z_]*. (SP_Platform.name is '{self.name}', "
                    f"SP_Platform.type is '{self.type}'; TensorFlow accepts only capital letters and underscores)",
                )
        self._require(self.params, "SE_PlatformRegistrationParams", ["destroy_platform", "destroy_platform_fns"])
        self._teardown.append(("destroy_platform", lambda: self.params.destroy_platform(self.params.platform)))
        self._require(self.platform_fns, "SP_PlatformFns", _REQUIRED_PLATFORM_FNS)
        self._teardown.append(
            ("destroy_platform_fns", lambda: self.params.destroy_platform_fns(self.params.platform_fns))
        )
        self.use_bfc_allocator = self._flag("use_bfc_allocator")
        self.force_memory_growth = self._flag("force_memory_growth")
        self.supports_unified_memory = self._flag("supports_unified_memory")
        try:
            self._create_objects()
        except BaseException:
            self.teardown()
            raise

    def _note_size(self, name: str, size: int, struct: type[Structure]) -> None:
        self.struct_info[name] = {"struct_size": int(size), "expected": struct_size(struct)}

    def _flag(self, name: str) -> bool:
        return _end_of(SP_Platform, name) <= self.platform.struct_size and bool(getattr(self.platform, name))

    def _create_objects(self) -> None:
        fns, plat = self.platform_fns, ctypes.byref(self.platform)
        status = _Status.fresh()
        count = c_int(0)
        with plugin_call(self.path, "SP_PlatformFns.get_device_count"):
            fns.get_device_count(plat, ctypes.byref(count), status)
        _Status.check(status, "get_device_count")
        # Timer functions first (when the plugin has them): the stream executor's timers use them.
        self.has_timer_fns = self._present(self.platform_fns, "create_timer_fns")
        if self.has_timer_fns:
            self.timer_fns.struct_size = struct_size(SP_TimerFns)
            status = _Status.fresh()
            with plugin_call(self.path, "SP_PlatformFns.create_timer_fns"):
                fns.create_timer_fns(plat, ctypes.byref(self.timer_fns), status)
            _Status.check(status, "create_timer_fns")
            self._note_size("SP_TimerFns", self.timer_fns.struct_size, SP_TimerFns)
            if self._present(self.platform_fns, "destroy_timer_fns"):
                self._teardown.append(
                    ("destroy_timer_fns", lambda: fns.destroy_timer_fns(plat, ctypes.byref(self.timer_fns)))
                )
            self._check_size("SP_TimerFns", self.timer_fns.struct_size, struct_size(SP_TimerFns, "ext"), "ext")

        self.stream_executor.struct_size = struct_size(SP_StreamExecutor)
        params = SE_CreateStreamExecutorParams(
            struct_size=struct_size(SE_CreateStreamExecutorParams),
            stream_executor=ctypes.pointer(self.stream_executor),
        )
        status = _Status.fresh()
        with plugin_call(self.path, "SP_PlatformFns.create_stream_executor"):
            fns.create_stream_executor(plat, ctypes.byref(params), status)
        _Status.check(status, "create_stream_executor")
        self._note_size("SP_StreamExecutor", self.stream_executor.struct_size, SP_StreamExecutor)
        se = self.stream_executor
        self._teardown.append(("destroy_stream_executor", lambda: fns.destroy_stream_executor(plat, ctypes.byref(se))))
        required = list(_REQUIRED_EXECUTOR_FNS)
        if self.supports_unified_memory:
            required += ["unified_memory_allocate", "unified_memory_deallocate"]
        self._require(se, "SP_StreamExecutor", required)
        missing = [name for name in _EMULATED_EXECUTOR_FNS if not self._present(se, name)]
        if missing:
            note = (
                f"StreamExecutor plugin {self.path} does not provide {', '.join(missing)}; "
                "modtensor emulates them with a host buffer and memcpy_htod"
            )
            self.notes.append(note)
            _LOG.info(note)
        missing = [name for name in _HOST_MEMORY_FNS if not self._present(se, name)]
        if missing:
            note = (
                f"StreamExecutor plugin {self.path} does not provide {', '.join(missing)}; "
                "modtensor stages host-device copies in ordinary host memory"
            )
            self.notes.append(note)
            _LOG.info(note)

        for ordinal in range(count.value):
            device = SP_Device(struct_size=struct_size(SP_Device), ordinal=ordinal)
            dparams = SE_CreateDeviceParams(
                struct_size=struct_size(SE_CreateDeviceParams), ordinal=ordinal, device=ctypes.pointer(device)
            )
            status = _Status.fresh()
            with plugin_call(self.path, "SP_PlatformFns.create_device"):
                fns.create_device(plat, ctypes.byref(dparams), status)
            _Status.check(status, f"create_device({ordinal})")
            self._note_size("SP_Device", device.struct_size, SP_Device)
            self._teardown.append(
                (f"destroy_device({ordinal})", lambda d=device: fns.destroy_device(plat, ctypes.byref(d)))
            )
            device_fns = SP_DeviceFns(struct_size=struct_size(SP_DeviceFns))
            fparams = SE_CreateDeviceFnsParams(
                struct_size=struct_size(SE_CreateDeviceFnsParams), device_fns=ctypes.pointer(device_fns)
            )
            status = _Status.fresh()
            with plugin_call(self.path, "SP_PlatformFns.create_device_fns"):
                fns.create_device_fns(plat, ctypes.byref(fparams), status)
            _Status.check(status, "create_device_fns")
            self._note_size("SP_DeviceFns", device_fns.struct_size, SP_DeviceFns)
            self._teardown.append(
                ("destroy_device_fns", lambda f=device_fns: fns.destroy_device_fns(plat, ctypes.byref(f)))
            )
            self.devices.append(SEDevice(self, device, device_fns))

    # -------------------------------------------------------------- teardown

    def add_device_closer(self, closer: Any) -> None:
        """Run ``closer`` (a PluggableDevice releasing its streams and memory) before the platform goes."""
        self._device_closers.append(closer)

    def teardown(self) -> None:
        """Destroy everything created, in reverse order (devices' streams first); idempotent."""
        if self.closed:
            return
        for closer in reversed(self._device_closers):
            try:
                closer()
            except Exception as e:  # teardown must go on
                _LOG.warning("closing a device of %s failed: %s", self.path, e)
        self.closed = True
        for what, fn in reversed(self._teardown):
            try:
                with plugin_call(self.path, what):
                    fn()
            except Exception as e:
                _LOG.warning("%s of %s failed: %s", what, self.path, e)
        self._teardown.clear()
        self._device_closers.clear()
        if _PLATFORMS.get(getattr(self, "name", None)) is self:
            del _PLATFORMS[self.name]

    def __repr__(self) -> str:
        return f"<SEPlatform {getattr(self, 'name', '?')} type={getattr(self, 'type', '?')} from {self.path}>"


class SEDevice:
    """One device of a platform: typed wrappers of the stream executor's functions for it."""

    def __init__(self, platform: SEPlatform, device: SP_Device, device_fns: SP_DeviceFns):
        self.platform = platform
        self.device = device
        self.device_fns = device_fns
        self.ordinal = device.ordinal
        self._ref = ctypes.byref(device)
        self.se = platform.stream_executor
        self._mem_zero = platform._present(self.se, "mem_zero")
        self._memset32 = platform._present(self.se, "memset32")
        self._host_callback = platform._present(self.se, "host_callback")
        self._dtod = platform._present(self.se, "memcpy_dtod")
        self._host_memory = all(platform._present(self.se, name) for name in _HOST_MEMORY_FNS)
        self._where = f"{platform.type}:{self.ordinal}"
        self._sites: dict[str, Any] = {}

    def _site(self, what: str) -> Any:
        """The crash-report record of a call of the plugin's ``SP_StreamExecutor.<what>`` on this device."""
        site = self._sites.get(what)
        if site is None:
            site = self._sites[what] = plugin_call(self.platform.path, f"SP_StreamExecutor.{what}", device=self._where)
        return site

    def _text(self, name: str) -> str:
        if _end_of(SP_Device, name) > self.device.struct_size:
            return ""
        value = getattr(self.device, name)
        return value.decode("utf-8", "replace") if value else ""

    @property
    def hardware_name(self) -> str:
        return self._text("hardware_name")

    @property
    def vendor(self) -> str:
        return self._text("device_vendor")

    @property
    def pci_bus_id(self) -> str:
        return self._text("pci_bus_id")

    # -------------------------------------------------------------- memory

    def allocate(self, num_bytes: int) -> tuple[int, int]:
        """(address, payload) of ``num_bytes`` of device memory; address 0 when the plugin has none left."""
        mem = SP_DeviceMemoryBase(struct_size=_MEMORY_SIZE)
        with self._site("allocate"):
            self.se.allocate(self._ref, num_bytes, 0, ctypes.byref(mem))
        return (mem.opaque or 0), mem.payload

    def deallocate(self, address: int, num_bytes: int, payload: int = 0) -> None:
        """Give memory back to the plugin."""
        mem = self.memory(address, num_bytes, payload)
        with self._site("deallocate"):
            self.se.deallocate(self._ref, ctypes.byref(mem))

    @staticmethod
    def memory(address: int, num_bytes: int, payload: int = 0) -> SP_DeviceMemoryBase:
        """An SP_DeviceMemoryBase describing a device address."""
        return SP_DeviceMemoryBase(struct_size=_MEMORY_SIZE, opaque=address, size=num_bytes, payload=payload)

    @property
    def has_host_memory(self) -> bool:
        """True when the plugin provides host_memory_allocate and host_memory_deallocate (staging buffers)."""
        return self._host_memory

    def host_memory_allocate(self, num_bytes: int) -> int:
        """``num_bytes`` of the plugin's host memory for staging copies (pinned on a GPU); 0 when it has none."""
        with self._site("host_memory_allocate"):
            return self.se.host_memory_allocate(self._ref, num_bytes) or 0

    def host_memory_deallocate(self, address: int) -> None:
        with self._site("host_memory_deallocate"):
            self.se.host_memory_deallocate(self._ref, address)

    @staticmethod
    def host_memory_write(address: int, array: np.ndarray, nbytes: int) -> None:
        """Copy ``nbytes`` of a C-ordered host array into plugin host memory at ``address``."""
        ctypes.memmove(address, array.ctypes.data, nbytes)

    @staticmethod
    def host_memory_read(address: int, array: np.ndarray, nbytes: int) -> None:
        """Copy ``nbytes`` of plugin host memory at ``address`` into a C-ordered host array."""
        ctypes.memmove(array.ctypes.data, address, nbytes)

    def allocator_stats(self) -> dict[str, int] | None:
        """The plugin's own allocator statistics, or None when it does not report them."""
        if not self.platform._present(self.se, "get_allocator_stats"):
            return None
        stats = SP_AllocatorStats(struct_size=struct_size(SP_AllocatorStats))
        with self._site("get_allocator_stats"):
            reported = self.se.get_allocator_stats(self._ref, ctypes.byref(stats))
        if not reported:
            return None
        out = {name: getattr(stats, name) for name, _ in SP_AllocatorStats._fields_[1:]}
        if not stats.has_bytes_limit:
            out["bytes_limit"] = None
        return out

    def memory_usage(self) -> tuple[int, int] | None:
        """(free, total) bytes of device memory, or None when the plugin does not say."""
        if not self.platform._present(self.se, "device_memory_usage"):
            return None
        free, total = c_int64(0), c_int64(0)
        with self._site("device_memory_usage"):
            reported = self.se.device_memory_usage(self._ref, ctypes.byref(free), ctypes.byref(total))
        if not reported:
            return None
        return free.value, total.value

    # -------------------------------------------------------------- streams and events

    def _call(self, what: str, fn: Any, *args: Any) -> None:
        status = _Status.fresh()
        with self._site(what):
            fn(self._ref, *args, status)
        _Status.check(status, f"{what} on {self._where}")

    def create_stream(self) -> int:
        handle = _P()
        self._call("create_stream", self.se.create_stream, ctypes.byref(handle))
        return handle.value or 0

    def destroy_stream(self, stream: int) -> None:
        with self._site("destroy_stream"):
            self.se.destroy_stream(self._ref, stream)

    def create_event(self) -> int:
        handle = _P()
        self._call("create_event", self.se.create_event, ctypes.byref(handle))
        return handle.value or 0

    def destroy_event(self, event: int) -> None:
        with self._site("destroy_event"):
            self.se.destroy_event(self._ref, event)

    def record_event(self, stream: int, event: int) -> None:
        self._call("record_event", self.se.record_event, stream, event)

    def wait_for_event(self, stream: int, event: int) -> None:
        self._call("wait_for_event", self.se.wait_for_event, stream, event)

    def event_complete(self, event: int) -> bool:
        with self._site("get_event_status"):
            state = self.se.get_event_status(self._ref, event)
        if state == SE_EVENT_ERROR:
            raise errors.InternalError(None, None, f"an event on {self.platform.type}:{self.ordinal} failed")
        return state == SE_EVENT_COMPLETE

    def block_host_for_event(self, event: int) -> None:
        self._call("block_host_for_event", self.se.block_host_for_event, event)

    def synchronize_all_activity(self) -> None:
        self._call("synchronize_all_activity", self.se.synchronize_all_activity)

    # -------------------------------------------------------------- copies and fills

    def memcpy_htod(self, stream: int, dst: int, host_src: int, num_bytes: int) -> None:
        mem = self.memory(dst, num_bytes)
        self._call("memcpy_htod", self.se.memcpy_htod, stream, ctypes.byref(mem), host_src, num_bytes)

    def memcpy_dtoh(self, stream: int, host_dst: int, src: int, num_bytes: int) -> None:
        mem = self.memory(src, num_bytes)
        self._call("memcpy_dtoh", self.se.memcpy_dtoh, stream, host_dst, ctypes.byref(mem), num_bytes)

    @property
    def has_memcpy_dtod(self) -> bool:
        return self._dtod

    def memcpy_dtod(self, stream: int, dst: int, src: int, num_bytes: int) -> None:
        d, s = self.memory(dst, num_bytes), self.memory(src, num_bytes)
        self._call("memcpy_dtod", self.se.memcpy_dtod, stream, ctypes.byref(d), ctypes.byref(s), num_bytes)

    def mem_zero(self, stream: int, dst: int, num_bytes: int, keep_alive: list) -> None:
        """Zero device memory on ``stream``; without the plugin's mem_zero via a host buffer (kept in keep_alive)."""
        if self._mem_zero:
            mem = self.memory(dst, num_bytes)
            self._call("mem_zero", self.se.mem_zero, stream, ctypes.byref(mem), num_bytes)
            return
        zeros = np.zeros(num_bytes, np.uint8)
        keep_alive.append(zeros)
        self.memcpy_htod(stream, dst, zeros.ctypes.data, num_bytes)


_PLATFORMS: dict[str, SEPlatform] = {}


def loaded_platforms() -> dict[str, SEPlatform]:
    """The platforms loaded in this process, by name."""
    return dict(_PLATFORMS)


def init_platform(path: str, address: int) -> SEPlatform:
    """Run ``SE_InitPlugin`` at ``address`` and build the platform; rejects a second platform of a name or type."""
    platform = SEPlatform(path, address)
    for other in _PLATFORMS.values():
        if other.name == platform.name or other.type == platform.type:
            what = f"name '{platform.name}'" if other.name == platform.name else f"device type '{platform.type}'"
            platform.teardown()
            raise errors.AlreadyExistsError(
                None,
                None,
                f"StreamExecutor plugin {path} registers a platform with {what}, which plugin {other.path} "
                "already registered; the second plugin is not loaded",
            )
    _PLATFORMS[platform.name] = platform
    return platform
