"""PluggableDevice: a device of a StreamExecutor plugin, with its memory, streams and copies.

Values on the device are ``DeviceBuffer`` objects: shape, dtype and a device
address (what a C kernel's ``TF_TensorData`` returns). A buffer gives its memory
back when it is dropped, but only once the stream work queued before the drop is
done (the free waits behind an event recorded on the compute stream). Copies go
through the plugin's memcpy functions on the host-to-device, device-to-host and
device-to-device streams, ordered against the compute stream by events; the
host waits on events, never by polling a sleep. When the plugin provides
``host_memory_allocate`` (pinned memory on a GPU), host-device copies stage through
a pool of such buffers, each reused only after the event of its copy completed.

The plugin side (C pointers, structs) lives in ``plugin.native.stream_executor``;
this module only calls its typed ``SEDevice`` methods, so ``runtime`` does not
import ``plugin``: the loader hands the platform object in.
"""

from __future__ import annotations

import math
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors
from modtensor.runtime.allocator import Allocator, AllocatorStats, as_numpy_dtype
from modtensor.runtime.device import Device, DeviceAttributes
from modtensor.runtime.device_factory import DeviceFactory

__all__ = [
    "PLUGGABLE_PRIORITY",
    "DeviceBuffer",
    "HostStagingPool",
    "PluggableAllocator",
    "PluggableDevice",
    "PluggableDeviceFactory",
    "StagingBuffer",
]

PLUGGABLE_PRIORITY = 220  # TF's priority of pluggable devices (above GPU's 210 and CPU's 70)
_ALIGNMENT = 256
# Dropped buffers are freed in batches behind one event: recording an event per tensor would
# cost more than the kernel launch that produced it.
_FREE_BATCH = 32
# Staging buffers come in power-of-two sizes from this one up; the pool keeps at most this
# many bytes of free ones (a larger copy's buffer goes back to the plugin after use).
_STAGING_MIN_BYTES = 4096
_STAGING_CACHE_BYTES = 64 << 20


