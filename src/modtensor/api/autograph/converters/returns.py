"""``return`` statements become a flag and a value, so each function has one ``return`` at its end.

First, an ``if`` whose one branch always returns takes the statements after it into its
other branch (so both branches of a conditional return, where possible). Then each
``return value`` becomes ``do_return = True; retval_ = value`` (undone if ``value``
raises), statements after one that may return run under ``if not do_return:``, loops
stop on ``do_return``, and the function ends with ``return fscope.ret(retval_, do_return)``
where ``retval_`` starts as ``ag__.UndefinedReturnValue()``: TensorFlow's AutoGraph.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from modtensor.api.autograph import templates
from modtensor.api.autograph.context import EntityContext
from modtensor.api.autograph.converters.jumps import _rewrite_blocks

__all__ = ["lower_returns"]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _contains_return(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Return):
        return True
    if isinstance(statement, _SCOPES):
        return False
    for field in ("body", "orelse", "finalbody"):
        block = getattr(statement, field, None)
        if isinstance(block, list) and any(isinstance(s, ast.stmt) and _contains_return(s) for s in block):
            return True
    for handler in getattr(statement, "handlers", None) or []:
        if any(_contains_return(s) for s in handler.body):
            return True
    return any(_contains_return(s) for case in getattr(statement, "cases", None) or [] for s in case.body)


# ============================================================================ conditional returns


def _definitely_returns(statements: Sequence[ast.stmt]) -> bool:
    for statement in statements:
        if isinstance(statement, ast.Return):
            return True
        if (
            isinstance(statement, ast.If)
            and _definitely_returns(statement.body)
            and _definitely_returns(statement.orelse)
        ):
            return True
        if isinstance(statement, (ast.With, ast.AsyncWith)) and _definitely_returns(statement.body):
            return True
    return False


def _collapse_conditional_returns(statements: list[ast.stmt]) -> list[ast.stmt]:
    """Move the statements after an ``if`` with a returning branch into its other branch, at every level."""
    out: list[ast.stmt] = []
    for i, statement in enumerate(statements):
        if isinstance(statement, _SCOPES):
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                statement.body = _collapse_conditional_returns(statement.body)
            out.append(statement)
            continue
        _rewrite_blocks(statement, _collapse_conditional_returns)
        out.append(statement)
        rest = statements[i + 1 :]
        if isinstance(statement, ast.If) and rest:
            if _definitely_returns(statement.body):
                statement.orelse = _collapse_conditional_returns(statement.orelse + rest)
                break
            if statement.orelse and _definitely_returns(statement.orelse):
                statement.body = _collapse_conditional_returns(statement.body + rest)
                break
    return out


# ============================================================================ flags


class _Returns:
    def __init__(self, do_return: str, retval: str):
        self.do_return = do_return
        self.retval = retval

    def block(self, statements: Sequence[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for i, statement in enumerate(statements):
            may_return = _contains_return(statement)
            out.extend(self.statement(statement))
            rest = statements[i + 1 :]
            if may_return and rest:
                guard = templates.statements("if not do_return:\n    pass", rest[0], do_return=self.do_return)
                guard[0].body = self.block(rest)
                out.extend(guard)
                break
        return out

    def statement(self, node: ast.stmt) -> list[ast.stmt]:
        if isinstance(node, ast.Return):
            value = node.value if node.value is not None else templates.expression("None", node)
            return templates.statements(
                """
                try:
                    do_return = True
                    retval_ = value
                except:
                    do_return = False
                    raise
                """,
                node,
                do_return=self.do_return,
                retval_=self.retval,
                value=value,
            )
        if isinstance(node, _SCOPES):
            return [node]
        used = _contains_return(node)
        _rewrite_blocks(node, self.block)
        if used and isinstance(node, ast.While):
            node.test = templates.expression(
                "not do_return and test", node.test, do_return=self.do_return, test=node.test
            )
        elif used and isinstance(node, ast.For):
            extra = getattr(node, "ag_extra_test", None)
            if extra is None:
                node.ag_extra_test = templates.expression("not do_return", node, do_return=self.do_return)
            else:
                node.ag_extra_test = templates.expression(
                    "not do_return and extra", node, do_return=self.do_return, extra=extra
                )
        return [node]


def _lower_function(node: ast.FunctionDef, ctx: EntityContext) -> None:
    scope_with = node.body[-1]
    assert isinstance(scope_with, ast.With), "the function-scopes pass wraps every body in a with statement"
    if not any(_contains_return(s) for s in scope_with.body):
        return
    do_return = ctx.namer.new_symbol("do_return")
    retval = ctx.namer.new_symbol("retval_")
    body = _Returns(do_return, retval).block(scope_with.body)
    context_name = node.ag_context_name
    scope_with.body = (
        templates.statements(
            "do_return = False\nretval_ = ag__.UndefinedReturnValue()", node, do_return=do_return, retval_=retval
        )
        + body
        + templates.statements(
            "return fscope.ret(retval_, do_return)", node, fscope=context_name, retval_=retval, do_return=do_return
        )
    )


def lower_returns(node: ast.FunctionDef, ctx: EntityContext) -> None:
    """Lower the returns of ``node`` and of every function nested in it (each function on its own)."""
    node.body = _collapse_conditional_returns(node.body)
    for function in _functions(node):
        _lower_function(function, ctx)


def _functions(node: ast.AST) -> list[ast.FunctionDef]:
    found: list[ast.FunctionDef] = []

    def walk(n: ast.AST) -> None:
        if isinstance(n, ast.FunctionDef):
            found.append(n)
        if isinstance(n, ast.ClassDef):
            return
        for child in ast.iter_child_nodes(n):
            walk(child)

    walk(node)
    return found
