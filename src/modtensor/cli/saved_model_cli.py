"""SavedModel directories in the CLI: ``modtensor inspect DIR`` (TF's ``saved_model_cli show --all`` text) and
``modtensor run DIR --signature NAME --input KEY=FILE.npy`` (calls a signature of the loaded model).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["is_saved_model", "run_signature", "show_all"]


def is_saved_model(path: str) -> bool:
    """True for a directory holding ``saved_model.pb`` (or ``.pbtxt``)."""
    return os.path.isdir(path) and any(
        os.path.isfile(os.path.join(path, name)) for name in ("saved_model.pb", "saved_model.pbtxt")
    )


def _tensor_info_lines(info: Any, indent: str) -> list[str]:
    from modtensor.framework.protos import types_pb2

    if info.tensor_shape.unknown_rank:
        shape = "unknown_rank"
    else:
        shape = "(" + ", ".join(str(d.size) for d in info.tensor_shape.dim) + ")"
    return [
        f"{indent}    dtype: {types_pb2.DataType.Name(info.dtype)}",
        f"{indent}    shape: {shape}",
        f"{indent}    name: {info.name}",
    ]


def _ops_used(meta: Any) -> set[str]:
    """The ops of the graph and of the library functions its nodes call, directly or not (TF's
    ops_used_by_graph_def)."""
    functions = {f.signature.name: f for f in meta.graph_def.library.function}
    ops: set[str] = set()
    seen: set[str] = set()
    pending = [list(meta.graph_def.node)]
    while pending:
        for node in pending.pop():
            called = [node.op] + [v.func.name for v in node.attr.values() if v.HasField("func")]
            called += [f.name for v in node.attr.values() for f in v.list.func]
            if node.op not in functions:
                ops.add(node.op)
            for name in called:
                if name in functions and name not in seen:
                    seen.add(name)
                    pending.append(list(functions[name].node_def))
    return ops


def _spec_lines(values: Any, kind: str) -> list[str]:
    from modtensor.framework.tensor import TensorSpec

    lines = []
    for index, element in enumerate(values, start=1):
        lines.append(f"        {kind} #{index}")
        if isinstance(element, TensorSpec):
            lines.append(f"          {element.name}: {element!r}")
        elif isinstance(element, str):
            lines.append(f"          {element}")
        else:
            lines.append(f"          DType: {type(element).__name__}")
            lines.append(f"          Value: {element}")
    return lines


def _function_lines(meta: Any) -> list[str]:
    from modtensor.api import nested_structure

    graph = meta.object_graph_def
    if not graph.nodes:
        return []
    lines = ["", "Concrete Functions:"]
    root = graph.nodes[0]
    functions = sorted(
        (ref.local_name, graph.nodes[ref.node_id].function)
        for ref in root.children
        if graph.nodes[ref.node_id].WhichOneof("kind") == "function"
    )
    for position, (name, function) in enumerate(functions):
        if position:
            lines.append("")
        lines.append(f"  Function Name: '{name}'")
        for index, concrete_name in enumerate(sorted(function.concrete_functions), start=1):
            saved = graph.concrete_functions.get(concrete_name)
            if saved is None:
                continue
            args, kwargs = nested_structure.decode(saved.canonicalized_input_signature)
            if args:
                lines += [f"    Option #{index}", "      Callable with:"]
                lines += _spec_lines(args, "Argument")
            if kwargs:
                lines += _spec_lines(list(kwargs.values()), "Named Argument")
    return lines


def show_all(export_dir: str) -> str:
    """The text ``saved_model_cli show --dir DIR --all`` prints for the SavedModel at ``export_dir``."""
    from modtensor.api.saved_model_load import read_saved_model

    saved_model = read_saved_model(export_dir)
    lines: list[str] = []
    for meta in sorted(saved_model.meta_graphs, key=lambda m: sorted(m.meta_info_def.tags)):
        tags = list(meta.meta_info_def.tags)
        lines += ["", f"MetaGraphDef with tag-set: '{', '.join(tags)}' contains the following SignatureDefs:"]
        for key in sorted(meta.signature_def):
            signature = meta.signature_def[key]
            lines += ["", f"signature_def['{key}']:"]
            lines.append("  The given SavedModel SignatureDef contains the following input(s):")
            for name, info in sorted(signature.inputs.items()):
                lines.append(f"    inputs['{name}'] tensor_info:")
                lines += _tensor_info_lines(info, "    ")
            lines.append("  The given SavedModel SignatureDef contains the following output(s):")
            for name, info in sorted(signature.outputs.items()):
                lines.append(f"    outputs['{name}'] tensor_info:")
                lines += _tensor_info_lines(info, "    ")
            lines.append(f"  Method name is: {signature.method_name}")
        ops = ", ".join(repr(op) for op in sorted(_ops_used(meta)))
        lines.append(f"The MetaGraph with tag set {tags} contains the following ops: {{{ops}}}")
    for meta in saved_model.meta_graphs[:1]:
        lines += _function_lines(meta)
    return "\n".join(lines) + "\n"


def run_signature(args: argparse.Namespace, feeds: dict[str, np.ndarray]) -> int:
    """``modtensor run DIR``: load the SavedModel, call ``--signature`` with the inputs by key, print the outputs."""
    from modtensor.api.saved_model_load import load
    from modtensor.cli.run import summarize

    start = time.perf_counter()
    loaded = load(args.model)
    loaded_ms = (time.perf_counter() - start) * 1e3
    name = args.signature or "serving_default"
    signatures = loaded.signatures
    if name not in signatures:
        raise ValueError(
            f"{args.model} has no signature '{name}' (signatures: {', '.join(sorted(signatures)) or 'none'})"
        )
    function = signatures[name]
    keywords = {key.split(":")[0]: value for key, value in feeds.items()}
    missing = [k for k in function._arg_keywords if k not in keywords]
    if missing:
        specs = {spec.name: spec for spec in function._input_specs}
        wanted = ", ".join(f"{k} ({specs[k]!r})" if k in specs else k for k in missing)
        raise ValueError(f"missing --input for signature '{name}': {wanted}")
    unknown = sorted(set(keywords) - set(function._arg_keywords))
    if unknown:
        raise ValueError(f"unknown --input {unknown} for signature '{name}' (inputs: {function._arg_keywords})")
    start = time.perf_counter()
    results = function(**keywords)
    elapsed = (time.perf_counter() - start) * 1e3
    print(
        f"{args.model}: signature '{name}' ran in {elapsed:.1f} ms (including compilation; loading took "
        f"{loaded_ms:.1f} ms)"
    )
    if not isinstance(results, dict):
        results = {"output_0": results}
    save_dir = Path(args.save) if args.save else None
    if save_dir is not None:
        save_dir.mkdir(parents=True, exist_ok=True)
    wanted_outputs = [o.split(":")[0] for o in args.output] or sorted(results)
    for key in wanted_outputs:
        if key not in results:
            raise ValueError(f"unknown --output '{key}' (outputs of '{name}': {sorted(results)})")
        array = np.asarray(results[key])
        line = f"{key}: {array.dtype.name}{list(array.shape)}"
        if save_dir is not None:
            path = save_dir / f"{key}.npy"
            np.save(path, array)
            print(f"{line} -> {path}")
        else:
            print(f"{line} {summarize(array)}")
    return 0