class DeviceBuffer:
    """A tensor's memory on a pluggable device: ``shape``, ``dtype``, ``device_address``, ``nbytes``.

    The memory goes back to the device's allocator when the last reference is
    dropped (a view, ``base`` set, keeps its base alive instead of freeing).
    """

    __slots__ = ("shape", "dtype", "device_address", "nbytes", "device", "base", "_owned", "__weakref__")

    def __init__(
        self, shape: tuple[int, ...], dtype: np.dtype, address: int, nbytes: int, device: PluggableDevice,
        base: DeviceBuffer | None = None,
    ):  # fmt: skip
        self.shape = shape
        self.dtype = dtype
        self.device_address = address
        self.nbytes = nbytes
        self.device = device
        self.base = base
        self._owned = base is None and address != 0

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def _view(self, shape: tuple[int, ...], dtype_enum: int, offset: int) -> DeviceBuffer:
        """A buffer over part of this one (the C bridge's output on an input's memory)."""
        dtype = np.dtype(dtypes.as_dtype(dtype_enum).as_numpy_dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        root = self.base if self.base is not None else self
        return DeviceBuffer(tuple(shape), dtype, self.device_address + offset, nbytes, self.device, base=root)

    def numpy(self) -> np.ndarray:
        """The contents as a host array (waits for the work producing them)."""
        return self.device.to_host(self)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self.numpy()
        return array.astype(dtype) if dtype is not None else array

    def __repr__(self) -> str:
        return f"<DeviceBuffer shape={self.shape} dtype={self.dtype} on {self.device.name} at {self.device_address:#x}>"

    def __del__(self) -> None:
        if self._owned:
            self.device._release(self.device_address)


class PluggableAllocator(Allocator):
    """Device memory of one pluggable device: a BFC allocator over the plugin's allocate, or the plugin's own.

    ``allocate`` returns a DeviceBuffer; statistics are the BFC's, or kept here for
    the plugin's own allocator (with the plugin's limit). Out of memory is a
    ResourceExhaustedError carrying the allocator's state.
    """

    def __init__(self, device: PluggableDevice, se_device: Any, *, use_bfc: bool, allow_growth: bool, limit: int):
        self.name = f"{device.device_type}_{device.ordinal}_{'bfc' if use_bfc else 'plugin'}"
        self._device = device
        self._se = se_device
        self._lock = threading.Lock()
        self._sizes: dict[int, tuple[int, int]] = {}  # plugin allocator: address -> (bytes, payload)
        self._stats = AllocatorStats(bytes_limit=limit)
        self.bfc = None
        if use_bfc:
            from modtensor.runtime.bfc_allocator import BFCAllocator

            self.bfc = BFCAllocator(_PluginSubAllocator(se_device), limit, allow_growth=allow_growth, name=self.name)

    def allocate_raw(self, num_bytes: int) -> int:
        """A device address of ``num_bytes``; ResourceExhaustedError when there is none."""
        if num_bytes == 0:
            return 0
        if self.bfc is not None:
            return self.bfc.allocate_raw(num_bytes, _ALIGNMENT)
        address, payload = self._se.allocate(num_bytes)
        if not address:
            stats = self.get_stats()
            raise errors.ResourceExhaustedError(
                None, None,
                f"Allocator ({self.name}) ran out of memory trying to allocate {num_bytes} bytes; the plugin's "
                f"allocator has {stats.bytes_in_use} bytes in use of {stats.bytes_limit} "
                f"(peak {stats.peak_bytes_in_use}, {stats.num_allocs} allocations)",
            )  # fmt: skip
        with self._lock:
            self._sizes[address] = (num_bytes, payload)
            self._stats.record_alloc(num_bytes)
        return address

    def deallocate_raw(self, address: int) -> None:
        """Give ``address`` back (the device calls this once the streams are past its last use)."""
        if self.bfc is not None:
            self.bfc.deallocate_raw(address)
            return
        with self._lock:
            num_bytes, payload = self._sizes.pop(address)
            self._stats.bytes_in_use -= num_bytes
        self._se.deallocate(address, num_bytes, payload)

    def allocate(self, shape: Sequence[int], dtype: Any) -> DeviceBuffer:
        """A DeviceBuffer of ``shape`` and ``dtype`` with unspecified contents."""
        return self._device.allocate_buffer(tuple(int(d) for d in shape), as_numpy_dtype(dtype))

    def get_stats(self) -> AllocatorStats:
        """Bytes in use, peak, allocation count, largest allocation and the limit."""
        self._device.collect_frees()
        if self.bfc is not None:
            return self.bfc.get_stats()
        with self._lock:
            return self._stats.snapshot()

    def clear_stats(self) -> None:
        if self.bfc is not None:
            self.bfc.clear_stats()
            return
        with self._lock:
            self._stats.reset_peak()

    def memory_log(self) -> str:
        """The allocator's state for an out-of-memory report."""
        return self.bfc.memory_log() if self.bfc is not None else repr(self.get_stats())


class _PluginSubAllocator:
    """The BFC allocator's source of regions: the plugin's allocate/deallocate."""

    def __init__(self, se_device: Any):
        self._se = se_device
        self._payloads: dict[int, int] = {}

    def alloc(self, num_bytes: int, alignment: int) -> int:
        address, payload = self._se.allocate(num_bytes)
        if address:
            self._payloads[address] = payload
        return address

    def free(self, address: int, num_bytes: int) -> None:
        self._se.deallocate(address, num_bytes, self._payloads.pop(address, 0))


class StagingBuffer:
    """A host buffer from the plugin's ``host_memory_allocate`` that copies stage through.

    The byte copies go through the plugin bridge (``se_device``), which owns all raw-pointer work.
    """

    __slots__ = ("_se", "address", "capacity")

    def __init__(self, address: int, capacity: int, se_device: Any):
        self.address = address
        self.capacity = capacity
        self._se = se_device

    def write(self, array: np.ndarray, nbytes: int) -> None:
        """Copy ``array``'s ``nbytes`` bytes (C order) into the buffer."""
        self._se.host_memory_write(self.address, array, nbytes)

    def read_into(self, array: np.ndarray, nbytes: int) -> None:
        """Copy the buffer's first ``nbytes`` bytes into ``array`` (C order)."""
        self._se.host_memory_read(self.address, array, nbytes)


class _StagingLease:
    """One copy's use of a staging buffer: ended once, by whichever sees the copy done first."""

    __slots__ = ("buffer", "ended")

    def __init__(self, buffer: StagingBuffer):
        self.buffer = buffer
        self.ended = False

    def end(self, pool: HostStagingPool) -> None:
        """Give the buffer back to ``pool`` (the copy that used it is done); later calls do nothing."""
        if not self.ended:
            self.ended = True
            pool.give_back(self.buffer)


class HostStagingPool:
    """Staging buffers of one device from the plugin's host memory functions, reused by power-of-two size.

    As TensorFlow stages copies through the device's pinned host allocator: a copy takes a
    buffer, the caller hands it back with ``give_back`` once the event of its copy completed,
    and free buffers (up to ``_STAGING_CACHE_BYTES``) wait for the next copy of their size.
    Not thread-safe: the device's lock guards it. ``allocations`` counts the plugin calls.
    """

    def __init__(self, se_device: Any):
        self._se = se_device
        self._free: dict[int, list[StagingBuffer]] = {}
        self.cached_bytes = 0
        self.live = 0  # buffers allocated from the plugin and not yet deallocated
        self.allocations = 0

    @property
    def num_cached(self) -> int:
        """How many free buffers wait in the pool."""
        return sum(len(buffers) for buffers in self._free.values())

    @staticmethod
    def _capacity(nbytes: int) -> int:
        return max(_STAGING_MIN_BYTES, 1 << (nbytes - 1).bit_length())

    def take(self, nbytes: int) -> StagingBuffer | None:
        """A free buffer of at least ``nbytes``, or a new one; None when the plugin has no host memory left."""
        capacity = self._capacity(nbytes)
        free = self._free.get(capacity)
        if free:
            buf = free.pop()
            self.cached_bytes -= capacity
            return buf
        address = self._se.host_memory_allocate(capacity)
        if not address:
            return None
        self.allocations += 1
        self.live += 1
        return StagingBuffer(address, capacity, self._se)

    def give_back(self, buf: StagingBuffer) -> None:
        """Return ``buf`` (its copy is done) to the pool, or to the plugin when the pool is full."""
        if self.cached_bytes + buf.capacity > _STAGING_CACHE_BYTES:
            self._release(buf)
            return
        self.cached_bytes += buf.capacity
        self._free.setdefault(buf.capacity, []).append(buf)

    def _release(self, buf: StagingBuffer) -> None:
        self._se.host_memory_deallocate(buf.address)
        self.live -= 1

    def clear(self) -> None:
        """Give every free buffer back to the plugin (device close)."""
        for buffers in self._free.values():
            for buf in buffers:
                self._release(buf)
        self._free.clear()
        self.cached_bytes = 0


class _EventWaiter:
    """A daemon thread that waits for a device's events in order and then runs each one's callback.

    Asynchronous copies hand their completion here instead of blocking the step's thread
    (TF's EventMgr polls for the same reason). ``block_host_for_event`` releases the GIL.
    """

    def __init__(self, se_device: Any, name: str):
        self._se_device = se_device
        self._queue: queue.SimpleQueue[tuple[int, Callable[[BaseException | None], None]]] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=f"modtensor-events-{name}", daemon=True)
        self._thread.start()

    def wait_then(self, event: int, callback: Callable[[BaseException | None], None]) -> None:
        """Call ``callback(None)`` once ``event`` completed (``callback(error)`` if waiting failed)."""
        self._queue.put((event, callback))

    def _run(self) -> None:
        while True:
            event, callback = self._queue.get()
            try:
                self._se_device.block_host_for_event(event)
            except BaseException as exc:  # noqa: BLE001 - reported to the waiting node
                callback(exc)
                continue
            try:
                callback(None)
            except BaseException:  # noqa: BLE001 - a callback must not kill the thread; it reports its own errors
                import traceback

                traceback.print_exc()


