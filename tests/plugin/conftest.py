"""Fixtures for the plugin tests: C plugins compiled once per session (per xdist worker) into a tmp dir."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from .support import CSRC, INCLUDE

Builder = Callable[..., Path]


def _compile(compiler: str, sources: Sequence[Path], output: Path, flags: Sequence[str]) -> None:
    cmd = [compiler, "-shared", "-fPIC", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}"]
    cmd += [str(s) for s in sources] + ["-o", str(output), *flags, "-pthread"]  # link flags after the sources
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"compiling {output.name} failed:\n{' '.join(cmd)}\n{result.stderr}")


@pytest.fixture(scope="session")
def build_plugin(tmp_path_factory: pytest.TempPathFactory) -> Builder:
    """``build_plugin(name, sources=None, flags=(), compiler="gcc")`` -> path of ``name.so`` (built once).

    ``sources`` default to ``tests/plugin/csrc/<name>.c``.
    """
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("plugins")
    built: dict[tuple, Path] = {}

    def build(
        name: str, sources: Sequence[Path] | None = None, flags: Sequence[str] = (), compiler: str = "gcc"
    ) -> Path:
        key = (name, tuple(map(str, sources or ())), tuple(flags), compiler)
        if key not in built:
            if shutil.which(compiler) is None:
                pytest.skip(f"{compiler} is not installed")
            target = out / f"{name}.so"
            _compile(compiler, sources or [CSRC / f"{name}.c"], target, flags)
            built[key] = target
        return built[key]

    return build


@pytest.fixture(scope="session")
def api_plugin(build_plugin: Builder) -> Path:
    """tests/plugin/csrc/api_plugin.c built and loaded into this process (once)."""
    from modtensor.plugin import load_library

    path = build_plugin("api_plugin")
    load_library(path)
    return path
