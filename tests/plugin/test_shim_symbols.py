"""The shim exports every function TensorFlow's plugin C API headers declare (modtensor's copies, in include/).

Headers checked: tensorflow/c/{kernels,ops,tf_status,tf_buffer,tf_tensor,tf_tstring,tf_datatype,
kernels_experimental}.h, tensorflow/c/experimental/grappler/grappler.h and xla/tsl/c/tsl_status.h.
Plugin entry points (TF_InitKernel, TF_InitGraph, TF_InitGraphPlugin) are
defined by plugins, not by the runtime. Functions modtensor cannot support yet still exist and
fail with TF_UNIMPLEMENTED (see docs/plugins.md).
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from modtensor.plugin.native import shim_path

from .support import INCLUDE, REPO

sys.path.insert(0, str(REPO / "tests" / "c_abi"))
from c_header_parser import parse_header  # noqa: E402

HEADERS = [
    "tensorflow/c/kernels.h",
    "tensorflow/c/ops.h",
    "tensorflow/c/tf_status.h",
    "tensorflow/c/tf_buffer.h",
    "tensorflow/c/tf_tensor.h",
    "tensorflow/c/tf_tstring.h",
    "tensorflow/c/tf_datatype.h",
    "tensorflow/c/kernels_experimental.h",
    "xla/tsl/c/tsl_status.h",
    "tensorflow/c/experimental/grappler/grappler.h",
]
PLUGIN_ENTRY_POINTS = {"TF_InitKernel", "TF_InitGraph", "TF_InitGraphPlugin"}
# Declared for source compatibility (graphs, sessions, the eager API); the shim exports what plugins call.
# docs/status.md gives these numbers; keep them in step.
PARTLY_EXPORTED = {
    "tensorflow/c/c_api.h": (
        175,
        {"TF_Version", "TF_TensorFromProto", "TF_GetAllOpList", "TF_GetAllRegisteredKernels",
         "TF_GetRegisteredKernelsForOp"},
    ),
    "tensorflow/c/c_api_experimental.h": (49, {"TF_OpIsStateful", "TF_MakeInternalErrorStatus"}),
    "tensorflow/c/eager/c_api.h": (67, set()),
}  # fmt: skip

needs_nm = pytest.mark.skipif(shutil.which("nm") is None, reason="nm (binutils) is not installed")


def declared_functions() -> dict[str, str]:
    """Every non-inline function the headers declare -> the header declaring it."""
    out = {}
    for header in HEADERS:
        for fn in parse_header((INCLUDE / header).read_text()).functions.values():
            if not fn.inline and fn.name not in PLUGIN_ENTRY_POINTS:
                out[fn.name] = header
    return out


def dynamic_symbols(*options: str) -> set[str]:
    done = subprocess.run(["nm", "-D", *options, str(shim_path())], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in done.stdout.splitlines() if line.strip()}


@needs_nm
def test_every_declared_function_is_exported_by_the_shim():
    declared = declared_functions()
    assert len(declared) >= 150  # the kernel/op API is large; a parser regression would shrink this
    exported = dynamic_symbols("--defined-only")
    missing = sorted(f"{name} ({header})" for name, header in declared.items() if name not in exported)
    assert missing == []


@needs_nm
def test_the_shim_does_not_depend_on_python():
    undefined = dynamic_symbols("--undefined-only")
    assert not [s for s in undefined if s.startswith(("Py", "_Py"))]
    exported = dynamic_symbols("--defined-only")
    assert not [s for s in exported if not s.startswith(("TF_", "TSL_", "MT_", "_"))]  # nothing else leaks


@needs_nm
def test_c_api_headers_export_what_plugins_call_and_declare_the_rest():
    exported = dynamic_symbols("--defined-only")
    for header, (count, expected) in PARTLY_EXPORTED.items():
        functions = [f.name for f in parse_header((INCLUDE / header).read_text()).functions.values() if not f.inline]
        assert len(functions) == count, header
        assert {f for f in functions if f in exported} == expected, header


def test_status_md_states_the_c_api_counts():
    text = (REPO / "docs" / "status.md").read_text()
    for header, (count, expected) in PARTLY_EXPORTED.items():
        assert f"`{header.removeprefix('tensorflow/c/')}`: {len(expected)} of {count} exported" in text, header
