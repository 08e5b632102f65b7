"""The rendezvous of one step: where a ``_Send`` leaves a tensor and the matching ``_Recv`` takes it.

Keys are TensorFlow's: ``send_device;incarnation;recv_device;tensor_name;frame_id:iteration``
(the incarnation as 16 hex digits). The frame part makes a transfer inside a while loop
one key per frame instance and iteration (both sides compute the same frame ids, see
``frame_id``). A value travels with its device, whether it is in host memory, and a
*dead* flag (a ``_Send`` of a dead tensor delivers deadness, so a branch not taken on one
device is not taken on another either).

``Rendezvous`` is the interface the executor uses: ``send`` never waits, ``recv_async``
calls back once the value is there (at once if it already is), ``try_recv`` polls and
``recv`` blocks (for callers outside an executor), ``abort`` fails everything pending
and later. ``LocalRendezvous`` serves the partitions of one process. A partition fed
from another process or host would get a rendezvous whose ``recv_async`` asks the peer
for the key and calls back when the bytes arrive (docs/architecture.md, "Rendezvous").

The receiving side moves a value into the memory it needs with ``copy_tensor``
(``Device.from_host``, ``to_host``, ``copy_to``), as TensorFlow's same-worker receive does.
"""

from __future__ import annotations

import hashlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from modtensor.framework import errors

if TYPE_CHECKING:
    from modtensor.runtime.device import Device

__all__ = [
    "LocalRendezvous",
    "Rendezvous",
    "RecvCallback",
    "SentTensor",
    "copy_tensor",
    "create_key",
    "frame_id",
    "incarnation_attr",
]

_U64 = (1 << 64) - 1


def create_key(
    send_device: str,
    send_device_incarnation: int,
    recv_device: str,
    tensor_name: str,
    frame_iter: tuple[int, int] = (0, 0),
) -> str:
    """TensorFlow's Rendezvous::CreateKey: the string both sides of a transfer compute independently."""
    frame, iteration = frame_iter
    return f"{send_device};{send_device_incarnation & _U64:016x};{recv_device};{tensor_name};{frame}:{iteration}"


def frame_id(parent_id: int, parent_iteration: int, name: str) -> int:
    """The id of a while-loop frame instance: a stable 64-bit hash of its parent instance, iteration and name.

    Every partition taking part in a loop computes the same ids, so their transfers meet.
    """
    digest = hashlib.blake2b(f"{parent_id}:{parent_iteration}:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") or 1


def incarnation_attr(incarnation: int) -> int:
    """A 64-bit unsigned incarnation as the signed int64 an ``int`` attr holds."""
    incarnation &= _U64
    return incarnation - (1 << 64) if incarnation >= 1 << 63 else incarnation


class SentTensor(NamedTuple):
    """A value waiting in the rendezvous: the value, its device, whether it is in host memory, whether it is dead."""

    value: Any
    device: Device
    on_host: bool
    is_dead: bool = False


# Called once with the sent tensor, or with None and the error that aborted the step.
RecvCallback = Callable[[SentTensor | None, errors.OpError | None], None]


def _is_host_object(value: Any) -> bool:
    """A variant or resource value (an ``object`` array of TensorLists, handles, ...): a host object everywhere.

    As in TensorFlow, where a Variant or ResourceHandle tensor is a host object on any device:
    it passes between devices as is (the list kernels move the elements they read or write).
    Strings are not host objects here: they must stay in host memory, as TF's memory types keep them.
    """
    if type(value) is not np.ndarray or value.dtype != np.object_ or not value.size:
        return False
    first = value.flat[0]
    return not isinstance(first, (str, bytes))


def copy_tensor(sent: SentTensor, dst: Device, dst_on_host: bool) -> Any:
    """``sent``'s value as ``dst`` needs it: host memory passes as is, else the devices copy it.

    Host-to-device goes through ``dst.from_host``, device-to-host through the source's
    ``to_host``, device-to-device through the source's ``copy_to``. A dead tensor has no value.
    """
    if sent.is_dead:
        return None
    if _is_host_object(sent.value):
        return sent.value
    if sent.on_host:
        return sent.value if dst_on_host else dst.from_host(sent.value)
    if dst_on_host:
        return sent.device.to_host(sent.value)
    if sent.device is dst:
        return sent.value
    return sent.device.copy_to(sent.value, dst)


