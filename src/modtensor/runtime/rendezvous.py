"""The rendezvous of one step: where a ``_Send`` leaves a tensor and the matching ``_Recv`` takes it.

Keys are TensorFlow's: ``send_device;incarnation;recv_device;tensor_name;frame:iter``
(the incarnation as 16 hex digits). The receiving side moves the value into the
memory it needs through the devices' copy interface (``Device.from_host``,
``to_host``, ``copy_to``), as TensorFlow's same-worker receive does, so a pluggable
device orders the copy on its own streams. Sends never wait; ``recv`` can wait
(for threaded executors) and ``try_recv`` polls (for the cooperative scheduler of
``graph_execution``).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, NamedTuple

from modtensor.framework import errors

if TYPE_CHECKING:
    from modtensor.runtime.device import Device

__all__ = ["Rendezvous", "SentTensor", "copy_tensor", "create_key", "incarnation_attr"]

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


def incarnation_attr(incarnation: int) -> int:
    """A 64-bit unsigned incarnation as the signed int64 an ``int`` attr holds."""
    incarnation &= _U64
    return incarnation - (1 << 64) if incarnation >= 1 << 63 else incarnation


class SentTensor(NamedTuple):
    """A value waiting in the rendezvous: the value, the device it is on, and whether it is in host memory."""

    value: Any
    device: Device
    on_host: bool


def copy_tensor(sent: SentTensor, dst: Device, dst_on_host: bool) -> Any:
    """``sent``'s value as ``dst`` needs it: host memory passes as is, else the devices copy it.

    Host-to-device goes through ``dst.from_host``, device-to-host through the source's
    ``to_host``, device-to-device through the source's ``copy_to``.
    """
    if sent.on_host:
        return sent.value if dst_on_host else dst.from_host(sent.value)
    if dst_on_host:
        return sent.device.to_host(sent.value)
    if sent.device is dst:
        return sent.value
    return sent.device.copy_to(sent.value, dst)


class Rendezvous:
    """The tensors in flight between the partitions of one step, keyed by ``create_key`` strings.

    Each key is sent once and received once. ``abort`` wakes every waiting receiver
    with the error (a failed partition must not leave others waiting forever). The
    condition variable for waiting receivers is made on first use: a step run on one
    thread only pays for a lock.
    """

    __slots__ = ("_cond", "_lock", "_status", "_table")

    def __init__(self) -> None:
        self._table: dict[str, SentTensor] = {}
        self._lock = threading.Lock()
        self._cond: threading.Condition | None = None
        self._status: errors.OpError | None = None

    def send(self, key: str, value: Any, device: Device, on_host: bool) -> None:
        """Leave ``value`` (a value of ``device``) under ``key``; AbortedError for a key sent twice."""
        with self._lock:
            if self._status is not None:
                raise self._status
            if key in self._table:
                raise errors.AbortedError(None, None, f"Duplicated send: {key}")
            self._table[key] = SentTensor(value, device, on_host)
            if self._cond is not None:
                self._cond.notify_all()

    def try_recv(self, key: str) -> SentTensor | None:
        """Take the tensor sent under ``key`` if it is there, else None (never waits)."""
        with self._lock:
            if self._status is not None:
                raise self._status
            return self._table.pop(key, None)

    def recv(self, key: str, timeout: float | None = None) -> SentTensor:
        """Take the tensor sent under ``key``, waiting for it; DeadlineExceededError after ``timeout`` seconds."""
        with self._lock:
            if self._cond is None:
                self._cond = threading.Condition(self._lock)
            ready = self._cond.wait_for(lambda: key in self._table or self._status is not None, timeout)
            if self._status is not None:
                raise self._status
            if not ready:
                raise errors.DeadlineExceededError(None, None, f"Timed out after {timeout}s waiting to receive {key}")
            return self._table.pop(key)

    def abort(self, error: errors.OpError) -> None:
        """Fail every current and later send and receive of this step with ``error``."""
        with self._lock:
            if self._status is None:
                self._status = error
            self._table.clear()
            if self._cond is not None:
                self._cond.notify_all()

    def pending_keys(self) -> list[str]:
        """Keys sent but not yet received (for diagnostics)."""
        with self._lock:
            return list(self._table)
