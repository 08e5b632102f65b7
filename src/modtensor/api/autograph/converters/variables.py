"""Variable loads go through ``ag__.ld``, which raises for a variable left ``ag__.Undefined``.

Every load of a user variable in a function body becomes ``ag__.ld(name)``; an augmented
assignment ``x += v`` is preceded by ``x = ag__.ld(x)``. Names the conversion made
(``ag__``, scopes, state functions, flags) and loads inside the user's lambdas are left as they are.
"""

from __future__ import annotations

import ast
from typing import Any

from modtensor.api.autograph import templates
from modtensor.api.autograph.converters.base import Transformer

__all__ = ["VariableLoads"]


class VariableLoads(Transformer):
    """Wrap variable loads in ag__.ld (see module doc)."""

    def __init__(self, ctx: Any, generated: set[str]):
        super().__init__(ctx)
        self._generated = generated

    def visit_Lambda(self, node: ast.Lambda) -> Any:
        if getattr(node, "ag_generated", False):
            self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        if getattr(node, "ag_skip_loads", False):
            return node
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> Any:
        if not isinstance(node.ctx, ast.Load) or node.id in self._generated:
            return node
        return templates.expression("ag__.ld(var)", node, var=node)

    def visit_Call(self, node: ast.Call) -> Any:
        # ag__'s own calls take generated names and functions; only their user arguments are loads to wrap.
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        if isinstance(node.value, ast.Name) and node.value.id == "ag__":
            return node
        self.generic_visit(node)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        self.generic_visit(node)
        if isinstance(node.target, ast.Name) and node.target.id not in self._generated:
            load = templates.statements("var = ag__.ld(var)", node, var=node.target.id)
            return load + [node]
        return node
