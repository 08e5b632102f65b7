"""A best-fit-with-coalescing (BFC) allocator over raw device addresses, TensorFlow's design.

A device that hands out raw memory (a pluggable device's ``allocate``/``deallocate``)
is slow and fragmenting when every tensor asks it directly, so the BFC allocator
takes large *regions* from a ``SubAllocator`` and carves them into *chunks*:

- sizes round up to 256 bytes (the minimum allocation); free chunks sit in 21
  *bins*, bin ``i`` holding chunks of at least ``256 << i`` bytes, each bin ordered
  by (size, address), so the first fitting chunk of the first non-empty bin is the
  best fit;
- a chosen chunk is *split* when it is at least twice the request (or wastes more
  than 128 MiB), the remainder going back to a bin;
- a freed chunk *merges* with free neighbours of its region;
- with ``allow_growth`` regions grow on demand (2 MiB first, then doubling, capped
  at what remains of the limit); without it the whole limit is reserved up front;
- with ``garbage_collection``, when a new region cannot be had, regions that are
  entirely free go back to the sub-allocator and the region is tried again.

Addresses are plain ints; nothing here touches the memory itself.
"""

from __future__ import annotations

import bisect
import threading
from abc import ABC, abstractmethod

from modtensor.framework import errors
from modtensor.runtime.allocator import AllocatorStats

__all__ = [
    "MIN_ALLOCATION_SIZE",
    "NUM_BINS",
    "BFCAllocator",
    "SubAllocator",
    "bin_for_size",
    "human_readable_num_bytes",
    "rounded_bytes",
]

MIN_ALLOCATION_BITS = 8
MIN_ALLOCATION_SIZE = 1 << MIN_ALLOCATION_BITS  # 256 bytes: granularity and minimum chunk
NUM_BINS = 21
_INITIAL_GROWTH_REGION = 2 << 20  # TF's first region under allow_growth: 2 MiB
_MAX_INTERNAL_FRAGMENTATION = 128 << 20  # never waste more than this on one chunk's padding
_BACKPEDAL_FACTOR = 0.9
_MAX_LOGGED_CHUNKS = 40  # per region, in memory_log()


class SubAllocator(ABC):
    """Where a BFC allocator gets its regions: raw device memory as integer addresses."""

    @abstractmethod
    def alloc(self, num_bytes: int, alignment: int) -> int:
        """A region of ``num_bytes`` aligned to ``alignment``; 0 when it cannot (never raises for OOM)."""

    @abstractmethod
    def free(self, address: int, num_bytes: int) -> None:
        """Give back a region that ``alloc`` returned, with the size it was asked for."""


def rounded_bytes(num_bytes: int) -> int:
    """``num_bytes`` rounded up to a multiple of 256, at least 256 (TF's RoundedBytes)."""
    return max(MIN_ALLOCATION_SIZE, (num_bytes + MIN_ALLOCATION_SIZE - 1) & ~(MIN_ALLOCATION_SIZE - 1))


def bin_for_size(num_bytes: int) -> int:
    """The bin of a chunk size: floor(log2(size / 256)), capped at the last bin."""
    index = ((num_bytes >> MIN_ALLOCATION_BITS) or 1).bit_length() - 1
    return index if index < NUM_BINS else NUM_BINS - 1


def human_readable_num_bytes(num_bytes: int) -> str:
    """TF's HumanReadableNumBytes: ``"256B"``, ``"1.00KiB"``, ``"2.50MiB"``."""
    if num_bytes < 1024:
        return f"{num_bytes}B"
    value = float(num_bytes)
    for unit in "KMGTPE":
        value /= 1024.0
        if value < 1024.0 or unit == "E":
            return f"{value:.2f}{unit}iB"
    raise AssertionError("unreachable")


class _Chunk:
    """A piece of a region: free or in use, linked to its neighbours in address order."""

    __slots__ = ("address", "size", "requested_size", "in_use", "prev", "next", "region")

    def __init__(self, address: int, size: int, region: _Region):
        self.address = address
        self.size = size
        self.requested_size = 0
        self.in_use = False
        self.prev: _Chunk | None = None
        self.next: _Chunk | None = None
        self.region = region


class _Region:
    """One block obtained from the sub-allocator; its chunks tile it from ``first``."""

    __slots__ = ("address", "size", "first")

    def __init__(self, address: int, size: int):
        self.address = address
        self.size = size
        self.first: _Chunk | None = None


