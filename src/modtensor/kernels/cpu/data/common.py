"""The base of the dataset op kernels: element types/shapes from attrs, scalar arguments, the variant output.

TF's DatasetOpKernel/UnaryDatasetOpKernel: ``compute`` makes a DatasetBase from the
inputs and outputs it as a scalar variant. Kernels of ops with ``func`` attrs resolve
their functions through the graph's function library (or the eager one) when they run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors
from modtensor.runtime.data.captured_function import CapturedFunction, resolve_function
from modtensor.runtime.data.dataset import DatasetBase, dataset_input, shapes_from_attr, variant_value
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext

__all__ = ["DatasetOpKernel", "copy_element", "scalar", "unary_input"]


def scalar(ctx: OpKernelContext, index: int, name: str) -> Any:
    """TF's ParseScalarArgument: input ``index`` must be a scalar; returns its Python value."""
    value = ctx.inputs[index]
    if np.ndim(value) != 0:
        raise errors.InvalidArgumentError(None, None, f"{name} must be a scalar")
    return np.asarray(value).item()


def unary_input(ctx: OpKernelContext) -> DatasetBase:
    """The input dataset (input 0) of a unary transformation."""
    return dataset_input(ctx, 0)


def copy_element(element: Sequence[np.ndarray]) -> list[np.ndarray]:
    """An element as a fresh list (the arrays are shared: elements are never written in place)."""
    return list(element)


class DatasetOpKernel(OpKernel):
    """Base: ``output_dtypes``/``output_shapes`` from the attrs; ``make_dataset(ctx)`` is the op's work."""

    types_attr = "output_types"

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self.output_dtypes: tuple[dtypes.DType, ...] = ()
        self.output_shapes: tuple[Any, ...] = ()
        if ctx.has_attr(self.types_attr):
            self.output_dtypes = tuple(dtypes.as_dtype(t) for t in ctx.get_attr(self.types_attr))
        if ctx.has_attr("output_shapes"):
            self.output_shapes = shapes_from_attr(ctx.get_attr_proto("output_shapes").list.shape)
        self._library = getattr(ctx, "function_library", None)
        self._functions: dict[str, Any] = {}

    def function(self, ctx: OpKernelContext, attr: str, captured: Sequence[np.ndarray]) -> CapturedFunction:
        """The user function of ``attr`` with its captured values (resolved on the first call)."""
        found = self._functions.get(attr)
        if found is None:
            func = self.node_def.attr[attr].func
            found = self._functions[attr] = resolve_function(self._library, ctx.device, func)
        return CapturedFunction(found, captured, self.type_string)

    def num_list(self, attr: str) -> int:
        """The length of a list(type) attr (how many inputs a list arg has)."""
        return len(self.node_def.attr[attr].list.type)

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        """The dataset this op makes from its inputs."""
        raise NotImplementedError

    def compute(self, ctx: OpKernelContext) -> None:
        """Make the dataset and output it as a scalar variant."""
        ctx.set_output(0, variant_value(self.make_dataset(ctx)))
