"""Hashes of strings and tensors with TensorFlow's algorithms: StringToHashBucket (TF's legacy ``Hash64``, a
MurmurHash64A variant with seed ``0xDECAFCAFFE``), StringToHashBucketStrong (SipHash-2-4 keyed by the two-element
``key``) and Fingerprint (FarmHash Fingerprint64 of each row's bytes, little-endian).

Hash values are part of a model's data format (vocabularies are bucketed by them), so each
algorithm is TF's bit for bit. Pure Python over 64-bit ints.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.farmhash import fingerprint64
from modtensor.kernels.cpu.strings import _bytes

_MASK = (1 << 64) - 1
_MURMUR_M = 0xC6A4A7935BD1E995
_HASH64_SEED = 0xDECAFCAFFE


def hash64(data: bytes, seed: int = _HASH64_SEED) -> int:
    """TF's ``Hash64`` (tensorflow/core/lib/hash): MurmurHash64A over little-endian 8-byte words, the tail's bytes
    folded in from the last one down."""
    n = len(data)
    h = (seed ^ (n * _MURMUR_M)) & _MASK
    whole = n - n % 8
    for (k,) in struct.iter_unpack("<Q", data[:whole]):
        k = (k * _MURMUR_M) & _MASK
        k ^= k >> 47
        k = (k * _MURMUR_M) & _MASK
        h = ((h ^ k) * _MURMUR_M) & _MASK
    if n % 8:
        h ^= int.from_bytes(data[whole:], "little")
        h = (h * _MURMUR_M) & _MASK
    h ^= h >> 47
    h = (h * _MURMUR_M) & _MASK
    return h ^ (h >> 47)


def _rotl(v: int, shift: int) -> int:
    return ((v << shift) | (v >> (64 - shift))) & _MASK


def siphash24(k0: int, k1: int, data: bytes) -> int:
    """SipHash-2-4 of ``data`` under the 128-bit key ``(k0, k1)`` (two unsigned 64-bit halves)."""
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]

    def rounds(count: int) -> None:
        v0, v1, v2, v3 = v
        for _ in range(count):
            v0 = (v0 + v1) & _MASK
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _MASK
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _MASK
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _MASK
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        v[:] = [v0, v1, v2, v3]

    whole = len(data) - len(data) % 8
    words = [m for (m,) in struct.iter_unpack("<Q", data[:whole])]
    words.append(int.from_bytes(data[whole:], "little") | ((len(data) & 0xFF) << 56))
    for m in words:
        v[3] ^= m
        rounds(2)
        v[0] ^= m
    v[2] ^= 0xFF
    rounds(4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def _buckets(strings: Any, hash_fn: Callable[[bytes], int], num_buckets: int) -> np.ndarray:
    a = np.asarray(strings, dtype=object)
    flat = [hash_fn(_bytes(s)) % num_buckets for s in a.reshape(-1)]
    return np.asarray(flat, dtype=np.int64).reshape(a.shape)


def string_to_hash_bucket(string_tensor: np.ndarray, num_buckets: int) -> np.ndarray:
    """StringToHashBucket: TF's ``Hash64`` of each string modulo ``num_buckets`` (unsigned)."""
    return _buckets(string_tensor, hash64, int(num_buckets))


def string_to_hash_bucket_strong(input: np.ndarray, num_buckets: int, key: Any = ()) -> np.ndarray:  # noqa: A002
    """StringToHashBucketStrong: SipHash-2-4 of each string under ``key`` (two int64s, read unsigned) modulo
    ``num_buckets``."""
    key = [int(k) for k in key]
    if len(key) != 2:
        raise invalid_argument("Key must have 2 elements")
    k0, k1 = key[0] & _MASK, key[1] & _MASK
    return _buckets(input, lambda s: siphash24(k0, k1, s), int(num_buckets))


def fingerprint(data: np.ndarray, method: np.ndarray) -> np.ndarray:
    """Fingerprint: a ``[data.shape[0], 8]`` uint8 fingerprint of each row, FarmHash Fingerprint64 in little-endian
    bytes: of a row's bytes for fixed-size types; for strings of the string itself (one per row), else of the row's
    strings' fingerprints laid end to end."""
    method_arr = np.asarray(method, dtype=object)
    if method_arr.ndim != 0:
        raise invalid_argument(f"`method` should be a scalar string: {shape_str(method_arr.shape)}")
    name = _bytes(method_arr.item())
    if name != b"farmhash64":
        raise invalid_argument(f"Unsupported fingerprint method: {name.decode('utf-8', 'replace')}")
    array = np.asarray(data)
    if array.ndim == 0:
        raise invalid_argument(f"`data` should have at least one dimension: {shape_str(array.shape)}")
    rows = array.shape[0]
    per_row = array.size // rows if rows else 0
    flat = array.reshape(rows, per_row)
    if array.dtype == object:
        if per_row == 1:
            values = [fingerprint64(_bytes(s)) for s in flat[:, 0]]
        else:
            values = [fingerprint64(b"".join(struct.pack("<Q", fingerprint64(_bytes(s))) for s in row)) for row in flat]
    else:
        values = [fingerprint64(np.ascontiguousarray(row).tobytes()) for row in flat]
    out = np.frombuffer(struct.pack(f"<{rows}Q", *values), dtype=np.uint8)
    return out.reshape(rows, 8).copy()


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "StringToHashBucket": string_to_hash_bucket,
    "StringToHashBucketStrong": string_to_hash_bucket_strong,
    "Fingerprint": fingerprint,
}
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {}
