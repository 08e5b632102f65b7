"""Device-agnostic kernels of the runtime (TF's common runtime kernels), registered for device type DEFAULT.

A DEFAULT kernel serves every device type that has no kernel of its own for the op
(``runtime.kernel_registry``), so control flow works on CPU and on any plugged device
without the device registering anything.
"""

from __future__ import annotations

from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry
from modtensor.runtime.kernels import control_flow, functional, plumbing

__all__ = ["register_default_kernels"]


def register_default_kernels(registry: KernelRegistry) -> list[KernelRegistration]:
    """Register the runtime's DEFAULT kernels into ``registry``; returns the registrations."""
    return plumbing.register(registry) + control_flow.register(registry) + functional.register(registry)
