"""Image codec speed: JPEG and PNG decode and encode of a 224 x 224 photo-like image, eagerly, beside TensorFlow.

Both sides call the same libraries (libjpeg-turbo, libpng), so the ratio measures what the op call around them
costs; the pixels and bytes are checked equal to TF's first. The NumPy column is empty (NumPy has no codecs).

    PYTHONPATH=src /work/tfvenv/bin/python benchmarks/image_codecs.py [--quick]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import Environment, Row, measure_interleaved  # noqa: E402

BENCHMARK = "image codecs (eager)"


def photo(size: int = 224) -> np.ndarray:
    """A smooth image with texture (what JPEG's DCT sees in photographs), uint8 RGB."""
    rng = np.random.default_rng(7)
    yy, xx = np.mgrid[0:size, 0:size]
    base = np.stack([np.sin(xx / 17.0) * 90 + 120, np.cos(yy / 23.0) * 80 + 110, (xx + yy) % 256 * 0.5 + 40], -1)
    return np.clip(base + rng.normal(0, 6, base.shape), 0, 255).astype(np.uint8)


def _cases(tf: Any, image: np.ndarray, jpeg: bytes, png: bytes) -> dict[str, Callable[[], Any]]:
    return {
        "decode_jpeg 224x224": lambda: tf.io.decode_jpeg(jpeg),
        "decode_jpeg 224x224 ratio 2": lambda: tf.io.decode_jpeg(jpeg, ratio=2),
        "decode_and_crop_jpeg 112x112 of 224x224": lambda: tf.io.decode_and_crop_jpeg(jpeg, [56, 56, 112, 112]),
        "encode_jpeg 224x224 q95": lambda: tf.io.encode_jpeg(image),
        "decode_png 224x224": lambda: tf.io.decode_png(png),
        "encode_png 224x224": lambda: tf.io.encode_png(image),
    }


def run(env: Environment) -> list[Row]:
    """One row per case: modtensor's and TensorFlow's seconds per call, outputs checked equal first."""
    import modtensor

    image = photo()
    jpeg = modtensor.io.encode_jpeg(image, quality=90).numpy()
    png = modtensor.io.encode_png(image).numpy()
    mt = _cases(modtensor, image, jpeg, png)
    tf = _cases(env.tensorflow, image, jpeg, png) if env.tensorflow is not None else {}
    rows = []
    for case, fn in mt.items():
        note = ""
        if case in tf:
            same = np.array_equal(np.asarray(fn().numpy()), np.asarray(tf[case]().numpy()))
            note = "output equal to TF's" if same else "OUTPUT DIFFERS FROM TF's"
        times = measure_interleaved({"mt": fn, "tf": tf.get(case)}, repeats=5 if env.quick else 21)
        rows.append(Row(BENCHMARK, case, times["mt"], None, times["tf"], note=note))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run standalone and print the rows (``benchmarks/run.py`` prints them in the common table)."""
    from run import run_standalone

    return run_standalone(run, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
