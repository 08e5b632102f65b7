"""Kernels: the numerics behind ops, one package per device type (``cpu`` is numpy plus the native library).

Importing this package arms the built-in CPU kernels: they register into the global
kernel registry at its first use (``runtime.kernel_registry.add_builtin_kernels``),
through the same ``KernelRegistry.register`` a plugin uses. ``import modtensor`` does
this, so the runtime never imports the layer above it.
"""

from __future__ import annotations

from typing import Any

from modtensor.runtime.kernel_registry import KernelRegistry, add_builtin_kernels


def _register_builtin_cpu_kernels(registry: KernelRegistry) -> Any:
    from modtensor.kernels.cpu.registrations import register_cpu_kernels

    return register_cpu_kernels(registry)


add_builtin_kernels(_register_builtin_cpu_kernels)
