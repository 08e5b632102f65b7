"""Timing and result rows shared by the benchmarks: median seconds per call after warm-up, one row per case.

Every benchmark module exposes ``run(env: Environment) -> list[Row]``; ``run.py`` calls
them all in one process and prints the rows as one markdown table.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = ["Environment", "Row", "measure", "measure_interleaved"]


@dataclass
class Environment:
    """What a benchmark may use: TensorFlow when importable (else None), and whether to run a short version."""

    tensorflow: ModuleType | None
    quick: bool = False

    @property
    def repeats(self) -> int:
        """Timed samples per measurement (the median is reported)."""
        return 5 if self.quick else 21


@dataclass
class Row:
    """One case measured side by side: seconds per call for modtensor, NumPy and TensorFlow (None: not measured).

    ``per`` divides every time (e.g. 1000 for a per-op cost of a 1000-op chain); ``note``
    says what the numbers mean or why one is missing.
    """

    benchmark: str
    case: str
    modtensor_s: float | None
    numpy_s: float | None = None
    tensorflow_s: float | None = None
    per: int = 1
    note: str = ""


def _loop_count(fn: Callable[[], Any], warmup: int, min_sample_s: float) -> int:
    for _ in range(warmup):
        fn()
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-9)
    return max(1, int(min_sample_s / once))


def _sample(fn: Callable[[], Any], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def measure_interleaved(
    fns: dict[str, Callable[[], Any] | None], repeats: int = 21, warmup: int = 3, min_sample_s: float = 0.02
) -> dict[str, float | None]:
    """Median seconds per call of each function, their samples taken in turn (a, b, c, a, b, c, ...).

    Interleaving makes the ratios robust on a shared machine: a burst of outside load
    hits every contender's samples alike. None entries stay None (not measured).
    """
    numbers = {name: _loop_count(fn, warmup, min_sample_s) for name, fn in fns.items() if fn is not None}
    samples: dict[str, list[float]] = {name: [] for name in numbers}
    for _ in range(repeats):
        for name, number in numbers.items():
            samples[name].append(_sample(fns[name], number))  # type: ignore[arg-type]
    return {name: statistics.median(samples[name]) if name in samples else None for name in fns}


def measure(fn: Callable[[], Any], repeats: int = 21, warmup: int = 3, min_sample_s: float = 0.02) -> float:
    """Median seconds per call of ``fn`` over ``repeats`` samples, after ``warmup`` untimed calls.

    Each sample runs ``fn`` enough times in a loop to last about ``min_sample_s`` (so
    microsecond calls are not drowned by timer resolution); the loop count is fixed
    before the timed samples start.
    """
    number = _loop_count(fn, warmup, min_sample_s)
    return statistics.median(_sample(fn, number) for _ in range(repeats))
