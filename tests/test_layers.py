"""The layers of docs/architecture.md import downward only, lazy (function-level) imports included.

framework <- ops <- grappler <- runtime <- kernels: a package may import its own layer and
the ones below it, never one above (the runtime reaches the CPU kernels and plugin discovery
only through hooks those layers install). A violation here is how a layer quietly starts
depending on the code built on it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import modtensor

LAYERS = ("framework", "ops", "grappler", "runtime", "kernels")
PACKAGE = Path(modtensor.__file__).resolve().parent


def _modtensor_imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            if node.module == "modtensor":
                names = [f"modtensor.{alias.name}" for alias in node.names]
            found += [(node.lineno, name) for name in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, name) for line, name in found if name.startswith("modtensor.")]


def _upward_imports(layer: str) -> list[str]:
    allowed = set(LAYERS[: LAYERS.index(layer) + 1])
    bad = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for line, name in _modtensor_imports(ast.parse(path.read_text(), str(path))):
            if name.split(".")[1] not in allowed:
                bad.append(f"{path.relative_to(PACKAGE)}:{line} imports {name}")
    return bad


def test_framework_ops_grappler_runtime_kernels_import_only_downward() -> None:
    bad = [entry for layer in LAYERS for entry in _upward_imports(layer)]
    assert bad == [], "imports that point up a layer (docs/architecture.md):\n" + "\n".join(bad)


def test_the_check_sees_a_lazy_upward_import() -> None:
    tree = ast.parse("def f():\n    from modtensor.kernels.cpu.registrations import register_cpu_kernels\n")
    assert _modtensor_imports(tree) == [(2, "modtensor.kernels.cpu.registrations")]


def test_only_the_plugin_layer_binds_c_libraries() -> None:
    """ARCHITECTURE.md's C-ABI rule: ctypes (and the bridge extension) appear only under ``plugin/``; the runtime
    reaches a native library through interfaces the plugin layer fills (e.g. ``runtime/intra_op.NativePool``)."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "plugin":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            bad += [f"{relative}:{node.lineno} imports {n}" for n in names if n.split(".")[0] == "ctypes"]
    assert bad == []
