"""``modtensor run MODEL --input NAME=FILE.npy ...``: run a GraphDef, or a SavedModel's signature, on .npy inputs.

A SavedModel directory is loaded (``tf.saved_model.load``) and its ``--signature`` (default
``serving_default``) is called with the inputs by key (``--input x=FILE.npy``); see
``cli/saved_model_cli.py``.

The model (binary ``.pb`` or text ``.pbtxt``) is imported into a Graph, which
validates it and infers static shapes, and run through a ``Session``. Outputs are
the ``--output`` tensors, or every tensor nothing in the graph consumes; each is
printed with its dtype, shape and a value summary, or saved as ``.npy`` under
``--save DIR``. ``--log-placement`` prints where each op ran, in TensorFlow's
``name: (Op): device`` form. Placement is soft: a device the GraphDef names but
this process lacks (an exporter's GPU) falls back to one that has the kernel.
``--plugin PATH`` loads a plugin library (or a folder of them) before the model is read.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from modtensor.cli.inspect_graph import load

_PREVIEW = 6  # values shown per output


def add_parser(sub: Any) -> None:
    """Register the ``run`` subcommand."""
    p = sub.add_parser("run", help="run a GraphDef (.pb or .pbtxt) or a SavedModel signature on inputs from .npy files")
    p.add_argument("model", help="path of a GraphDef file, binary (.pb) or text (.pbtxt), or a SavedModel directory")
    p.add_argument(
        "--signature",
        metavar="NAME",
        help="SavedModel only: the signature to call (default: serving_default)",
    )
    p.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="feed tensor NAME (e.g. x or x:0) with the array in FILE.npy; repeat for each input",
    )
    p.add_argument(
        "--output",
        action="append",
        default=[],
        metavar="NAME",
        help="tensor to fetch (repeatable; default: every tensor nothing consumes)",
    )
    p.add_argument("--save", metavar="DIR", help="write each output to DIR/NAME.npy instead of printing values")
    p.add_argument("--log-placement", action="store_true", help="print the device every op runs on")
    p.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="PATH",
        help="load this plugin library (or every .so of a folder) first; repeatable",
    )
    p.set_defaults(func=run)


def _tensor_name(name: str) -> str:
    return name if ":" in name else f"{name}:0"


def parse_inputs(specs: list[str]) -> dict[str, np.ndarray]:
    """``["x=a.npy", "y:0=b.npy"]`` -> {"x:0": array, "y:0": array}; ValueError names a bad spec or file."""
    feeds: dict[str, np.ndarray] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"bad --input '{spec}': expected NAME=FILE.npy (for example x=input.npy)")
        if not Path(path).is_file():
            raise ValueError(f"--input {name}: no such file '{path}'")
        try:
            value = np.load(path, allow_pickle=False)
        except ValueError as exc:
            raise ValueError(f"--input {name}: '{path}' is not a .npy array file ({exc})") from None
        if not isinstance(value, np.ndarray):
            raise ValueError(f"--input {name}: '{path}' holds several arrays (.npz); pass one .npy per input")
        feeds[_tensor_name(name)] = value
    return feeds


def _resolve(graph: Any, name: str, what: str) -> Any:
    try:
        return graph.get_tensor_by_name(_tensor_name(name))
    except (KeyError, ValueError):
        if what == "--input":
            known = ", ".join(op.name for op in graph.get_operations() if op.type == "Placeholder") or "none"
            hint = f"placeholders: {known}"
        else:
            hint = f"outputs nothing consumes: {', '.join(t.name for t in default_outputs(graph)) or 'none'}"
        raise ValueError(f"unknown {what} '{name}': no tensor '{_tensor_name(name)}' in the model ({hint})") from None


def default_outputs(graph: Any) -> list[Any]:
    """Every output of an op with inputs that nothing in the graph consumes (the model's results)."""
    ops = graph.get_operations()
    consumed = {t.name for op in ops for t in op.inputs}
    return [t for op in ops if op.inputs or op.control_inputs for t in op.outputs if t.name not in consumed]


def missing_placeholders(graph: Any, fetches: list[Any], fed: set[str]) -> list[Any]:
    """Placeholders (without default) the fetches depend on that are not fed."""
    missing, seen = [], set()
    stack = [t.op for t in fetches]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.type == "Placeholder" and op.outputs[0].name not in fed:
            missing.append(op)
        stack.extend(t.op for t in op.inputs if t.name not in fed)
        stack.extend(op.control_inputs)
    return sorted(missing, key=lambda op: op.name)


def summarize(value: np.ndarray) -> str:
    """``min=... max=... mean=...`` and the first values, for printing an output."""
    flat = value.reshape(-1)
    head = np.array2string(flat[:_PREVIEW], precision=5, separator=", ")
    if value.size > _PREVIEW:
        head = head[:-1] + ", ...]"
    if value.size == 0 or value.dtype.kind not in "biuf":
        return f"values={head}"
    stats = flat.astype(np.float64)
    return f"min={stats.min():.6g} max={stats.max():.6g} mean={stats.mean():.6g} values={head}"


def run(args: argparse.Namespace) -> int:
    """Load, feed, run and report one model; return the exit status."""
    from modtensor.cli import progress, saved_model_cli
    from modtensor.framework.protos import config_pb2
    from modtensor.plugin import load_library
    from modtensor.runtime.session import Session

    feeds = parse_inputs(args.input)
    for path in args.plugin:
        load_library(path)
    if saved_model_cli.is_saved_model(args.model):
        return saved_model_cli.run_signature(args, feeds)
    if args.signature:
        raise ValueError(f"--signature applies to SavedModel directories; {args.model} is not one")
    graph = load(args.model)
    feed_tensors = {_resolve(graph, name, "--input"): value for name, value in feeds.items()}
    fetches = [_resolve(graph, name, "--output") for name in args.output] or default_outputs(graph)
    if not fetches:
        raise ValueError(f"{args.model} has no outputs to fetch; name one with --output")
    missing = missing_placeholders(graph, fetches, {t.name for t in feed_tensors})
    if missing:
        wanted = ", ".join(f"{op.name} ({op.outputs[0].dtype.name}, shape {op.outputs[0].shape})" for op in missing)
        raise ValueError(f"missing --input for placeholder(s): {wanted}")
    # Soft placement: a device named in a foreign GraphDef (say GPU:0) that this process lacks falls back.
    config = config_pb2.ConfigProto(allow_soft_placement=True, log_device_placement=args.log_placement)
    nodes = len(graph.get_operations())
    with Session(graph=graph, config=config) as session:
        start = time.perf_counter()
        with progress.step(f"placing, optimizing and running {args.model} ({nodes:,} nodes)", nodes):
            values = session.run(fetches, feed_dict=feed_tensors)
        elapsed = (time.perf_counter() - start) * 1e3
    print(f"{args.model}: ran {len(fetches)} output(s) in {elapsed:.1f} ms (including compilation)")
    save_dir = Path(args.save) if args.save else None
    if save_dir is not None:
        save_dir.mkdir(parents=True, exist_ok=True)
    for tensor, value in zip(fetches, values, strict=True):
        array = np.asarray(value)
        line = f"{tensor.name}: {array.dtype.name}{list(array.shape)}"
        if save_dir is not None:
            path = save_dir / (tensor.name.replace("/", "__").replace(":", "_") + ".npy")
            np.save(path, array)
            print(f"{line} -> {path}")
        else:
            print(f"{line} {summarize(array)}")
    return 0
