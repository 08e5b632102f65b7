"""Cancelling a step: TensorFlow's CancellationManager.

A step's executors, its rendezvous and long-running kernels (a functional While, a
blocking receive) register callbacks; ``cancel()`` - from any thread, e.g. a
``Session.run`` timeout or a user's ``CompiledGraph.cancel`` - runs each callback once.
Cancelling fails the step with ``CancelledError`` promptly: no kernel is started after
it, waiting receivers wake, and in-flight work drains.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable

__all__ = ["CancellationManager"]


class CancellationManager:
    """Callbacks to run when a step is cancelled; cancelling twice is harmless."""

    __slots__ = ("_callbacks", "_cancelled", "_lock", "_tokens")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: dict[int, Callable[[], None]] = {}
        self._cancelled = False
        self._tokens = itertools.count()

    @property
    def cancelled(self) -> bool:
        """True once ``cancel`` was called."""
        return self._cancelled

    def register(self, callback: Callable[[], None]) -> int | None:
        """Run ``callback`` on cancellation; returns a token for ``deregister``, or None if already cancelled
        (the callback is then NOT called: the caller must act on the cancellation itself)."""
        with self._lock:
            if self._cancelled:
                return None
            token = next(self._tokens)
            self._callbacks[token] = callback
            return token

    def deregister(self, token: int | None) -> None:
        """Forget a callback (a finished operation no longer needs cancelling)."""
        if token is None:
            return
        with self._lock:
            self._callbacks.pop(token, None)

    def cancel(self) -> None:
        """Run every registered callback once (outside the lock, in registration order)."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            callbacks = list(self._callbacks.values())
            self._callbacks.clear()
        for callback in callbacks:
            callback()
