"""Conformance checks of a StreamExecutor plugin's streams, events, copies and fills (``modtensor check``).

Each check calls the plugin's ``SP_StreamExecutor`` functions directly, on streams, events and
memory it creates for itself (not the runtime's), and compares what comes back with what TensorFlow
expects of a stream executor: asynchronous copies round-trip bytes exactly, an event recorded after
work completes only after it, a stream waiting on an event runs after the recording stream's work,
``block_host_for_event`` and ``synchronize_all_activity`` leave nothing pending, fills write what
they say, a host callback runs after the stream's earlier work. Every buffer, stream and event made
here is given back at the end. Also: the device's properties (``SP_Device`` and ``SP_DeviceFns``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.framework import errors
from modtensor.plugin.native.crash_report import plugin_call
from modtensor.plugin.native.stream_executor import (
    SEDevice,
    StatusCallback,
    _Status,
)

__all__ = ["device_properties", "run_stream_checks"]

_SIZES = (1, 4096 + 3, 1 << 20)


def device_properties(device: SEDevice) -> dict[str, Any]:
    """What the plugin says about one device: SP_Device strings, SP_DeviceFns values, memory and allocator stats."""
    out: dict[str, Any] = {
        "ordinal": device.ordinal,
        "hardware_name": device.hardware_name,
        "vendor": device.vendor,
        "pci_bus_id": device.pci_bus_id,
    }
    fns = device.device_fns
    platform = device.platform
    for name in ("get_numa_node", "get_memory_bandwidth", "get_gflops"):
        key = name.removeprefix("get_")
        if platform._present(fns, name):
            with plugin_call(platform.path, f"SP_DeviceFns.{name}", device=f"{platform.type}:{device.ordinal}"):
                out[key] = getattr(fns, name)(device._ref)
        else:
            out[key] = None
    usage = device.memory_usage()
    out["memory"] = None if usage is None else {"free": usage[0], "total": usage[1]}
    out["allocator_stats"] = device.allocator_stats()
    return out


class _Checks:
    """Runs the checks on one device, collecting (name, ok, detail) and cleaning up after itself."""

    def __init__(self, device: SEDevice):
        self.device = device
        self.se = device.se
        self.results: list[dict[str, Any]] = []
        self.buffers: list[tuple[int, int]] = []
        self.streams: list[int] = []
        self.events: list[int] = []

    def record(self, name: str, ok: bool, detail: str = "") -> None:
        self.results.append({"check": name, "ok": bool(ok), "detail": detail})

    def run(self, name: str, fn: Callable[[], str | None]) -> None:
        """Run one check: a returned text is a failure, an exception too."""
        try:
            problem = fn()
        except errors.OpError as e:
            self.record(name, False, f"{type(e).__name__}: {e.message}")
        except Exception as e:  # noqa: BLE001 - reported, the next check runs
            self.record(name, False, f"{type(e).__name__}: {e}")
        else:
            self.record(name, problem is None, problem or "")

    # -------------------------------------------------------------- resources

    def buffer(self, nbytes: int) -> int:
        address, payload = self.device.allocate(nbytes)
        if not address:
            raise errors.ResourceExhaustedError(None, None, f"allocate({nbytes}) returned no memory")
        self.buffers.append((address, payload))
        return address

    def stream(self) -> int:
        stream = self.device.create_stream()
        self.streams.append(stream)
        return stream

    def event(self) -> int:
        event = self.device.create_event()
        self.events.append(event)
        return event

    def close(self) -> None:
        try:
            self.device.synchronize_all_activity()
        finally:
            for event in self.events:
                self.device.destroy_event(event)
            for stream in self.streams:
                self.device.destroy_stream(stream)
            for address, payload in self.buffers:
                self.device.deallocate(address, 0, payload)

    # -------------------------------------------------------------- checks

    def round_trip(self) -> str | None:
        """htod on stream A, event, B waits, dtoh on B, host blocks on B's event: the bytes come back."""
        a, b = self.stream(), self.stream()
        for size in _SIZES:
            data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8)
            back = np.zeros(size, np.uint8)
            address = self.buffer(size)
            copied, read = self.event(), self.event()
            self.device.memcpy_htod(a, address, data.ctypes.data, size)
            self.device.record_event(a, copied)
            self.device.wait_for_event(b, copied)
            self.device.memcpy_dtoh(b, back.ctypes.data, address, size)
            self.device.record_event(b, read)
            self.device.block_host_for_event(read)
            if not self.device.event_complete(read):
                return f"{size} bytes: the event is not complete after block_host_for_event"
            if not np.array_equal(back, data):
                return f"{size} bytes: {int(np.sum(back != data))} bytes differ after htod + dtoh"
        return None

    def sync_round_trip(self) -> str | None:
        size = 4096
        data = np.arange(size, dtype=np.uint8)
        back = np.zeros(size, np.uint8)
        address = self.buffer(size)
        mem = SEDevice.memory(address, size)
        status = _Status.fresh()
        with self.device._site("sync_memcpy_htod"):
            self.se.sync_memcpy_htod(self.device._ref, ctypes.byref(mem), data.ctypes.data, size, status)
        _Status.check(status, "sync_memcpy_htod")
        status = _Status.fresh()
        with self.device._site("sync_memcpy_dtoh"):
            self.se.sync_memcpy_dtoh(self.device._ref, back.ctypes.data, ctypes.byref(mem), size, status)
        _Status.check(status, "sync_memcpy_dtoh")
        return None if np.array_equal(back, data) else "the bytes differ after sync_memcpy_htod + sync_memcpy_dtoh"

    def event_order(self) -> str | None:
        """Work queued on a stream after waiting for another stream's event sees that stream's writes."""
        a, b = self.stream(), self.stream()
        size = 1 << 16
        first, second = np.full(size, 7, np.uint8), np.full(size, 9, np.uint8)
        back = np.zeros(size, np.uint8)
        address = self.buffer(size)
        done_a, done_b = self.event(), self.event()
        self.device.memcpy_htod(a, address, first.ctypes.data, size)
        self.device.memcpy_htod(a, address, second.ctypes.data, size)  # the later write on A wins
        self.device.record_event(a, done_a)
        self.device.wait_for_event(b, done_a)
        self.device.memcpy_dtoh(b, back.ctypes.data, address, size)
        self.device.record_event(b, done_b)
        self.device.block_host_for_event(done_b)
        if not self.device.event_complete(done_a):
            return "an event B waited for is not complete when B's later event is"
        if not np.all(back == 9):
            return "the copy on B after waiting for A's event did not see A's last write"
        return None

    def stream_dependency(self) -> str | None:
        a, b = self.stream(), self.stream()
        size = 4096
        data, back = np.full(size, 5, np.uint8), np.zeros(size, np.uint8)
        address = self.buffer(size)
        self.device.memcpy_htod(a, address, data.ctypes.data, size)
        status = _Status.fresh()
        with self.device._site("create_stream_dependency"):
            self.se.create_stream_dependency(self.device._ref, b, a, status)
        _Status.check(status, "create_stream_dependency")
        self.device.memcpy_dtoh(b, back.ctypes.data, address, size)
        done = self.event()
        self.device.record_event(b, done)
        self.device.block_host_for_event(done)
        return None if np.all(back == 5) else "work on a dependent stream ran before the stream it depends on"

    def synchronize(self) -> str | None:
        a = self.stream()
        size = 1 << 20
        data, back = np.full(size, 3, np.uint8), np.zeros(size, np.uint8)
        address = self.buffer(size)
        done = self.event()
        self.device.memcpy_htod(a, address, data.ctypes.data, size)
        self.device.memcpy_dtoh(a, back.ctypes.data, address, size)
        self.device.record_event(a, done)
        self.device.synchronize_all_activity()
        if not self.device.event_complete(done):
            return "an event is still pending after synchronize_all_activity"
        status = _Status.fresh()
        with self.device._site("get_stream_status"):
            self.se.get_stream_status(self.device._ref, a, status)
        _Status.check(status, "get_stream_status")
        return None if np.all(back == 3) else "a copy was not done after synchronize_all_activity"

    def dtod(self) -> str | None:
        size = 4096 + 1
        data, back = np.arange(size, dtype=np.uint8), np.zeros(size, np.uint8)
        src, dst = self.buffer(size), self.buffer(size)
        a = self.stream()
        done = self.event()
        self.device.memcpy_htod(a, src, data.ctypes.data, size)
        self.device.memcpy_dtod(a, dst, src, size)
        self.device.memcpy_dtoh(a, back.ctypes.data, dst, size)
        self.device.record_event(a, done)
        self.device.block_host_for_event(done)
        return None if np.array_equal(back, data) else "the bytes differ after memcpy_dtod"

    def fill(self, name: str) -> str | None:
        size = 4096
        ones, back = np.full(size, 0xAB, np.uint8), np.zeros(size, np.uint8)
        address = self.buffer(size)
        a = self.stream()
        done = self.event()
        self.device.memcpy_htod(a, address, ones.ctypes.data, size)
        mem = SEDevice.memory(address, size)
        status = _Status.fresh()
        with self.device._site(name):
            if name == "mem_zero":
                self.se.mem_zero(self.device._ref, a, ctypes.byref(mem), size, status)
                want = np.zeros(size, np.uint8)
            elif name == "memset":
                self.se.memset(self.device._ref, a, ctypes.byref(mem), 0x5C, size, status)
                want = np.full(size, 0x5C, np.uint8)
            else:
                self.se.memset32(self.device._ref, a, ctypes.byref(mem), 0x01020304, size, status)
                want = np.full(size // 4, 0x01020304, np.uint32).view(np.uint8)
        _Status.check(status, name)
        self.device.memcpy_dtoh(a, back.ctypes.data, address, size)
        self.device.record_event(a, done)
        self.device.block_host_for_event(done)
        return None if np.array_equal(back, want) else f"{name} did not write the expected bytes"

    def host_callback(self) -> str | None:
        a = self.stream()
        size = 1 << 20
        data, back = np.full(size, 4, np.uint8), np.zeros(size, np.uint8)
        address = self.buffer(size)
        seen: list[bool] = []

        def callback(arg: Any, status: Any) -> None:
            seen.append(bool(np.all(back == 4)))

        keep = StatusCallback(callback)
        self.device.memcpy_htod(a, address, data.ctypes.data, size)
        self.device.memcpy_dtoh(a, back.ctypes.data, address, size)
        with self.device._site("host_callback"):
            accepted = self.se.host_callback(self.device._ref, a, keep, None)
        if not accepted:
            return "host_callback returned false"
        self.device.synchronize_all_activity()
        del keep
        if not seen:
            return "the callback did not run by synchronize_all_activity"
        return None if seen[0] else "the callback ran before the stream's earlier copy was done"


def run_stream_checks(device: SEDevice) -> list[dict[str, Any]]:
    """Every check that applies to the device's plugin, as ``{"check", "ok", "detail"}`` entries."""
    checks = _Checks(device)
    platform = device.platform
    try:
        checks.run(
            "memcpy_htod + event + wait_for_event + memcpy_dtoh round trip (1 B, 4 KiB, 1 MiB)", checks.round_trip
        )
        checks.run("sync_memcpy_htod + sync_memcpy_dtoh round trip", checks.sync_round_trip)
        checks.run("event ordering between two streams", checks.event_order)
        checks.run("create_stream_dependency ordering", checks.stream_dependency)
        checks.run("synchronize_all_activity completes queued work and events", checks.synchronize)
        if platform._present(device.se, "memcpy_dtod"):
            checks.run("memcpy_dtod", checks.dtod)
        for name in ("mem_zero", "memset", "memset32"):
            if platform._present(device.se, name):
                checks.run(name, lambda n=name: checks.fill(n))
        if platform._present(device.se, "host_callback"):
            checks.run("host_callback runs after the stream's earlier work", checks.host_callback)
    finally:
        try:
            checks.close()
        except errors.OpError as e:
            checks.record("releasing the check's streams, events and memory", False, e.message)
    return checks.results
