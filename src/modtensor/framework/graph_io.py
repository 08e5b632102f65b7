"""Reading and writing GraphDef files: binary ``.pb`` or text ``.pbtxt``, told apart by content.

Also ``graph_def_equal``/``graph_def_diff``: a semantic comparison (node order, map
order and default-valued encodings ignored) for round-trip checks and tests.
"""

from __future__ import annotations

import os
from typing import Any

from google.protobuf import message, text_format

from modtensor.framework import attr_value
from modtensor.framework.protos import graph_pb2, node_def_pb2

__all__ = ["graph_def_diff", "graph_def_equal", "read_graph_def", "write_graph_def"]

_TEXT_SUFFIXES = (".pbtxt", ".txt", ".prototxt")


def _looks_like_text(data: bytes) -> bool:
    """Text protos are UTF-8 with no control bytes besides whitespace; binary GraphDefs rarely are."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(ch in "\t\n\r" or ch >= " " for ch in text)


def read_graph_def(path: str | os.PathLike[str]) -> graph_pb2.GraphDef:
    """Parse the GraphDef in ``path``, binary or text (tried in the likelier order first).

    Raises FileNotFoundError for a missing file and ValueError naming the file and
    both parse errors when it is neither format.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    attempts = ("text", "binary") if _looks_like_text(data) else ("binary", "text")
    failures = []
    for kind in attempts:
        graph_def = graph_pb2.GraphDef()
        try:
            if kind == "binary":
                graph_def.ParseFromString(data)
            else:
                text_format.Parse(data.decode("utf-8"), graph_def)
            return graph_def
        except (message.DecodeError, text_format.ParseError, UnicodeDecodeError, ValueError) as e:
            failures.append(f"as {kind}: {e}")
    raise ValueError(
        f"Cannot read a GraphDef from '{path}': it parses neither as a binary nor as a text GraphDef "
        f"({'; '.join(failures)}). Check that the file is a GraphDef (.pb or .pbtxt), not a SavedModel or "
        "another proto."
    )


def write_graph_def(graph_def: Any, path: str | os.PathLike[str], as_text: bool | None = None) -> str:
    """Write ``graph_def`` (a GraphDef, or a Graph) to ``path``; returns the path.

    ``as_text=None`` writes text for a ``.pbtxt``/``.txt``/``.prototxt`` name, else
    binary. Parent directories are created.
    """
    if hasattr(graph_def, "as_graph_def"):
        graph_def = graph_def.as_graph_def()
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError(f"write_graph_def needs a GraphDef or a Graph, not {type(graph_def).__name__}")
    path = os.fspath(path)
    if as_text is None:
        as_text = path.endswith(_TEXT_SUFFIXES)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    if as_text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text_format.MessageToString(graph_def))
    else:
        with open(path, "wb") as f:
            f.write(graph_def.SerializeToString(deterministic=True))
    return path


def _inputs(node: node_def_pb2.NodeDef) -> tuple[list[str], list[str]]:
    data = [i for i in node.input if not i.startswith("^")]
    control = sorted(i for i in node.input if i.startswith("^"))
    return data, control


def _node_diff(name: str, a: node_def_pb2.NodeDef, b: node_def_pb2.NodeDef, ignore: frozenset[str]) -> list[str]:
    diffs = []
    data_a, control_a = _inputs(a)
    data_b, control_b = _inputs(b)
    for field, va, vb in (
        ("op", a.op, b.op),
        ("data inputs", data_a, data_b),
        ("control inputs", control_a, control_b),
        ("device", a.device, b.device),
    ):
        if va != vb:
            diffs.append(f"node '{name}': {field} differ: {va!r} vs {vb!r}")
    for key in sorted((set(a.attr) | set(b.attr)) - ignore):
        in_a, in_b = key in a.attr, key in b.attr
        if in_a and in_b and attr_value.attr_value_equal(a.attr[key], b.attr[key]):
            continue
        show_a = text_format.MessageToString(a.attr[key], as_one_line=True) if in_a else "<absent>"
        show_b = text_format.MessageToString(b.attr[key], as_one_line=True) if in_b else "<absent>"
        diffs.append(f"node '{name}': attr '{key}' differs: {show_a} vs {show_b}")
    return diffs


def graph_def_diff(
    a: graph_pb2.GraphDef,
    b: graph_pb2.GraphDef,
    ignore_attrs: frozenset[str] | set[str] = frozenset(),
    compare_versions: bool = True,
    compare_library: bool = True,
) -> list[str]:
    """Human-readable differences between two GraphDefs (empty when semantically equal).

    Node order and the order of control inputs do not matter; attrs compare
    semantically (tensors by value, whatever their encoding), except those in
    ``ignore_attrs``.
    """
    ignore = frozenset(ignore_attrs)
    nodes_a = {n.name: n for n in a.node}
    nodes_b = {n.name: n for n in b.node}
    diffs = []
    for name in sorted(set(nodes_a) - set(nodes_b)):
        diffs.append(f"node '{name}' only in the first GraphDef")
    for name in sorted(set(nodes_b) - set(nodes_a)):
        diffs.append(f"node '{name}' only in the second GraphDef")
    for name in sorted(set(nodes_a) & set(nodes_b)):
        diffs.extend(_node_diff(name, nodes_a[name], nodes_b[name], ignore))
    if compare_versions and a.versions.SerializeToString(deterministic=True) != b.versions.SerializeToString(
        deterministic=True
    ):
        diffs.append(
            f"versions differ: {text_format.MessageToString(a.versions, as_one_line=True)} vs "
            f"{text_format.MessageToString(b.versions, as_one_line=True)}"
        )
    if compare_library:
        fa = {f.signature.name: f.SerializeToString(deterministic=True) for f in a.library.function}
        fb = {f.signature.name: f.SerializeToString(deterministic=True) for f in b.library.function}
        for fname in sorted(set(fa) | set(fb)):
            if fa.get(fname) != fb.get(fname):
                diffs.append(f"function '{fname}' differs or is missing")
    return diffs


def graph_def_equal(a: graph_pb2.GraphDef, b: graph_pb2.GraphDef, **kwargs: Any) -> bool:
    """True when ``graph_def_diff(a, b, **kwargs)`` finds no difference."""
    return not graph_def_diff(a, b, **kwargs)
