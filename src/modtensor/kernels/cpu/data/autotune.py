"""AUTOTUNE parallelism of a dataset iterator, chosen by measured throughput (TF's ``tf.data.AUTOTUNE``).

A map function's elements are cheap or dear, and its time is Python (which holds the GIL) or kernels (which
release it) in any mix, so how many calls to keep in flight is measured, not guessed: the tuner tries each
candidate parallelism for a window of elements, as the consumer sees them (wall time per element, the
consumer's own work between calls included), keeps the fastest, and measures again after a while in case the
pipeline changed. Parallelism 0 means the calls run inline on the consumer's thread, with no handoff at all.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

__all__ = ["ParallelismTuner"]

WINDOW = 16  # elements per measurement
ROUNDS = 2  # measurements per candidate; the fastest one counts
RETUNE_EVERY = 4096  # elements between tunings


class ParallelismTuner:
    """The parallelism to use now (``current``), updated by ``tick`` once per element delivered."""

    def __init__(self, candidates: Sequence[int]):
        self._candidates = list(dict.fromkeys(candidates))
        self._best: dict[int, float] = {}
        self._trial = 0  # index into the schedule of candidates while tuning, -1 when settled
        self.current = self._candidates[0]
        self._count = 0
        self._started = time.perf_counter()

    @property
    def tuning(self) -> bool:
        """True while candidates are being measured."""
        return self._trial >= 0

    def tick(self) -> None:
        """One element was delivered; after a window, record it and move to the next candidate (or settle)."""
        self._count += 1
        if self._trial < 0:
            if self._count >= RETUNE_EVERY:
                self._restart()
            return
        if self._count < WINDOW:
            return
        now = time.perf_counter()
        per_element = (now - self._started) / self._count
        self._best[self.current] = min(per_element, self._best.get(self.current, per_element))
        self._trial += 1
        if self._trial >= ROUNDS * len(self._candidates):
            self.current = min(self._best, key=self._best.__getitem__)
            self._trial = -1
        else:
            self.current = self._candidates[self._trial % len(self._candidates)]
        self._count = 0
        self._started = now

    def _restart(self) -> None:
        self._best.clear()
        self._trial = 0
        self.current = self._candidates[0]
        self._count = 0
        self._started = time.perf_counter()
