"""The state of one conversion: its options, and the names it may still give to generated symbols."""

from __future__ import annotations

import ast
from typing import Any

from modtensor.api.autograph.config import ConversionOptions

__all__ = ["EntityContext", "Namer"]


class Namer:
    """Fresh names for generated symbols: ``base``, else ``base_1``, ``base_2``... never one already in use."""

    def __init__(self, used: set[str]):
        self._used = set(used)
        self.generated: set[str] = {"ag__"}

    def new_symbol(self, base: str) -> str:
        """A name not used anywhere in the converted code so far (and now reserved)."""
        candidate = base
        n = 0
        while candidate in self._used:
            n += 1
            candidate = f"{base}_{n}"
        self._used.add(candidate)
        self.generated.add(candidate)
        return candidate


def names_in(node: ast.AST) -> set[str]:
    """Every identifier appearing in ``node``: names, function and class names, parameters, attributes."""
    found: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            found.add(child.id)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(child.name)
        elif isinstance(child, ast.arg):
            found.add(child.arg)
        elif isinstance(child, (ast.Global, ast.Nonlocal)):
            found.update(child.names)
        elif isinstance(child, ast.alias):
            found.add(child.asname or child.name.split(".")[0])
    return found


class EntityContext:
    """One function's conversion: options, namer, the user's function name and the entity being converted."""

    def __init__(self, options: ConversionOptions, node: ast.AST, entity_name: str, entity: Any = None):
        self.options = options
        self.namer = Namer(names_in(node) | {"ag__"})
        self.entity_name = entity_name
        self.entity = entity
