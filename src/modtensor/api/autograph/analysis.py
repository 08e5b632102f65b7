"""Static analysis of a function body for the control-flow conversion: what each statement reads and binds.

For every ``if``, ``while`` and ``for`` statement of a function (nested functions are
analyzed on their own) ``annotate_function`` records on the node:

- ``ag_modified``: the symbols its blocks bind: plain names, and composite symbols
  (``self.x``, ``d['k']``) assigned as a whole;
- ``ag_live_in`` / ``ag_live_out``: the names whose value may be read later, before and
  after the statement (backward liveness over the structured code; names read by a
  closure defined earlier in the function count as live, since the closure may run at
  any time);
- ``ag_defined_in``: the names that may have a value when the statement starts (forward
  reaching definitions; parameters included).

Reads by nested functions, lambdas and comprehensions count where they are defined (their
free names); the names they bind stay theirs. This module knows nothing of tensors.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["FunctionScope", "Symbol", "annotate_function", "names_read", "symbol_of"]


class Symbol:
    """A variable a block may bind: a name, or an attribute/constant-key item chain rooted at a name."""

    __slots__ = ("node", "root", "text")

    def __init__(self, text: str, root: str, node: ast.expr):
        self.text = text
        self.root = root
        self.node = node

    @property
    def is_composite(self) -> bool:
        """True for ``a.b`` and ``d['k']``; False for plain names."""
        return self.text != self.root

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Symbol) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __lt__(self, other: Symbol) -> bool:
        return self.text < other.text

    def __repr__(self) -> str:
        return self.text


def symbol_of(target: ast.expr) -> Symbol | None:
    """The Symbol a target expression names, or None (a subscript with a computed key, a call's attribute)."""
    if isinstance(target, ast.Name):
        return Symbol(target.id, target.id, target)
    if isinstance(target, ast.Attribute):
        base = symbol_of(target.value)
        if base is None:
            return None
        return Symbol(f"{base.text}.{target.attr}", base.root, target)
    if isinstance(target, ast.Subscript):
        base = symbol_of(target.value)
        key = target.slice
        if base is None or not isinstance(key, ast.Constant) or not isinstance(key.value, (str, int)):
            return None
        return Symbol(f"{base.text}[{key.value!r}]", base.root, target)
    return None


# ============================================================================ names used by code of one scope


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _NameUse(ast.NodeVisitor):
    """The names a piece of code of one scope reads and binds; nested scopes add their free names as reads."""

    def __init__(self) -> None:
        self.reads: set[str] = set()
        self.stores: set[str] = set()
        self.walrus: set[str] = set()
        self.dels: set[str] = set()
        self.composites: set[Symbol] = set()
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.closures: list[tuple[int, frozenset[str]]] = []  # (line, free names) of nested functions and lambdas

    # ----------------------------------------------------------------- names

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.reads.add(node.id)
        elif isinstance(node.ctx, ast.Store):
            self.stores.add(node.id)
        else:
            self.dels.add(node.id)
            self.reads.add(node.id)

    def _composite_store(self, node: ast.Attribute | ast.Subscript) -> None:
        if isinstance(node.ctx, ast.Store):
            symbol = symbol_of(node)
            if symbol is not None:
                self.composites.add(symbol)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._composite_store(node)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self._composite_store(node)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        target = node.target
        if isinstance(target, ast.Name):
            self.reads.add(target.id)
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self.stores.add(node.target.id)
            self.walrus.add(node.target.id)

    def visit_Global(self, node: ast.Global) -> None:
        self.globals.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.nonlocals.update(node.names)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.stores.add(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name != "*":
                self.stores.add(alias.asname or alias.name)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.stores.add(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self.stores.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.stores.add(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.stores.add(node.rest)
        self.generic_visit(node)

    # ----------------------------------------------------------------- nested scopes

    def _function_like(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        args = node.args
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.visit(default)
        if not isinstance(node, ast.Lambda):
            for decorator in node.decorator_list:
                self.visit(decorator)
            for arg in _all_args(args):
                if arg.annotation is not None:
                    self.visit(arg.annotation)
            if node.returns is not None:
                self.visit(node.returns)
            self.stores.add(node.name)
        free = free_names(node)
        self.reads |= free
        self.closures.append((node.lineno, frozenset(free)))

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function_like(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function_like(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._function_like(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for item in node.decorator_list + node.bases + [k.value for k in node.keywords]:
            self.visit(item)
        self.stores.add(node.name)
        inner = _NameUse()
        for statement in node.body:
            inner.visit(statement)
        # Over-approximated: every name the class body (or its methods) reads may be ours.
        self.reads |= inner.reads
        self.closures.extend(inner.closures)

    def _comprehension(self, node: Any, elements: Sequence[ast.expr]) -> None:
        generators = node.generators
        self.visit(generators[0].iter)
        inner = _NameUse()
        for i, generator in enumerate(generators):
            if i:
                inner.visit(generator.iter)
            inner.visit(generator.target)
            for condition in generator.ifs:
                inner.visit(condition)
        for element in elements:
            inner.visit(element)
        targets = inner.stores - inner.walrus
        self.reads |= inner.reads - targets
        self.stores |= inner.walrus
        self.walrus |= inner.walrus
        self.closures.extend(inner.closures)

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comprehension(node, [node.elt])

    def visit_SetComp(self, node: ast.SetComp) -> None:
        self._comprehension(node, [node.elt])

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> None:
        self._comprehension(node, [node.elt])

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, [node.key, node.value])


def _all_args(args: ast.arguments) -> list[ast.arg]:
    found = list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)
    if args.vararg is not None:
        found.append(args.vararg)
    if args.kwarg is not None:
        found.append(args.kwarg)
    return found


def parameter_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """The names of a function's parameters."""
    return {arg.arg for arg in _all_args(node.args)}


def free_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """The names a nested function reads from (or declares nonlocal in) the scopes around it."""
    use = _NameUse()
    body = [node.body] if isinstance(node, ast.Lambda) else node.body
    for item in body:
        use.visit(item)
    local = (parameter_names(node) | use.stores | use.dels) - use.nonlocals - use.globals
    return (use.reads - local - use.globals) | use.nonlocals


def _use(nodes: Iterable[ast.AST | None]) -> _NameUse:
    use = _NameUse()
    for node in nodes:
        if node is not None:
            use.visit(node)
    return use


def names_read(node: ast.AST | None) -> set[str]:
    """The names an expression (or statement) reads in its own scope, closures' free names included."""
    return _use([node]).reads


# ============================================================================ the function's scope


class FunctionScope:
    """What a function declares: parameters, ``global`` and ``nonlocal`` names, and its closures."""

    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        self.node = node
        self.params = frozenset(parameter_names(node))
        use = _use(node.body if not isinstance(node, ast.Lambda) else [node.body])
        self.globals = frozenset(use.globals)
        self.nonlocals = frozenset(use.nonlocals)
        self.closures = tuple(use.closures)
        self.referenced = frozenset(use.reads | use.stores | self.params | use.globals | use.nonlocals)

    def escaped_before(self, line: int) -> frozenset[str]:
        """Names read by closures defined above ``line``: the closures may read them at any later time."""
        names: set[str] = set()
        for closure_line, free in self.closures:
            if closure_line < line:
                names |= free
        return frozenset(names)


# ============================================================================ modified symbols


def _modified(statements: Sequence[ast.stmt], extra: Iterable[ast.AST] = ()) -> frozenset[Symbol]:
    use = _use(list(statements) + list(extra))
    symbols = {Symbol(n, n, ast.Name(id=n, ctx=ast.Load())) for n in use.stores | use.dels}
    return frozenset(symbols | use.composites)


# ============================================================================ liveness (backward)


def _target_reads_and_binds(target: ast.expr | None) -> tuple[set[str], set[str]]:
    if target is None:
        return set(), set()
    use = _use([target])
    return use.reads, use.stores


class _Liveness:
    def __init__(self, scope: FunctionScope):
        self.scope = scope

    def block(self, statements: Sequence[ast.stmt], live_out: frozenset[str]) -> frozenset[str]:
        live = live_out
        for statement in reversed(statements):
            live = self.statement(statement, live)
        return live

    def statement(self, node: ast.stmt, live_out: frozenset[str]) -> frozenset[str]:
        if isinstance(node, ast.If):
            out = live_out | self.scope.escaped_before(node.lineno)
            node.ag_live_out = out
            live_in = names_read(node.test) | self.block(node.body, out) | self.block(node.orelse, out)
            node.ag_live_in = frozenset(live_in)
            return node.ag_live_in
        if isinstance(node, ast.While):
            out = live_out | self.scope.escaped_before(node.lineno)
            node.ag_live_out = out
            test = names_read(node.test)
            after = self.block(node.orelse, out)
            head = frozenset(test | after)
            while True:
                new_head = frozenset(test | after | self.block(node.body, head))
                if new_head == head:
                    break
                head = new_head
            node.ag_live_in = head
            return head
        if isinstance(node, ast.For):
            out = live_out | self.scope.escaped_before(node.lineno)
            node.ag_live_out = out
            target_reads, target_binds = _target_reads_and_binds(node.target)
            after = self.block(node.orelse, out)
            head = frozenset(after)
            while True:
                body_in = self.block(node.body, head)
                new_head = frozenset(after | (body_in - target_binds) | target_reads)
                if new_head == head:
                    break
                head = new_head
            node.ag_live_in = frozenset(head | names_read(node.iter))
            return node.ag_live_in
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            after_all = self.block(node.finalbody, live_out)
            after_body = self.block(node.orelse, after_all)
            live_in = set(self.block(node.body, after_body))
            for handler in node.handlers:
                handler_in = set(self.block(handler.body, after_all))
                if handler.name:
                    handler_in.discard(handler.name)
                live_in |= handler_in | names_read(handler.type)
            if node.finalbody:
                live_in |= self.block(node.finalbody, live_out)
            return frozenset(live_in)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            reads: set[str] = set()
            binds: set[str] = set()
            for item in node.items:
                reads |= names_read(item.context_expr)
                item_reads, item_binds = _target_reads_and_binds(item.optional_vars)
                reads |= item_reads
                binds |= item_binds
            return frozenset(reads | (self.block(node.body, live_out) - binds))
        if isinstance(node, ast.Match):
            live_in = set(names_read(node.subject)) | live_out
            for case in node.cases:
                pattern = _use([case.pattern, case.guard])
                live_in |= pattern.reads | (self.block(case.body, live_out) - pattern.stores)
            return frozenset(live_in)
        if isinstance(node, ast.Return):
            return frozenset(names_read(node.value))
        if isinstance(node, ast.Raise):
            return frozenset(names_read(node.exc) | names_read(node.cause))
        if isinstance(node, (ast.Break, ast.Continue)):
            return live_out
        if isinstance(node, (ast.AsyncFor,)):
            return frozenset(live_out | names_read(node))
        use = _use([node])
        kills = (use.stores - use.walrus) | use.dels
        return frozenset((live_out - kills) | use.reads)


# ============================================================================ reaching definitions (forward)


class _Definitions:
    def block(self, statements: Sequence[ast.stmt], defined: frozenset[str]) -> frozenset[str]:
        for statement in statements:
            defined = self.statement(statement, defined)
        return defined

    def statement(self, node: ast.stmt, defined: frozenset[str]) -> frozenset[str]:
        if isinstance(node, ast.If):
            node.ag_defined_in = defined
            defined = defined | _use([node.test]).walrus
            return self.block(node.body, defined) | self.block(node.orelse, defined)
        if isinstance(node, ast.While):
            node.ag_defined_in = defined
            head = defined | _use([node.test]).walrus
            while True:
                new_head = head | self.block(node.body, head)
                if new_head == head:
                    break
                head = new_head
            return self.block(node.orelse, head)
        if isinstance(node, ast.For):
            node.ag_defined_in = defined
            head = defined | _use([node.iter]).walrus
            _, target_binds = _target_reads_and_binds(node.target)
            while True:
                new_head = head | self.block(node.body, head | target_binds)
                if new_head == head:
                    break
                head = new_head
            return self.block(node.orelse, head)
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            after_body = self.block(node.body, defined)
            after_else = self.block(node.orelse, after_body)
            ends = [after_else]
            for handler in node.handlers:
                handler_in = after_body | ({handler.name} if handler.name else set())
                ends.append(self.block(handler.body, frozenset(handler_in)))
            merged = frozenset().union(*ends)
            return self.block(node.finalbody, merged)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            binds: set[str] = set()
            for item in node.items:
                binds |= _use([item.context_expr]).walrus | _target_reads_and_binds(item.optional_vars)[1]
            return self.block(node.body, defined | binds)
        if isinstance(node, ast.Match):
            ends = [defined]
            for case in node.cases:
                pattern = _use([case.pattern, case.guard])
                ends.append(self.block(case.body, defined | pattern.stores))
            return frozenset().union(*ends)
        return defined | _use([node]).stores


# ============================================================================ entry point


def _functions_in(node: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def annotate_function(node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """Annotate the control-flow statements of ``node`` and of every function nested in it (see module doc).

    Also sets ``ag_scope`` (a FunctionScope) on each function node and ``ag_modified`` on
    each if/while/for node.
    """
    for function in _functions_in(node):
        scope = FunctionScope(function)
        function.ag_scope = scope
        _Liveness(scope).block(function.body, frozenset())
        _Definitions().block(function.body, frozenset(scope.params))
        for statement in _statements_of(function.body):
            if isinstance(statement, (ast.If, ast.While)):
                statement.ag_modified = _modified(statement.body + statement.orelse)
            elif isinstance(statement, ast.For):
                statement.ag_modified = _modified(
                    statement.body + statement.orelse,
                    [ast.Assign(targets=[statement.target], value=ast.Constant(value=None))],
                )


def _statements_of(statements: Sequence[ast.stmt]) -> Iterable[ast.stmt]:
    """Every statement of a block and of the blocks inside it, not entering nested functions or classes."""
    for statement in statements:
        yield statement
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _statements_of(getattr(statement, field, None) or [])
        for handler in getattr(statement, "handlers", None) or []:
            yield from _statements_of(handler.body)
        for case in getattr(statement, "cases", None) or []:
            yield from _statements_of(case.body)
