"""Calls go through ``ag__.converted_call(f, args, kwargs, fscope)``, which converts the callee at run time.

Left alone: calls of ``ag__`` itself and of the function scope object, ``pdb.set_trace``
and ``breakpoint``, and ``print`` unless ``Feature.BUILTIN_FUNCTIONS`` is on (as
TensorFlow). A zero-argument ``super()`` in a method becomes ``super(__class__, self)``,
so it works from the converted function.
"""

from __future__ import annotations

import ast
from typing import Any

from modtensor.api.autograph import templates
from modtensor.api.autograph.config import Feature
from modtensor.api.autograph.converters.base import Transformer

__all__ = ["Calls", "dotted_name"]


def dotted_name(node: ast.expr) -> str:
    """``a.b.c`` for a chain of attributes on a name, else ''."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted_name(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


class Calls(Transformer):
    """Rewrite calls into converted_call (see module doc)."""

    def __init__(self, ctx: Any, super_args: tuple[str, str] | None = None):
        super().__init__(ctx)
        self._contexts: list[str | None] = []
        self._depth = 0
        # (class cell name, first parameter) for rewriting super() in the top-level method, when it has __class__.
        self._super_args = super_args

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args = self.visit(node.args)
        self._contexts.append(getattr(node, "ag_context_name", None))
        self._depth += 1
        try:
            node.body = [self.visit(s) for s in node.body]
        finally:
            self._depth -= 1
            self._contexts.pop()
        return node

    def visit_Lambda(self, node: ast.Lambda) -> Any:
        context = getattr(node, "ag_context_name", None)
        self._contexts.append(context if context is not None else (self._contexts[-1] if self._contexts else None))
        self._depth += 1
        try:
            self.generic_visit(node)
        finally:
            self._depth -= 1
            self._contexts.pop()
        return node

    def visit_Call(self, node: ast.Call) -> Any:
        full_name = dotted_name(node.func)
        context = self._contexts[-1] if self._contexts else None
        self.generic_visit(node)
        if full_name.startswith("ag__.") or context is None:
            return node
        if full_name.startswith(context + "."):
            return node
        if full_name in ("pdb.set_trace", "ipdb.set_trace", "breakpoint"):
            return node
        if full_name == "print" and not self.ctx.options.uses(Feature.BUILTIN_FUNCTIONS):
            return node
        if full_name == "super" and not node.args and not node.keywords and self._super_args and self._depth == 1:
            class_cell, first = self._super_args
            node.args = [templates.name(class_cell, node), templates.name(first, node)]
        args = ast.Tuple(elts=list(node.args), ctx=ast.Load())
        templates.locate(args, node) if not node.args else _locate_shallow(args, node)
        if node.keywords:
            kwargs: ast.expr = _locate_shallow(
                ast.Call(func=templates.name("dict", node), args=[], keywords=node.keywords), node
            )
        else:
            kwargs = templates.expression("None", node)
        return templates.expression(
            "ag__.converted_call(func, args, kwargs, fscope)",
            node,
            func=node.func,
            args=args,
            kwargs=kwargs,
            fscope=templates.name(context, node),
        )


def _locate_shallow(node: ast.expr, origin: ast.AST) -> ast.expr:
    for field in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        setattr(node, field, getattr(origin, field, None))
    return node
