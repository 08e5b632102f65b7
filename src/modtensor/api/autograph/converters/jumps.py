"""``break`` and ``continue`` become flags, so loop bodies have no jumps left (as TensorFlow's AutoGraph).

``break`` becomes ``break_ = True`` followed by ``continue``; the loop gets ``break_ = False``
before it and ``not break_`` in its condition (a ``for`` loop keeps it as ``ag_extra_test``
and reads the flag at the top of its body). ``continue`` becomes ``continue_ = True`` and
the statements after it, up to the end of the loop body, run under ``if not continue_:``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from modtensor.api.autograph import templates
from modtensor.api.autograph.context import EntityContext

__all__ = ["lower_breaks", "lower_continues"]

_LOOPS = (ast.For, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _child_blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists directly inside a compound statement (not of nested loops' bodies: callers decide)."""
    blocks = []
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            blocks.append(block)
    for handler in getattr(node, "handlers", None) or []:
        blocks.append(handler.body)
    for case in getattr(node, "cases", None) or []:
        blocks.append(case.body)
    return blocks


def contains_jump(statement: ast.stmt, kind: type) -> bool:
    """Whether ``statement`` holds a ``kind`` (Break/Continue) that belongs to the loop around it."""
    if isinstance(statement, kind):
        return True
    if isinstance(statement, (*_SCOPES, *_LOOPS)):
        return False
    return any(contains_jump(s, kind) for block in _child_blocks(statement) for s in block)


def _rewrite_blocks(statement: ast.stmt, rewrite: Callable[[list[ast.stmt]], list[ast.stmt]]) -> None:
    for field in ("body", "orelse", "finalbody"):
        block = getattr(statement, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            setattr(statement, field, rewrite(block))
    for handler in getattr(statement, "handlers", None) or []:
        handler.body = rewrite(handler.body)
    for case in getattr(statement, "cases", None) or []:
        case.body = rewrite(case.body)


# ============================================================================ break


class _Breaks:
    def __init__(self, ctx: EntityContext):
        self.ctx = ctx

    def block(self, statements: Sequence[ast.stmt], flag: str | None) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for statement in statements:
            out.extend(self.statement(statement, flag))
        return out

    def statement(self, node: ast.stmt, flag: str | None) -> list[ast.stmt]:
        if isinstance(node, ast.Break) and flag is not None:
            return templates.statements("flag = True\ncontinue", node, flag=flag)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.body = self.block(node.body, None)
            return [node]
        if isinstance(node, ast.ClassDef):
            return [node]
        if isinstance(node, _LOOPS):
            return self.loop(node)
        _rewrite_blocks(node, lambda b: self.block(b, flag))
        return [node]

    def loop(self, node: ast.For | ast.While) -> list[ast.stmt]:
        used = any(contains_jump(s, ast.Break) for s in node.body)
        if not used:
            node.body = self.block(node.body, None)
            return [node]
        flag = self.ctx.namer.new_symbol("break_")
        node.body = self.block(node.body, flag)
        init = templates.statements("flag = False", node, flag=flag)
        if isinstance(node, ast.While):
            node.test = templates.expression("not flag and test", node.test, flag=flag, test=node.test)
        else:
            read = templates.statements("(flag,)", node, flag=flag)
            node.body = read + node.body
            node.ag_extra_test = templates.expression("not flag", node, flag=flag)
        return init + [node]


def lower_breaks(node: ast.FunctionDef, ctx: EntityContext) -> None:
    """Replace the ``break`` statements of ``node`` (and of functions nested in it) by flags."""
    node.body = _Breaks(ctx).block(node.body, None)


# ============================================================================ continue


class _Continues:
    def __init__(self, ctx: EntityContext):
        self.ctx = ctx

    def block(self, statements: Sequence[ast.stmt], flag: str | None) -> list[ast.stmt]:
        """The block with its continues lowered; statements after one that may continue are guarded."""
        out: list[ast.stmt] = []
        for i, statement in enumerate(statements):
            may_continue = flag is not None and contains_jump(statement, ast.Continue)
            out.extend(self.statement(statement, flag))
            rest = statements[i + 1 :]
            if may_continue and rest:
                guard = templates.statements("if not flag:\n    rest", rest[0], flag=flag, rest=[])
                guard[0].body = self.block(rest, flag)
                out.extend(guard)
                break
        return out

    def statement(self, node: ast.stmt, flag: str | None) -> list[ast.stmt]:
        if isinstance(node, ast.Continue) and flag is not None:
            return templates.statements("flag = True", node, flag=flag)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.body = self.block(node.body, None)
            return [node]
        if isinstance(node, ast.ClassDef):
            return [node]
        if isinstance(node, _LOOPS):
            used = any(contains_jump(s, ast.Continue) for s in node.body)
            if not used:
                node.body = self.block(node.body, None)
                return [node]
            loop_flag = self.ctx.namer.new_symbol("continue_")
            body = self.block(node.body, loop_flag)
            node.body = templates.statements("flag = False", node, flag=loop_flag) + body
            return [node]
        _rewrite_blocks(node, lambda b: self.block(b, flag))
        return [node]


def lower_continues(node: ast.FunctionDef, ctx: EntityContext) -> None:
    """Replace the ``continue`` statements of ``node`` (and of functions nested in it) by guarded blocks."""
    node.body = _Continues(ctx).block(node.body, None)
