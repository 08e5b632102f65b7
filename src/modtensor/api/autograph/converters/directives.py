"""Loop directives: a ``set_loop_options(...)`` statement in a loop body becomes options of that loop.

The call is recognized by resolving its function (``tf.autograph.experimental.set_loop_options``
or any other name bound to it) in the converted function's globals and closure, removed
from the body, and its keyword arguments recorded as ``ag_loop_options`` on the loop node.
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

from modtensor.api.autograph.converters.base import Transformer
from modtensor.api.autograph.converters.calls import dotted_name
from modtensor.api.autograph.operators import directives

__all__ = ["LoopDirectives"]

_MISSING = object()


def _resolve(entity: Any, dotted: str) -> Any:
    """The object a dotted name refers to in ``entity``'s globals, closure or builtins (or _MISSING)."""
    if not dotted or entity is None:
        return _MISSING
    head, *rest = dotted.split(".")
    value: Any = _MISSING
    code = getattr(entity, "__code__", None)
    closure = getattr(entity, "__closure__", None) or ()
    if code is not None and head in code.co_freevars:
        try:
            value = closure[code.co_freevars.index(head)].cell_contents
        except (ValueError, IndexError):
            value = _MISSING
    if value is _MISSING:
        value = getattr(entity, "__globals__", {}).get(head, _MISSING)
    if value is _MISSING:
        value = getattr(builtins, head, _MISSING)
    for attr in rest:
        if value is _MISSING:
            break
        value = getattr(value, attr, _MISSING)
    return value


class LoopDirectives(Transformer):
    """Move set_loop_options calls from loop bodies into the loops' ``ag_loop_options``."""

    def _is_directive(self, statement: ast.stmt) -> ast.Call | None:
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
            return None
        call = statement.value
        if _resolve(self.ctx.entity, dotted_name(call.func)) is directives.set_loop_options:
            return call
        return None

    def _loop(self, node: ast.For | ast.While) -> Any:
        self.generic_visit(node)
        kept = []
        for statement in node.body:
            call = self._is_directive(statement)
            if call is None:
                kept.append(statement)
                continue
            if call.args:
                raise ValueError("set_loop_options takes keyword arguments only")
            options = getattr(node, "ag_loop_options", {})
            for keyword in call.keywords:
                if keyword.arg not in directives.LOOP_OPTION_NAMES:
                    raise ValueError(f"set_loop_options got an unexpected keyword argument '{keyword.arg}'")
                options[keyword.arg] = keyword.value
            node.ag_loop_options = options
        node.body = kept or [ast.copy_location(ast.Pass(), node)]
        return node

    def visit_For(self, node: ast.For) -> Any:
        return self._loop(node)

    def visit_While(self, node: ast.While) -> Any:
        return self._loop(node)
