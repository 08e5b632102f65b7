"""FarmHash ``Fingerprint64`` (farmhashna::Hash64), the hash TensorFlow's StringToHashBucketFast buckets by.

A fingerprint is part of the data format: a model exported by TF hashes its vocabulary with
it, so the same strings must land in the same buckets here. Python over 64-bit ints, and numpy over uint64 arrays
for many short strings at once.
"""

from __future__ import annotations

import struct

import numpy as np

_MASK = (1 << 64) - 1
K0 = 0xC3A5C85C97CB3127
K1 = 0xB492B66FBE98F273
K2 = 0x9AE16A3B2F90404F


def _fetch64(s: bytes, i: int) -> int:
    return struct.unpack_from("<Q", s, i)[0]


def _fetch32(s: bytes, i: int) -> int:
    return struct.unpack_from("<I", s, i)[0]


def _rotate(v: int, shift: int) -> int:
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _MASK


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _hash_len16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _MASK
    a ^= a >> 47
    b = ((v ^ a) * mul) & _MASK
    b ^= b >> 47
    return (b * mul) & _MASK


def _hash_len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = K2 + n * 2
        a = (_fetch64(s, 0) + K2) & _MASK
        b = _fetch64(s, n - 8)
        c = (_rotate(b, 37) * mul + a) & _MASK
        d = ((_rotate(a, 25) + b) * mul) & _MASK
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = K2 + n * 2
        a = _fetch32(s, 0)
        return _hash_len16((n + (a << 3)) & _MASK, _fetch32(s, n - 4), mul)
    if n > 0:
        a, b, c = s[0], s[n >> 1], s[n - 1]
        y = (a + (b << 8)) & 0xFFFFFFFF
        z = (n + (c << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * K2) ^ (z * K0)) & _MASK) * K2) & _MASK
    return K2


def _hash_len17to32(s: bytes) -> int:
    n = len(s)
    mul = K2 + n * 2
    a = (_fetch64(s, 0) * K1) & _MASK
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _MASK
    d = (_fetch64(s, n - 16) * K2) & _MASK
    return _hash_len16(
        (_rotate((a + b) & _MASK, 43) + _rotate(c, 30) + d) & _MASK,
        (a + _rotate((b + K2) & _MASK, 18) + c) & _MASK,
        mul,
    )


def _hash_len33to64(s: bytes) -> int:
    n = len(s)
    mul = K2 + n * 2
    a = (_fetch64(s, 0) * K2) & _MASK
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _MASK
    d = (_fetch64(s, n - 16) * K2) & _MASK
    y = (_rotate((a + b) & _MASK, 43) + _rotate(c, 30) + d) & _MASK
    z = _hash_len16(y, (a + _rotate((b + K2) & _MASK, 18) + c) & _MASK, mul)
    e = (_fetch64(s, 16) * mul) & _MASK
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & _MASK
    h = ((z + _fetch64(s, n - 24)) * mul) & _MASK
    return _hash_len16(
        (_rotate((e + f) & _MASK, 43) + _rotate(g, 30) + h) & _MASK,
        (e + _rotate((f + a) & _MASK, 18) + g) & _MASK,
        mul,
    )


def _weak_hash_len32_with_seeds(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = _fetch64(s, i), _fetch64(s, i + 8), _fetch64(s, i + 16), _fetch64(s, i + 24)
    a = (a + w) & _MASK
    b = _rotate((b + a + z) & _MASK, 21)
    c = a
    a = (a + x + y) & _MASK
    b = (b + _rotate(a, 44)) & _MASK
    return (a + z) & _MASK, (b + c) & _MASK


def fingerprint64(s: bytes) -> int:
    """FarmHash Fingerprint64 of ``s`` as an unsigned 64-bit int."""
    n = len(s)
    if n <= 16:
        return _hash_len0to16(s)
    if n <= 32:
        return _hash_len17to32(s)
    if n <= 64:
        return _hash_len33to64(s)
    seed = 81
    x = seed
    y = (seed * K1 + 113) & _MASK
    z = (_shift_mix((y * K2 + 113) & _MASK) * K2) & _MASK
    v = (0, 0)
    w = (0, 0)
    x = (x * K2 + _fetch64(s, 0)) & _MASK
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & _MASK, 37) * K1) & _MASK
        y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & _MASK, 42) * K1) & _MASK
        x ^= w[1]
        y = (y + v[0] + _fetch64(s, i + 40)) & _MASK
        z = (_rotate((z + w[0]) & _MASK, 33) * K1) & _MASK
        v = _weak_hash_len32_with_seeds(s, i, (v[1] * K1) & _MASK, (x + w[0]) & _MASK)
        w = _weak_hash_len32_with_seeds(s, i + 32, (z + w[1]) & _MASK, (y + _fetch64(s, i + 16)) & _MASK)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = K1 + ((z & 0xFF) << 1)
    i = last64
    w0 = (w[0] + ((n - 1) & 63)) & _MASK
    v0 = (v[0] + w0) & _MASK
    w0 = (w0 + v0) & _MASK
    v, w = (v0, v[1]), (w0, w[1])
    x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & _MASK, 37) * mul) & _MASK
    y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & _MASK, 42) * mul) & _MASK
    x ^= (w[1] * 9) & _MASK
    y = (y + v[0] * 9 + _fetch64(s, i + 40)) & _MASK
    z = (_rotate((z + w[0]) & _MASK, 33) * mul) & _MASK
    v = _weak_hash_len32_with_seeds(s, i, (v[1] * mul) & _MASK, (x + w[0]) & _MASK)
    w = _weak_hash_len32_with_seeds(s, i + 32, (z + w[1]) & _MASK, (y + _fetch64(s, i + 16)) & _MASK)
    z, x = x, z
    return _hash_len16(
        (_hash_len16(v[0], w[0], mul) + _shift_mix(y) * K0 + z) & _MASK,
        (_hash_len16(v[1], w[1], mul) + x) & _MASK,
        mul,
    )


