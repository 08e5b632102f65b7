"""``assert`` statements become ``ag__.assert_stmt`` (with ``Feature.ASSERT_STATEMENTS``, as TensorFlow).

On a tensor the operator builds ``tf.debugging.Assert``; on a Python value it asserts as
Python does. The message must be a constant (TF's rule); without one it is
``'Assertion error'``.
"""

from __future__ import annotations

import ast
from typing import Any

from modtensor.api.autograph import templates
from modtensor.api.autograph.converters.base import Transformer

__all__ = ["Asserts"]


class Asserts(Transformer):
    """Rewrite assert statements into assert_stmt calls."""

    def visit_Assert(self, node: ast.Assert) -> Any:
        self.generic_visit(node)
        if node.msg is None:
            message: ast.expr = templates.expression("'Assertion error'", node)
        elif isinstance(node.msg, ast.Constant):
            message = node.msg
        else:
            raise NotImplementedError("can only convert string messages for now.")
        return templates.statements("ag__.assert_stmt(test, lambda: msg)", node, test=node.test, msg=message)
