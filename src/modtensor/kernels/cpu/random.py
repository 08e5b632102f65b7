"""Seeded random kernels RandomStandardNormal, RandomUniform, TruncatedNormal: bit-compatible with TF's CPU streams.

TF draws from Philox4x32-10 keyed by (seed, seed2): key = the two 32-bit
halves of seed, counter words 2-3 = the halves of seed2. Each 128-bit block
becomes 4 uniform floats (23 random mantissa bits), 2 doubles (52 bits from
two words), or, through Box-Muller, 4 float / 2 double normals; blocks are
used in order and the last block is cut to the output size. The counter
generation is vectorized over all blocks at once.

``skip`` (in 128-bit blocks) reproduces a stateful kernel: TF's kernel object
advances its generator by 256 * num_elements blocks per call, so the k-th call
(from 0) of a kernel equals ``skip = k * 256 * num_elements`` (checked against TF).
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from modtensor.kernels.cpu.elementwise import as_numpy_dtype
from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.precision import HALF_TYPES

_MUL_A = np.uint64(0xD2511F53)
_MUL_B = np.uint64(0xCD9E8D57)
_KEY_A = 0x9E3779B9
_KEY_B = 0xBB67AE85
_MASK32 = np.uint64(0xFFFFFFFF)


# Up to this many blocks the rounds run on python ints: ~120 small numpy calls cost more than the loop.
_SCALAR_BLOCKS = 24


def philox_blocks(seed: int, seed2: int, num_blocks: int, skip: int = 0) -> np.ndarray:
    """uint32 array [num_blocks, 4]: Philox4x32-10 outputs for counters skip .. skip+num_blocks-1."""
    if num_blocks <= _SCALAR_BLOCKS:
        return _philox_scalar(seed, seed2, num_blocks, skip)
    return _philox_at(seed, seed2, np.arange(skip, skip + num_blocks, dtype=np.uint64))


def _philox_scalar(seed: int, seed2: int, num_blocks: int, skip: int) -> np.ndarray:
    """``philox_blocks`` computed block by block with python ints (same bits)."""
    mask = 0xFFFFFFFF
    key0, key1 = seed & mask, (seed >> 32) & mask
    s2lo, s2hi = seed2 & mask, (seed2 >> 32) & mask
    words: list[int] = []
    for counter in range(skip, skip + num_blocks):
        c0, c1, c2, c3 = counter & mask, (counter >> 32) & mask, s2lo, s2hi
        k0, k1 = key0, key1
        for _ in range(10):
            p0 = 0xD2511F53 * c0
            p1 = 0xCD9E8D57 * c2
            c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & mask, (p0 >> 32) ^ c3 ^ k1, p0 & mask
            k0, k1 = (k0 + _KEY_A) & mask, (k1 + _KEY_B) & mask
        words += (c0, c1, c2, c3)
    return np.array(words, dtype=np.uint32).reshape(num_blocks, 4)


def _uniform_float(bits: np.ndarray) -> np.ndarray:
    """[0, 1) float32 from the low 23 bits of each word (exponent of 1.0, minus 1)."""
    return ((bits & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)


def _uniform_double(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """[0, 1) float64 from 20 bits of hi and all 32 of lo."""
    man = ((hi.astype(np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)) | lo.astype(np.uint64)
    return (man | np.uint64(0x3FF0000000000000)).view(np.float64) - 1.0


def _uniform_half(bits: np.ndarray) -> np.ndarray:
    """[0, 1) float16 from the low 10 bits of each word."""
    return ((bits & np.uint32(0x3FF)).astype(np.uint16) | np.uint16(0x3C00)).view(np.float16) - np.float16(1.0)


def _seeds(seed: int, seed2: int) -> tuple[int, int]:
    """TF picks fresh random seeds when both are 0 (nondeterministic, as documented)."""
    if seed == 0 and seed2 == 0:
        s = int.from_bytes(os.urandom(16), "little")
        return s & (2**64 - 1), s >> 64
    return seed & (2**64 - 1), seed2 & (2**64 - 1)


def _shape(shape: Any) -> tuple[int, ...]:
    s = np.asarray(shape)
    if s.ndim != 1:
        raise invalid_argument(f"shape must be a vector of {{int32,int64}}, got shape {shape_str(s.shape)}")
    dims = tuple(int(v) for v in s)
    if any(d < 0 for d in dims):
        raise invalid_argument(f"Dimension {min(dims)} must be >= 0")
    return dims


def random_uniform(shape: Any, dtype: Any, seed: int = 0, seed2: int = 0, skip: int = 0) -> np.ndarray:
    """RandomUniform: floats in [0, 1) of the given shape, TF's stream for (seed, seed2) from block ``skip``."""
    dims = _shape(shape)
    dt = as_numpy_dtype(dtype)
    n = int(np.prod(dims, dtype=np.int64))
    k0, k1 = _seeds(seed, seed2)
    if dt == np.float64:
        blocks = philox_blocks(k0, k1, -(-n // 2), skip)
        vals = _uniform_double(blocks[:, 0::2], blocks[:, 1::2]).reshape(-1)
    else:
        blocks = philox_blocks(k0, k1, -(-n // 4), skip).reshape(-1)
        if dt == np.float16:
            vals = _uniform_half(blocks)
        elif dt in HALF_TYPES:  # bfloat16: 7 mantissa bits
            vals = (((blocks & np.uint32(0x7F)) | np.uint32(0x3F80)).astype(np.uint16)).view(dt) - dt.type(1.0)
        elif dt == np.float32:
            vals = _uniform_float(blocks)
        else:
            raise invalid_argument(f"RandomUniform does not support dtype {dt}")
    return np.asarray(vals[:n].astype(dt, copy=False).reshape(dims), order="C")


def random_standard_normal(shape: Any, dtype: Any, seed: int = 0, seed2: int = 0, skip: int = 0) -> np.ndarray:
    """RandomStandardNormal: N(0, 1) samples by Box-Muller on TF's Philox stream for (seed, seed2)."""
    dims = _shape(shape)
    dt = as_numpy_dtype(dtype)
    n = int(np.prod(dims, dtype=np.int64))
    k0, k1 = _seeds(seed, seed2)
    with np.errstate(all="ignore"):
        if dt == np.float64:
            b = philox_blocks(k0, k1, -(-n // 2), skip)
            u1 = np.maximum(_uniform_double(b[:, 0], b[:, 1]), 1e-7)
            v1 = 2.0 * np.pi * _uniform_double(b[:, 2], b[:, 3])
            r = np.sqrt(-2.0 * np.log(u1))
            vals = np.stack([np.sin(v1) * r, np.cos(v1) * r], axis=-1).reshape(-1)
        elif dt == np.float32 or dt in HALF_TYPES:
            b = philox_blocks(k0, k1, -(-n // 4), skip).reshape(-1, 2)
            u1 = np.maximum(_uniform_float(b[:, 0]), np.float32(1e-7))
            # TF: v1 = 2.0f * M_PI * u, a double product rounded to float; logf and sincosf from libm, which
            # round correctly as the double functions rounded to float do (numpy's float32 SIMD versions are off
            # by an ulp or two).
            v1 = (2.0 * np.pi * _uniform_float(b[:, 1]).astype(np.float64)).astype(np.float32)
            r = np.sqrt(np.float32(-2.0) * np.log(u1.astype(np.float64)).astype(np.float32))
            v64 = v1.astype(np.float64)
            sin, cos = np.sin(v64).astype(np.float32), np.cos(v64).astype(np.float32)
            vals = np.stack([sin * r, cos * r], axis=-1).reshape(-1)
        else:
            raise invalid_argument(f"RandomStandardNormal does not support dtype {dt}")
    return np.asarray(vals[:n].astype(dt).reshape(dims), order="C")


# Added with integer tf.random.uniform (frontend issue).
def random_uniform_int(
    shape: Any, minval: Any, maxval: Any, seed: int = 0, seed2: int = 0, skip: int = 0
) -> np.ndarray:
    """RandomUniformInt: integers in [minval, maxval) as TF draws them: ``lo + bits % (hi - lo)``.

    int32 uses one 32-bit word per element (4 per Philox block); int64 joins two words
    (low word first, 2 per block). Sums wrap around as TF's fixed-width arithmetic does.
    """
    lo_a, hi_a = np.asarray(minval), np.asarray(maxval)
    if lo_a.ndim != 0:
        raise invalid_argument(f"minval must be 0-D, got shape {shape_str(lo_a.shape)}")
    if hi_a.ndim != 0:
        raise invalid_argument(f"maxval must be 0-D, got shape {shape_str(hi_a.shape)}")
    dims = _shape(shape)
    dt = lo_a.dtype
    n = int(np.prod(dims, dtype=np.int64))
    if n == 0:
        return np.zeros(dims, dtype=dt)
    lo, hi = int(lo_a), int(hi_a)
    if not lo < hi:
        raise invalid_argument(f"Need minval < maxval, got {lo} >= {hi}")
    k0, k1 = _seeds(seed, seed2)
    bits = _integer_bits(k0, k1, n, skip, wide=dt != np.int32)
    if dt == np.int32:
        span = np.uint32((hi - lo) & 0xFFFFFFFF)
        vals = (np.uint32(lo & 0xFFFFFFFF) + bits % span).view(np.int32)
    else:
        span = np.uint64((hi - lo) & 0xFFFFFFFFFFFFFFFF)
        vals = (np.uint64(lo & 0xFFFFFFFFFFFFFFFF) + bits % span).view(np.int64)
    return np.asarray(vals.reshape(dims), order="C")


def _integer_bits(k0: int, k1: int, n: int, skip: int, wide: bool) -> np.ndarray:
    """``n`` random integers' bits as TF's integer distributions take them: one 32-bit Philox word each (uint32), or
    with ``wide`` two words joined low word first (uint64)."""
    if not wide:
        return philox_blocks(k0, k1, -(-n // 4), skip).reshape(-1)[:n]
    words = philox_blocks(k0, k1, -(-n // 2), skip).astype(np.uint64)
    return (words[:, 0::2] | (words[:, 1::2] << np.uint64(32))).reshape(-1)[:n]


def random_full_int(shape: Any, dtype: Any, seed: int = 0, seed2: int = 0, skip: int = 0) -> np.ndarray:
    """Integers over the whole range of ``dtype`` (int32/uint32: one Philox word each; int64/uint64: two, low word
    first), as TF's UniformFullIntDistribution draws them."""
    dims = _shape(shape)
    dt = as_numpy_dtype(dtype)
    n = int(np.prod(dims, dtype=np.int64))
    if n == 0:
        return np.zeros(dims, dtype=dt)
    k0, k1 = _seeds(seed, seed2)
    bits = _integer_bits(k0, k1, n, skip, wide=dt.itemsize == 8)
    return np.asarray(bits.view(dt).reshape(dims), order="C")


def _math(name: str, x: np.ndarray, dtype: Any) -> np.ndarray:
    """``name`` (logf, sinf, cosf, log, sin, cos) elementwise in float64, rounded to ``dtype``.

    TF's Linux kernels call the C library's functions; numpy's differ from them in the last bit for a few
    arguments, so these kernels serve the half types (and everything when the native CPU kernel library,
    which calls the C library itself and gives TF's bits, is absent).
    """
    fn = {"logf": np.log, "sinf": np.sin, "cosf": np.cos}.get(name) or getattr(np, name)
    return fn(x.astype(np.float64)).astype(dtype)


def _box_muller_float(w0: np.ndarray, w1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TF's BoxMullerFloat on word pairs: (sin, cos) float32 normals with libm's logf, sinf and cosf."""
    u1 = np.maximum(_uniform_float(w0), np.float32(1e-7))
    v1 = (2.0 * np.pi * _uniform_float(w1).astype(np.float64)).astype(np.float32)
    r = np.sqrt(np.float32(-2.0) * _math("logf", u1, np.float32))
    return _math("sinf", v1, np.float32) * r, _math("cosf", v1, np.float32) * r


def _box_muller_double(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TF's BoxMullerDouble on the 4 words of each block (last axis): (sin, cos) float64 normals with libm."""
    u1 = np.maximum(_uniform_double(b[..., 0], b[..., 1]), 1e-7)
    v1 = 2.0 * np.pi * _uniform_double(b[..., 2], b[..., 3])
    r = np.sqrt(-2.0 * _math("log", u1, np.float64))
    return _math("sin", v1, np.float64) * r, _math("cos", v1, np.float64) * r


# TF's FillPhiloxRandomTask for distributions with a variable number of samples per output: output group g
# restarts the generator at block g * group_size * 256 / 4 (kReservedSamplesPerOutput = 256).
_RESERVED_SAMPLES_PER_OUTPUT = 256


def truncated_normal(shape: Any, dtype: Any, seed: int = 0, seed2: int = 0, skip: int = 0) -> np.ndarray:
    """TruncatedNormal: N(0, 1) samples with |x| < 2, drawn by rejection as TF's TruncatedNormalDistribution.

    Outputs come in groups (4 for float/half/bfloat16, 2 for double); each group reads Philox
    words from its own start block, turns word pairs (float) or blocks (double) into two
    Box-Muller normals and keeps, in order, those of magnitude below 2 until the group is full.
    """
    dims = _shape(shape)
    dt = as_numpy_dtype(dtype)
    n = int(np.prod(dims, dtype=np.int64))
    if dt != np.float64 and dt != np.float32 and dt not in HALF_TYPES:
        raise invalid_argument(f"TruncatedNormal does not support dtype {dt}")
    k0, k1 = _seeds(seed, seed2)
    group = 2 if dt == np.float64 else 4
    stride = group * _RESERVED_SAMPLES_PER_OUTPUT // 4
    num_groups = -(-n // group)
    out = np.zeros((num_groups, group), dtype=np.float64 if dt == np.float64 else np.float32)
    pending = np.arange(num_groups, dtype=np.int64)
    width = 2  # blocks read per group in a pass; doubled for the groups that run short (rare)
    with np.errstate(all="ignore"):
        while pending.size:
            # Blocks of the pending groups: group g uses counters skip + g * stride + [0, width).
            starts = skip + pending * stride
            blocks = _group_blocks(k0, k1, starts, width)  # [groups, width, 4]
            if dt == np.float64:
                s, c = _box_muller_double(blocks)  # [groups, width]
            else:
                pairs = blocks.reshape(len(pending), width * 2, 2)
                s, c = _box_muller_float(pairs[..., 0], pairs[..., 1])
            vals = np.stack([s, c], axis=-1).reshape(len(pending), -1)
            keep = np.abs(vals) < 2.0
            full = keep.sum(axis=1) >= group
            rows = np.nonzero(full)[0]
            if rows.size:
                rank = np.cumsum(keep[rows], axis=1)
                take = keep[rows] & (rank <= group)
                out[pending[rows]] = vals[rows][take].reshape(-1, group)
            pending = pending[~full]
            width *= 2
    return np.asarray(out.reshape(-1)[:n].astype(dt).reshape(dims), order="C")


def _group_blocks(seed: int, seed2: int, starts: np.ndarray, width: int) -> np.ndarray:
    """uint32 [len(starts), width, 4]: the Philox blocks at counters start .. start + width - 1 for each start."""
    if starts.size == 0:
        return np.zeros((0, width, 4), dtype=np.uint32)
    counters = (starts[:, None] + np.arange(width, dtype=np.int64)[None, :]).reshape(-1)
    return _philox_at(seed, seed2, counters).reshape(len(starts), width, 4)


def _philox_at(seed: int, seed2: int, counters: np.ndarray) -> np.ndarray:
    """uint32 [len(counters), 4]: Philox4x32-10 outputs at the given (non-negative) block counters."""
    k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    c = counters.astype(np.uint64)
    # The 128-bit counter: words 0-1 count blocks, words 2-3 hold seed2 (carry into them is ignored
    # as no tensor needs 2**64 blocks).
    c0 = c & _MASK32
    c1 = c >> np.uint64(32)
    c2 = np.full_like(c0, seed2 & 0xFFFFFFFF)
    c3 = np.full_like(c0, (seed2 >> 32) & 0xFFFFFFFF)
    for _ in range(10):
        p0 = _MUL_A * c0
        p1 = _MUL_B * c2
        hi0, lo0 = p0 >> np.uint64(32), p0 & _MASK32
        hi1, lo1 = p1 >> np.uint64(32), p1 & _MASK32
        c0, c1, c2, c3 = hi1 ^ c1 ^ np.uint64(k0), lo1, hi0 ^ c3 ^ np.uint64(k1), lo0
        k0, k1 = (k0 + _KEY_A) & 0xFFFFFFFF, (k1 + _KEY_B) & 0xFFFFFFFF
    return np.stack([c0, c1, c2, c3], axis=-1).astype(np.uint32)


def random_shuffle(value: Any, seed: int = 0, seed2: int = 0, skip: int = 0) -> np.ndarray:
    """RandomShuffle: ``value`` permuted along dimension 0 as TF's kernel does for (seed, seed2) from block ``skip``.

    TF swaps element i with i + (word_i % (n - i)) for i = 0 .. n - 2, word_i the i-th 32-bit
    Philox word (one word per swap, no rejection); tensors with at most one element or one row
    come back unchanged and draw nothing.
    """
    x = np.asarray(value)
    if x.size <= 1 or x.shape[0] <= 1:
        return x.copy()
    n = x.shape[0]
    k0, k1 = _seeds(seed, seed2)
    words = philox_blocks(k0, k1, -(-(n - 1) // 4), skip).reshape(-1)[: n - 1].tolist()
    perm = list(range(n))
    for i, w in enumerate(words):
        j = i + w % (n - i)
        perm[i], perm[j] = perm[j], perm[i]
    return np.ascontiguousarray(x[np.array(perm, dtype=np.int64)])


def random_shuffle_blocks(shape: tuple[int, ...]) -> int:
    """The Philox blocks one RandomShuffle call on a tensor of ``shape`` reserves (TF: ReserveSamples32(n - 1))."""
    if not shape or int(np.prod(shape, dtype=np.int64)) <= 1 or shape[0] <= 1:
        return 0
    return (shape[0] - 1 + 3) // 4


# Added with tf.random.categorical.
def _multinomial_args(logits: Any, num_samples: Any) -> tuple[np.ndarray, int]:
    """Check Multinomial's inputs as TF's kernel does (same order, same messages); (logits, num_samples)."""
    x = np.asarray(logits)
    n = np.asarray(num_samples)
    if x.ndim != 2:
        raise invalid_argument(f"logits should be a matrix, got shape {shape_str(x.shape)}")
    if n.ndim != 0:
        raise invalid_argument(f"num_samples should be a scalar, got shape {shape_str(n.shape)}")
    samples = int(n)
    if samples < 0:
        raise invalid_argument(f"num_samples should be non-negative, got {samples}")
    if x.shape[1] <= 0:
        raise invalid_argument(f"num_classes should be positive, got {x.shape[1]}")
    return x, samples


def multinomial_blocks(logits_shape: tuple[int, ...], num_samples: int) -> int:
    """Philox blocks a Multinomial call reserves: 256 per output of batch * 2 * ceil4(num_samples), as TF's CPU.

    Nothing is reserved when the output is empty (TF skips the sampling then).
    """
    if len(logits_shape) != 2 or logits_shape[0] * num_samples == 0:
        return 0
    return 256 * logits_shape[0] * 2 * (-(-num_samples // 4) * 4)


def multinomial(
    logits: Any,
    num_samples: Any,
    output_dtype: Any = np.int64,
    seed: int = 0,
    seed2: int = 0,
    skip: int = 0,
    threads: int | None = None,
) -> np.ndarray:
    """Multinomial: ``num_samples`` class indices per row of ``logits``, TF's CPU draws for (seed, seed2) from ``skip``.

    Per row the kernel accumulates exp(logit - max finite logit) in float64 over the finite
    logits (a non-finite logit repeats the running sum, so it is never drawn), draws a
    [0, 1) double from two consecutive Philox words per sample, scales it by the row's total
    and takes the first class whose cumulative sum exceeds it. The rows are split into shards
    as TF's thread pool (of ``threads`` threads, default the intra-op setting) splits them.
    """
    x, samples = _multinomial_args(logits, num_samples)
    batch, classes = x.shape
    out_dt = as_numpy_dtype(output_dtype)
    if batch * samples == 0:
        return np.zeros((batch, samples), dtype=out_dt)
    if threads is None:  # TF's pool: the intra-op setting, else every usable core
        from modtensor.runtime import intra_op

        threads = intra_op.effective_threads()
    k0, k1 = _seeds(seed, seed2)
    draws = np.empty((batch, samples), dtype=np.float64)
    for start, stop in _multinomial_shards(batch, samples, classes, threads):
        # A shard's generator starts (start * (samples + 3)) // 4 blocks in and runs on over its rows.
        n = (stop - start) * samples
        words = philox_blocks(k0, k1, -(-n // 2), skip + start * (samples + 3) // 4).reshape(-1, 2)[:n]
        draws[start:stop] = _uniform_double(words[:, 0], words[:, 1]).reshape(stop - start, samples)
    x64 = x.astype(np.float64)
    finite = np.isfinite(x64)
    out = np.empty((batch, samples), dtype=out_dt)
    with np.errstate(all="ignore"):
        for b in range(batch):
            row, ok = x64[b], finite[b]
            top = row[ok].max() if ok.any() else 0.0
            cdf = np.cumsum(np.where(ok, np.exp(row - top), 0.0))
            out[b] = np.searchsorted(cdf, draws[b] * cdf[-1], side="right")
    return out


def _multinomial_shards(batch: int, samples: int, classes: int, threads: int) -> list[tuple[int, int]]:
    """The row ranges TF's Shard / Eigen ParallelFor give Multinomial's per-row work on a pool of ``threads``.

    TF's cost per row is 50 * (samples * log2(classes) + classes) cycles; Eigen runs everything
    as one range unless that cost model asks for 2+ threads, and else cuts the rows into equal
    blocks (at most 4 per thread, at least 40000 cycles each), coarsened while that keeps the
    threads as evenly busy.
    """
    cost = int(50 * (samples * math.log(classes) / math.log(2) + classes))
    wanted = max((batch * cost - 100000) / 100000 + 0.9, 1.0)
    if threads <= 1 or batch <= 1 or min(threads, int(wanted)) <= 1:
        return [(0, batch)]
    block_f = 40000 / cost if cost > 0 else float(batch)
    block = min(batch, max(-(-batch // (4 * threads)), int(block_f)))
    max_block = min(batch, 2 * block)
    count = -(-batch // block)
    best = count / (-(-count // threads) * threads)
    prev = count
    while best < 1.0 and prev > 1:
        coarser = -(-batch // (prev - 1))
        if coarser > max_block:
            break
        coarser_count = -(-batch // coarser)
        prev = coarser_count
        efficiency = coarser_count / (-(-coarser_count // threads) * threads)
        if efficiency + 0.01 >= best:
            block, count = coarser, coarser_count
            best = max(best, efficiency)
    return [(start, min(batch, start + block)) for start in range(0, batch, block)]
