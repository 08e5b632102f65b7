"""Function scopes: every converted function body runs inside ``ag__.FunctionScope``.

The top-level function is renamed ``tf__<name>`` and loses its decorators, defaults and
annotations (the conversion gives the new function the original's defaults); nested
functions and lambdas are marked ``ag__.autograph_artifact`` so calls to them are not
converted again. Each function gets a scope name (``fscope``, ``lscope``) that the calls
pass converted_call, recorded as ``ag_context_name`` on the node.
"""

from __future__ import annotations

import ast
from typing import Any

from modtensor.api.autograph import templates
from modtensor.api.autograph.converters.base import Transformer

__all__ = ["FunctionScopes"]


class FunctionScopes(Transformer):
    """Wrap function bodies in FunctionScope (see module doc)."""

    def __init__(self, ctx: Any):
        super().__init__(ctx)
        self._level = 0
        self._context_names: list[str] = []

    def _options_source(self, top: bool) -> str:
        options = self.ctx.options if top else self.ctx.options.call_options()
        return options.source()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        self._level += 1
        top = self._level == 1
        context_name = self.ctx.namer.new_symbol("fscope")
        node.ag_context_name = context_name
        self._context_names.append(context_name)
        try:
            node.decorator_list = [self.visit(d) for d in node.decorator_list]
            node.args = self.visit(node.args)
            node.body = [self.visit(s) for s in node.body]
            node.body = [s for s in node.body if s is not None]
        finally:
            self._context_names.pop()
            self._level -= 1
        if top:
            node.name = f"tf__{node.name}"
            node.decorator_list = []
            node.args.defaults = []
            node.args.kw_defaults = [None] * len(node.args.kwonlyargs)
            for arg in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
                arg.annotation = None
            for arg in (node.args.vararg, node.args.kwarg):
                if arg is not None:
                    arg.annotation = None
            node.returns = None
        else:
            node.decorator_list.append(templates.expression("ag__.autograph_artifact", node))
        docstring = []
        body = node.body
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            docstring, body = body[:1], body[1:]
        wrapped = templates.statements(
            f"""
            with ag__.FunctionScope({node.name.removeprefix("tf__")!r}, {context_name!r},
                                    {self._options_source(top)}) as context_name:
                body
            """,
            node,
            context_name=context_name,
            body=body or [templates.locate(ast.Pass(), node)],
        )
        node.body = docstring + wrapped
        return node

    def visit_Lambda(self, node: ast.Lambda) -> Any:
        self._level += 1
        top = self._level == 1
        try:
            if top:
                context_name = self.ctx.namer.new_symbol("lscope")
                node.ag_context_name = context_name
                self._context_names.append(context_name)
                try:
                    node.body = self.visit(node.body)
                finally:
                    self._context_names.pop()
            else:
                node.ag_context_name = self._context_names[-1] if self._context_names else None
                node.args = self.visit(node.args)
                node.body = self.visit(node.body)
        finally:
            self._level -= 1
        if top:
            node.body = templates.expression(
                f"ag__.with_function_scope(lambda {context_name}: body, {context_name!r}, "
                f"{self._options_source(True)})",
                node,
                body=node.body,
            )
            return node
        return templates.expression("ag__.autograph_artifact(lam)", node, lam=node)
