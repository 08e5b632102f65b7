"""``load_op_library``: a plugin's ops as a module of Python wrappers, as TensorFlow generates them.

Each op the library registered gets a function named by TensorFlow's rule
(``ZeroOut`` -> ``zero_out``, ``Ns>MyOp`` -> ``ns_my_op``, a trailing ``_`` for
Python keywords) that takes the op's inputs, then its attrs that are not inferred
from the inputs, then ``name=None``, and calls ``modtensor.api.dispatch.apply_op``:
eager when executing eagerly, a graph node otherwise.
"""

from __future__ import annotations

import builtins
import inspect
import keyword
import os
import types
from typing import Any

from modtensor.framework import attr_value
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import op_def_pb2
from modtensor.plugin.loader import load_native_library
from modtensor.plugin.registry import REGISTRY

__all__ = ["load_op_library", "op_function_name"]

_MODULES: dict[str, types.ModuleType] = {}


def op_function_name(op_name: str) -> str:
    """TensorFlow's Python name of an op (python_op_gen's GenerateLowerCaseOpName and AvoidPythonReserved)."""
    chars: list[str] = []
    last = len(op_name) - 1
    for i, c in enumerate(op_name):
        if c.isupper() and i > 0 and (op_name[i - 1].islower() or (i < last and op_name[i + 1].islower())):
            chars.append("_")
        chars.append(c.lower())
    name = "".join(chars).replace(">", "_")
    return name + "_" if keyword.iskeyword(name) or hasattr(builtins, name) else name


def _param_name(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def _make_wrapper(op_def: op_def_pb2.OpDef) -> Any:
    """The wrapper function of one op, with a real signature (help() shows inputs and attrs)."""
    from modtensor.api.dispatch import apply_op

    inferred = set()
    for arg in op_def.input_arg:
        inferred.update(a for a in (arg.type_attr, arg.number_attr, arg.type_list_attr) if a)
    P = inspect.Parameter
    params = [P(_param_name(arg.name), P.POSITIONAL_OR_KEYWORD) for arg in op_def.input_arg]
    required, optional = [], []
    for attr in op_def.attr:
        if attr.name in inferred:
            continue
        if attr.HasField("default_value"):
            default = attr_value.from_attr_value(attr.default_value)
            optional.append(P(_param_name(attr.name), P.POSITIONAL_OR_KEYWORD, default=default))
        else:
            required.append(P(_param_name(attr.name), P.POSITIONAL_OR_KEYWORD))
    params += required + optional + [P("name", P.POSITIONAL_OR_KEYWORD, default=None)]
    signature = inspect.Signature(params)
    real_names = {_param_name(n): n for n in [a.name for a in op_def.input_arg] + [a.name for a in op_def.attr]}
    op_type = op_def.name

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        given = dict(bound.arguments)
        name = given.pop("name", None)
        return apply_op(op_type, name=name, **{real_names[k]: v for k, v in given.items()})

    wrapper.__name__ = wrapper.__qualname__ = op_function_name(op_type)
    wrapper.__signature__ = signature  # type: ignore[attr-defined]
    summary = op_def.summary or f"The {op_type} op."
    wrapper.__doc__ = f"{summary}\n\nRuns op '{op_type}' (from a plugin) eagerly or adds it to the current graph."
    return wrapper


def load_op_library(library_filename: str | os.PathLike[str]) -> types.ModuleType:
    """Load a plugin library (once) and return a module with a wrapper per op it registered.

    Like TensorFlow's ``tf.load_op_library``: the module also has ``OP_LIST`` (an
    OpList of the library's ops) and ``LIB_HANDLE``. Raises the load error
    (NotFoundError for a file that is not a loadable library, the registration's
    error class otherwise) when the plugin fails.
    """
    record = load_native_library(library_filename, origin="load_op_library", raise_errors=True)
    with REGISTRY.lock:
        module = _MODULES.get(record.real_path)
        if module is not None:
            return module
        stem = os.path.basename(record.real_path).split(".")[0] or "op_library"
        module = types.ModuleType(stem, f"Ops of the plugin {record.path}.")
        op_list = op_def_pb2.OpList()
        for op_name in record.ops:
            op_def = global_registry().get(op_name).op_def
            op_list.op.add().CopyFrom(op_def)
            setattr(module, op_function_name(op_name), _make_wrapper(op_def))
        module.OP_LIST = op_list  # type: ignore[attr-defined]
        module.LIB_HANDLE = record.handle  # type: ignore[attr-defined]
        module.__file__ = record.path
        _MODULES[record.real_path] = module
        return module
