"""Compile and link flags for plugin authors, as ``tf.sysconfig``.

A plugin written against TensorFlow's C API builds against modtensor with::

    FLAGS=$(python -c "import modtensor.sysconfig as s; print(' '.join(s.get_compile_flags() + s.get_link_flags()))")
    gcc -shared -fPIC -O2 my_plugin.c -o my_plugin.so $FLAGS

Linking is optional: modtensor loads its shim library with global symbol
visibility before any plugin, so a plugin built with only ``get_compile_flags()``
resolves its ``TF_*`` symbols at load time.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["get_build_info", "get_compile_flags", "get_include", "get_lib", "get_link_flags"]

_PACKAGE = Path(__file__).resolve().parent
SHIM_FILE = "libmodtensor_framework.so"


def get_include() -> str:
    """The folder holding ``tensorflow/c/*.h`` (installed as ``modtensor/include``; ``include/`` in a checkout)."""
    installed = _PACKAGE / "include"
    if (installed / "tensorflow" / "c" / "kernels.h").is_file():
        return str(installed)
    checkout = _PACKAGE.parent.parent / "include"  # src/modtensor -> repository root
    if (checkout / "tensorflow" / "c" / "kernels.h").is_file():
        return str(checkout)
    return str(installed)


def get_lib() -> str:
    """The folder holding ``libmodtensor_framework.so``, the library exporting the ``TF_*`` C API."""
    return str(_PACKAGE / "lib")


def get_compile_flags() -> list[str]:
    """Flags to compile a plugin (C or C++): the include path of the TensorFlow-compatible headers."""
    return [f"-I{get_include()}"]


def get_link_flags() -> list[str]:
    """Flags to link a plugin against the shim explicitly (optional, see the module doc)."""
    return [f"-L{get_lib()}", f"-l:{SHIM_FILE}"]


def get_build_info() -> dict[str, str]:
    """What this modtensor build provides to plugins."""
    from modtensor import __version__

    return {
        "modtensor_version": __version__,
        "c_api": "TensorFlow 2.21 plugin C API (kernels, ops, status, tensor, tstring)",
        "shim_library": str(Path(get_lib()) / SHIM_FILE),
        "include_dir": get_include(),
    }
