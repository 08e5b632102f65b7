"""Ops that call back into Python: ``PyFunc`` (``tf.numpy_function``) and ``EagerPyFunc`` (``tf.py_function``).

OpDefs equal TensorFlow 2.21's. ``token`` names a Python callable in the process's
registry (``runtime.py_funcs``); graphs holding these ops run only in the process that
made them, as in TensorFlow. Outputs have unknown shapes.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op

(
    register_op("PyFunc")
    .input("input: Tin")
    .output("output: Tout")
    .attr("token: string")
    .attr("Tin: list(type) >= 0")
    .attr("Tout: list(type) >=0")
    .set_is_stateful()
    .set_shape_fn(common_shapes.unknown_shape)
)
(
    register_op("EagerPyFunc")
    .input("input: Tin")
    .output("output: Tout")
    .attr("token: string")
    .attr("is_async: bool=false")
    .attr("Tin: list(type) >= 0")
    .attr("Tout: list(type) >=0")
    .set_is_stateful()
    .set_shape_fn(common_shapes.unknown_shape)
)
