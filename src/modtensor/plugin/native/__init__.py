"""The native bridge: the only Python code that deals with the C API's pointers.

``bridge()`` loads the shim library (``libmodtensor_framework.so``) with global
symbol visibility, so plugins built without linking anything resolve their
``TF_*`` symbols from it, then imports the ``_bridge`` extension and attaches
the Python runtime to the shim (the callback table, see csrc/shim/mt_internal.h). It
also loads ``_pywrap_tensorflow_internal.so`` (csrc/compat), the name binary TensorFlow
plugins list as NEEDED.
It does this once, on first use: ``import modtensor`` never loads native code.

``MODTENSOR_SHIM_LIBRARY`` names another build of the shim to load instead (the
AddressSanitizer test uses it); it must have the same soname.
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path
from types import ModuleType

from modtensor.framework import errors
from modtensor.runtime.device import register_memory_owner_type

__all__ = ["COMPAT_FILE", "SHIM_FILE", "bridge", "shim_path"]

SHIM_FILE = "libmodtensor_framework.so"
# The name binary TensorFlow plugins (built against a TF wheel) list as NEEDED; csrc/compat.
COMPAT_FILE = "_pywrap_tensorflow_internal.so"

_LOCK = threading.Lock()
_attached: ModuleType | None = None
_shim: ctypes.CDLL | None = None
_compat: ctypes.CDLL | None = None


def shim_path() -> Path:
    """Where the shim library is: ``modtensor/lib/libmodtensor_framework.so`` (or ``$MODTENSOR_SHIM_LIBRARY``)."""
    override = os.environ.get("MODTENSOR_SHIM_LIBRARY")
    if override:
        return Path(override)
    return Path(__file__).resolve().parent.parent.parent / "lib" / SHIM_FILE


def shim_library() -> ctypes.CDLL:
    """The shim library as loaded globally by :func:`bridge` (loading it first if needed)."""
    bridge()
    assert _shim is not None
    return _shim


def _load_compat_library(folder: Path) -> None:
    """Load ``_pywrap_tensorflow_internal.so`` (next to the shim) so binary TF plugins that need it resolve.

    Missing (a build without it) is not an error here: such a plugin then fails to load naming it.
    """
    global _compat
    path = folder / COMPAT_FILE
    if path.is_file():
        _compat = ctypes.CDLL(str(path), mode=os.RTLD_NOW | os.RTLD_GLOBAL)


def bridge() -> ModuleType:
    """The ``_bridge`` extension with the shim loaded globally and the runtime attached (first call does it)."""
    global _attached, _shim
    if _attached is not None:
        return _attached
    with _LOCK:
        if _attached is not None:
            return _attached
        path = shim_path()
        if not path.is_file():
            raise errors.FailedPreconditionError(
                None,
                None,
                f"modtensor's native library {path} is missing, so native plugins cannot be loaded. "
                "Reinstall modtensor from source with a C compiler available (pip install .), or for a "
                "development checkout build it in place (pip install -e .).",
            )
        try:
            _shim = ctypes.CDLL(str(path), mode=os.RTLD_NOW | os.RTLD_GLOBAL)
            from modtensor.plugin.native import _bridge as module  # links against the shim loaded above
        except (OSError, ImportError) as e:
            raise errors.FailedPreconditionError(
                None, None, f"modtensor's native library {path} cannot be loaded: {e}. Reinstall modtensor."
            ) from e
        _load_compat_library(path.parent)
        from modtensor.plugin.native import hooks

        module.install(hooks, hooks.numpy_dtype_table())
        register_memory_owner_type(module.HostBlock)
        _attached = module
        return module
