"""Function-call ops: ``PartitionedCall`` and ``StatefulPartitionedCall`` with TensorFlow 2.21's OpDefs.

``tf.function`` graphs call library functions through these ops (attr ``f``). They have
no kernel here: the graph optimizer's function inliner replaces each call with the
function's body, so an imported graph that uses them runs like any other.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op


def _call_op(name: str, stateful: bool) -> None:
    builder = (
        register_op(name)
        .input("args: Tin")
        .output("output: Tout")
        .attr("Tin: list(type) >= 0")
        .attr("Tout: list(type) >= 0")
        .attr("f: func")
        .attr("config: string = ''")
        .attr("config_proto: string = ''")
        .attr("executor_type: string = ''")
    )
    if stateful:
        builder.set_is_stateful().set_is_distributed_communication()
    builder.set_shape_fn(common_shapes.unknown_shape)


_call_op("PartitionedCall", stateful=False)
_call_op("StatefulPartitionedCall", stateful=True)
