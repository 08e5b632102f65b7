"""Crash reports for plugin code: which plugin, call, kernel and node a fatal signal came from.

A segfault or ``abort()`` inside a plugin ends the process (nothing can recover native code
that corrupted the process). Before it ends, the shim's signal handler (csrc/shim/crash_report.c)
prints the plugin call in progress on the crashing thread, recorded by the bridge around every
call into plugin code, and hands the signal on to ``faulthandler``, which prints the Python stack.
Both are installed when the first native plugin loads (``MODTENSOR_NO_CRASH_HANDLER=1`` leaves
the process's signal handlers alone).
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import sys
import threading
from typing import Any

__all__ = ["NO_CRASH_HANDLER_ENV", "crash_handler_installed", "enable_crash_reports", "plugin_call"]

NO_CRASH_HANDLER_ENV = "MODTENSOR_NO_CRASH_HANDLER"

_LOCK = threading.Lock()
_enabled = False
_sites: dict[tuple[str, ...], Any] = {}


def enable_crash_reports() -> bool:
    """Install faulthandler (for the Python stack) and the shim's fatal-signal handler, once per process.

    Returns True when the handler is active. faulthandler is enabled only when it is not already
    (pytest and ``python -X faulthandler`` enable their own) and stderr is a real file.
    """
    global _enabled
    if _enabled:
        return True
    if os.environ.get(NO_CRASH_HANDLER_ENV, "") not in ("", "0"):
        return False
    from modtensor.plugin.native import bridge

    with _LOCK:
        if _enabled:
            return True
        if not faulthandler.is_enabled():
            # stderr without a file descriptor (IDEs, notebooks): no Python stack, the plugin report still comes.
            with contextlib.suppress(AttributeError, ValueError, OSError):
                faulthandler.enable(file=sys.stderr, all_threads=True)
        bridge().install_crash_handler()  # after faulthandler: ours prints first, then hands the signal on
        _enabled = True
        return True


def crash_handler_installed() -> bool:
    """True once :func:`enable_crash_reports` installed the handler in this process."""
    return _enabled


def plugin_call(library: str, what: str, op: str = "", node: str = "", device: str = "") -> Any:
    """A context manager recording a call into plugin code on this thread (``with plugin_call(...): fn()``).

    The objects are cached per description, so wrapping a frequent call costs two C calls.
    """
    key = (library, what, op, node, device)
    site = _sites.get(key)
    if site is None:
        from modtensor.plugin.native import bridge

        site = _sites[key] = bridge().PluginCall(library, what, op, node, device)
    return site
