"""Build, compile and run a probe program that prints the ABI facts of a set of C headers.

One generated source measures every listed enum constant, enum size, struct size and
alignment, member offset and size, integer macro and const variable; compiled as C++ it
also prints the exact (demangled) type of every function, typedef and struct member via
`typeid`, so a wrong parameter type in a prototype or a function-pointer member shows up.
The same generator serves TensorFlow's headers (tools/record_tf_c_layout.py) and
modtensor's (tests/c_abi/test_c_headers.py), so both sides are measured identically.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
from dataclasses import dataclass, field


@dataclass
class ProbeSpec:
    """What to measure. Enum keys starting with `enum@` are anonymous (constants only)."""

    includes: list[str]
    enums: dict[str, list[str]] = field(default_factory=dict)
    structs: dict[str, list[str]] = field(default_factory=dict)
    macros: list[str] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    typedefs: list[str] = field(default_factory=list)  # measured in C++ only
    functions: list[str] = field(default_factory=list)  # measured in C++ only


@dataclass
class ProbeResult:
    """Values printed by the probe, keyed by name."""

    enum_constants: dict[str, int] = field(default_factory=dict)
    enum_sizes: dict[str, int] = field(default_factory=dict)
    structs: dict[str, dict] = field(default_factory=dict)  # {"size", "align", "fields": {m: [off, size]}}
    macros: dict[str, int] = field(default_factory=dict)
    variables: dict[str, int] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)  # "function:X" / "typedef:X" / "field:T.m" -> type


_PRELUDE = """\
#include <stddef.h>
#include <stdio.h>
#ifdef __cplusplus
#include <cxxabi.h>
#include <cstdlib>
#include <typeinfo>
#define PROBE_ALIGNOF(T) alignof(T)
template <typename T>
struct probe_wrap {};  // typeid(probe_wrap<T>) names T even when T is incomplete
static void probe_type(const char* key, const std::type_info& info) {
  int status = 0;
  char* name = abi::__cxa_demangle(info.name(), 0, 0, &status);
  printf("T\\t%s\\t%s\\n", key, status == 0 ? name : info.name());
  free(name);
}
#else
#define PROBE_ALIGNOF(T) _Alignof(T)
#endif
"""


def probe_source(spec: ProbeSpec) -> str:
    """The probe program's C source (valid C11 and C++17)."""
    lines = [_PRELUDE]
    lines += [f'#include "{inc}"' for inc in spec.includes]
    lines.append("int main(void) {")
    for type_name, consts in spec.enums.items():
        if not type_name.startswith("enum@"):
            lines.append(f'  printf("Z\\t%s\\t%zu\\n", "{type_name}", sizeof({type_name}));')
        for const in consts:
            lines.append(f'  printf("E\\t%s\\t%lld\\n", "{const}", (long long)({const}));')
    for type_name, members in spec.structs.items():
        lines.append(
            f'  printf("S\\t%s\\t%zu\\t%zu\\n", "{type_name}", sizeof({type_name}), PROBE_ALIGNOF({type_name}));'
        )
        for m in members:
            lines.append(
                f'  printf("F\\t%s\\t%s\\t%zu\\t%zu\\n", "{type_name}", "{m}", offsetof({type_name}, {m}), '
                f"sizeof((({type_name}*)0)->{m}));"
            )
    for name in spec.macros:
        lines.append(f'  printf("M\\t%s\\t%lld\\n", "{name}", (long long)({name}));')
    for name in spec.variables:
        lines.append(f'  printf("V\\t%s\\t%lld\\n", "{name}", (long long)({name}));')
    lines.append("#ifdef __cplusplus")
    for name in spec.functions:
        lines.append(f'  probe_type("function:{name}", typeid(decltype(&{name})));')
    for name in spec.typedefs:
        lines.append(f'  probe_type("typedef:{name}", typeid(probe_wrap<{name}>));')
    for type_name, members in spec.structs.items():
        for m in members:
            lines.append(f'  probe_type("field:{type_name}.{m}", typeid(decltype((({type_name}*)0)->{m})));')
    lines.append("#endif")
    lines.append("  return 0;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def parse_output(text: str) -> ProbeResult:
    """Turn the probe's tab-separated lines into a ProbeResult."""
    res = ProbeResult()
    for line in text.splitlines():
        kind, *rest = line.split("\t")
        if kind == "E":
            res.enum_constants[rest[0]] = int(rest[1])
        elif kind == "Z":
            res.enum_sizes[rest[0]] = int(rest[1])
        elif kind == "S":
            res.structs[rest[0]] = {"size": int(rest[1]), "align": int(rest[2]), "fields": {}}
        elif kind == "F":
            res.structs[rest[0]]["fields"][rest[1]] = [int(rest[2]), int(rest[3])]
        elif kind == "M":
            res.macros[rest[0]] = int(rest[1])
        elif kind == "V":
            res.variables[rest[0]] = int(rest[1])
        elif kind == "T":
            value = rest[1]
            if value.startswith("probe_wrap<") and value.endswith(">"):
                value = value[len("probe_wrap<") : -1]
            res.types[rest[0]] = value
    return res


def compiler(cplusplus: bool) -> str | None:
    """Path of g++ (C++) or gcc (C), or None when it is not installed."""
    return shutil.which("g++" if cplusplus else "gcc")


def run_probe(
    spec: ProbeSpec, include_dirs: list[pathlib.Path], workdir: pathlib.Path, *, cplusplus: bool
) -> ProbeResult:
    """Compile the probe (gcc -std=c11 or g++ -std=c++17) against include_dirs, run it, parse its output."""
    cc = compiler(cplusplus)
    if cc is None:
        raise FileNotFoundError("g++" if cplusplus else "gcc")
    suffix, std = (".cc", "-std=c++17") if cplusplus else (".c", "-std=c11")
    src = workdir / f"layout_probe{suffix}"
    exe = workdir / f"layout_probe{suffix.replace('.', '_')}"
    src.write_text(probe_source(spec))
    cmd = [cc, std, "-w", *(f"-I{d}" for d in include_dirs), str(src), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"probe did not compile ({' '.join(cmd)}):\n{proc.stderr[-4000:]}")
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    return parse_output(out.stdout)
