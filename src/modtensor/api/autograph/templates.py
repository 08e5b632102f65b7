"""Building generated code from small source templates, placed at the user's source line.

``statements(template, origin, **subs)`` parses ``template`` and replaces the names in
it: a ``str`` renames (variables, function names, parameters), an ``ast.expr`` takes
the place of a name (a target gets a Store copy), a list of statements replaces a
statement that is just the name, and a list of expressions replaces the name inside a
tuple. Every node the template creates gets ``origin``'s location, so generated code
reports errors at the line of the user's statement it came from; the nodes handed in
keep their own locations.
"""

from __future__ import annotations

import ast
import copy
import textwrap
from typing import Any

__all__ = ["expression", "locate", "name", "statements", "with_context"]

_LOCATION_FIELDS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _first_line_span(origin: ast.AST) -> tuple[int, int, int, int]:
    """Where generated code for ``origin`` is placed: its first line (a statement's header, for compound ones).

    One line, so that a traceback through a generated call names the user's ``if``/``while``/``for``
    line (Python reports a multi-line call at the line where its function name ends).
    """
    line, col = origin.lineno, origin.col_offset
    end_line, end_col = getattr(origin, "end_lineno", None), getattr(origin, "end_col_offset", None)
    if end_line == line and end_col is not None:
        return line, col, line, end_col
    header = getattr(origin, "test", None) or getattr(origin, "iter", None)
    if header is not None and getattr(header, "end_lineno", None) == line:
        return line, col, line, header.end_col_offset
    return line, col, line, col


def locate(node: ast.AST, origin: ast.AST | None) -> ast.AST:
    """Give ``node`` and all its descendants the location of ``origin``'s first line (nothing when it has none)."""
    if origin is None or not hasattr(origin, "lineno"):
        return node
    where = dict(zip(_LOCATION_FIELDS, _first_line_span(origin), strict=True))
    for child in ast.walk(node):
        if "lineno" in child._attributes:
            for field, value in where.items():
                setattr(child, field, value)
    return node


def with_context(node: ast.expr, ctx: ast.expr_context) -> ast.expr:
    """A copy of ``node`` (a name, attribute, subscript, tuple or list) used as a load, store or delete."""
    node = copy.deepcopy(node)
    _set_context(node, ctx)
    return node


def _set_context(node: ast.AST, ctx: ast.expr_context) -> None:
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Starred, ast.List, ast.Tuple)):
        node.ctx = type(ctx)()
    if isinstance(node, (ast.Tuple, ast.List)):
        for element in node.elts:
            _set_context(element, ctx)
    elif isinstance(node, ast.Starred):
        _set_context(node.value, ctx)


def name(identifier: str, origin: ast.AST | None = None, store: bool = False) -> ast.Name:
    """A name node (a load, or a store)."""
    node = ast.Name(id=identifier, ctx=ast.Store() if store else ast.Load())
    return locate(node, origin)  # type: ignore[return-value]


class _Replacer(ast.NodeTransformer):
    def __init__(self, subs: dict[str, Any]):
        self.subs = subs

    def _replacement(self, identifier: str) -> Any:
        return self.subs.get(identifier)

    def visit_Name(self, node: ast.Name) -> Any:
        sub = self._replacement(node.id)
        if sub is None:
            return node
        if isinstance(sub, str):
            node.id = sub
            return node
        if isinstance(sub, ast.expr):
            if isinstance(node.ctx, ast.Load):
                return sub
            return with_context(sub, node.ctx)
        raise ValueError(f"template name {node.id} cannot take {sub!r} here")

    def visit_Tuple(self, node: ast.Tuple) -> Any:
        elements: list[ast.expr] = []
        for element in node.elts:
            sub = self._replacement(element.id) if isinstance(element, ast.Name) else None
            if isinstance(sub, (list, tuple)):
                for item in sub:
                    elements.append(item if isinstance(node.ctx, ast.Load) else with_context(item, node.ctx))
            else:
                elements.append(self.visit(element))
        node.elts = elements
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        sub = self._replacement(node.name)
        if isinstance(sub, str):
            node.name = sub
        self.generic_visit(node)
        return node

    def visit_arg(self, node: ast.arg) -> Any:
        sub = self._replacement(node.arg)
        if isinstance(sub, str):
            node.arg = sub
        return node

    def visit_Nonlocal(self, node: ast.Nonlocal) -> Any:
        node.names = [self.subs.get(n, n) if isinstance(self.subs.get(n), str) else n for n in node.names]
        return node

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field, old_value in ast.iter_fields(node):
            if isinstance(old_value, list):
                new_values: list[Any] = []
                for value in old_value:
                    if isinstance(value, ast.Expr) and isinstance(value.value, ast.Name):
                        sub = self._replacement(value.value.id)
                        if isinstance(sub, (list, tuple)):
                            new_values.extend(sub)
                            continue
                    if isinstance(value, ast.AST):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, ast.AST):
                            new_values.extend(value)
                            continue
                    new_values.append(value)
                if not new_values and field == "body" and isinstance(node, _BLOCK_OWNERS):
                    new_values = [locate(ast.Pass(), node)]
                old_value[:] = new_values
            elif isinstance(old_value, ast.AST):
                new_node = self.visit(old_value)
                if new_node is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new_node)
        return node


_BLOCK_OWNERS = (ast.FunctionDef, ast.If, ast.While, ast.For, ast.With, ast.Try, ast.ExceptHandler)


def statements(template: str, origin: ast.AST | None, **subs: Any) -> list[ast.stmt]:
    """The statements of ``template`` with ``subs`` replaced, located at ``origin``."""
    module = ast.parse(textwrap.dedent(template))
    for node in module.body:
        locate(node, origin)
    replacer = _Replacer(subs)
    replacer.generic_visit(module)
    return module.body


def expression(template: str, origin: ast.AST | None, **subs: Any) -> ast.expr:
    """The expression of ``template`` with ``subs`` replaced, located at ``origin``."""
    tree = ast.parse(textwrap.dedent(template).strip(), mode="eval")
    locate(tree.body, origin)
    replacer = _Replacer(subs)
    wrapper = ast.Expression(body=tree.body)
    replacer.generic_visit(wrapper)
    return wrapper.body
