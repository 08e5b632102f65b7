"""``tf.image.extract_patches``: the ExtractImagePatches op with its window lists made constant Python ints.

As TF 2.21's ``array_ops.extract_image_patches_v2``: list or tuple elements that are tensors
must have a constant value (their value is read at trace time, else TF's TypeError).
"""

from __future__ import annotations

from typing import Any

from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant_value, is_tensor
from modtensor.framework.tensor import Tensor

__all__: list[str] = []


def _int_list_attr(values: Any, name: str) -> Any:
    """``values`` as a list of Python ints when it is a list or tuple (constant tensors read), else as it is."""
    if not isinstance(values, (list, tuple)):
        return values
    result = []
    for i, value in enumerate(values):
        if is_tensor(value):
            known = constant_value(value)
            if known is None:
                raise TypeError(
                    f"'{name}' must contain compile-time constant values when using XLA compilation "
                    f"(jit_compile=True), but element {i} is a dynamic tensor: {value}. Use Python integers or "
                    "values that can be evaluated at graph construction time."
                )
            result.append(int(known))
        else:
            result.append(value)
    return result


def extract_patches(images: Any, sizes: Any, strides: Any, rates: Any, padding: str, name: str | None = None) -> Tensor:
    """The ``sizes`` windows of 4-D ``images`` (``[1, rows, cols, 1]`` lists, dilated by ``rates``), each flattened
    into the depth of one output pixel: ``[batch, out_rows, out_cols, rows * cols * depth]``."""
    sizes = _int_list_attr(sizes, "sizes")
    strides = _int_list_attr(strides, "strides")
    rates = _int_list_attr(rates, "rates")
    return apply_op(
        "ExtractImagePatches", name=name, images=images, ksizes=sizes, strides=strides, rates=rates, padding=padding
    )
