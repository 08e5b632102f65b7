"""FarmHash Fingerprint64 over many strings at once (numpy, strings up to 16 bytes) equals the one-string form
(whose values the StringToHashBucketFast and Fingerprint goldens check against TF) for every length class."""

from __future__ import annotations

import random

import numpy as np

from modtensor.kernels.cpu.farmhash import fingerprint64, fingerprint64_many


def test_many_equals_one_by_one_for_every_length() -> None:
    rng = random.Random(7)
    strings = [bytes(rng.randrange(256) for _ in range(n)) for n in range(0, 70) for _ in range(40)]
    strings += [b"\x00" * 5, b"abc\x00", b"\xff" * 16, b"\x00\x00\x00\x00\x00\x00\x00\x00\x01"]
    rng.shuffle(strings)
    want = np.array([fingerprint64(s) for s in strings], dtype=np.uint64)
    np.testing.assert_array_equal(fingerprint64_many(strings), want)


def test_many_of_nothing_and_of_only_long_strings() -> None:
    assert fingerprint64_many([]).shape == (0,)
    longer = [b"x" * 17, b"y" * 100]
    np.testing.assert_array_equal(fingerprint64_many(longer), [fingerprint64(s) for s in longer])
