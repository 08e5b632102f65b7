"""modtensor's C headers (include/) against TensorFlow 2.21's C API.

A plugin written against TensorFlow's headers must compile unchanged against
modtensor's and agree with the runtime on every value and layout. The reference
values come from tests/golden/c_abi/tf_c_layout.json (tools/record_tf_c_layout.py,
measured on TensorFlow's own headers); TensorFlow is not needed here, only gcc/g++.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest
from c_header_parser import HeaderDecls, parse_header
from c_layout_probe import ProbeResult, ProbeSpec, compiler, run_probe

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
INCLUDE = REPO / "include"
GOLDEN = json.loads((REPO / "tests" / "golden" / "c_abi" / "tf_c_layout.json").read_text())
HERE = pathlib.Path(__file__).resolve().parent

# Where modtensor declares a name in another header than TensorFlow (none today).
HEADER_OF: dict[str, str] = {}
# Declared by modtensor only: the design document's name for the graph plugin entry point.
EXTRA_FUNCTIONS = {"TF_InitGraphPlugin"}

needs_gcc = pytest.mark.skipif(compiler(False) is None, reason="gcc is not installed")
needs_gxx = pytest.mark.skipif(compiler(True) is None, reason="g++ is not installed")


def our_headers() -> list[str]:
    """Every header under include/, as its include path."""
    return sorted(p.relative_to(INCLUDE).as_posix() for p in INCLUDE.rglob("*.h"))


def parsed_ours() -> dict[str, HeaderDecls]:
    """Our headers parsed, keyed by include path."""
    return {h: parse_header((INCLUDE / h).read_text()) for h in our_headers()}


def probe_spec() -> ProbeSpec:
    """The probe over the names TensorFlow declares."""
    return ProbeSpec(
        includes=GOLDEN["public_headers"],
        enums={k: list(v["constants"]) for k, v in GOLDEN["enums"].items()},
        structs={k: [f["name"] for f in v["fields"]] for k, v in GOLDEN["structs"].items()},
        macros=list(GOLDEN["macros"]),
        variables=list(GOLDEN["variables"]),
        typedefs=list(GOLDEN["typedefs"]),
        functions=[k for k, v in GOLDEN["functions"].items() if v["type"] is not None],  # None: C++ overloads
    )


def layout_mismatches(res: ProbeResult, *, with_types: bool) -> list[str]:
    """Every recorded TensorFlow value that the probe over our headers measured differently."""
    bad: list[str] = []

    def check(what: str, ours: object, tf: object) -> None:
        if ours != tf:
            bad.append(f"{what}: modtensor {ours!r}, TensorFlow {tf!r}")

    for name, enum in GOLDEN["enums"].items():
        if enum["size"] is not None:
            check(f"sizeof({name})", res.enum_sizes.get(name), enum["size"])
        for const, value in enum["constants"].items():
            check(const, res.enum_constants.get(const), value)
    for name, struct in GOLDEN["structs"].items():
        got = res.structs.get(name, {"size": None, "align": None, "fields": {}})
        check(f"sizeof({name})", got["size"], struct["size"])
        check(f"alignof({name})", got["align"], struct["align"])
        for f in struct["fields"]:
            check(f"offsetof/sizeof({name}.{f['name']})", got["fields"].get(f["name"]), [f["offset"], f["size"]])
            if with_types:
                check(f"type of {name}.{f['name']}", res.types.get(f"field:{name}.{f['name']}"), f["type"])
    for name, macro in GOLDEN["macros"].items():
        check(name, res.macros.get(name), macro["value"])
    for name, var in GOLDEN["variables"].items():
        check(name, res.variables.get(name), var["value"])
    if with_types:
        for name, td in GOLDEN["typedefs"].items():
            check(f"type {name}", res.types.get(f"typedef:{name}"), td["type"])
        for name, fn in GOLDEN["functions"].items():
            check(f"type of {name}", res.types.get(f"function:{name}"), fn["type"])
    return bad


def compile_each(cxx: bool, sources: dict[str, str], tmp_path: pathlib.Path, flags: list[str]) -> None:
    """Compile the given sources (one translation unit each) in one compiler call; fail with its errors."""
    files = []
    for name, text in sources.items():
        path = tmp_path / name
        path.write_text(text)
        files.append(str(path))
    std = ["-std=c++17", "-x", "c++"] if cxx else ["-std=c11", "-x", "c"]
    cmd = [compiler(cxx), *std, "-fsyntax-only", *flags, f"-I{INCLUDE}", *files]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd[:8])} ...\n{proc.stderr[-6000:]}"


def test_golden_is_tensorflow_2_21() -> None:
    assert GOLDEN["tensorflow_version"].startswith("2.21")
    assert len(GOLDEN["functions"]) > 150 and len(GOLDEN["structs"]) > 30


@needs_gcc
def test_c_layout_matches_tensorflow(tmp_path: pathlib.Path) -> None:
    """Compiled as C11: enum values, sizes, alignments, offsets, *_STRUCT_SIZE and version macros."""
    res = run_probe(probe_spec(), [INCLUDE], tmp_path, cplusplus=False)
    bad = layout_mismatches(res, with_types=False)
    assert not bad, f"{len(bad)} differences:\n" + "\n".join(bad)


@needs_gxx
def test_cxx_layout_and_types_match_tensorflow(tmp_path: pathlib.Path) -> None:
    """Compiled as C++17, also the exact type of every function, typedef and struct member."""
    # A function or type we lack is reported by the declaration tests; leave it out here so
    # the probe still compiles and reports every type that differs.
    ours = parsed_ours().values()
    declared = {n for d in ours for n in [*d.functions, *d.typedefs, *d.opaque, *d.macros]}
    spec = probe_spec()
    spec.functions = [f for f in spec.functions if f in declared]
    spec.typedefs = [t for t in spec.typedefs if t in declared]
    res = run_probe(spec, [INCLUDE], tmp_path, cplusplus=True)
    bad = layout_mismatches(res, with_types=True)
    assert not bad, f"{len(bad)} differences:\n" + "\n".join(bad)


def test_every_tensorflow_function_is_declared_with_its_signature() -> None:
    ours = parsed_ours()
    declared = {name: (h, fn) for h, d in ours.items() for name, fn in d.functions.items()}
    bad = []
    for name, tf in GOLDEN["functions"].items():
        if name not in declared:
            bad.append(f"{name}: not declared (TensorFlow: {tf['header']})")
            continue
        header, fn = declared[name]
        want_header = HEADER_OF.get(tf["header"], tf["header"])
        if header != want_header:
            bad.append(f"{name}: declared in {header}, TensorFlow declares it in {want_header}")
        if fn.signature != tf["signature"]:
            bad.append(f"{name}: {fn.signature!r} != TensorFlow's {tf['signature']!r}")
        if fn.exported != tf["exported"]:
            bad.append(f"{name}: TF_CAPI_EXPORT {'on' if fn.exported else 'off'}, TensorFlow's is the opposite")
        if fn.inline != tf["inline"]:
            bad.append(f"{name}: static inline {'on' if fn.inline else 'off'}, TensorFlow's is the opposite")
    extra = set(declared) - set(GOLDEN["functions"]) - EXTRA_FUNCTIONS
    bad += [f"{name}: declared in {declared[name][0]} but not by TensorFlow" for name in sorted(extra)]
    assert not bad, "\n".join(bad)


def test_types_and_macros_live_in_tensorflows_headers() -> None:
    """`#include "tensorflow/c/X.h"` must bring the same names as TensorFlow's X.h does."""
    ours = parsed_ours()
    kinds = {
        "enums": lambda d: set(d.enums),
        "structs": lambda d: set(d.structs),
        "typedefs": lambda d: set(d.typedefs) | set(d.opaque) | set(d.macros),
        "macros": lambda d: set(d.macros),
        "variables": lambda d: set(d.variables),
    }
    bad = []
    for kind, names_in in kinds.items():
        for name, info in GOLDEN[kind].items():
            header = HEADER_OF.get(info["header"], info["header"])
            if header not in ours:
                bad.append(f"{header}: missing (TensorFlow declares {name} there)")
            elif not name.startswith("enum@") and name not in names_in(ours[header]):
                bad.append(f"{kind[:-1]} {name}: not declared in {header}")
    anon = [k for k in GOLDEN["enums"] if k.startswith("enum@")]
    for key in anon:
        header = key[len("enum@") :].split("#")[0]
        consts = {c for d in ours[header].enums.values() for c in d}
        missing = set(GOLDEN["enums"][key]["constants"]) - consts
        bad += [f"enum constant {c}: not declared in {header}" for c in sorted(missing)]
    assert not bad, "\n".join(sorted(set(bad)))


