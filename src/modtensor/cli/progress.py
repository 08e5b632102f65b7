"""Progress of long CLI steps (importing, optimizing, first run of graphs over 10k nodes) on a terminal.

A step shows ``importing model.pb (25,000 nodes) ... 3.1 s`` on stderr, updated in place while it
runs, and ``... done in 4.2 s`` when it ends. Only when stderr is a terminal and the graph is large:
pipes, files and tests see nothing (``MODTENSOR_PROGRESS=1`` forces it on, ``0`` off).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

__all__ = ["LARGE_GRAPH_NODES", "enabled", "step"]

LARGE_GRAPH_NODES = 10_000
_INTERVAL = 0.25


def enabled(size: int, stream: TextIO | None = None) -> bool:
    """True when a step of ``size`` nodes shows progress on ``stream`` (stderr by default)."""
    forced = os.environ.get("MODTENSOR_PROGRESS", "")
    if forced in ("0", "1"):
        return forced == "1"
    stream = stream if stream is not None else sys.stderr
    try:
        return size >= LARGE_GRAPH_NODES and stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


@contextmanager
def step(label: str, size: int, stream: TextIO | None = None) -> Iterator[None]:
    """Show ``label`` with the elapsed time while the block runs (see the module docstring for when)."""
    stream = stream if stream is not None else sys.stderr
    if not enabled(size, stream):
        yield
        return
    start = time.perf_counter()
    done = threading.Event()
    lock = threading.Lock()

    def show(text: str, end: str = "") -> None:
        with lock:
            try:
                stream.write(f"\r\x1b[K{text}{end}")
                stream.flush()
            except (OSError, ValueError):
                pass

    def tick() -> None:
        while not done.wait(_INTERVAL):
            show(f"{label} ... {time.perf_counter() - start:.1f} s")

    show(f"{label} ...")
    ticker = threading.Thread(target=tick, name="modtensor-progress", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()
        show(f"{label} ... done in {time.perf_counter() - start:.1f} s", "\n")
