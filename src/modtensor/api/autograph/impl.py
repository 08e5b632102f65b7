"""AutoGraph's entry points: ``converted_call`` (every call in converted code), ``tf_convert`` (the
``modtensor.function`` hook), ``to_graph``/``to_code`` and ``do_not_convert``.

``converted_call(f, args, kwargs, caller_fn_scope, options)`` decides, as TensorFlow
does, whether ``f`` is converted: never when AutoGraph is disabled around the call, for
AutoGraph's own artifacts, for builtins (they get their overloads), constructors,
``functools.lru_cache`` wrappers, generators, code from ``exec`` strings, or (unless the
user asked for this conversion) functions of the modules ``config`` lists; a function
whose conversion fails runs unconverted with a warning. Errors leaving converted code
get the user's frames attached (``errors.attach_error_metadata``).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import weakref
from collections.abc import Callable
from typing import Any

from modtensor.api.autograph import ag_ctx, ag_logging, conversion, errors, origins
from modtensor.api.autograph.config import ConversionOptions, module_is_not_converted
from modtensor.api.autograph.operators import py_builtins

__all__ = [
    "autograph_artifact",
    "converted_call",
    "do_not_convert",
    "is_autograph_artifact",
    "tf_convert",
    "tf_convert_in_context",
    "to_code",
    "to_graph",
]

_THIS_FILE = __file__


def autograph_artifact(entity: Any, extras: Any = None) -> Any:
    """Mark ``entity`` as made by AutoGraph, so converted_call calls it as it is."""
    target = entity.__func__ if inspect.ismethod(entity) else entity
    with contextlib.suppress(AttributeError, TypeError):
        target.autograph_info__ = extras
    return entity


def is_autograph_artifact(entity: Any) -> bool:
    """Whether ``entity`` is marked by autograph_artifact (converted code, do_not_convert wrappers)."""
    try:
        return hasattr(entity, "autograph_info__")
    except Exception:  # noqa: BLE001 - objects whose __getattr__ raises are simply not artifacts
        return False


# ============================================================================ what is converted


def _is_unsupported(f: Any) -> bool:
    """Callables never converted: lru_cache wrappers, wrapt wrappers, classes (constructors)."""
    kind = type(f)
    if kind.__module__ == "functools" and kind.__name__ == "_lru_cache_wrapper":
        return True
    if kind.__module__.startswith("wrapt") and kind.__name__ in ("FunctionWrapper", "BoundFunctionWrapper"):
        ag_logging.warning(
            "%s appears to be decorated by wrapt, which is not yet supported by AutoGraph. The function will run "
            "as-is. You may still apply AutoGraph before the wrapt decorator.",
            f,
        )
        return True
    if inspect.isclass(f):
        return True
    module = getattr(f, "__module__", None)
    return isinstance(module, str) and module.split(".")[0] in ("collections", "pdb", "copy", "inspect", "re")


def _module_name(f: Any) -> str | None:
    if isinstance(f, functools.partial):
        return "functools"
    module = inspect.getmodule(f)
    return getattr(module, "__name__", None)


def _is_allowlisted(f: Any, check_call_override: bool = True) -> bool:
    """Callables of modules that are not converted (modtensor, numpy, ...) and generator functions."""
    module_name = _module_name(f)
    if module_name is not None and module_is_not_converted(module_name):
        return True
    if hasattr(f, "__code__") and (inspect.isgeneratorfunction(f) or inspect.iscoroutinefunction(f)):
        return True
    if check_call_override and not inspect.isclass(f) and hasattr(f, "__call__"):  # noqa: B004
        call = f.__call__
        if type(f) is not type(call) and _is_allowlisted(call):
            return True
    if inspect.ismethod(f):
        owner = type(f.__self__) if not inspect.isclass(f.__self__) else f.__self__
        unittest = sys.modules.get("unittest")  # methods of TestCase subclasses are not converted (TF's rule)
        if unittest is not None and isinstance(owner, type) and issubclass(owner, unittest.TestCase):
            return True
        defining = _defining_class(f, owner)
        if defining is not None and _is_allowlisted(defining, check_call_override=False):
            return True
    return False


# What _is_allowlisted decided, per code object (functions, methods) or type (callable objects), and the
# conversions that failed, per (code object, options): TF's allowlist cache. Such calls then skip the work
# (and the warning) on every later call.
_allowlisted: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()
_failed: weakref.WeakKeyDictionary[Any, set[Any]] = weakref.WeakKeyDictionary()


def _cache_key(f: Any) -> Any:
    function = getattr(f, "__func__", f)
    code = getattr(function, "__code__", None)
    if code is not None:
        return code
    if isinstance(f, functools.partial) or inspect.isclass(f):
        return None
    return type(f)


def _is_allowlisted_cached(f: Any) -> bool:
    key = _cache_key(f)
    if key is None:
        return _is_allowlisted(f)
    try:
        found = _allowlisted.get(key)
    except TypeError:
        return _is_allowlisted(f)
    if found is None:
        found = _allowlisted[key] = _is_allowlisted(f)
    return found


def _defining_class(method: Any, owner: type) -> type | None:
    name = method.__name__
    for cls in getattr(owner, "__mro__", ()):
        if name in cls.__dict__:
            return cls
    return None


# ============================================================================ calls


def _call_unconverted(f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> Any:
    if kwargs is not None:
        return f(*args, **kwargs)
    return f(*args)


def _fall_back_unconverted(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any] | None, exc: Exception
) -> Any:
    """Run ``f`` as it is after its conversion failed, warning as TensorFlow does."""
    report = ""
    if not isinstance(exc, errors.PyCTError):
        report = (
            "Please report this to the modtensor developers. When filing the bug, set the verbosity to 10 (on Linux, "
            "`export AUTOGRAPH_VERBOSITY=10`) and attach the full output.\n"
        )
    ag_logging.warning(
        "AutoGraph could not transform %s and will run it as-is.\n%sCause: %s\nTo silence this warning, decorate the "
        "function with @tf.autograph.experimental.do_not_convert",
        f,
        report,
        exc,
    )
    return _call_unconverted(f, args, kwargs)


def converted_call(
    f: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None,
    caller_fn_scope: Any = None,
    options: ConversionOptions | None = None,
) -> Any:
    """Call ``f(*args, **kwargs)``, converting ``f`` first when AutoGraph's rules say so (see module doc)."""
    if options is None:
        if caller_fn_scope is None:
            raise ValueError("either caller_fn_scope or options must have a value")
        options = caller_fn_scope.callopts
    if ag_ctx.control_status_ctx().status == ag_ctx.Status.DISABLED:
        return _call_unconverted(f, args, kwargs)
    if is_autograph_artifact(f) or origins.user_function_name(getattr(f, "__code__", None)) is not None:
        return _call_unconverted(f, args, kwargs)  # AutoGraph's own and already converted code
    if isinstance(f, functools.partial):
        new_kwargs = dict(f.keywords or {})
        if kwargs is not None:
            new_kwargs.update(kwargs)
        return converted_call(f.func, tuple(f.args) + tuple(args), new_kwargs, caller_fn_scope, options)
    if py_builtins.isbuiltin(f):
        if f is eval:
            return py_builtins.eval_in_original_context(f, args, caller_fn_scope)
        if f is super:
            return py_builtins.super_in_original_context(f, args, caller_fn_scope)
        if f is globals:
            return py_builtins.globals_in_original_context(caller_fn_scope)
        if f is locals:
            return py_builtins.locals_in_original_context(caller_fn_scope)
        overload = py_builtins.overload_of(f)
        return overload(*args, **kwargs) if kwargs else overload(*args)
    if _is_unsupported(f):
        return _call_unconverted(f, args, kwargs)
    if not options.user_requested and _is_allowlisted_cached(f):
        return _call_unconverted(f, args, kwargs)
    if not options.internal_convert_user_code:
        return _call_unconverted(f, args, kwargs)

    if inspect.ismethod(f) or inspect.isfunction(f):
        target = f.__func__ if inspect.ismethod(f) else f
        effective_args = ((f.__self__,) + tuple(args)) if inspect.ismethod(f) else tuple(args)
    elif hasattr(type(f), "__call__") and inspect.isfunction(type(f).__call__):  # noqa: B004
        target = type(f).__call__
        effective_args = (f,) + tuple(args)
    else:
        return _call_unconverted(f, args, kwargs)
    if not inspect.isfunction(target):
        return _call_unconverted(f, args, kwargs)
    if target.__code__.co_filename == "<string>":
        return _call_unconverted(f, args, kwargs)
    failed = _failed.get(target.__code__)
    if failed is not None and options.key() in failed:
        return _call_unconverted(f, args, kwargs)
    try:
        converted = conversion.convert(target, options)
    except Exception as e:  # noqa: BLE001 - a function AutoGraph cannot convert runs as it is
        ag_logging.log(1, "Error transforming entity %s: %s", target, e)
        _failed.setdefault(target.__code__, set()).add(options.key())
        return _fall_back_unconverted(f, args, kwargs, e)
    try:
        if kwargs is not None:
            return converted(*effective_args, **kwargs)
        return converted(*effective_args)
    except Exception as e:
        errors.attach_error_metadata(e, converted.__code__, _THIS_FILE)
        raise


