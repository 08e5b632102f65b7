"""The image codecs (csrc/image_codecs) are -Wall -Wextra clean and clean under AddressSanitizer and
LeakSanitizer on good and on damaged data.

A C driver (tests/kernels/csrc/image_codecs_fuzz.c) built with -fsanitize=address decodes every JPEG, PNG, GIF,
BMP and WebP stream of the codec goldens (tests/golden/image_codecs) and 800 seeded damaged copies of them (bits
flipped, bytes overwritten, cut short, chunks repeated) with every decoder setting, then encodes what decodes. Any
ASan or LSan report fails the test: untrusted bytes must never corrupt memory or leak, whatever libjpeg, libpng and
libwebp make of them. The Python process is kept out of it, so leaks are checked too.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from .test_native_cpu_kernels_asan import _asan_runtime

REPO = Path(__file__).resolve().parent.parent.parent
SOURCES = [REPO / "csrc" / "image_codecs" / f"{name}_codec.c" for name in ("jpeg", "png", "gif", "webp")]
DRIVER = Path(__file__).resolve().parent / "csrc" / "image_codecs_fuzz.c"
GOLDEN = REPO / "tests" / "golden" / "image_codecs" / "ops" / "kernels"
ASAN_FLAGS = ["-fsanitize=address", "-fno-omit-frame-pointer", "-g", "-O1"]
LIBRARIES = ["-ljpeg", "-lpng", "-lz"]


def _compiles(includes: str) -> bool:
    probe = subprocess.run(["gcc", "-fsyntax-only", "-x", "c", "-"], input=includes, capture_output=True, text=True)
    return probe.returncode == 0


def _headers_missing() -> bool:
    return not _compiles("#include <stdio.h>\n#include <jpeglib.h>\n#include <png.h>\n")


# WebP as the package builds it: with libwebp where its headers are (else the stubs, which decode nothing)
WEBP = ["-DMTIC_HAVE_WEBP"] if _compiles("#include <webp/decode.h>\n#include <webp/demux.h>\n") else []
if WEBP:
    LIBRARIES += ["-lwebp", "-lwebpdemux"]


def _streams() -> list[bytes]:
    """Every string input of the codec kernel goldens (JPEG, PNG, BMP and junk), longest first."""
    found = set()
    for npz in sorted(GOLDEN.glob("*.npz")):
        with np.load(npz) as data:
            for key in data.files:
                if "_in" in key and data[key].dtype.kind == "S":
                    found.update(bytes(v) for v in data[key].reshape(-1))
    return sorted(found, key=lambda s: (-len(s), s))


def _damaged(streams: list[bytes], count: int) -> list[bytes]:
    rng = np.random.default_rng(20261206)
    signatures = (b"\x89PNG", b"GIF8", b"RIFF")
    images = [s for s in streams if len(s) >= 16 and (s[:3] == b"\xff\xd8\xff" or s[:4] in signatures)]
    out = []
    for i in range(count):
        data = bytearray(images[i % len(images)])
        kind = i % 4
        if kind == 0:  # flipped bits
            for _ in range(int(rng.integers(1, 6))):
                pos = int(rng.integers(0, len(data)))
                data[pos] ^= 1 << int(rng.integers(0, 8))
        elif kind == 1:  # overwritten bytes (past the signature)
            for _ in range(int(rng.integers(1, 4))):
                pos = int(rng.integers(8, len(data)))
                data[pos] = int(rng.integers(0, 256))
        elif kind == 2:  # cut short
            data = data[: int(rng.integers(4, len(data)))]
        else:  # a stretch repeated
            a = int(rng.integers(2, len(data) - 1))
            b = min(len(data), a + int(rng.integers(1, 64)))
            data = data[:b] + data[a:b] + data[b:]
        out.append(bytes(data))
    return out


@pytest.mark.skipif(_headers_missing(), reason="libjpeg / libpng headers are not installed")
def test_sources_compile_warning_free_with_wall_wextra(tmp_path: Path) -> None:
    for source in (*SOURCES, DRIVER):
        done = subprocess.run(["gcc", "-std=c11", "-c", "-Wall", "-Wextra", "-Werror", "-O2", *WEBP,
                               f"-I{SOURCES[0].parent}", str(source), "-o", str(tmp_path / "x.o")],
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(_headers_missing(), reason="libjpeg / libpng headers are not installed")
def test_codecs_run_clean_under_address_and_leak_sanitizer(tmp_path: Path) -> None:
    if _asan_runtime() is None:
        pytest.skip("gcc has no AddressSanitizer runtime (libasan.so)")
    driver = tmp_path / "image_codecs_fuzz"
    build = subprocess.run(["gcc", "-std=c11", *ASAN_FLAGS, *WEBP, "-Wall", "-Wextra", f"-I{SOURCES[0].parent}",
                            *map(str, SOURCES), str(DRIVER), "-o", str(driver), *LIBRARIES],
                           capture_output=True, text=True)  # fmt: skip
    assert build.returncode == 0, build.stdout + build.stderr
    streams = _streams()
    assert len(streams) > 30, "the codec goldens hold the test streams"
    files = []
    for i, data in enumerate([*streams, *_damaged(streams, 800)]):
        path = tmp_path / f"s{i}.bin"
        path.write_bytes(data)
        files.append(str(path))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:halt_on_error=1")
    done = subprocess.run([str(driver), *files], capture_output=True, text=True, env=env, timeout=900)
    assert "Sanitizer" not in done.stderr, done.stderr[-6000:]
    assert done.returncode == 0, done.stderr[-6000:]
    counts = done.stdout.split()
    assert counts[0] == "files" and int(counts[1]) == len(files), done.stdout
    assert int(counts[3]) > 3 * len(streams), f"too few streams decoded: {done.stdout}"
