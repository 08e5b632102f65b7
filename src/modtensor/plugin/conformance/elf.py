"""Reading a shared library's dynamic section without loading it: NEEDED, RPATH/RUNPATH, dynamic symbols.

Only what the conformance kit needs, for ELF64 little-endian files (Linux x86_64 and aarch64):
the dynamic symbol table (``.dynsym``) split into the symbols a library defines (exports) and the
ones it needs from elsewhere, and the ``DT_NEEDED``/``DT_RPATH``/``DT_RUNPATH`` entries. Reading
never runs the library's code, so a plugin that crashes while loading can still be inspected.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ElfError", "ElfInfo", "read_elf"]

_SHT_DYNSYM = 11
_SHT_DYNAMIC = 6
_DT_NEEDED, _DT_RPATH, _DT_RUNPATH, _DT_SONAME = 1, 15, 29, 14
_STB_GLOBAL, _STB_WEAK, _STB_GNU_UNIQUE = 1, 2, 10
_STV_HIDDEN, _STV_INTERNAL = 2, 1
_STT_FUNC, _STT_OBJECT, _STT_TLS, _STT_GNU_IFUNC = 2, 1, 6, 10
_MACHINES = {62: "x86_64", 183: "aarch64", 3: "i386", 40: "arm"}


class ElfError(ValueError):
    """The file is not a 64-bit little-endian ELF shared library this reader understands."""


@dataclass
class ElfInfo:
    """What the dynamic linker reads from a library: its soname, needs and symbols."""

    path: str
    machine: str
    soname: str = ""
    needed: list[str] = field(default_factory=list)
    rpath: list[str] = field(default_factory=list)
    runpath: list[str] = field(default_factory=list)
    defined: set[str] = field(default_factory=set)  # exported functions and objects (default/protected)
    undefined: set[str] = field(default_factory=set)  # strong references resolved elsewhere
    weak_undefined: set[str] = field(default_factory=set)  # weak references: may stay unresolved


def _c_string(table: bytes, offset: int) -> str:
    end = table.find(b"\0", offset)
    return table[offset : end if end >= 0 else len(table)].decode("utf-8", "replace")


def read_elf(path: str | Path) -> ElfInfo:
    """Parse ``path``'s section headers, dynamic section and dynamic symbol table; ElfError when it cannot."""
    data = Path(path).read_bytes()
    if len(data) < 64 or data[:4] != b"\x7fELF":
        raise ElfError(f"{path} is not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise ElfError(f"{path} is not a 64-bit little-endian ELF file (class {data[4]}, data {data[5]})")
    (e_machine,) = struct.unpack_from("<H", data, 18)
    (e_shoff,) = struct.unpack_from("<Q", data, 40)
    e_shentsize, e_shnum = struct.unpack_from("<HH", data, 58)
    if e_shoff == 0 or e_shnum == 0 or e_shoff + e_shentsize * e_shnum > len(data):
        raise ElfError(f"{path} has no section headers")
    sections = []
    for i in range(e_shnum):
        # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, sh_info, sh_addralign, sh_entsize
        sections.append(struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize))
    info = ElfInfo(str(path), _MACHINES.get(e_machine, f"machine {e_machine}"))

    def section_bytes(index: int) -> bytes:
        _, _, _, _, offset, size, *_ = sections[index]
        return data[offset : offset + size]

    for sec in sections:
        sh_type, sh_offset, sh_size, sh_link, sh_entsize = sec[1], sec[4], sec[5], sec[6], sec[9]
        if sh_type == _SHT_DYNAMIC:
            strings = section_bytes(sh_link)
            for off in range(sh_offset, sh_offset + sh_size, sh_entsize or 16):
                tag, value = struct.unpack_from("<qQ", data, off)
                if tag == 0:
                    break
                if tag == _DT_NEEDED:
                    info.needed.append(_c_string(strings, value))
                elif tag == _DT_SONAME:
                    info.soname = _c_string(strings, value)
                elif tag == _DT_RPATH:
                    info.rpath.extend(p for p in _c_string(strings, value).split(":") if p)
                elif tag == _DT_RUNPATH:
                    info.runpath.extend(p for p in _c_string(strings, value).split(":") if p)
        elif sh_type == _SHT_DYNSYM:
            strings = section_bytes(sh_link)
            for off in range(sh_offset + (sh_entsize or 24), sh_offset + sh_size, sh_entsize or 24):  # skip entry 0
                st_name, st_info, st_other, st_shndx = struct.unpack_from("<IBBH", data, off)
                name = _c_string(strings, st_name)
                if not name:
                    continue
                binding, kind, visibility = st_info >> 4, st_info & 0xF, st_other & 0x3
                if st_shndx == 0:  # SHN_UNDEF
                    if binding == _STB_WEAK:
                        info.weak_undefined.add(name)
                    elif binding == _STB_GLOBAL:
                        info.undefined.add(name)
                elif (
                    binding in (_STB_GLOBAL, _STB_WEAK, _STB_GNU_UNIQUE)
                    and visibility not in (_STV_HIDDEN, _STV_INTERNAL)
                    and kind in (_STT_FUNC, _STT_OBJECT, _STT_TLS, _STT_GNU_IFUNC, 0)
                ):
                    info.defined.add(name)
    return info