class BFCAllocator:
    """Best-fit with coalescing over regions from a SubAllocator; thread-safe (one lock).

    ``total_memory`` is the limit on bytes reserved from the sub-allocator. Errors:
    ResourceExhaustedError with the allocator's state when a request cannot be met;
    InternalError for freeing an address that is not a live allocation.
    """

    def __init__(
        self,
        sub_allocator: SubAllocator,
        total_memory: int,
        *,
        allow_growth: bool = True,
        name: str = "bfc",
        garbage_collection: bool = False,
    ):
        if total_memory <= 0:
            raise ValueError(f"BFC allocator '{name}' needs a positive memory limit, got {total_memory}")
        self.name = name
        self._sub = sub_allocator
        self._limit = int(total_memory)
        self._allow_growth = allow_growth
        self._garbage_collection = garbage_collection
        self._lock = threading.Lock()
        # bin i: sorted [(size, address)] of its free chunks
        self._bins: list[list[tuple[int, int]]] = [[] for _ in range(NUM_BINS)]
        self._chunks: dict[int, _Chunk] = {}  # every chunk by start address
        self._regions: list[_Region] = []  # by address
        self._reserved = 0
        self._backpedalled = False
        if allow_growth:
            self._next_region_size = rounded_bytes(min(self._limit, _INITIAL_GROWTH_REGION))
        else:
            self._next_region_size = rounded_bytes(self._limit)
        self._stats = AllocatorStats(bytes_limit=self._limit)
        if not allow_growth:
            with self._lock:
                self._extend(MIN_ALLOCATION_SIZE)  # reserve the whole limit now; retried lazily on failure

    # ------------------------------------------------------------------ public interface

    @property
    def memory_limit(self) -> int:
        """The most bytes this allocator reserves from its sub-allocator."""
        return self._limit

    @property
    def allow_growth(self) -> bool:
        """True when regions are reserved on demand rather than the whole limit up front."""
        return self._allow_growth

    def allocate_raw(self, num_bytes: int, alignment: int = MIN_ALLOCATION_SIZE, *, op_name: str = "") -> int:
        """The address of ``num_bytes`` of device memory, 256-byte aligned; 0 for a 0-byte request (as TF).

        ``alignment`` may be any power of two up to 256 (every chunk is 256-aligned).
        ``op_name`` only appears in the out-of-memory message.
        """
        if num_bytes < 0:
            raise ValueError(f"Allocator ({self.name}) cannot allocate a negative number of bytes ({num_bytes})")
        if alignment != MIN_ALLOCATION_SIZE and not (
            0 < alignment < MIN_ALLOCATION_SIZE and not alignment & (alignment - 1)
        ):
            raise ValueError(
                f"Allocator ({self.name}) supports alignments that are powers of two up to "
                f"{MIN_ALLOCATION_SIZE}, got {alignment}"
            )
        if num_bytes == 0:
            return 0
        size = (num_bytes + MIN_ALLOCATION_SIZE - 1) & -MIN_ALLOCATION_SIZE  # rounded_bytes, inlined
        first_bin = bin_for_size(size)
        with self._lock:
            address = self._find_chunk(first_bin, size, num_bytes)
            if address:
                return address
            if self._extend(size):
                address = self._find_chunk(first_bin, size, num_bytes)
                if address:
                    return address
            if self._deallocate_free_regions(size) and self._extend(size):
                address = self._find_chunk(first_bin, size, num_bytes)
                if address:
                    return address
            message = (
                f"Allocator ({self.name}) ran out of memory trying to allocate "
                f"{human_readable_num_bytes(num_bytes)} (rounded to {size})"
                + (f" requested by op {op_name}" if op_name else "")
                + "\nCurrent allocation summary follows.\n"
                + self._memory_log(size)
            )
        raise errors.ResourceExhaustedError(None, None, message)

    def deallocate_raw(self, address: int) -> None:
        """Free an allocation; its chunk merges with free neighbours. Freeing 0 is a no-op."""
        if address == 0:
            return
        with self._lock:
            chunk = self._chunks.get(address)
            if chunk is None or not chunk.in_use:
                state = "was already freed" if chunk is not None else "was not allocated by it"
                raise errors.InternalError(
                    None, None, f"Allocator ({self.name}) asked to free address {address:#x}, which {state}"
                )
            self._stats.bytes_in_use -= chunk.size
            chunk.in_use = False
            chunk.requested_size = 0
            self._coalesce_and_insert(chunk)

    def requested_size(self, address: int) -> int:
        """The bytes the caller asked for at ``address``."""
        with self._lock:
            return self._live_chunk(address).requested_size

    def allocated_size(self, address: int) -> int:
        """The bytes actually set aside at ``address`` (the chunk's size, >= requested)."""
        with self._lock:
            return self._live_chunk(address).size

    def get_stats(self) -> AllocatorStats:
        """A snapshot of the counters, with ``bytes_limit`` the memory limit and ``bytes_reserved`` the regions."""
        with self._lock:
            s = self._stats
            return AllocatorStats(
                num_allocs=s.num_allocs,
                bytes_in_use=s.bytes_in_use,
                peak_bytes_in_use=s.peak_bytes_in_use,
                largest_alloc_size=s.largest_alloc_size,
                bytes_limit=self._limit,
                bytes_reserved=self._reserved,
            )

    def clear_stats(self) -> None:
        """Reset num_allocs, the peak (to the bytes now in use) and the largest allocation, as TF."""
        with self._lock:
            self._stats.reset_peak()

    def memory_log(self) -> str:
        """The allocator's state: bins, regions and their chunks, in-use summary, stats (TF's DumpMemoryLog)."""
        with self._lock:
            return self._memory_log(0)

    def chunk_map(self) -> list[tuple[int, int, list[tuple[int, int, bool]]]]:
        """Every region as (address, size, [(chunk address, chunk size, in use), ...]); for checks and tools."""
        with self._lock:
            out = []
            for region in self._regions:
                chunks = []
                c = region.first
                while c is not None:
                    chunks.append((c.address, c.size, c.in_use))
                    c = c.next
                out.append((region.address, region.size, chunks))
            return out

    def __repr__(self) -> str:
        return f"<BFCAllocator {self.name!r} limit={self._limit}>"

    # ------------------------------------------------------------------ internals (lock held)

    def _live_chunk(self, address: int) -> _Chunk:
        chunk = self._chunks.get(address)
        if chunk is None or not chunk.in_use:
            raise errors.InternalError(
                None, None, f"Allocator ({self.name}) has no live allocation at address {address:#x}"
            )
        return chunk

    def _find_chunk(self, first_bin: int, size: int, requested: int) -> int:
        """Take the best-fitting free chunk (smallest, then lowest address), splitting it; 0 if none."""
        bins = self._bins
        for index in range(first_bin, NUM_BINS):
            free = bins[index]
            if not free:
                continue
            pos = bisect.bisect_left(free, (size, 0)) if index == first_bin else 0
            if pos == len(free):
                continue
            chunk_size, address = free.pop(pos)
            chunk = self._chunks[address]
            if chunk_size >= 2 * size or chunk_size - size >= _MAX_INTERNAL_FRAGMENTATION:
                self._split(chunk, size)
            chunk.in_use = True
            chunk.requested_size = requested
            self._stats.record_alloc(chunk.size)
            return address
        return 0

    def _split(self, chunk: _Chunk, size: int) -> None:
        """Cut ``chunk`` to ``size``; the rest becomes a free chunk right after it, in its bin."""
        rest = _Chunk(chunk.address + size, chunk.size - size, chunk.region)
        chunk.size = size
        rest.prev = chunk
        rest.next = chunk.next
        if chunk.next is not None:
            chunk.next.prev = rest
        chunk.next = rest
        self._chunks[rest.address] = rest
        self._insert_free(rest)

    def _insert_free(self, chunk: _Chunk) -> None:
        size = chunk.size
        index = (size >> MIN_ALLOCATION_BITS).bit_length() - 1  # bin_for_size, inlined (size >= 256)
        bisect.insort(self._bins[index if index < NUM_BINS else NUM_BINS - 1], (size, chunk.address))

    def _remove_free(self, chunk: _Chunk) -> None:
        size = chunk.size
        index = (size >> MIN_ALLOCATION_BITS).bit_length() - 1
        free = self._bins[index if index < NUM_BINS else NUM_BINS - 1]
        del free[bisect.bisect_left(free, (size, chunk.address))]

    def _coalesce_and_insert(self, chunk: _Chunk) -> None:
        """Merge a just-freed chunk with free neighbours (next, then previous) and bin the result."""
        nxt = chunk.next
        if nxt is not None and not nxt.in_use:
            self._remove_free(nxt)
            self._absorb_next(chunk)
        prev = chunk.prev
        if prev is not None and not prev.in_use:
            self._remove_free(prev)
            self._absorb_next(prev)
            chunk = prev
        self._insert_free(chunk)

    def _absorb_next(self, chunk: _Chunk) -> None:
        nxt = chunk.next
        assert nxt is not None
        chunk.size += nxt.size
        chunk.next = nxt.next
        if nxt.next is not None:
            nxt.next.prev = chunk
        del self._chunks[nxt.address]

    def _extend(self, size: int) -> bool:
        """Reserve a new region able to hold ``size`` bytes; False when the limit or the sub-allocator says no."""
        available = (self._limit - self._reserved) // MIN_ALLOCATION_SIZE * MIN_ALLOCATION_SIZE
        if size > available:
            return False
        increased = False
        while size > self._next_region_size:
            self._next_region_size *= 2
            increased = True
        region_size = min(self._next_region_size, available)
        address = self._sub.alloc(region_size, MIN_ALLOCATION_SIZE)
        if not address and not self._backpedalled:
            # The device may have less than we asked: try 10% less at a time, once per allocator (TF).
            self._backpedalled = True
            while not address:
                region_size = rounded_bytes(int(region_size * _BACKPEDAL_FACTOR))
                if region_size < size:
                    break
                address = self._sub.alloc(region_size, MIN_ALLOCATION_SIZE)
        if not address:
            return False
        if not increased:
            self._next_region_size *= 2
        region = _Region(address, region_size)
        chunk = _Chunk(address, region_size, region)
        region.first = chunk
        bisect.insort(self._regions, region, key=lambda r: r.address)
        self._chunks[address] = chunk
        self._reserved += region_size
        self._insert_free(chunk)
        return True

    def _deallocate_free_regions(self, size: int) -> bool:
        """Return every wholly free region to the sub-allocator when that could make room for ``size``."""
        if not self._garbage_collection:
            return False
        free_regions = [r for r in self._regions if r.first is not None and not r.first.in_use and r.first.next is None]
        free_bytes = sum(r.size for r in free_regions)
        if not free_bytes or size > self._limit - self._reserved + free_bytes:
            return False
        for region in free_regions:
            chunk = region.first
            assert chunk is not None
            self._remove_free(chunk)
            del self._chunks[chunk.address]
            self._regions.remove(region)
            self._reserved -= region.size
            self._sub.free(region.address, region.size)
        return True

    def _memory_log(self, wanted: int) -> str:
        """A shortened DumpMemoryLog; ``wanted`` > 0 adds the bin the failed request would use."""
        lines = []
        per_bin = [[0, 0, 0, 0, 0] for _ in range(NUM_BINS)]  # chunks, in use, bytes, bytes in use, requested
        for chunk in self._chunks.values():
            row = per_bin[bin_for_size(chunk.size)]
            row[0] += 1
            row[2] += chunk.size
            if chunk.in_use:
                row[1] += 1
                row[3] += chunk.size
                row[4] += chunk.requested_size
        for index, (total, in_use, total_bytes, in_use_bytes, requested) in enumerate(per_bin):
            if total:
                lines.append(
                    f"Bin ({human_readable_num_bytes(MIN_ALLOCATION_SIZE << index)}): \tTotal Chunks: {total}, "
                    f"Chunks in use: {in_use}. {human_readable_num_bytes(total_bytes)} allocated for chunks. "
                    f"{human_readable_num_bytes(in_use_bytes)} in use in bin. "
                    f"{human_readable_num_bytes(requested)} client-requested in use in bin."
                )
        if wanted:
            index = bin_for_size(wanted)
            lines.append(
                f"Bin for {human_readable_num_bytes(wanted)} was "
                f"{human_readable_num_bytes(MIN_ALLOCATION_SIZE << index)}, Chunk State: "
            )
        largest_free = 0
        by_size: dict[int, int] = {}
        for region in self._regions:
            lines.append(f"Next region of size {region.size}")
            shown = 0
            chunk = region.first
            while chunk is not None:
                if not chunk.in_use:
                    largest_free = max(largest_free, chunk.size)
                else:
                    by_size[chunk.size] = by_size.get(chunk.size, 0) + 1
                if shown < _MAX_LOGGED_CHUNKS:
                    state = "InUse" if chunk.in_use else "Free "
                    lines.append(f"{state} at {chunk.address:x} of size {chunk.size}")
                elif shown == _MAX_LOGGED_CHUNKS:
                    lines.append("... (more chunks in this region)")
                shown += 1
                chunk = chunk.next
        lines.append("     Summary of in-use Chunks by size: ")
        total_in_use = 0
        for chunk_size in sorted(by_size):
            count = by_size[chunk_size]
            total_in_use += chunk_size * count
            lines.append(
                f"{count} Chunks of size {chunk_size} totalling {human_readable_num_bytes(chunk_size * count)}"
            )
        s = self._stats
        lines += [
            f"Sum Total of in-use chunks: {human_readable_num_bytes(total_in_use)}",
            f"Largest free chunk: {human_readable_num_bytes(largest_free)}",
            f"total_region_allocated_bytes_: {self._reserved} memory_limit_: {self._limit} "
            f"available bytes: {self._limit - self._reserved}",
            "Stats: ",
            f"Limit:        {self._limit:>20}",
            f"InUse:        {s.bytes_in_use:>20}",
            f"MaxInUse:     {s.peak_bytes_in_use:>20}",
            f"NumAllocs:    {s.num_allocs:>20}",
            f"MaxAllocSize: {s.largest_alloc_size:>20}",
            f"Reserved:     {self._reserved:>20}",
        ]
        return "\n".join(lines)
