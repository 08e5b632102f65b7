"""Control ops: NoOp, the op with no inputs or outputs that control dependencies hang on."""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op

register_op("NoOp").set_shape_fn(common_shapes.no_outputs)
