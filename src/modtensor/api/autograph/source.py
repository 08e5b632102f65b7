"""Finding the source of a function or lambda: its AST, with the line numbers of its file.

The whole file is parsed (once per file text) and the definition is picked by name and
first line (a lambda by the columns of its code), so nodes carry the file's real line
numbers and converted code compiles under the user's file name: tracebacks and
``linecache`` show the user's own lines.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import threading
from collections.abc import Callable
from typing import Any

from modtensor.api.autograph.errors import InaccessibleSourceCodeError, UnsupportedLanguageElementError

__all__ = ["EntitySource", "entity_source"]


class EntitySource:
    """A function's definition node (FunctionDef, AsyncFunctionDef or Lambda) and the file it comes from."""

    __slots__ = ("filename", "node")

    def __init__(self, node: ast.AST, filename: str):
        self.node = node
        self.filename = filename


class _FileIndex:
    """A parsed file's definitions: functions by (name, first line), lambdas by line."""

    __slots__ = ("functions", "lambdas")

    def __init__(self, tree: ast.Module):
        self.functions: dict[tuple[str, int], ast.AST] = {}
        self.lambdas: dict[int, list[ast.Lambda]] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault((node.name, _first_line(node)), node)
            elif isinstance(node, ast.Lambda):
                self.lambdas.setdefault(node.lineno, []).append(node)

    def find(self, code: Any) -> ast.AST | None:
        if code.co_name == "<lambda>":
            return _lambda_node(self.lambdas.get(code.co_firstlineno, []), code)
        return self.functions.get((code.co_name, code.co_firstlineno))


_parse_cache: dict[str, tuple[str, _FileIndex | None]] = {}
_parse_lock = threading.Lock()


def _parsed_file(filename: str) -> _FileIndex | None:
    """The file's definitions (None when its text does not parse), cached while the text stays the same."""
    lines = linecache.getlines(filename)
    if not lines:
        linecache.checkcache(filename)
        lines = linecache.getlines(filename)
    text = "".join(lines)
    if not text:
        return None
    with _parse_lock:
        cached = _parse_cache.get(filename)
        if cached is not None and cached[0] == text:
            return cached[1]
    try:
        index: _FileIndex | None = _FileIndex(ast.parse(text, filename=filename))
    except (SyntaxError, ValueError):
        index = None
    with _parse_lock:
        _parse_cache[filename] = (text, index)
    return index


def _first_line(node: ast.AST) -> int:
    decorators = getattr(node, "decorator_list", None) or []
    return min([node.lineno] + [d.lineno for d in decorators])


def _code_span(code: Any) -> list[tuple[int, int, int, int]]:
    """The (line, end line, column, end column) of the code's instructions that have real positions."""
    spans = []
    for position in code.co_positions():
        line, end_line, col, end_col = position
        if line is None or col is None or end_line is None or end_col is None:
            continue
        if line == end_line and col == end_col:
            continue
        spans.append((line, end_line, col, end_col))
    return spans


def _node_contains(node: ast.AST, span: tuple[int, int, int, int]) -> bool:
    line, end_line, col, end_col = span
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno, node.end_col_offset)
    return start <= (line, col) and (end_line, end_col) <= end


def _lambda_node(candidates: list[ast.Lambda], code: Any) -> ast.Lambda | None:
    arg_names = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    candidates = [
        c for c in candidates if [a.arg for a in c.args.posonlyargs + c.args.args + c.args.kwonlyargs] == arg_names
    ]
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    spans = _code_span(code)
    fitting = [c for c in candidates if spans and all(_node_contains(c, s) for s in spans)]
    if not fitting:
        return None
    # Nested lambdas: the innermost lambda that holds all the code.
    return min(fitting, key=lambda c: (c.end_lineno - c.lineno, c.end_col_offset - c.col_offset))


def _find_definition(tree: ast.Module, code: Any) -> ast.AST | None:
    name = code.co_name
    line = code.co_firstlineno
    if name == "<lambda>":
        lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == line]
        return _lambda_node(lambdas, code)
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name == name
            and _first_line(node) == line
        ):
            return node
    return None


def _definition_from_getsource(entity: Callable[..., Any], code: Any) -> ast.AST | None:
    """Fallback for files that do not parse as a whole: the entity's own lines, shifted to the file's numbering."""
    try:
        lines, start = inspect.getsourcelines(entity)
    except (OSError, TypeError):
        return None
    text = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    ast.increment_lineno(tree, max(start, 1) - 1)
    return _find_definition(tree, code)


def entity_source(entity: Callable[..., Any]) -> EntitySource:
    """The definition of a Python function (not a method object: pass ``method.__func__``).

    Raises InaccessibleSourceCodeError when the source cannot be found (interactive
    input, ``exec`` strings, a file changed since the function was defined) and
    UnsupportedLanguageElementError for a lambda that cannot be told apart from
    another one on its line.
    """
    code = getattr(entity, "__code__", None)
    if code is None:
        raise InaccessibleSourceCodeError(f"{entity!r} has no Python code")
    filename = code.co_filename
    index = _parsed_file(filename)
    node = index.find(code) if index is not None else None
    if node is None:
        node = _definition_from_getsource(entity, code)
    if node is None:
        if code.co_name == "<lambda>" and index is not None:
            others = index.lambdas.get(code.co_firstlineno, [])
            if len(others) > 1:
                raise UnsupportedLanguageElementError(
                    f"could not identify the source of {entity!r}: several lambdas on line {code.co_firstlineno} "
                    f"of {filename} look the same; define it with def, or put it on a line of its own"
                )
        raise InaccessibleSourceCodeError(
            f"Unable to locate the source code of {entity!r}. Note that functions defined in certain environments, "
            "like the interactive Python shell, do not expose their source code. If that is the case, you should "
            "define them in a .py source file. If you are certain the code is graph-compatible, wrap the call using "
            "@tf.autograph.experimental.do_not_convert."
        )
    return EntitySource(node, filename)
