"""modtensor.sysconfig: the flags a plugin author uses, and a plugin that links the shim explicitly."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from modtensor import sysconfig
from modtensor.plugin import load_library

from .support import CSRC, node, run


def test_include_and_lib_folders_hold_the_headers_and_the_shim():
    assert (Path(sysconfig.get_include()) / "tensorflow" / "c" / "kernels.h").is_file()
    assert (Path(sysconfig.get_include()) / "modtensor" / "kernel_cpp.hpp").is_file()
    assert (Path(sysconfig.get_lib()) / "libmodtensor_framework.so").is_file()
    assert sysconfig.get_compile_flags() == [f"-I{sysconfig.get_include()}"]
    assert sysconfig.get_link_flags() == [f"-L{sysconfig.get_lib()}", "-l:libmodtensor_framework.so"]
    assert sysconfig.get_build_info()["shim_library"].endswith("libmodtensor_framework.so")


def test_a_plugin_linked_against_the_shim_loads_and_runs(build_plugin):
    flags = [*sysconfig.get_compile_flags(), *sysconfig.get_link_flags(), '-DDISCO_OP="MtLinked"', "-DDISCO_VALUE=5"]
    path = build_plugin("linked", sources=[CSRC / "disco.c"], flags=flags)
    needed = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True).stdout
    assert "libmodtensor_framework.so" in needed  # an explicit dependency, satisfied by the loaded shim
    load_library(path)
    (out,) = run(node("MtLinked", []), [])
    assert out.dtype == np.float32 and float(out) == 5.0
