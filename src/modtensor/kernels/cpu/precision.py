"""Which dtype a kernel computes in: half types (float16, bfloat16) widen to float32, as TF's CPU kernels do."""

from __future__ import annotations

import ml_dtypes
import numpy as np

HALF_TYPES: frozenset[np.dtype] = frozenset({np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)})


def widen(x: np.ndarray) -> np.ndarray:
    """x as float32 when it is a half type, else x itself."""
    return x.astype(np.float32) if x.dtype in HALF_TYPES else x
