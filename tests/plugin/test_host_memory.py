"""The shim's host memory for tensors (csrc/shim/host_memory.c): large blocks are rounded to size classes and
kept for reuse when freed, up to MODTENSOR_HOST_CACHE_MB, so a model's activations at batch 8 stop costing a
page fault per 4 KiB on every run; small blocks go straight back to malloc."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import textwrap

import pytest

from modtensor.plugin.native import shim_path

MIN = 256 << 10


def _shim() -> ctypes.CDLL:
    lib = ctypes.CDLL(str(shim_path()))
    lib.MT_HostAllocate.restype = ctypes.c_void_p
    lib.MT_HostAllocate.argtypes = [ctypes.c_size_t]
    lib.MT_HostFree.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    lib.MT_HostBlockSize.restype = ctypes.c_size_t
    lib.MT_HostBlockSize.argtypes = [ctypes.c_size_t]
    lib.MT_HostCachedBytes.restype = ctypes.c_size_t
    return lib


def test_size_classes_are_aligned_and_waste_at_most_an_eighth() -> None:
    lib = _shim()
    for n in [0, 1, 63, 64, 65, 1000, MIN - 1, MIN, MIN + 1, 3 << 20, (40 << 20) + 12345, 1 << 30]:
        size = lib.MT_HostBlockSize(n)
        assert size % 64 == 0 and size >= max(n, 1)
        if n >= MIN:
            assert size <= n * 1.125 + 64
        assert lib.MT_HostBlockSize(size) == size  # a class is its own class


def test_a_freed_large_block_is_reused_by_the_next_allocation_of_its_class() -> None:
    lib = _shim()
    lib.MT_HostCacheClear()
    n = (5 << 20) + 100
    first = lib.MT_HostAllocate(n)
    assert first % 64 == 0
    ctypes.memset(first, 7, n)  # the whole block is usable
    lib.MT_HostFree(first, n)
    assert lib.MT_HostCachedBytes() == lib.MT_HostBlockSize(n)
    again = lib.MT_HostAllocate(n - 50)  # same class
    assert again == first and lib.MT_HostCachedBytes() == 0
    other = lib.MT_HostAllocate(n * 2)  # another class: a new block
    assert other != first
    small = lib.MT_HostAllocate(1000)
    lib.MT_HostFree(small, 1000)
    assert lib.MT_HostCachedBytes() == 0  # small blocks are malloc's
    lib.MT_HostFree(again, n - 50)
    lib.MT_HostFree(other, n * 2)
    lib.MT_HostCacheClear()
    assert lib.MT_HostCachedBytes() == 0


def test_the_cache_keeps_at_most_its_limit_and_zero_turns_it_off() -> None:
    script = textwrap.dedent(
        """
        import ctypes, sys
        sys.path.insert(0, sys.argv[1])
        from tests.plugin.test_host_memory import _shim
        lib = _shim()
        blocks = [(lib.MT_HostAllocate(3 << 20), 3 << 20) for _ in range(8)]
        for p, n in blocks:
            lib.MT_HostFree(p, n)
        print(lib.MT_HostCachedBytes() >> 20)
        """
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for limit, want in (("10", 9), ("0", 0), (None, 24)):
        env = dict(os.environ)
        env.pop("MODTENSOR_HOST_CACHE_MB", None)
        if limit is not None:
            env["MODTENSOR_HOST_CACHE_MB"] = limit
        done = subprocess.run([sys.executable, "-c", script, root], capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr
        assert int(done.stdout.split()[-1]) == want, (limit, done.stdout)


def _vm_flags(address: int) -> list[str]:
    """The VmFlags of the mapping of this process that holds `address` (/proc/self/smaps)."""
    inside = False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                start, end = (int(part, 16) for part in head.split("-"))
                inside = start <= address < end
            elif inside and head == "VmFlags:":
                return line.split()[1:]
    return []


@pytest.mark.skipif(
    not os.path.exists("/sys/kernel/mm/transparent_hugepage/enabled"), reason="the kernel has no transparent huge pages"
)
def test_blocks_of_4_mib_and_more_are_advised_onto_huge_pages() -> None:
    """Memory-bound kernels stream ~1.5x faster from huge pages: large blocks start on 2 MiB and carry the advice."""
    lib = _shim()
    lib.MT_HostCacheClear()
    n = (6 << 20) + 100
    block = lib.MT_HostAllocate(n)
    try:
        assert block % (2 << 20) == 0
        assert "hg" in _vm_flags(block)  # MADV_HUGEPAGE
    finally:
        lib.MT_HostFree(block, n)
        lib.MT_HostCacheClear()
