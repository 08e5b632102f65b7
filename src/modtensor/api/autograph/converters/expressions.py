"""Conditional and logical expressions become ``ag__.if_exp``, ``and_``, ``or_``, ``not_`` (and ``eq``/``not_eq``).

``a if t else b`` -> ``ag__.if_exp(t, lambda: a, lambda: b, 't')``; ``a and b`` ->
``ag__.and_(lambda: a, lambda: b)`` (short-circuit kept); ``not a`` -> ``ag__.not_(a)``;
a chained comparison ``a < b < c`` -> ``ag__.and_(lambda: a < b, lambda: b < c)`` when its
middle operands are names or constants (evaluating them twice changes nothing); with
``Feature.EQUALITY_OPERATORS``, ``==``/``!=`` -> ``ag__.eq``/``ag__.not_eq``. Operands that
bind names (``:=``) or ``await`` stay as they are: a lambda would change their meaning.
"""

from __future__ import annotations

import ast
from typing import Any

from modtensor.api.autograph import templates
from modtensor.api.autograph.config import Feature
from modtensor.api.autograph.converters.base import Transformer

__all__ = ["ConditionalExpressions", "LogicalExpressions"]


def _lambda_safe(*nodes: ast.AST) -> bool:
    return not any(
        isinstance(n, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)) for node in nodes for n in ast.walk(node)
    )


def _lambda(body: ast.expr) -> ast.expr:
    node = templates.expression("lambda: body", body, body=body)
    node.ag_generated = True
    return node


class ConditionalExpressions(Transformer):
    """Rewrite ``a if t else b``."""

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        self.generic_visit(node)
        if not _lambda_safe(node.body, node.orelse):
            return node
        return templates.expression(
            "ag__.if_exp(test, true_fn, false_fn, text)",
            node,
            test=node.test,
            true_fn=_lambda(node.body),
            false_fn=_lambda(node.orelse),
            text=templates.locate(ast.Constant(value=ast.unparse(node.test).strip()), node),
        )


class LogicalExpressions(Transformer):
    """Rewrite ``and``, ``or``, ``not`` and chained comparisons."""

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        self.generic_visit(node)
        if not _lambda_safe(*node.values[1:]):
            return node
        function = "ag__.and_" if isinstance(node.op, ast.And) else "ag__.or_"
        values = list(node.values)
        right = values.pop()
        while values:
            left = values.pop()
            right = templates.expression(f"{function}(a, b)", node, a=_lambda(left), b=_lambda(right))
        return right

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return templates.expression("ag__.not_(a)", node, a=node.operand)
        return node

    def _binary(self, op: ast.cmpop, left: ast.expr, right: ast.expr, origin: ast.AST) -> ast.expr:
        if self.ctx.options.uses(Feature.EQUALITY_OPERATORS) and isinstance(op, (ast.Eq, ast.NotEq)):
            function = "ag__.eq" if isinstance(op, ast.Eq) else "ag__.not_eq"
            return templates.expression(f"{function}(a, b)", origin, a=left, b=right)
        compare = ast.Compare(left=left, ops=[op], comparators=[right])
        return ast.copy_location(compare, origin)

    def visit_Compare(self, node: ast.Compare) -> Any:
        self.generic_visit(node)
        if len(node.ops) > 1 and not all(isinstance(c, (ast.Name, ast.Constant)) for c in node.comparators[:-1]):
            return node
        if len(node.ops) == 1 and not self.ctx.options.uses(Feature.EQUALITY_OPERATORS):
            return node
        tree: ast.expr | None = None
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            comparison = self._binary(op, left, right, node)
            if tree is None:
                tree = comparison
            else:
                tree = templates.expression("ag__.and_(a, b)", node, a=_lambda(tree), b=_lambda(comparison))
            left = _copy_expr(right)
        return tree


def _copy_expr(node: ast.expr) -> ast.expr:
    import copy

    return copy.deepcopy(node)
