"""``if``, ``while`` and ``for`` statements become calls of ``ag__.if_stmt``, ``while_stmt`` and ``for_stmt``.

Each block becomes a nested function; the variables the statement changes and that
matter around it (live before or after it) are its *state*, declared ``nonlocal`` in the
block functions and read and written by generated ``get_state``/``set_state`` functions,
so the operators can run the blocks as Python (Python values) or stage them into
``tf.cond``/``tf.while_loop`` (tensors). Variables a block may bind that have no value
before the statement are bound to ``ag__.Undefined(name)`` first. This is TensorFlow's
AutoGraph scheme, and the generated code has its shape.
"""

from __future__ import annotations

import ast
from typing import Any

from modtensor.api.autograph import templates
from modtensor.api.autograph.analysis import FunctionScope, Symbol
from modtensor.api.autograph.converters.base import Transformer

__all__ = ["ControlFlow"]


class ControlFlow(Transformer):
    """Rewrite control-flow statements into their functional forms (needs analysis.annotate_function first)."""

    def __init__(self, ctx: Any):
        super().__init__(ctx)
        self._scopes: list[FunctionScope] = []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        self._scopes.append(node.ag_scope)
        try:
            self.generic_visit(node)
        finally:
            self._scopes.pop()
        return node

    def visit_Lambda(self, node: ast.Lambda) -> Any:
        return node

    # ----------------------------------------------------------------- state

    def _block_vars(self, node: ast.stmt, modified: frozenset[Symbol]) -> tuple[list[Symbol], list[str], int]:
        scope = self._scopes[-1]
        live_in, live_out, defined_in = node.ag_live_in, node.ag_live_out, node.ag_defined_in
        basic = {
            s
            for s in modified
            if not s.is_composite and (s.text in live_in or s.text in live_out or s.text in scope.nonlocals)
        }
        composite = {s for s in modified if s.is_composite and s.root in live_in}
        undefined = sorted(
            s.text
            for s in modified
            if not s.is_composite
            and s.text not in defined_in
            and s.text not in scope.globals
            and s.text not in scope.nonlocals
        )
        input_only = {s for s in basic if s.text in live_in and s.text not in live_out}
        scope_vars = sorted(basic | composite, key=lambda s: (s in input_only, s.text))
        return scope_vars, undefined, len(scope_vars) - len(input_only)

    def _declarations(self, scope_vars: list[Symbol], modified: frozenset[Symbol], origin: ast.AST) -> list[ast.stmt]:
        scope = self._scopes[-1]
        names = {s.text for s in scope_vars if not s.is_composite}
        names |= {s.text for s in modified if not s.is_composite and s.text in scope.nonlocals}
        global_names = sorted({s.text for s in modified if not s.is_composite and s.text in scope.globals})
        nonlocal_names = sorted(names - set(global_names))
        declarations: list[ast.stmt] = []
        if global_names:
            declarations.append(templates.locate(ast.Global(names=global_names), origin))
        if nonlocal_names:
            declarations.append(templates.locate(ast.Nonlocal(names=nonlocal_names), origin))
        return declarations

    def _state_functions(
        self, scope_vars: list[Symbol], declarations: list[ast.stmt], origin: ast.AST
    ) -> tuple[str, str, list[ast.stmt]]:
        getter = self.ctx.namer.new_symbol("get_state")
        setter = self.ctx.namer.new_symbol("set_state")
        if not scope_vars:
            functions = templates.statements(
                """
                def getter():
                    return ()
                def setter(block_vars):
                    pass
                """,
                origin,
                getter=getter,
                setter=setter,
            )
            for function in functions:
                function.ag_skip_loads = True
            return getter, setter, functions
        loads: list[ast.expr] = []
        for symbol in scope_vars:
            if symbol.is_composite:
                loads.append(
                    templates.expression(
                        "ag__.ldu(lambda: var, name)",
                        origin,
                        var=templates.with_context(symbol.node, ast.Load()),
                        name=ast.Constant(value=symbol.text),
                    )
                )
            else:
                loads.append(templates.name(symbol.text, origin))
        targets = [
            templates.with_context(s.node, ast.Store())
            if s.is_composite
            else templates.name(s.text, origin, store=True)
            for s in scope_vars
        ]
        functions = templates.statements(
            """
            def getter():
                return (loads,)
            def setter(vars_):
                declarations
                (targets,) = vars_
            """,
            origin,
            getter=getter,
            setter=setter,
            loads=loads,
            targets=targets,
            declarations=[_copy(d) for d in declarations],
        )
        for function in functions:
            function.ag_skip_loads = True
        return getter, setter, functions

    @staticmethod
    def _undefined_assigns(undefined: list[str], origin: ast.AST) -> list[ast.stmt]:
        statements: list[ast.stmt] = []
        for name in undefined:
            statements += templates.statements(f"var = ag__.Undefined({name!r})", origin, var=name)
        return statements

    @staticmethod
    def _names_tuple(scope_vars: list[Symbol], origin: ast.AST) -> ast.expr:
        return templates.locate(
            ast.Tuple(elts=[ast.Constant(value=s.text) for s in scope_vars], ctx=ast.Load()), origin
        )  # type: ignore[return-value]

    def _loop_options(self, node: ast.stmt, origin: ast.AST, extra: dict[str, ast.expr] | None = None) -> ast.expr:
        options = dict(getattr(node, "ag_loop_options", {}))
        options.update(extra or {})
        keys: list[ast.expr | None] = [templates.locate(ast.Constant(value=k), origin) for k in options]
        return templates.locate(ast.Dict(keys=keys, values=list(options.values())), origin)  # type: ignore

    # ----------------------------------------------------------------- statements

    def visit_If(self, node: ast.If) -> Any:
        modified = node.ag_modified
        self.generic_visit(node)
        scope_vars, undefined, nouts = self._block_vars(node, modified)
        declarations = self._declarations(scope_vars, modified, node)
        getter, setter, state_functions = self._state_functions(scope_vars, declarations, node)
        body_name = self.ctx.namer.new_symbol("if_body")
        orelse_name = self.ctx.namer.new_symbol("else_body")
        body = templates.statements("def body_name():\n    pass", node, body_name=body_name)[0]
        body.body = [_copy(d) for d in declarations] + node.body
        orelse = templates.statements("def orelse_name():\n    pass", node, orelse_name=orelse_name)[0]
        orelse.body = [_copy(d) for d in declarations] + (node.orelse or [templates.locate(ast.Pass(), node)])
        call = templates.statements(
            "ag__.if_stmt(test, body_name, orelse_name, getter, setter, names, nouts)",
            node,
            test=node.test,
            body_name=body_name,
            orelse_name=orelse_name,
            getter=getter,
            setter=setter,
            names=self._names_tuple(scope_vars, node),
            nouts=templates.locate(ast.Constant(value=nouts), node),
        )
        return state_functions + [body, orelse] + self._undefined_assigns(undefined, node) + call

    def visit_While(self, node: ast.While) -> Any:
        modified = node.ag_modified
        self.generic_visit(node)
        loop_vars, undefined, _ = self._block_vars(node, modified)
        declarations = self._declarations(loop_vars, modified, node)
        getter, setter, state_functions = self._state_functions(loop_vars, declarations, node)
        body_name = self.ctx.namer.new_symbol("loop_body")
        test_name = self.ctx.namer.new_symbol("loop_test")
        body = templates.statements("def body_name():\n    pass", node, body_name=body_name)[0]
        body.body = [_copy(d) for d in declarations] + node.body
        test = templates.statements("def test_name():\n    return test", node, test_name=test_name, test=node.test)
        call = templates.statements(
            "ag__.while_stmt(test_name, body_name, getter, setter, names, opts)",
            node,
            test_name=test_name,
            body_name=body_name,
            getter=getter,
            setter=setter,
            names=self._names_tuple(loop_vars, node),
            opts=self._loop_options(node, node),
        )
        return state_functions + [body] + test + self._undefined_assigns(undefined, node) + call

    def visit_For(self, node: ast.For) -> Any:
        modified = node.ag_modified
        extra_test = getattr(node, "ag_extra_test", None)
        self.generic_visit(node)
        loop_vars, undefined, _ = self._block_vars(node, modified)
        declarations = self._declarations(loop_vars, modified, node)
        getter, setter, state_functions = self._state_functions(loop_vars, declarations, node)
        body_name = self.ctx.namer.new_symbol("loop_body")
        iterate_name = self.ctx.namer.new_symbol("itr")
        body = templates.statements(
            "def body_name(iterate_name):\n    pass", node, body_name=body_name, iterate_name=iterate_name
        )[0]
        expansion = templates.statements(
            "target = iterate_name", node.target, target=node.target, iterate_name=iterate_name
        )
        body.body = [_copy(d) for d in declarations] + expansion + node.body
        extra_functions: list[ast.stmt] = []
        if extra_test is not None:
            extra_name = self.ctx.namer.new_symbol("extra_test")
            extra_functions = templates.statements(
                "def extra_name():\n    declarations\n    return extra_test",
                node,
                extra_name=extra_name,
                declarations=[_copy(d) for d in declarations],
                extra_test=extra_test,
            )
            extra_ref: ast.expr = templates.name(extra_name, node)
        else:
            extra_ref = templates.expression("None", node)
        iterate_names = templates.locate(ast.Constant(value=ast.unparse(node.target)), node)
        call = templates.statements(
            "ag__.for_stmt(iterated, extra, body_name, getter, setter, names, opts)",
            node,
            iterated=node.iter,
            extra=extra_ref,
            body_name=body_name,
            getter=getter,
            setter=setter,
            names=self._names_tuple(loop_vars, node),
            opts=self._loop_options(node, node, {"iterate_names": iterate_names}),
        )
        return state_functions + [body] + extra_functions + self._undefined_assigns(undefined, node) + call


def _copy(node: ast.stmt) -> ast.stmt:
    if isinstance(node, ast.Global):
        return ast.copy_location(ast.Global(names=list(node.names)), node)
    if isinstance(node, ast.Nonlocal):
        return ast.copy_location(ast.Nonlocal(names=list(node.names)), node)
    return node
