"""User functions of dataset transformations, traced once into a graph (TF's ``StructuredFunctionWrapper``).

The Python function is called once with symbolic tensors standing for an element (a tuple
element is unpacked into positional arguments, anything else is passed as one argument);
its result (a returned list counts as a tuple, as in TF) becomes the function's outputs and
its structure the transformed dataset's element_spec. The traced graph is added to the eager
context's function library under TF's name (``__inference_Dataset_map_<fn>_<n>``), which the
dataset op's ``f`` attr names; tensors the function uses from outside are its captured inputs
(the op's ``other_arguments``). Inside ``tf.function`` the library entry lives as long as the
enclosing graph.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any

from modtensor.api.data import structure
from modtensor.framework import graph as graph_lib
from modtensor.framework.func_graph import FuncGraph, func_graph_from_py_func
from modtensor.framework.tensor import TensorSpec
from modtensor.runtime import context as runtime_context
from modtensor.runtime import eager_functions

__all__ = ["StructuredFunctionWrapper"]

_IDS = itertools.count(1)
_KEEP_ALIVE_ATTR = "_modtensor_data_functions"


def _func_name(func: Callable[..., Any]) -> str:
    name = getattr(func, "__name__", None) or type(func).__name__
    return "lambda" if name == "<lambda>" else name


class StructuredFunctionWrapper:
    """A user function traced for ``input_structure``; ``function_name``, ``captured_inputs``, ``output_structure``.

    ``transformation_name`` is TF's readable name (``Dataset.map()``), used in the function's
    name and in error messages.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        transformation_name: str,
        input_structure: Any,
        *,
        unpack_args: bool = True,
        returns_dataset: bool = False,
    ):
        self._func = func
        self._transformation_name = transformation_name
        self._input_structure = input_structure
        self._returns_dataset = returns_dataset
        readable = transformation_name.replace(".", "_").replace("()", "")
        self.function_name = f"__inference_{readable}_{_func_name(func)}_{next(_IDS)}"
        self.output_structure: Any = None
        self.output_dataset_spec: Any = None
        flat_specs = [TensorSpec(s.shape, s.dtype) for s in structure.flatten(input_structure)]
        self._unpack = unpack_args
        outer = None if _executing_eagerly() else graph_lib.get_default_graph()
        graph = func_graph_from_py_func(
            self.function_name,
            self._wrapper,
            flat_specs,
            {},
            [f"args_{i}" for i in range(len(flat_specs))],
            outer_graph=outer,
            seed=runtime_context.global_seed() if outer is None else None,
        )
        self.graph: FuncGraph = graph
        self.captured_inputs = list(graph.external_captures)
        targets = [op.name for op in graph.get_operations() if op.op_def.is_stateful and op.type != "Placeholder"]
        library_function = eager_functions.LibraryFunction(
            self.function_name,
            graph.as_graph_def(),
            [t.name for t in graph.inputs],
            [t.name for t in graph.outputs],
            targets,
        )
        eager_functions.add_function(library_function)
        weakref.finalize(self, eager_functions.remove_function, self.function_name)
        if outer is not None:  # the enclosing graph's kernels find the function while the graph lives
            keep = outer.__dict__.setdefault(_KEEP_ALIVE_ATTR, [])
            keep.append(self)
            _add_to_graph_library(graph, outer, self.function_name)

    def _wrapper(self, *flat_args: Any) -> Any:
        nested = structure.pack(self._input_structure, list(flat_args))
        from modtensor.api.autograph.impl import tf_convert_in_context  # AutoGraph converts it, as TF's

        func = tf_convert_in_context(self._func)
        ret = func(*nested) if self._unpack and type(nested) is tuple else func(nested)
        if isinstance(ret, list):
            ret = tuple(ret)
        if self._returns_dataset:
            from modtensor.api.data.dataset_ops import DatasetV2

            if not isinstance(ret, DatasetV2):
                raise TypeError(
                    f"The `map_func` argument must return a `Dataset` object. Got {_type_text(ret)}."
                )
            self.output_dataset_spec = ret.element_spec
            self.output_structure = structure.DatasetSpec(ret.element_spec)
            return [ret._variant_tensor]
        if ret is None:  # TF: an empty structure; the dataset op then refuses zero components
            self.output_structure = ()
            return []
        try:
            ret = structure.normalize_element(ret)
            self.output_structure = structure.spec_from_value(ret)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"Unsupported return value from function passed to {self._transformation_name}: {ret}."
            ) from e
        flat = []
        for leaf in structure.flatten(ret):
            flat.append(leaf._variant_tensor if hasattr(leaf, "_variant_tensor") else leaf)
        return flat


def _type_text(value: Any) -> str:
    return f"<class '{type(value).__module__}.{type(value).__qualname__}'>"


def _executing_eagerly() -> bool:
    from modtensor.api.context import executing_eagerly

    return executing_eagerly()


def _add_to_graph_library(graph: FuncGraph, outer: Any, name: str) -> None:
    """Put the traced function into the enclosing graph's library when graphs can hold FunctionDefs."""
    to_function_def = getattr(graph, "to_function_def", None)
    add_to_graph = getattr(graph, "add_to_graph", None)
    if to_function_def is None or add_to_graph is None:
        return
    add_to_graph(outer, to_function_def(name))

