"""``ag__.FunctionScope``: the context every converted function body runs in.

It turns AutoGraph on (status ENABLED) for a function the user asked to convert, carries
the options calls from the function use (``callopts``), opens a name scope named after
the function with ``Feature.NAME_SCOPES``, and turns the function's final return value
into Python's (``ret``: no return statement ran -> None).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modtensor.api.autograph import ag_ctx
from modtensor.api.autograph.config import ConversionOptions, Feature
from modtensor.api.autograph.operators.variables import UndefinedReturnValue

__all__ = ["FunctionScope", "with_function_scope"]


class FunctionScope:
    """The scope of one call of a converted function (see module doc)."""

    def __init__(self, function_name: str, scope_name: str, options: ConversionOptions):
        self.name = scope_name
        self.options = options
        self.callopts = options.call_options()
        self._status = ag_ctx.ControlStatusCtx(ag_ctx.Status.ENABLED, options) if options.user_requested else None
        self._name_scope: Any = None
        if options.uses(Feature.NAME_SCOPES):
            from modtensor.api.context import name_scope

            self._name_scope = name_scope(f"fn{function_name}" if function_name.startswith("_") else function_name)

    def __enter__(self) -> FunctionScope:
        if self._status is not None:
            self._status.__enter__()
        if self._name_scope is not None:
            self._name_scope.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._name_scope is not None:
            self._name_scope.__exit__(*exc)
        if self._status is not None:
            self._status.__exit__(*exc)

    def ret(self, value: Any, did_return: bool) -> Any:
        """The function's return value: None when no return statement ran."""
        del did_return
        if isinstance(value, UndefinedReturnValue):
            return None
        return value


def with_function_scope(thunk: Callable[[FunctionScope], Any], scope_name: str, options: ConversionOptions) -> Any:
    """``thunk(scope)`` inside a FunctionScope: the body of a converted lambda."""
    with FunctionScope("lambda_", scope_name, options) as scope:
        return thunk(scope)