class Rendezvous(ABC):
    """Where the partitions of a step exchange tensors by key; each key is sent once and received once."""

    @abstractmethod
    def send(self, key: str, value: Any, device: Device, on_host: bool, is_dead: bool = False) -> None:
        """Leave ``value`` (a value of ``device``, or None when dead) under ``key``; never waits."""

    @abstractmethod
    def recv_async(self, key: str, callback: RecvCallback) -> None:
        """Call ``callback(sent, None)`` once ``key`` was sent (at once if it was), or ``(None, error)`` on abort."""

    @abstractmethod
    def try_recv(self, key: str) -> SentTensor | None:
        """Take the tensor sent under ``key`` if it is there, else None (never waits)."""

    @abstractmethod
    def abort(self, error: errors.OpError) -> None:
        """Fail every pending and later send and receive with ``error`` (the first abort's error is kept)."""

    def recv(self, key: str, timeout: float | None = None) -> SentTensor:
        """Take the tensor sent under ``key``, waiting for it; DeadlineExceededError after ``timeout`` seconds."""
        done = threading.Event()
        result: list[Any] = []

        def arrived(sent: SentTensor | None, error: errors.OpError | None) -> None:
            result.append((sent, error))
            done.set()

        self.recv_async(key, arrived)
        if not done.wait(timeout):
            self.abort(errors.DeadlineExceededError(None, None, f"Timed out after {timeout}s waiting to receive {key}"))
            done.wait()
        sent, error = result[0]
        if error is not None:
            raise error
        return sent


class LocalRendezvous(Rendezvous):
    """The in-process rendezvous: a table of sent tensors and one of waiting receivers, under one lock."""

    __slots__ = ("_lock", "_status", "_table", "_waiters")

    def __init__(self) -> None:
        self._table: dict[str, SentTensor] = {}
        self._waiters: dict[str, RecvCallback] = {}
        self._lock = threading.Lock()
        self._status: errors.OpError | None = None

    def send(self, key: str, value: Any, device: Device, on_host: bool, is_dead: bool = False) -> None:
        """Hand ``value`` to a waiting receiver (outside the lock), or keep it; AbortedError for a key sent twice."""
        sent = SentTensor(value, device, on_host, is_dead)
        with self._lock:
            if self._status is not None:
                raise self._status
            waiter = self._waiters.pop(key, None)
            if waiter is None:
                if key in self._table:
                    raise errors.AbortedError(None, None, f"Duplicated send: {key}")
                self._table[key] = sent
                return
        waiter(sent, None)

    def recv_async(self, key: str, callback: RecvCallback) -> None:
        """Call back with the tensor now if it is there, else when it is sent (or with the abort's error)."""
        with self._lock:
            status = self._status
            sent = None if status is not None else self._table.pop(key, None)
            if status is None and sent is None:
                if key in self._waiters:
                    status = errors.AbortedError(None, None, f"Duplicated recv: {key}")
                else:
                    self._waiters[key] = callback
                    return
        callback(sent, status)

    def try_recv(self, key: str) -> SentTensor | None:
        """Take the tensor sent under ``key`` if it is there, else None (never waits)."""
        with self._lock:
            if self._status is not None:
                raise self._status
            return self._table.pop(key, None)

    def abort(self, error: errors.OpError) -> None:
        """Fail every current and later send and receive of this step with ``error``."""
        with self._lock:
            if self._status is None:
                self._status = error
            error = self._status
            self._table.clear()
            waiters = list(self._waiters.values())
            self._waiters.clear()
        for waiter in waiters:
            waiter(None, error)

    @property
    def status(self) -> errors.OpError | None:
        """The error the rendezvous was aborted with, if it was."""
        return self._status

    def pending_keys(self) -> list[str]:
        """Keys sent but not yet received, and keys waited for but not yet sent (for diagnostics)."""
        with self._lock:
            return list(self._table) + list(self._waiters)
