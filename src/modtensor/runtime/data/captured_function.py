"""User functions of dataset transformations (TF's CapturedFunction): a ``func`` attr plus captured values.

A dataset op's ``f`` attr names a library function; its ``other_arguments`` are the values
the function captured, passed after the element's components on every call. The function
is found in the kernel's graph function library when it has one (a dataset built inside a
function; ``OpKernelConstruction.function_library``), else in the eager context's library
(``runtime.eager_functions``: datasets built eagerly). It runs on host values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from modtensor.framework import errors
from modtensor.runtime import eager_functions

__all__ = ["CapturedFunction", "resolve_function"]


class _LibraryRuntimeFunction:
    """A function of a graph's FunctionLibraryRuntime, instantiated for a device, called with host values."""

    def __init__(self, instance: Any, device: Any):
        self.name = instance.name
        self._instance = instance
        self._device = device

    def run(self, args: Sequence[Any]) -> list[Any]:
        from modtensor.runtime.rendezvous import SentTensor

        results = self._instance.run([SentTensor(a, self._device, True) for a in args])
        return [r.value if r.on_host else r.device.to_host(r.value) for r in results]


def resolve_function(library: Any, device: Any, func: Any) -> Any:
    """The runnable function a ``func`` attr value (NameAttrList) names, for a kernel on ``device``.

    ``library`` is the kernel's graph FunctionLibraryRuntime (None eagerly). NotFoundError (TF's
    text) when neither the graph's library nor the eager library has the function.
    """
    if library is not None and library.find(func.name) is not None:
        instance = library.instantiate(func.name, dict(func.attr), device)
        return _LibraryRuntimeFunction(instance, device)
    found = eager_functions.lookup_function(func.name)
    if found is None:
        raise errors.NotFoundError(None, None, f"Function {func.name} is not defined.")
    return found


class CapturedFunction:
    """A resolved user function with its captured values: ``run(components)`` -> result components."""

    def __init__(self, function: Any, captured: Sequence[np.ndarray], transformation: str = ""):
        self.function = function
        self.captured = list(captured)
        self.transformation = transformation

    @property
    def name(self) -> str:
        """The library function's name."""
        return self.function.name

    def run(self, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Call the function on ``args`` (an element's components) followed by the captured values."""
        return self.function.run([*args, *self.captured])
