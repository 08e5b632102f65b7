"""CRC-32C (Castagnoli), the checksum of TensorFlow's checkpoint bundles and tables, and TF's masking of it.

``extend``/``value`` run in C (``framework._crc32c``, built from csrc/checksum: the CPU's crc32
instruction where it has one, several GB/s) and fall back to a table-driven Python loop when the
extension was not built (correct, but about 10 MB/s: checkpoints of any size want the C build).
"""

from __future__ import annotations

from typing import Any

__all__ = ["extend", "hardware", "mask", "unmask", "value", "value_many"]

_MASK_DELTA = 0xA282EAD8
_POLY = 0x82F63B78

try:
    from modtensor.framework import _crc32c as _native
except ImportError:  # pragma: no cover - exercised only by installs without a C compiler
    _native = None

_TABLE: list[int] = []


def _python_extend(crc: int, data: Any) -> int:
    """The table-driven CRC-32C, one byte at a time (the fallback without the C extension)."""
    if not _TABLE:
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ _POLY if c & 1 else c >> 1
            _TABLE.append(c)
    table = _TABLE
    crc ^= 0xFFFFFFFF
    for byte in memoryview(data).cast("B"):
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def extend(crc: int, data: Any) -> int:
    """The CRC-32C of ``data`` (any contiguous buffer) continuing from ``crc``, the CRC of what came before."""
    if _native is not None:
        return _native.extend(crc, data)
    return _python_extend(crc, data)


def value_many(buffers: Any, threads: int = 1) -> list[int]:
    """The CRC-32C of each buffer; the C extension shares them out to ``threads`` threads (without the GIL)."""
    if _native is not None:
        return _native.value_many(list(buffers), threads)
    return [_python_extend(0, b) for b in buffers]


def value(data: Any) -> int:
    """The CRC-32C of ``data``."""
    return extend(0, data)


def hardware() -> bool:
    """True when the C extension uses the CPU's crc32 instruction."""
    return bool(_native is not None and _native.hardware())


def mask(crc: int) -> int:
    """TF's masked form of a CRC (rotated and offset), as stored in files that also checksum CRCs."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    """The CRC a masked CRC stands for."""
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF
