"""FFT speed beside TensorFlow, eagerly: complex FFT of 64 x 1024, RFFT / IRFFT of 64 x 1024 (an audio batch's
frames), FFT2D / RFFT2D of 8 x 256 x 256, and ComplexAbs of the spectrum.

modtensor runs NumPy's pocketfft, TF its ducc/pocketfft kernels; outputs are checked against TF's first (within
1e-5 of the largest). The NumPy column times the bare ``np.fft`` call, the floor of modtensor's kernel.

    PYTHONPATH=src /work/tfvenv/bin/python benchmarks/spectral.py [--quick]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import Environment, Row, measure_interleaved  # noqa: E402

BENCHMARK = "FFT (eager)"


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    frames = rng.standard_normal((64, 1024)).astype(np.float32)
    images = rng.standard_normal((8, 256, 256)).astype(np.float32)
    return {
        "frames": frames,
        "cframes": (frames + 1j * rng.standard_normal(frames.shape)).astype(np.complex64),
        "spectrum": np.fft.rfft(frames).astype(np.complex64),
        "images": images,
        "cimages": (images + 1j * images[:, ::-1]).astype(np.complex64),
    }


def _cases(tf: Any, x: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    return {
        "fft 64x1024 complex64": lambda: tf.signal.fft(x["cframes"]),
        "rfft 64x1024": lambda: tf.signal.rfft(x["frames"]),
        "irfft 64x513": lambda: tf.signal.irfft(x["spectrum"]),
        "fft2d 8x256x256 complex64": lambda: tf.signal.fft2d(x["cimages"]),
        "rfft2d 8x256x256": lambda: tf.signal.rfft2d(x["images"]),
        "abs of a 64x513 spectrum": lambda: tf.abs(x["spectrum"]),
    }


_NUMPY = {
    "fft 64x1024 complex64": lambda x: np.fft.fft(x["cframes"]),
    "rfft 64x1024": lambda x: np.fft.rfft(x["frames"]),
    "irfft 64x513": lambda x: np.fft.irfft(x["spectrum"]),
    "fft2d 8x256x256 complex64": lambda x: np.fft.fft2(x["cimages"]),
    "rfft2d 8x256x256": lambda x: np.fft.rfft2(x["images"]),
    "abs of a 64x513 spectrum": lambda x: np.abs(x["spectrum"]),
}


def run(env: Environment) -> list[Row]:
    """One row per case: modtensor's, NumPy's and TensorFlow's seconds per call, outputs checked first."""
    import modtensor

    x = _inputs()
    mt_inputs = {k: modtensor.constant(v) for k, v in x.items()}
    mt = _cases(modtensor, mt_inputs)
    tf = _cases(env.tensorflow, {k: env.tensorflow.constant(v) for k, v in x.items()}) if env.tensorflow else {}
    rows = []
    for case, fn in mt.items():
        note = ""
        if case in tf:
            got, want = np.asarray(fn().numpy()), np.asarray(tf[case]().numpy())
            scale = float(np.max(np.abs(want))) or 1.0
            close = got.shape == want.shape and float(np.max(np.abs(got - want))) <= 1e-5 * scale
            note = "output within 1e-5 of TF's largest" if close else "OUTPUT DIFFERS FROM TF's"
        numpy_fn = _NUMPY[case]
        times = measure_interleaved(
            {"mt": fn, "np": lambda f=numpy_fn: f(x), "tf": tf.get(case)}, repeats=5 if env.quick else 21
        )
        rows.append(Row(BENCHMARK, case, times["mt"], times["np"], times["tf"], note=note))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run standalone and print the rows (``benchmarks/run.py`` prints them in the common table)."""
    from run import run_standalone

    return run_standalone(run, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