def test_struct_members_in_tensorflows_order() -> None:
    """Same member names in the same order (offsets alone would not catch two swapped same-size members)."""
    ours = {name: members for d in parsed_ours().values() for name, members in d.structs.items()}
    bad = [
        f"{name}: {ours.get(name)} != {[f['name'] for f in s['fields']]}"
        for name, s in GOLDEN["structs"].items()
        if ours.get(name) != [f["name"] for f in s["fields"]]
    ]
    assert not bad, "\n".join(bad)


@needs_gcc
def test_each_header_compiles_alone_as_strict_c(tmp_path: pathlib.Path) -> None:
    sources = {f"h{i}.c": f'#include "{h}"\n' for i, h in enumerate(our_headers())}
    compile_each(False, sources, tmp_path, ["-Wall", "-Wextra", "-Werror", "-pedantic", "-Wstrict-prototypes"])


@needs_gxx
def test_each_header_compiles_alone_as_strict_cxx(tmp_path: pathlib.Path) -> None:
    sources = {f"h{i}.cc": f'#include "{h}"\n' for i, h in enumerate(our_headers())}
    compile_each(True, sources, tmp_path, ["-Wall", "-Wextra", "-Werror", "-pedantic"])


ALL_PUBLIC = "".join(f'#include "{h}"\n' for h in GOLDEN["public_headers"])


