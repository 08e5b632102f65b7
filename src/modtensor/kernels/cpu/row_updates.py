"""Accumulating rows into rows in data order (``ufunc.at`` by row index), on numpy's fast 1-D path.

``np.add.at(out, rows, values)`` with 2-D ``out`` takes numpy's general path (~20 ns an element); the same
update as a 1-D ``at`` over element offsets takes the fast one. The element offsets run row-major through
``values``, so every output element still combines its inputs in data order, as TF's CPU loops do.
"""

from __future__ import annotations

import numpy as np

__all__ = ["at_rows"]

# Up to this many values per row, one ``at`` per column beats building element offsets (one call each ~2 us).
_COLUMN_LOOP_WIDTH = 16


def at_rows(ufunc: np.ufunc, out: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """``ufunc.at(out, rows, values)`` for C-contiguous ``out`` of shape ``[n, *tail]`` and ``values`` of shape
    ``[len(rows), *tail]`` (rows in range)."""
    width = int(np.prod(out.shape[1:], dtype=np.int64))
    if width == 0 or len(rows) == 0:
        return
    if width == 1:
        ufunc.at(out.reshape(-1), rows, values.reshape(-1))
        return
    if width <= _COLUMN_LOOP_WIDTH:  # a 1-D ``at`` per column (strided views take the fast path too)
        out2, values2 = out.reshape(len(out), width), values.reshape(len(values), width)
        for j in range(width):
            ufunc.at(out2[:, j], rows, values2[:, j])
        return
    offsets = (np.asarray(rows, np.int64)[:, None] * width + np.arange(width)).reshape(-1)
    ufunc.at(out.reshape(-1), offsets, values.reshape(-1))
