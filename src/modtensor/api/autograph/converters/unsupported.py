"""The Python features AutoGraph does not convert (as TensorFlow): the function then runs unconverted."""

from __future__ import annotations

import ast

from modtensor.api.autograph.errors import UnsupportedLanguageElementError

__all__ = ["verify"]


class _Checker(ast.NodeVisitor):
    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("__") and not node.attr.endswith("__"):
            raise UnsupportedLanguageElementError("mangled names are not yet supported")
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        if node.orelse:
            raise UnsupportedLanguageElementError("for/else statement not yet supported")
        self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        if node.orelse:
            raise UnsupportedLanguageElementError("while/else statement not yet supported")
        self.generic_visit(node)

    def visit_Yield(self, node: ast.Yield) -> None:
        raise UnsupportedLanguageElementError("generators are not supported")

    def visit_YieldFrom(self, node: ast.YieldFrom) -> None:
        raise UnsupportedLanguageElementError("generators are not supported")

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        raise UnsupportedLanguageElementError("async functions are not supported")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        # Classes defined in a converted function keep their code; their methods are converted when called.
        for item in node.decorator_list + node.bases + [k.value for k in node.keywords]:
            self.visit(item)


def verify(node: ast.AST) -> None:
    """Raise UnsupportedLanguageElementError when ``node`` uses a feature AutoGraph cannot convert."""
    _Checker().visit(node)