@needs_gcc
@needs_gxx
def test_plugin_of_several_c_and_cxx_files_links(tmp_path: pathlib.Path) -> None:
    """Headers define nothing with external linkage, so many translation units can include them."""
    (tmp_path / "a.c").write_text(ALL_PUBLIC + "size_t plugin_a(void) { return TF_InputRange_Args_STRUCT_SIZE; }\n")
    (tmp_path / "b.c").write_text(ALL_PUBLIC + "size_t plugin_b(void) { return SP_DEVICE_STRUCT_SIZE; }\n")
    (tmp_path / "c.cc").write_text(
        ALL_PUBLIC + 'extern "C" size_t plugin_a(void);\nextern "C" size_t plugin_b(void);\n'
        "int main() { return plugin_a() == TF_InputRange_Args_STRUCT_SIZE && plugin_b() > 0 ? 0 : 1; }\n"
    )
    objs = []
    for src in ("a.c", "b.c", "c.cc"):
        cxx = src.endswith(".cc")
        obj = tmp_path / (src + ".o")
        std = "-std=c++17" if cxx else "-std=c11"
        cmd = [compiler(cxx), std, "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", "-c", str(tmp_path / src)]
        subprocess.run([*cmd, "-o", str(obj)], check=True, capture_output=True)
        objs.append(str(obj))
    exe = tmp_path / "plugin"
    link = subprocess.run([compiler(True), *objs, "-o", str(exe)], capture_output=True, text=True)
    assert link.returncode == 0, link.stderr
    assert subprocess.run([str(exe)]).returncode == 0


@needs_gxx
@pytest.mark.skipif(shutil.which("nm") is None, reason="nm is not installed")
def test_cxx_plugin_entry_points_are_exported_unmangled(tmp_path: pathlib.Path) -> None:
    """A C++ plugin defining the entry points gets C symbol names, as modtensor looks them up with dlsym."""
    src = tmp_path / "entry.cc"
    src.write_text(
        ALL_PUBLIC
        + "void TF_InitKernel() {}\n"
        + "void SE_InitPlugin(SE_PlatformRegistrationParams*, TF_Status*) {}\n"
        + "void TF_InitGraph(TP_OptimizerRegistrationParams*, TF_Status*) {}\n"
        + "void TF_InitGraphPlugin(TP_OptimizerRegistrationParams*, TF_Status*) {}\n"
        + "void TF_InitProfiler(TF_ProfilerRegistrationParams*, TF_Status*) {}\n"
    )
    obj = tmp_path / "entry.o"
    subprocess.run([compiler(True), "-std=c++17", f"-I{INCLUDE}", "-c", str(src), "-o", str(obj)], check=True)
    nm = subprocess.run(["nm", "-g", "--defined-only", str(obj)], capture_output=True, text=True, check=True)
    symbols = set(nm.stdout.split())
    for entry in ("TF_InitKernel", "SE_InitPlugin", "TF_InitGraph", "TF_InitGraphPlugin", "TF_InitProfiler"):
        assert entry in symbols, f"{entry} is not exported with C linkage: {sorted(symbols)}"


@needs_gcc
def test_tstring_helpers_follow_tensorflows_encoding(tmp_path: pathlib.Path) -> None:
    """The inline TF_TString helpers: representation bytes, capacities, views, owners, copies and moves."""
    exe = tmp_path / "tstring"
    cmd = [compiler(False), "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}"]
    subprocess.run([*cmd, str(HERE / "tstring_check.c"), "-o", str(exe)], check=True, capture_output=True)
    proc = subprocess.run([str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("ok")
