"""CRC-32C, TF's table format and the tensor bundle (checkpoint files) without TensorFlow.

The files TF wrote are under tests/golden/checkpoint/ (tools/make_golden_checkpoints.py); here the
formats are checked piece by piece: known CRC vectors, table layout over many blocks, bundle
values of every dtype, corruption detection.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from modtensor.framework import crc32c, errors, table, tensor_bundle

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "checkpoint"


def test_crc32c_known_values_and_masking() -> None:
    assert crc32c.value(b"123456789") == 0xE3069283  # the CRC-32C check value
    assert crc32c.value(b"") == 0
    assert crc32c.value(bytes(32)) == 0x8A9136AA  # RFC 3720 B.4 test vectors
    assert crc32c.value(b"\xff" * 32) == 0x62A8AB43
    assert crc32c.value(bytes(range(32))) == 0x46DD794E
    for crc in (0, 1, 0xE3069283, 0xFFFFFFFF):
        assert crc32c.unmask(crc32c.mask(crc)) == crc
    assert crc32c.mask(0) == 0xA282EAD8


@pytest.mark.parametrize("size", [0, 1, 7, 8, 15, 4096, 12288, 12289, 40000, 100003])
def test_crc32c_native_matches_python_at_every_length_and_offset(size: int) -> None:
    data = np.random.default_rng(size).integers(0, 256, size + 3, dtype=np.uint8).tobytes()
    for start in (0, 3):
        part = data[start : start + size]
        assert crc32c.extend(7, part) == crc32c._python_extend(7, part)
    assert crc32c.extend(crc32c.value(data[:5]), data[5:]) == crc32c.value(data)


def test_table_round_trip_over_many_blocks() -> None:
    entries = [(f"key/{i:06d}".encode(), bytes([i % 251]) * (i % 700)) for i in range(3000)]
    data = table.write_table(entries)
    assert table.read_table(data) == entries
    # TF's index of a real checkpoint reads and writes back to the same bytes
    index = (GOLDEN / "tf_module" / "ckpt-1.index").read_bytes()
    assert table.write_table(table.read_table(index)) == index


def test_table_detects_corruption() -> None:
    data = bytearray(table.write_table([(b"a", b"1"), (b"b", b"2")]))
    data[3] ^= 0x40
    with pytest.raises(errors.DataLossError, match=r"Unable to read file \(f.index\).*block checksum mismatch"):
        table.read_table(bytes(data), "f.index")
    with pytest.raises(errors.DataLossError, match="too short"):
        table.read_table(b"abc", "f.index")
    with pytest.raises(ValueError, match="keys must increase"):
        table.write_table([(b"b", b""), (b"a", b"")])


def test_bundle_round_trip_of_every_dtype(tmp_path: Path) -> None:
    import ml_dtypes

    values = {
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
        "f64": np.array([1.5, -2.25]),
        "f16": np.array([0.5], np.float16),
        "bf16": np.array([1.0, 3.0], ml_dtypes.bfloat16),
        "i8": np.array([-1, 2], np.int8),
        "u16": np.array([65535], np.uint16),
        "i64": np.array(2**40),
        "bool": np.array([True, False]),
        "c128": np.array([1 + 1j]),
        "empty": np.zeros((0, 3), np.float32),
        "str": np.array([b"", b"ab", b"x" * 300], dtype=object),
        "big_endian": np.array([1, 2], dtype=">i4"),
    }
    tensor_bundle.write_bundle(str(tmp_path / "b"), values.items())
    reader = tensor_bundle.BundleReader(str(tmp_path / "b"))
    assert reader.key_list() == sorted(values)
    for key, value in values.items():
        got = reader.lookup(key)
        assert got.shape == value.shape, key
        assert got.tolist() == value.tolist(), key
    assert reader.lookup("big_endian").dtype == np.dtype("<i4")
    with pytest.raises(errors.InvalidArgumentError, match="Adding duplicate key: f32"):
        writer = tensor_bundle.BundleWriter(str(tmp_path / "c"))
        writer.add("f32", values["f32"])
        writer.add("f32", values["f32"])
    writer.abort()
    assert not list(tmp_path.glob("c*"))


def test_failed_write_leaves_the_previous_checkpoint(tmp_path: Path) -> None:
    prefix = str(tmp_path / "b")
    tensor_bundle.write_bundle(prefix, [("x", np.array([1.0]))])
    with pytest.raises(TypeError):
        tensor_bundle.write_bundle(prefix, [("x", np.array([2.0])), ("y", np.array([object()]))])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.data-00000-of-00001", "b.index"]
    assert tensor_bundle.BundleReader(prefix).lookup("x").tolist() == [1.0]


def test_bundle_size_and_string_checks(tmp_path: Path) -> None:
    prefix = str(tmp_path / "b")
    tensor_bundle.write_bundle(prefix, [("s", np.array([b"abc", b"de"], dtype=object))])
    data = tmp_path / "b.data-00000-of-00001"
    raw = bytearray(data.read_bytes())
    raw[-1] ^= 1
    data.write_bytes(bytes(raw))
    with pytest.raises(errors.DataLossError, match="Checksum does not match"):
        tensor_bundle.BundleReader(prefix).lookup("s")
    raw[0] = 9  # a length that no longer matches its checksum
    data.write_bytes(bytes(raw))
    with pytest.raises(errors.DataLossError, match="The length checksum does not match"):
        tensor_bundle.BundleReader(prefix).lookup("s")


_CRC_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "crc32c.h"
int main(void) {
  if (mt_crc32c_extend(0, "123456789", 9) != 0xE3069283u) return 1;
  /* every length and misalignment up to two interleaved blocks, against the byte-at-a-time CRC */
  size_t n = 3 * 16384 * 2 + 77;
  unsigned char* data = malloc(n);
  for (size_t i = 0; i < n; i++) data[i] = (unsigned char)(i * 2654435761u >> 13);
  for (size_t start = 0; start < 9; start++) {
    for (size_t len = 0; start + len <= n; len += (len < 64 ? 1 : 4093)) {
      unsigned char* copy = malloc(len ? len : 1);  /* exact-size heap buffer: ASan sees any overread */
      memcpy(copy, data + start, len);
      uint32_t whole = mt_crc32c_extend(0, copy, len);
      uint32_t bytewise = 0;
      for (size_t i = 0; i < len; i++) bytewise = mt_crc32c_extend(bytewise, copy + i, 1);
      free(copy);
      if (whole != bytewise) { printf("mismatch start=%zu len=%zu\n", start, len); return 1; }
    }
  }
  free(data);
  printf("ok hardware=%d\n", mt_crc32c_hardware());
  return 0;
}
"""


def test_crc32c_c_code_under_address_sanitizer(tmp_path: Path) -> None:
    """csrc/checksum/crc32c.c built with ASan/UBSan and -Wall -Wextra -Werror: every length and alignment agrees
    with the byte-at-a-time CRC without reading outside its buffer."""
    import shutil
    import subprocess

    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    csrc = Path(__file__).resolve().parents[2] / "csrc" / "checksum"
    (tmp_path / "main.c").write_text(_CRC_PROGRAM)
    binary = tmp_path / "crc_test"
    flags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-g", "-fsanitize=address,undefined",
             "-fno-sanitize-recover=all"]
    build = subprocess.run(
        ["gcc", *flags, f"-I{csrc}", str(csrc / "crc32c.c"), str(tmp_path / "main.c"), "-o", str(binary)],
        capture_output=True, text=True,
    )
    if build.returncode != 0 and "sanitize" in build.stderr and "cannot find" in build.stderr:
        pytest.skip("gcc has no sanitizer runtimes")
    assert build.returncode == 0, build.stderr
    done = subprocess.run([str(binary)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("ok")