class PluggableDevice(Device):
    """One device of a StreamExecutor plugin: compute and copy streams, events, device buffers."""

    is_host = False

    def __init__(self, attributes: DeviceAttributes, se_device: Any, *, allow_growth: bool, memory_limit: int):
        from modtensor.runtime.allocator import CPUAllocator

        self.se_device = se_device
        self.platform = se_device.platform
        self._closed = False
        self._pending_frees: list[int] = []  # dropped buffers' addresses, not yet behind an event
        # Work the compute stream must get past before its resources go: host arrays being copied
        # in, and events it was told to wait for (a plugin may look at an event only when the
        # stream reaches the wait, so re-recording it earlier could deadlock).
        self._staged: list[Any] = []
        self._compute_waits: list[tuple[PluggableDevice, int]] = []  # (device that owns the event, event)
        # (event on the compute stream, addresses to free, host objects to drop, events to recycle)
        self._waiting: list[tuple[int, list[int], list[Any], list[tuple[PluggableDevice, int]]]] = []
        self._event_pool: list[int] = []
        # Staging buffers of host-to-device copies in flight, with the event recorded after each copy.
        self._staging_in_flight: list[tuple[int, _StagingLease]] = []
        self.staging = HostStagingPool(se_device) if getattr(se_device, "has_host_memory", False) else None
        self._lock = threading.RLock()
        self._events: _EventWaiter | None = None
        super().__init__(attributes, allocator=None, host_allocator=CPUAllocator(f"{attributes.device_type}_host"))  # type: ignore[arg-type]
        self.allocator = PluggableAllocator(
            self, se_device, use_bfc=self.platform.use_bfc_allocator, allow_growth=allow_growth, limit=memory_limit
        )
        self.compute_stream = se_device.create_stream()
        self.h2d_stream = se_device.create_stream()
        self.d2h_stream = se_device.create_stream()
        self.d2d_stream = se_device.create_stream()
        self.platform.add_device_closer(self.close)

    # ------------------------------------------------------------------ events and deferred frees

    def _event(self) -> int:
        return self._event_pool.pop() if self._event_pool else self.se_device.create_event()

    def _release(self, address: int) -> None:
        # Called from DeviceBuffer.__del__ (any thread, maybe inside GC): only record the address.
        self._pending_frees.append(address)

    def _behind_compute(self) -> None:
        """Record one event on the compute stream; what is pending is released when it completes."""
        pending, self._pending_frees = self._pending_frees, []
        staged, self._staged = self._staged, []
        waits, self._compute_waits = self._compute_waits, []
        event = self._event()
        self.se_device.record_event(self.compute_stream, event)
        self._waiting.append((event, pending, staged, waits))

    def collect_frees(self, *, wait: bool = False) -> None:
        """Free the memory of dropped buffers whose last stream use is done (all of it with ``wait``)."""
        if self._closed:
            return
        with self._lock:
            if self._pending_frees or self._staged or self._compute_waits:
                self._behind_compute()
            still: list[tuple[int, list[int], list[Any], list[tuple[PluggableDevice, int]]]] = []
            for entry in self._waiting:
                event, addresses, keep, waits = entry
                if wait:
                    self.se_device.block_host_for_event(event)
                elif not self.se_device.event_complete(event):
                    still.append(entry)
                    continue
                for address in addresses:
                    self.allocator.deallocate_raw(address)
                for item in keep:  # a staging buffer's copy is done before the compute stream got here
                    if isinstance(item, _StagingLease):
                        item.end(self.staging)  # type: ignore[arg-type]
                keep.clear()
                self._event_pool.append(event)
                for owner, waited in waits:  # a peer's event goes back to the peer's pool
                    if owner._closed:  # the peer closed first (platform teardown): its pool is gone
                        owner.se_device.destroy_event(waited)
                    else:
                        owner._event_pool.append(waited)
            self._waiting = still
            self._staging_in_flight = [(e, lease) for e, lease in self._staging_in_flight if not lease.ended]

    # ------------------------------------------------------------------ memory

    def allocate_buffer(self, shape: tuple[int, ...], dtype: np.dtype) -> DeviceBuffer:
        """A new DeviceBuffer; on out-of-memory waits for pending frees once, then raises."""
        nbytes = math.prod(shape) * dtype.itemsize
        if len(self._pending_frees) >= _FREE_BATCH or len(self._staged) >= _FREE_BATCH:
            self.collect_frees()
        try:
            address = self.allocator.allocate_raw(nbytes)
        except errors.ResourceExhaustedError:
            self.synchronize()  # frees what waits on the streams first, then waits for the device
            try:
                address = self.allocator.allocate_raw(nbytes)
            except errors.ResourceExhaustedError as e:
                type_name = dtypes.as_dtype(dtype).cpp_name
                raise errors.ResourceExhaustedError(
                    None, None,
                    f"OOM when allocating tensor with shape[{','.join(map(str, shape))}] and type {type_name} "
                    f"on {self.name} by allocator {self.allocator.name}\n{e.message}",
                ) from None  # fmt: skip
        return DeviceBuffer(shape, dtype, address, nbytes, self)

    def buffer_is_exclusive(self, value: Any) -> bool:
        """A buffer that is not a view and has no views may be written in place."""
        return isinstance(value, DeviceBuffer) and value.base is None

    def zeros(self, shape: Sequence[int], dtype: Any) -> DeviceBuffer:
        buf = self.allocate_buffer(tuple(int(d) for d in shape), as_numpy_dtype(dtype))
        if buf.nbytes:
            keep: list[Any] = []
            self.se_device.mem_zero(self.compute_stream, buf.device_address, buf.nbytes, keep)
            self._staged.extend(keep)
        return buf

    # ------------------------------------------------------------------ copies

    def from_host(self, array: np.ndarray) -> DeviceBuffer:
        """Enqueue a host-to-device copy; the compute stream waits for it, the host does not."""
        source = np.asarray(array, order="C")  # ascontiguousarray would turn a 0-d array into shape (1,)
        if source.dtype == np.object_:
            raise errors.InvalidArgumentError(
                None, None, f"string tensors cannot be placed on {self.name}: keep them in host memory"
            )
        buf = self.allocate_buffer(tuple(source.shape), source.dtype)
        if buf.nbytes:
            with self._lock:
                staging = self._staging_buffer(buf.nbytes)
                if staging is not None:
                    staging.write(source, buf.nbytes)
                host = staging.address if staging is not None else source.ctypes.data
                try:
                    self.se_device.memcpy_htod(self.h2d_stream, buf.device_address, host, buf.nbytes)
                except BaseException:
                    if staging is not None:  # nothing was enqueued: the buffer is free again
                        self.staging.give_back(staging)  # type: ignore[union-attr]
                    raise
                event = self._event()
                self.se_device.record_event(self.h2d_stream, event)
                self.se_device.wait_for_event(self.compute_stream, event)
                self._compute_waits.append((self, event))
                # The host memory lives until the copy is done: the staging buffer goes back to the
                # pool once its event completed (or the compute stream passed it); an array is dropped.
                if staging is None:
                    self._staged.append(source)
                else:
                    lease = _StagingLease(staging)
                    self._staging_in_flight.append((event, lease))
                    self._staged.append(lease)
        return buf

    def _staging_buffer(self, nbytes: int) -> StagingBuffer | None:
        """A staging buffer for a copy of ``nbytes`` (None without the plugin's host memory functions)."""
        if self.staging is None:
            return None
        # Copies whose event completed give their buffers back first. The copies are in order on
        # the h2d stream, so the first incomplete event ends the scan. Each event is still its
        # copy's own: it is recycled only by the collect_frees entry that also ends the lease.
        done = 0
        for event, lease in self._staging_in_flight:
            if not lease.ended:
                if not self.se_device.event_complete(event):
                    break
                lease.end(self.staging)
            done += 1
        del self._staging_in_flight[:done]
        return self.staging.take(nbytes)

    def to_host(self, value: Any) -> np.ndarray:
        """Copy a buffer to a new host array on the device-to-host stream, after the compute stream's work."""
        if not isinstance(value, DeviceBuffer):
            return np.asarray(value)
        out = np.empty(value.shape, value.dtype)
        if value.nbytes:
            src = value.device
            with src._lock:
                staging = src._staging_buffer(value.nbytes)
                ready = src._event()
                src.se_device.record_event(src.compute_stream, ready)
                src.se_device.wait_for_event(src.d2h_stream, ready)
                host = staging.address if staging is not None else out.ctypes.data
                src.se_device.memcpy_dtoh(src.d2h_stream, host, value.device_address, value.nbytes)
                done = src._event()
                src.se_device.record_event(src.d2h_stream, done)
                src.se_device.block_host_for_event(done)
                src._event_pool += [ready, done]
                if staging is not None:  # the copy is done: out of the staging buffer, which goes back
                    staging.read_into(out, value.nbytes)
                    src.staging.give_back(staging)  # type: ignore[union-attr]
        return out

    def to_host_async(self, value: Any, done: Callable[[np.ndarray | None, BaseException | None], None]) -> None:
        """Enqueue the device-to-host copy and return; ``done(array, None)`` runs on this device's event thread once
        the copy's event completed (the executor's receive goes on with other nodes meanwhile)."""
        if not isinstance(value, DeviceBuffer) or not value.nbytes:
            super().to_host_async(value, done)
            return
        out = np.empty(value.shape, value.dtype)
        src = value.device
        with src._lock:
            staging = src._staging_buffer(value.nbytes)
            ready = src._event()
            src.se_device.record_event(src.compute_stream, ready)
            src.se_device.wait_for_event(src.d2h_stream, ready)
            host = staging.address if staging is not None else out.ctypes.data
            src.se_device.memcpy_dtoh(src.d2h_stream, host, value.device_address, value.nbytes)
            copied = src._event()
            src.se_device.record_event(src.d2h_stream, copied)

        def finished(error: BaseException | None) -> None:
            # ``value`` stays referenced until here: its memory must outlive the copy.
            if error is None:
                try:
                    with src._lock:
                        src._event_pool += [ready, copied]
                        if staging is not None:
                            staging.read_into(out, value.nbytes)
                            src.staging.give_back(staging)  # type: ignore[union-attr]
                except Exception as exc:  # noqa: BLE001 - handed to the receive, which fails its node
                    error = exc
            if error is not None:
                done(None, error)
            else:
                done(out, None)

        src.events.wait_then(copied, finished)

    @property
    def events(self) -> _EventWaiter:
        """This device's event thread (started on first use)."""
        waiter = self._events
        if waiter is None:
            with self._lock:
                if self._events is None:
                    self._events = _EventWaiter(self.se_device, self.name)
                waiter = self._events
        return waiter

    def copy_to(self, value: Any, dst: Device) -> Any:
        """Same device: the value; another device of the platform: memcpy_dtod; otherwise through host memory."""
        if dst is self:
            return value
        if isinstance(value, DeviceBuffer) and value.device is dst:
            return value
        if (
            isinstance(value, DeviceBuffer)
            and isinstance(dst, PluggableDevice)
            and dst.platform is value.device.platform
            and value.device.se_device.has_memcpy_dtod
        ):
            return value.device._copy_to_peer(value, dst)
        return dst.from_host(self.to_host(value))

    def _copy_to_peer(self, value: DeviceBuffer, dst: PluggableDevice) -> DeviceBuffer:
        """Copy ``value`` into ``dst``'s memory with memcpy_dtod on this device's device-to-device stream.

        As TensorFlow's device-to-device copy: the copy waits for this device's compute
        stream (which produces ``value``), ``dst``'s compute stream waits for the copy, and
        the source buffer stays alive until ``dst``'s compute stream is past that wait.
        """
        out = dst.allocate_buffer(value.shape, value.dtype)
        if not out.nbytes:
            return out
        with self._lock:
            ready = self._event()
            self.se_device.record_event(self.compute_stream, ready)
            self.se_device.wait_for_event(self.d2d_stream, ready)
            self.se_device.memcpy_dtod(self.d2d_stream, out.device_address, value.device_address, value.nbytes)
            done = self._event()
            self.se_device.record_event(self.d2d_stream, done)
        with dst._lock:
            dst.se_device.wait_for_event(dst.compute_stream, done)
            dst._compute_waits += [(self, ready), (self, done)]
            dst._staged.append(value)  # read by the copy: dropped once dst's compute stream is past it
        return out

    def synchronize(self) -> None:
        """Release everything waiting on this device's streams, then wait for all its work.

        Freeing first (waiting on the events the frees are behind) and synchronizing after means
        the plugin's own deallocation work, which may run on its streams, is also done when this
        returns: the allocator's and the plugin's counts agree (the out-of-memory retry uses it too).
        """
        if self._closed:
            return
        self.collect_frees(wait=True)
        self.se_device.synchronize_all_activity()

    def close(self) -> None:
        """Release streams, events and memory (at platform teardown); the device is unusable afterwards."""
        if self._closed:
            return
        try:
            self.synchronize()
        finally:
            self._closed = True
            se = self.se_device
            for event in self._event_pool:
                se.destroy_event(event)
            self._event_pool.clear()
            for stream in (self.d2d_stream, self.d2h_stream, self.h2d_stream, self.compute_stream):
                se.destroy_stream(stream)
            if self.staging is not None:
                self.staging.clear()


