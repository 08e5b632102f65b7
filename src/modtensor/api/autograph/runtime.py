"""The ``ag__`` namespace of converted code: every name generated code refers to, and nothing else."""

from __future__ import annotations

from modtensor.api.autograph.config import ConversionOptions, Feature
from modtensor.api.autograph.impl import autograph_artifact, converted_call
from modtensor.api.autograph.operators.conditional_expressions import if_exp
from modtensor.api.autograph.operators.control_flow import for_stmt, if_stmt, while_stmt
from modtensor.api.autograph.operators.exceptions import assert_stmt
from modtensor.api.autograph.operators.function_scope import FunctionScope, with_function_scope
from modtensor.api.autograph.operators.logical import and_, eq, not_, not_eq, or_
from modtensor.api.autograph.operators.variables import Undefined, UndefinedReturnValue, ld, ldu

__all__ = [
    "ConversionOptions",
    "Feature",
    "FunctionScope",
    "Undefined",
    "UndefinedReturnValue",
    "and_",
    "assert_stmt",
    "autograph_artifact",
    "converted_call",
    "eq",
    "for_stmt",
    "if_exp",
    "if_stmt",
    "ld",
    "ldu",
    "not_",
    "not_eq",
    "or_",
    "while_stmt",
    "with_function_scope",
]
