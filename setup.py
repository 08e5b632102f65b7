"""Build of modtensor's native parts (everything else is declared in pyproject.toml).

Six C libraries are built with the package:

- ``modtensor/lib/libmodtensor_framework.so``: the shim exporting TensorFlow's plugin
  C API (csrc/shim, plain C11, no Python dependency). Plugins resolve their ``TF_*``
  symbols from it; ``modtensor.sysconfig.get_link_flags()`` links against it.
- ``modtensor/plugin/native/_bridge``: the CPython extension that attaches the
  Python runtime to the shim (csrc/bridge, links the shim through an $ORIGIN rpath).

- ``modtensor/framework/_crc32c``: CRC-32C for the checkpoint formats (csrc/checksum; SSE4.2 when the CPU
  has it); ``framework/crc32c.py`` falls back to Python without it.

- ``modtensor/lib/_pywrap_tensorflow_internal.so``: a library with the name binary TensorFlow
  plugins list as NEEDED (csrc/compat), depending on the shim; loaded before plugins.
- ``modtensor/runtime/_plan_runner``: the executor's straight-line plan loop in C (csrc/plan), a
  CPython extension of its own; without it the executor runs the same loop in Python.
- ``modtensor/lib/libmodtensor_cpu_kernels.so``: the native CPU kernels (csrc/cpu_kernels), a
  plugin like any other (``TF_InitKernel``) that the runtime loads as a built-in plugin at
  first use; it links the shim. Without it the numpy kernels serve every op.
- ``modtensor/kernels/cpu/_image_codecs``: JPEG, PNG and WebP through the system's libjpeg(-turbo), libpng and
  libwebp (csrc/image_codecs), as TensorFlow uses them; built only where their headers are installed
  (Debian: libjpeg-dev, libpng-dev; libwebp-dev for WebP), else the codec ops say what to install.

The C headers under include/ are installed as ``modtensor/include`` so that
``modtensor.sysconfig.get_include()`` works from an installed package, and the golden models of
examples/models/ as ``modtensor/golden_models`` (``modtensor demo`` and ``modtensor check`` from any
directory).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIM = "modtensor.lib.libmodtensor_framework"
SHIM_FILE = "libmodtensor_framework.so"
CPU_KERNELS = "modtensor.lib.libmodtensor_cpu_kernels"
CPU_KERNELS_FILE = "libmodtensor_cpu_kernels.so"
BRIDGE = "modtensor.plugin.native._bridge"
PLAN_RUNNER = "modtensor.runtime._plan_runner"
COMPAT = "modtensor.lib._pywrap_tensorflow_internal"
COMPAT_FILE = "_pywrap_tensorflow_internal.so"
CRC32C = "modtensor.framework._crc32c"
IMAGE_CODECS = "modtensor.kernels.cpu._image_codecs"
WARNINGS = ["-std=c11", "-Wall", "-Wextra", "-fvisibility=hidden"]


def _sources(folder: str) -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "csrc" / folder).glob("*.c"))


class BuildNative(build_ext):
    """Builds the shim first (a plain shared library with a fixed name), then the bridge against it."""

    def get_ext_filename(self, fullname: str) -> str:
        # Called with the full dotted name or only its last part, depending on the caller.
        for dotted, file in ((SHIM, SHIM_FILE), (COMPAT, COMPAT_FILE), (CPU_KERNELS, CPU_KERNELS_FILE)):
            if fullname in (dotted, dotted.rpartition(".")[2]):
                filename = super().get_ext_filename(fullname)
                return os.path.join(os.path.dirname(filename), file)
        return super().get_ext_filename(fullname)

    def copy_extensions_to_source(self) -> None:
        # In-place (editable) builds: modtensor/lib holds no Python module, so make the folder first.
        build_py = self.get_finalized_command("build_py")
        all_extensions = self.extensions

        def built(ext: Extension) -> bool:
            return os.path.exists(os.path.join(self.build_lib, self.get_ext_filename(self.get_ext_fullname(ext.name))))

        self.extensions = [ext for ext in all_extensions if built(ext)]
        for ext in self.extensions:
            package = self.get_ext_fullname(ext.name).rpartition(".")[0]
            os.makedirs(build_py.get_package_dir(package), exist_ok=True)
        try:
            super().copy_extensions_to_source()  # only what was built (both are optional)
        finally:
            self.extensions = all_extensions

    def _toolchain_problem(self) -> str | None:
        """Why the native libraries cannot be built here (no C compiler, no Python.h), or None when they can."""
        import sysconfig

        compiler = getattr(self.compiler, "compiler_so", None) or getattr(self.compiler, "compiler", None) or []
        executable = compiler[0] if compiler else "cc"
        if shutil.which(executable) is None:
            return f"no C compiler ({executable!r} is not on PATH)"
        python_h = Path(sysconfig.get_paths()["include"]) / "Python.h"
        if not python_h.is_file():
            return f"no Python headers ({python_h} is missing; install python3-dev)"
        return None

    def build_extensions(self) -> None:
        import numpy

        by_name = {ext.name: ext for ext in self.extensions}
        shim, bridge, compat = by_name[SHIM], by_name[BRIDGE], by_name[COMPAT]
        problem = self._toolchain_problem()
        if problem is not None:
            # Without a toolchain modtensor still installs and works; loading a native plugin then
            # explains that the native library is missing.
            print(f"WARNING: modtensor's native libraries are not built: {problem}", flush=True)
            return
        # With a toolchain a C error fails the build (loudly): an old library left in place would
        # silently run code that no longer matches the sources.
        self.build_extension(by_name[CRC32C])
        self.build_extension(shim)
        bridge.include_dirs.append(numpy.get_include())
        bridge.library_dirs.append(os.path.dirname(self.get_ext_fullpath(SHIM)))
        self.build_extension(bridge)
        compat.library_dirs.append(os.path.dirname(self.get_ext_fullpath(SHIM)))
        self.build_extension(compat)
        kernels = by_name[CPU_KERNELS]
        kernels.library_dirs.append(os.path.dirname(self.get_ext_fullpath(SHIM)))
        self.build_extension(kernels)
        plan_runner = by_name[PLAN_RUNNER]
        plan_runner.include_dirs.append(numpy.get_include())
        self.build_extension(plan_runner)
        missing = self._missing_headers(("jpeglib.h", "png.h", "zlib.h"))
        if missing:
            print(f"WARNING: modtensor's JPEG/PNG codecs are not built: {missing} not found "
                  "(Debian: apt-get install libjpeg-dev libpng-dev)", flush=True)  # fmt: skip
            return
        codecs = by_name[IMAGE_CODECS]
        if self._missing_headers(("webp/decode.h", "webp/demux.h")):
            print("WARNING: modtensor's WebP decoder is not built: the libwebp headers were not found "
                  "(Debian: apt-get install libwebp-dev)", flush=True)  # fmt: skip
        else:
            codecs.define_macros.append(("MTIC_HAVE_WEBP", "1"))
            codecs.libraries += ["webp", "webpdemux"]
        self.build_extension(codecs)

    def _missing_headers(self, headers: tuple[str, ...]) -> str:
        """Those of the codec libraries' ``headers`` the C compiler cannot find, '' when it finds them all."""
        import subprocess
        import tempfile

        compiler = getattr(self.compiler, "compiler_so", None) or ["cc"]
        missing = []
        for header in headers:
            with tempfile.TemporaryDirectory() as scratch:
                source = Path(scratch) / "probe.c"
                source.write_text(f"#include <stddef.h>\n#include <stdio.h>\n#include <{header}>\n")
                probe = subprocess.run([compiler[0], "-fsyntax-only", str(source)], capture_output=True)
            if probe.returncode != 0:
                missing.append(header)
        return ", ".join(missing)