class PluggableDeviceFactory(DeviceFactory):
    """The devices of one StreamExecutor platform (registered at priority 220 under its type)."""

    def __init__(self, platform: Any):
        self.platform = platform

    def list_physical_devices(self) -> list[str]:
        return [f"/physical_device:{self.platform.type}:{i}" for i in range(len(self.platform.devices))]

    def get_device_details(self, index: int) -> dict[str, str]:
        """The plugin's hardware name, vendor and PCI bus id (the ones it reports)."""
        d = self.platform.devices[index]
        details = {"device_name": d.hardware_name, "device_vendor": d.vendor, "pci_bus_id": d.pci_bus_id}
        return {k: v for k, v in details.items() if v}

    def create_devices(self, physical_indices: Sequence[int], name_prefix: str) -> list[Device]:
        devices: list[Device] = []
        for ordinal, index in enumerate(physical_indices):
            se_device = self.platform.devices[index]
            name = f"/physical_device:{self.platform.type}:{index}"
            growth = self.platform.force_memory_growth or _memory_growth(name)
            usage = se_device.memory_usage()
            stats = se_device.allocator_stats()
            limit = (usage[0] if usage else 0) or ((stats or {}).get("bytes_limit") or 0) or (1 << 30)
            desc = f"device: {index}, name: {se_device.hardware_name or self.platform.name}"
            if se_device.pci_bus_id:
                desc += f", pci bus id: {se_device.pci_bus_id}"
            attrs = DeviceAttributes(
                name=f"{name_prefix}/device:{self.platform.type}:{ordinal}",
                device_type=self.platform.type,
                memory_limit=limit,
                physical_device_desc=desc,
            )
            devices.append(PluggableDevice(attrs, se_device, allow_growth=growth, memory_limit=limit))
        return devices


def _memory_growth(physical_name: str) -> bool:
    """``config.experimental.set_memory_growth`` for this physical device; unset: reserve up front, as TF."""
    from modtensor.runtime.device_factory import memory_growth_enabled

    return bool(memory_growth_enabled(physical_name))
