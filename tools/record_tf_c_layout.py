"""Record TensorFlow's C API layout facts to tests/golden/c_abi/tf_c_layout.json.

Run with any Python 3.11 (TensorFlow is not imported, only its installed headers are read):
    /tmp/tfvenv/bin/python tools/record_tf_c_layout.py [--tf-include DIR]
It parses the TF C headers modtensor mirrors under include/ (kernel/op API, StreamExecutor,
Graph and Profiler plugin APIs, and the internal headers they pull in), lists every enum
constant, struct member, integer macro, const variable, typedef and function, then compiles
one probe program against TF's headers with g++ and stores what it prints: enum values and
sizes, struct sizes/alignments, member offsets/sizes/types, macro values and the exact type
of every function. tests/c_abi/test_c_headers.py measures modtensor's headers the same way.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import platform
import re
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "c_abi"))

from c_header_parser import HeaderDecls, parse_header  # noqa: E402
from c_layout_probe import ProbeSpec, run_probe  # noqa: E402

OUT = REPO / "tests" / "golden" / "c_abi" / "tf_c_layout.json"
DEFAULT_TF_INCLUDE = pathlib.Path("/tmp/tfvenv/lib/python3.11/site-packages/tensorflow/include")

# The headers a plugin includes (what the probe #includes) ...
PUBLIC_HEADERS = [
    "tensorflow/c/c_api_macros.h",
    "tensorflow/c/tf_datatype.h",
    "tensorflow/c/tf_status.h",
    "tensorflow/c/tf_buffer.h",
    "tensorflow/c/tf_tensor.h",
    "tensorflow/c/tf_tstring.h",
    "tensorflow/c/tf_attrtype.h",
    "tensorflow/c/ops.h",
    "tensorflow/c/experimental/stream_executor/stream_executor.h",
    "tensorflow/c/kernels.h",
    "tensorflow/c/kernels_experimental.h",
    "tensorflow/c/experimental/grappler/grappler.h",
    "tensorflow/c/experimental/pluggable_profiler/pluggable_profiler.h",
    "tensorflow/c/c_api.h",
    "tensorflow/c/eager/c_api.h",
    "tensorflow/c/c_api_experimental.h",
]
# ... and the order their declarations are read in: a name belongs to the first header
# declaring it, so the internal headers come before the public ones that include them.
PARSE_ORDER = [
    "tensorflow/c/c_api_macros.h",
    "xla/tsl/c/tsl_status.h",
    "tensorflow/c/tf_datatype.h",
    "tensorflow/c/tf_status.h",
    "tensorflow/c/tf_buffer.h",
    "tensorflow/c/tf_tensor.h",
    "tsl/platform/ctstring_internal.h",
    "tsl/platform/ctstring.h",
    "tensorflow/c/tf_tstring.h",
    "tensorflow/c/tf_attrtype.h",
    "tensorflow/c/ops.h",
    "tensorflow/c/experimental/stream_executor/stream_executor.h",
    "tensorflow/core/common_runtime/next_pluggable_device/c/tf_rendezvous_c_api.h",
    "tensorflow/c/c_api.h",
    "tensorflow/c/eager/c_api.h",
    "tensorflow/c/c_api_experimental.h",
    "tensorflow/c/kernels.h",
    "tensorflow/c/kernels_experimental.h",
    "tensorflow/c/experimental/grappler/grappler.h",
    "tensorflow/c/experimental/pluggable_profiler/pluggable_profiler.h",
]
# Headers covered only in part (none since c_api.h, c_api_experimental.h and eager/c_api.h are shipped).
PARTIAL: dict[str, set[str]] = {}
# Functions with a C++-only overload (eager/c_api.h's tensorflow::Tensor one): no single type to probe.
CXX_OVERLOADED = {"TFE_NewTensorHandle"}
# Object-like macros that are not integer constants: the export attribute.
NOT_CONSTANTS = {"TF_CAPI_EXPORT"}
_BUILTIN_TYPE_WORDS = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool"}


def find_tf_include(explicit: str | None) -> pathlib.Path:
    """TensorFlow's header root: --tf-include, the importable package's include/, or the dev venv's."""
    if explicit:
        return pathlib.Path(explicit)
    spec = importlib.util.find_spec("tensorflow")  # locates the package without importing it
    if spec is not None and spec.submodule_search_locations:
        return pathlib.Path(next(iter(spec.submodule_search_locations))) / "include"
    return DEFAULT_TF_INCLUDE


def tf_version(include: pathlib.Path) -> str:
    """The version in the wheel's dist-info next to the tensorflow package."""
    for info in sorted(include.parent.parent.glob("tensorflow*.dist-info")):
        m = re.search(r"^Version:\s*(\S+)", (info / "METADATA").read_text(), re.M)
        if m:
            return m.group(1)
    return "unknown"


def restrict(decls: HeaderDecls, keep: set[str]) -> HeaderDecls:
    """Only the named declarations of a header covered in part."""
    out = HeaderDecls()
    out.structs = {k: v for k, v in decls.structs.items() if k in keep}
    out.typedefs = [t for t in decls.typedefs if t in keep]
    return out