class BuildPyWithHeaders(build_py):
    """Copies the TensorFlow-compatible headers (include/) into the package as modtensor/include, and the
    golden models (examples/models/, the one copy in the repository) into modtensor/golden_models."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "modtensor" / "include"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / "include", target, ignore=shutil.ignore_patterns("README.md"))
        # Next to the package's __init__.py (copied by build_py), so the folder is the module's own.
        shutil.copytree(ROOT / "examples" / "models", Path(self.build_lib) / "modtensor" / "golden_models",
                        dirs_exist_ok=True)  # fmt: skip


setup(
    ext_modules=[
        Extension(
            SHIM,
            sources=_sources("shim"),
            include_dirs=["include"],
            extra_compile_args=[*WARNINGS, "-O2"],
            extra_link_args=[f"-Wl,-soname,{SHIM_FILE}", "-pthread", "-Wl,-z,defs"],
            optional=True,
        ),
        Extension(
            BRIDGE,
            sources=_sources("bridge"),
            include_dirs=["include", "csrc/shim"],
            libraries=[f":{SHIM_FILE}"],
            extra_compile_args=[*WARNINGS, "-O2"],
            extra_link_args=["-Wl,-rpath,$ORIGIN/../../lib", "-pthread"],
            optional=True,
        ),
        # The native CPU kernels (csrc/cpu_kernels), loaded by the runtime as a built-in plugin.
        Extension(
            CPU_KERNELS,
            sources=_sources("cpu_kernels"),
            include_dirs=["include"],
            libraries=[f":{SHIM_FILE}", "m", "dl"],
            extra_compile_args=[*WARNINGS, "-O3"],
            extra_link_args=["-Wl,-rpath,$ORIGIN", "-pthread"],
            optional=True,
        ),
        # The executor's plan loop in C (csrc/plan); the executor runs its Python loop without it.
        Extension(
            PLAN_RUNNER,
            sources=_sources("plan"),
            extra_compile_args=[*WARNINGS, "-O2"],
            optional=True,
        ),
        # The name binary TensorFlow plugins list as NEEDED (csrc/compat): resolves them against the shim.
        Extension(
            COMPAT,
            sources=_sources("compat"),
            include_dirs=["include"],
            libraries=[f":{SHIM_FILE}"],
            extra_compile_args=[*WARNINGS, "-O2"],
            extra_link_args=[f"-Wl,-soname,{COMPAT_FILE}", "-Wl,-rpath,$ORIGIN", "-Wl,-z,defs"],
            optional=True,
        ),
        # JPEG, PNG and WebP (csrc/image_codecs) through the system's libjpeg, libpng and libwebp, as TF uses them.
        Extension(
            IMAGE_CODECS,
            sources=_sources("image_codecs"),
            libraries=["jpeg", "png", "z"],
            extra_compile_args=[*WARNINGS, "-O2"],
            optional=True,
        ),
        Extension(
            CRC32C,
            sources=_sources("checksum"),
            include_dirs=["csrc/checksum"],
            extra_compile_args=[*WARNINGS, "-O3"],
            extra_link_args=["-pthread"],
            optional=True,
        ),
    ],
    cmdclass={"build_ext": BuildNative, "build_py": BuildPyWithHeaders},
)