def _rotate_array(v: np.ndarray, shift: int) -> np.ndarray:
    return (v >> np.uint64(shift)) | (v << np.uint64(64 - shift))


def _hash_len16_array(u: np.ndarray, v: np.ndarray, mul: np.ndarray) -> np.ndarray:
    a = (u ^ v) * mul
    a ^= a >> np.uint64(47)
    b = (v ^ a) * mul
    b ^= b >> np.uint64(47)
    return b * mul


def _read(padded: np.ndarray, start: np.ndarray, width: int) -> np.ndarray:
    """The little-endian ``width``-byte word of each row of ``padded`` at byte ``start`` (per row)."""
    columns = start[:, None] + np.arange(width)
    raw = np.ascontiguousarray(np.take_along_axis(padded, columns, axis=1))
    return raw.view("<u8" if width == 8 else "<u4").reshape(-1).astype(np.uint64)


_VECTOR_MIN = 192  # fewer strings are hashed one by one


def fingerprint64_many(strings: list[bytes]) -> np.ndarray:
    """``fingerprint64`` of each string as a uint64 array. Strings of up to 16 bytes (words, tokens: nearly every
    vocabulary) are hashed together in numpy uint64 arithmetic, which wraps as the C code does; longer ones one
    by one, and so is a short list (below ~150 strings numpy's fixed cost outweighs the loop: 12 words take
    7 us one by one, 48 us together)."""
    if len(strings) < _VECTOR_MIN:
        return np.fromiter(map(fingerprint64, strings), dtype=np.uint64, count=len(strings))
    out = np.empty(len(strings), dtype=np.uint64)
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    short = np.flatnonzero(lengths <= 16)
    for i in np.flatnonzero(lengths > 16).tolist():
        out[i] = fingerprint64(strings[i])
    if short.size == 0:
        return out
    n = lengths[short]
    padded = np.zeros((short.size, 16), dtype=np.uint8)
    chosen = strings if short.size == len(strings) else [strings[i] for i in short.tolist()]
    flat = np.frombuffer(b"".join(chosen), dtype=np.uint8)
    rows = np.repeat(np.arange(short.size), n)
    starts = np.concatenate([[0], np.cumsum(n)[:-1]])
    padded[rows, np.arange(flat.size) - np.repeat(starts, n)] = flat
    n64 = n.astype(np.uint64)
    mul = np.uint64(K2) + n64 * np.uint64(2)
    result = np.full(short.size, K2, dtype=np.uint64)  # the empty string
    with np.errstate(over="ignore"):
        long8 = n >= 8
        if long8.any():
            p, m, k = padded[long8], mul[long8], n[long8]
            a = _read(p, np.zeros_like(k), 8) + np.uint64(K2)
            b = _read(p, k - 8, 8)
            c = _rotate_array(b, 37) * m + a
            d = (_rotate_array(a, 25) + b) * m
            result[long8] = _hash_len16_array(c, d, m)
        mid = (n >= 4) & (n < 8)
        if mid.any():
            p, m, k = padded[mid], mul[mid], n[mid]
            a = _read(p, np.zeros_like(k), 4)
            result[mid] = _hash_len16_array(k.astype(np.uint64) + (a << np.uint64(3)), _read(p, k - 4, 4), m)
        tiny = (n > 0) & (n < 4)
        if tiny.any():
            p, k = padded[tiny], n[tiny]
            first = p[:, 0].astype(np.uint64)
            middle = p[np.arange(k.size), k >> 1].astype(np.uint64)
            last = p[np.arange(k.size), k - 1].astype(np.uint64)
            y = (first + (middle << np.uint64(8))) & np.uint64(0xFFFFFFFF)
            z = (k.astype(np.uint64) + (last << np.uint64(2))) & np.uint64(0xFFFFFFFF)
            mixed = (y * np.uint64(K2)) ^ (z * np.uint64(K0))
            result[tiny] = (mixed ^ (mixed >> np.uint64(47))) * np.uint64(K2)
    out[short] = result
    return out