# ============================================================================ user API


def tf_convert(python_function: Callable[..., Any], optional_features: Any = None) -> Callable[..., Any]:
    """What ``modtensor.function`` traces with ``autograph=True``: the converted function, errors rewritten.

    An error raised by converted code comes out with TensorFlow's "in user code:" message
    (``errors.rewrite``).
    """
    options = ConversionOptions(recursive=True, user_requested=True, optional_features=optional_features)

    def autograph_handler(*args: Any, **kwargs: Any) -> Any:
        try:
            return converted_call(python_function, args, kwargs, options=options)
        except Exception as e:
            if hasattr(e, "ag_error_metadata"):
                raise errors.rewrite(e) from None
            raise

    autograph_artifact(autograph_handler)
    return autograph_handler


def tf_convert_in_context(
    f: Callable[..., Any], convert_by_default: bool = True, user_requested: bool = False
) -> Callable[..., Any]:
    """``f`` converted according to the AutoGraph status where it is traced (TF's ``autograph.tf_convert(f, ctx)``).

    What library functions that trace user functions call (``tf.data`` transformations,
    ``tf.map_fn``): under ``do_not_convert`` (status DISABLED) ``f`` runs as it is; otherwise
    (ENABLED, or UNSPECIFIED with ``convert_by_default``) it is converted with the options in
    effect, errors rewritten as in ``tf_convert``.
    """
    if is_autograph_artifact(f):
        return f
    ctx = ag_ctx.control_status_ctx()
    if ctx.status == ag_ctx.Status.DISABLED or (ctx.status == ag_ctx.Status.UNSPECIFIED and not convert_by_default):
        return f
    features = ctx.options.optional_features if ctx.options is not None else None
    options = ConversionOptions(recursive=True, user_requested=user_requested, optional_features=features)

    def converted_wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return converted_call(f, args, kwargs, options=options)
        except Exception as e:
            if hasattr(e, "ag_error_metadata"):
                raise errors.rewrite(e) from None
            raise

    return autograph_artifact(converted_wrapper)


def _unwrap(entity: Any) -> Any:
    """The Python function behind a ``modtensor.function`` (its python_function), else the entity itself."""
    python_function = getattr(entity, "python_function", None)
    return python_function if callable(python_function) else entity


def to_graph(entity: Any, recursive: bool = True, experimental_optional_features: Any = None) -> Any:
    """The converted version of a Python function or method (TF's ``tf.autograph.to_graph``).

    Called inside ``modtensor.function`` (or a graph) it stages tensor control flow; called
    eagerly it runs with TensorFlow's semantics on eager tensors.
    """
    entity = _unwrap(entity)
    options = ConversionOptions(
        recursive=recursive, user_requested=True, optional_features=experimental_optional_features
    )
    try:
        return _to_graph(entity, options)
    except (ValueError, AttributeError, KeyError, NameError, AssertionError) as e:
        raise errors.ConversionError(f"converting {entity}: {type(e).__name__}: {e}") from e


def _to_graph(entity: Any, options: ConversionOptions) -> Any:
    if inspect.ismethod(entity):
        converted = conversion.convert(entity.__func__, options)
        return converted.__get__(entity.__self__, type(entity.__self__))
    if inspect.isfunction(entity):
        return conversion.convert(entity, options)
    if inspect.isclass(entity):
        raise NotImplementedError(f"to_graph of a class ({entity!r}) is not supported; convert its methods")
    if callable(entity) and inspect.isfunction(getattr(type(entity), "__call__", None)):  # noqa: B004
        converted = conversion.convert(type(entity).__call__, options)
        return functools.partial(converted, entity)
    raise TypeError(f"to_graph expects a Python function or method, got {entity!r}")


def to_code(entity: Any, recursive: bool = True, experimental_optional_features: Any = None) -> str:
    """The source code of the converted version of ``entity`` (TF's ``tf.autograph.to_code``)."""
    entity = _unwrap(entity)
    options = ConversionOptions(
        recursive=recursive, user_requested=True, optional_features=experimental_optional_features
    )
    if inspect.ismethod(entity):
        entity = entity.__func__
    elif (
        not inspect.isfunction(entity)
        and callable(entity)
        and inspect.isfunction(
            getattr(type(entity), "__call__", None)  # noqa: B004
        )
    ):
        entity = type(entity).__call__
    if not inspect.isfunction(entity):
        raise TypeError(f"to_code expects a Python function or method, got {entity!r}")
    return conversion.converted_source(entity, options) + "\n"


def do_not_convert(func: Callable[..., Any] | None = None) -> Any:
    """Mark a function so AutoGraph never converts it or anything it calls (TF's decorator of the same name)."""
    if func is None:
        return do_not_convert

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with ag_ctx.ControlStatusCtx(status=ag_ctx.Status.DISABLED):
            return func(*args, **kwargs)

    if inspect.isfunction(func) or inspect.ismethod(func):
        wrapper = functools.update_wrapper(wrapper, func)
    return autograph_artifact(wrapper)
