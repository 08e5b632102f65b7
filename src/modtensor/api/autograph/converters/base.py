"""The base class of AutoGraph's passes: an AST transformer that leaves class bodies alone."""

from __future__ import annotations

import ast
from typing import Any

from modtensor.api.autograph.context import EntityContext

__all__ = ["Transformer"]


class Transformer(ast.NodeTransformer):
    """A pass over one entity's AST. Class bodies defined inside keep their code (their methods convert on call)."""

    def __init__(self, ctx: EntityContext):
        self.ctx = ctx

    def visit_ClassDef(self, node: ast.ClassDef) -> Any:
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.bases = [self.visit(b) for b in node.bases]
        for keyword in node.keywords:
            keyword.value = self.visit(keyword.value)
        return node