def collect(include: pathlib.Path) -> dict:
    """Parse the headers into name lists, each name with the header that declares it first."""
    enums: dict[str, dict] = {}
    structs: dict[str, dict] = {}
    typedefs: dict[str, dict] = {}
    macros: dict[str, dict] = {}
    variables: dict[str, dict] = {}
    functions: dict[str, dict] = {}
    for header in PARSE_ORDER:
        decls = parse_header((include / header).read_text())
        if header in PARTIAL:
            decls = restrict(decls, PARTIAL[header])
        for name, consts in decls.enums.items():
            key = name if not name.startswith("enum@") else f"enum@{header}#{name[5:]}"
            enums.setdefault(key, {"header": header, "constants": consts})
        for name, members in decls.structs.items():
            structs.setdefault(name, {"header": header, "members": members})
        for name in decls.typedefs:
            typedefs.setdefault(name, {"header": header, "kind": "typedef"})
        for name in decls.opaque:
            if name not in structs and name not in typedefs:
                typedefs.setdefault(name, {"header": header, "kind": "struct tag"})
        for name in decls.variables:
            variables.setdefault(name, {"header": header})
        for fn in decls.functions.values():
            functions.setdefault(
                fn.name,
                {
                    "header": header,
                    "signature": fn.signature,
                    "exported": fn.exported,
                    "inline": fn.inline,
                    "plugin_entry": not fn.exported and not fn.inline and header.startswith("tensorflow/c/"),
                },
            )
        for name, value in decls.macros.items():
            if name.endswith(("_H_", "_H")) or name in NOT_CONSTANTS or not value or name in macros:
                continue
            words = value.split()
            if value in typedefs or all(w in _BUILTIN_TYPE_WORDS for w in words):
                typedefs.setdefault(name, {"header": header, "kind": "macro"})
            else:
                macros[name] = {"header": header}
    return {
        "enums": enums,
        "structs": structs,
        "typedefs": typedefs,
        "macros": macros,
        "variables": variables,
        "functions": functions,
    }


def measure(include: pathlib.Path, names: dict) -> dict:
    """Compile the probe against TF's headers (C++: ops.h and kernels.h are not valid C) and merge the values."""
    spec = ProbeSpec(
        includes=PUBLIC_HEADERS,
        enums={k: v["constants"] for k, v in names["enums"].items()},
        structs={k: v["members"] for k, v in names["structs"].items()},
        macros=list(names["macros"]),
        variables=list(names["variables"]),
        typedefs=list(names["typedefs"]),
        functions=[f for f in names["functions"] if f not in CXX_OVERLOADED],
    )
    with tempfile.TemporaryDirectory() as tmp:
        res = run_probe(spec, [include], pathlib.Path(tmp), cplusplus=True)
    missing = []
    enums = {}
    for key, info in names["enums"].items():
        consts = {}
        for c in info["constants"]:
            if c not in res.enum_constants:
                missing.append(c)
            consts[c] = res.enum_constants.get(c)
        enums[key] = {"header": info["header"], "size": res.enum_sizes.get(key), "constants": consts}
    structs = {}
    for key, info in names["structs"].items():
        got = res.structs[key]
        fields = []
        for m in info["members"]:
            offset, size = got["fields"][m]
            fields.append({"name": m, "offset": offset, "size": size, "type": res.types[f"field:{key}.{m}"]})
        structs[key] = {"header": info["header"], "size": got["size"], "align": got["align"], "fields": fields}
    typedefs = {k: {**v, "type": res.types[f"typedef:{k}"]} for k, v in names["typedefs"].items()}
    macros = {k: {**v, "value": res.macros[k]} for k, v in names["macros"].items()}
    variables = {k: {**v, "value": res.variables[k]} for k, v in names["variables"].items()}
    functions = {k: {**v, "type": res.types.get(f"function:{k}")} for k, v in names["functions"].items()}
    if missing:
        raise SystemExit(f"probe printed no value for: {', '.join(missing)}")
    return {
        "enums": enums,
        "structs": structs,
        "typedefs": typedefs,
        "macros": macros,
        "variables": variables,
        "functions": functions,
    }


def compiler_version() -> str:
    """First line of `g++ --version`, recorded next to the values it produced."""
    return subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]


def main() -> None:
    """Parse, measure and write the golden JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-include", help="TensorFlow's include/ directory")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    include = find_tf_include(args.tf_include)
    names = collect(include)
    data = {
        "about": "TensorFlow C API layout facts, written by tools/record_tf_c_layout.py; do not edit by hand.",
        "tensorflow_version": tf_version(include),
        "target": f"{platform.machine()} {platform.system()}, {compiler_version()}",
        "public_headers": PUBLIC_HEADERS,
        "parsed_headers": PARSE_ORDER,
        "partial_headers": {k: sorted(v) for k, v in PARTIAL.items()},
        **measure(include, names),
    }
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1) + "\n")
    counts = {k: len(data[k]) for k in ("enums", "structs", "typedefs", "macros", "variables", "functions")}
    n_consts = sum(len(e["constants"]) for e in data["enums"].values())
    n_fields = sum(len(s["fields"]) for s in data["structs"].values())
    print(f"wrote {out}: {counts}, {n_consts} enum constants, {n_fields} struct members")


if __name__ == "__main__":
    main()
