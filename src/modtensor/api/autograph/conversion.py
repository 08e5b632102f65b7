"""Converting one Python function: source -> passes -> code compiled under the user's file name -> a new function.

``convert(fn, options)`` returns a function with ``fn``'s globals, closure cells and
defaults whose code is the converted code; ``converted_source(fn, options)`` the
converted code as text (what ``tf.autograph.to_code`` shows). Conversions are cached
per code object and options. The converted code keeps the line numbers of the user's
file, so tracebacks point at the user's lines, and its code objects are registered
with ``errors`` so "in user code:" messages name the user's functions.
"""

from __future__ import annotations

import ast
import copy
import threading
import types
from collections.abc import Callable
from typing import Any

from modtensor.api.autograph import analysis, errors, origins, source, templates
from modtensor.api.autograph.config import ConversionOptions, Feature
from modtensor.api.autograph.context import EntityContext
from modtensor.api.autograph.converters import (
    asserts,
    calls,
    control_flow,
    directives,
    expressions,
    functions,
    jumps,
    returns,
    unsupported,
    variables,
)

__all__ = ["ConvertedEntity", "convert", "converted_source"]

_FACTORY = "__autograph_factory"


class ConvertedEntity:
    """One conversion of a code object: the converted code object, its source text, the user's function name."""

    __slots__ = ("code", "name", "source")

    def __init__(self, code: types.CodeType, source_text: str, name: str):
        self.code = code
        self.source = source_text
        self.name = name


_cache: dict[tuple[Any, Any], ConvertedEntity] = {}
_lock = threading.RLock()


def _super_args(entity: Any, node: ast.AST) -> tuple[str, str] | None:
    code = entity.__code__
    if "__class__" not in code.co_freevars or not isinstance(node, ast.FunctionDef):
        return None
    params = node.args.posonlyargs + node.args.args
    return ("__class__", params[0].arg) if params else None


def _transform(node: ast.AST, entity: Any, options: ConversionOptions) -> tuple[ast.AST, EntityContext]:
    """Run AutoGraph's passes over a copy of ``node`` (a FunctionDef or a Lambda)."""
    unsupported.verify(node)
    name = getattr(node, "name", "<lambda>")
    ctx = EntityContext(options, node, name, entity)
    super_args = _super_args(entity, node)
    node = functions.FunctionScopes(ctx).visit(node)
    if isinstance(node, ast.FunctionDef):
        node = directives.LoopDirectives(ctx).visit(node)
        jumps.lower_breaks(node, ctx)
        if options.uses(Feature.ASSERT_STATEMENTS):
            node = asserts.Asserts(ctx).visit(node)
        jumps.lower_continues(node, ctx)
        returns.lower_returns(node, ctx)
        node = calls.Calls(ctx, super_args).visit(node)
        analysis.annotate_function(node)
        node = control_flow.ControlFlow(ctx).visit(node)
        node = expressions.ConditionalExpressions(ctx).visit(node)
        node = expressions.LogicalExpressions(ctx).visit(node)
        node = variables.VariableLoads(ctx, ctx.namer.generated).visit(node)
    else:
        node = calls.Calls(ctx, super_args).visit(node)
        node = expressions.ConditionalExpressions(ctx).visit(node)
        node = expressions.LogicalExpressions(ctx).visit(node)
    return node, ctx


def _user_function_names(node: ast.AST) -> set[str]:
    return {n.name for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _register(
    code: types.CodeType, user_names: set[str], current: str, generated: frozenset[str], top: types.CodeType
) -> None:
    """Record ``code`` and the code objects nested in it as converted code, each under its user function's name."""
    name = code.co_name
    if name.startswith("tf__"):
        name = name[len("tf__") :]
    if name in user_names:
        current = name
    origins.register(code, current, generated, top)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _register(const, user_names, current, generated, top)


def _find_code(code: types.CodeType, name: str) -> types.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name:
                return const
            found = _find_code(const, name)
            if found is not None:
                return found
    return None


def _convert_code(entity: Any, options: ConversionOptions) -> ConvertedEntity:
    found = source.entity_source(entity)
    original = copy.deepcopy(found.node)
    user_names = _user_function_names(original)
    node, ctx = _transform(original, entity, options)
    if isinstance(node, ast.Lambda):
        target = ast.copy_location(ast.Name(id="tf__lam", ctx=ast.Store()), node)
        definition: ast.stmt = ast.copy_location(ast.Assign(targets=[target], value=node), node)
        result_name = "tf__lam"
        inner_name = "<lambda>"
        display_name = "<lambda>"
    else:
        definition = node  # type: ignore[assignment]
        result_name = node.name  # type: ignore[attr-defined]
        inner_name = result_name
        display_name = result_name[len("tf__") :]
    source_text = ast.unparse(definition)
    freevars = list(entity.__code__.co_freevars)
    factory_args = ast.arguments(
        posonlyargs=[],
        args=[ast.arg(arg=a) for a in ["ag__"] + freevars],
        kwonlyargs=[],
        kw_defaults=[],
        defaults=[],
    )
    factory = ast.FunctionDef(
        name=_FACTORY,
        args=factory_args,
        body=[definition, ast.Return(value=ast.Name(id=result_name, ctx=ast.Load()))],
        decorator_list=[],
        returns=None,
    )
    if "type_params" in ast.FunctionDef._fields:
        factory.type_params = []
    templates.locate(factory.args, definition)
    for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        setattr(factory, attr, getattr(definition, attr))
    factory.body[1] = templates.locate(factory.body[1], definition)  # type: ignore[assignment]
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    module_code = compile(module, found.filename, "exec", dont_inherit=True)
    code = _find_code(module_code, inner_name)
    if code is None:  # pragma: no cover - the factory always holds the converted function
        raise errors.ConversionError(f"converted code of {entity!r} not found")
    _register(code, user_names, display_name, frozenset(ctx.namer.generated), code)
    return ConvertedEntity(code, source_text, display_name)


def _converted_entity(entity: Any, options: ConversionOptions) -> ConvertedEntity:
    key = (entity.__code__, options.key())
    converted = _cache.get(key)
    if converted is None:
        with _lock:
            converted = _cache.get(key)
            if converted is None:
                converted = _convert_code(entity, options)
                _cache[key] = converted
    return converted


def convert(entity: Callable[..., Any], options: ConversionOptions) -> Callable[..., Any]:
    """The converted version of the Python function ``entity`` (raises PyCTError subclasses when it cannot be)."""
    from modtensor.api.autograph import runtime

    converted = _converted_entity(entity, options)
    code = converted.code
    entity_code = entity.__code__
    entity_cells = dict(zip(entity_code.co_freevars, entity.__closure__ or (), strict=True))
    cells = []
    for name in code.co_freevars:
        if name == "ag__":
            cells.append(types.CellType(runtime))
        else:
            cells.append(entity_cells[name])
    function = types.FunctionType(code, entity.__globals__, code.co_name, entity.__defaults__, tuple(cells))
    function.__kwdefaults__ = copy.copy(entity.__kwdefaults__)
    function.__qualname__ = getattr(entity, "__qualname__", code.co_name)
    function.__module__ = getattr(entity, "__module__", None)
    function.__doc__ = entity.__doc__
    function.autograph_info__ = None
    function.ag_source = converted.source
    return function


def converted_source(entity: Callable[..., Any], options: ConversionOptions) -> str:
    """The converted code of ``entity`` as Python source."""
    return _converted_entity(entity, options).source
