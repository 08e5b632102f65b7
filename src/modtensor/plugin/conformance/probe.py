"""The child process of ``modtensor check``: loads one plugin and runs the checks that need it loaded.

``python -m modtensor.plugin.conformance.probe PLUGIN --report FILE [--sections ...] [--skip KEY ...]``

Results go to FILE as JSON lines, one per finished step, flushed at once, so what was found before a
crash survives it; a ``{"begin": ...}`` line before each step that calls plugin code tells the parent
which step a crash happened in (the shim's crash report on stderr names the plugin call too). The
parent (``conformance.report``) starts this process again, skipping a kernel that crashed, and merges
the lines. Plugin discovery is off in this process (``MODTENSOR_NO_PLUGINS``): only PLUGIN is loaded.
"""

from __future__ import annotations

import argparse
import fnmatch
import gc
import json
import os
import sys
import time
import warnings
from typing import Any, TextIO

__all__ = ["SECTIONS", "main"]

SECTIONS = ("load", "devices", "streams", "numerics", "optimizer")


class Reporter:
    """Writes one JSON object per line to the report file, flushed (and fsynced) at once."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, entry: dict[str, Any]) -> None:
        self.stream.write(json.dumps(entry, default=str) + "\n")
        self.stream.flush()
        os.fsync(self.stream.fileno())

    def begin(self, section: str, item: str = "") -> None:
        self.write({"begin": section, "item": item})


def _load(path: str, out: Reporter) -> Any:
    """Load the plugin; report what it registered, its entry points and the struct sizes it filled."""
    from modtensor.plugin.loader import load_native_library
    from modtensor.plugin.native.graph_optimizer import loaded_optimizers
    from modtensor.plugin.native.stream_executor import loaded_platforms

    out.begin("load")
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            record = load_native_library(path, origin="modtensor check", raise_errors=True)
            error = None
        except Exception as e:  # noqa: BLE001 - reported
            from modtensor.plugin.registry import find_record

            record = find_record(os.path.realpath(path))
            error = f"{type(e).__name__}: {getattr(e, 'message', e)}"
    seconds = time.perf_counter() - start
    structs: dict[str, Any] = {}
    for platform in loaded_platforms().values():
        if platform.path == path:
            structs.update(platform.struct_info)
    for optimizer in loaded_optimizers().values():
        if optimizer.plugin == path:
            structs.update(optimizer.struct_info)
    summary = record.summary() if record is not None else {}
    out.write({
        "section": "load",
        "ok": error is None,
        "error": error,
        "seconds": round(seconds, 4),
        "entry_points": summary.get("entry_points", {}),
        "ops": summary.get("ops", []),
        "kernels": summary.get("kernels", {}),
        "device_types": summary.get("device_types", []),
        "optimizers": summary.get("optimizers", []),
        "structs": structs,
        "warnings": [str(w.message) for w in caught],
    })  # fmt: skip
    return record if error is None else None


def _platform(path: str) -> Any:
    from modtensor.plugin.native.stream_executor import loaded_platforms

    return next((p for p in loaded_platforms().values() if p.path == path), None)


def _devices(path: str, out: Reporter) -> None:
    from modtensor.plugin.native.stream_checks import device_properties

    platform = _platform(path)
    if platform is None:
        out.write({"section": "devices", "platform": None})
        return
    out.begin("devices")
    devices = [device_properties(d) for d in platform.devices]
    out.write({
        "section": "devices",
        "platform": {
            "name": platform.name,
            "type": platform.type,
            "version": ".".join(map(str, platform.version)),
            "supports_unified_memory": platform.supports_unified_memory,
            "use_bfc_allocator": platform.use_bfc_allocator,
            "force_memory_growth": platform.force_memory_growth,
            "notes": list(platform.notes),
        },
        "devices": devices,
    })  # fmt: skip


def _streams(path: str, out: Reporter) -> None:
    from modtensor.plugin.native.stream_checks import run_stream_checks

    platform = _platform(path)
    if platform is None or not platform.devices:
        out.write({"section": "streams", "device": None, "checks": []})
        return
    device = platform.devices[0]
    out.begin("streams", f"{platform.type}:0")
    out.write({"section": "streams", "device": f"{platform.type}:0", "checks": run_stream_checks(device)})


def _memory_state(device: Any) -> dict[str, Any]:
    """The device allocator's bytes in use (after freeing what waits on streams) and the plugin's own stats."""
    gc.collect()
    device.synchronize()
    stats = device.allocator.get_stats()
    plugin = device.se_device.allocator_stats()
    usage = device.se_device.memory_usage()
    return {
        "bytes_in_use": int(stats.bytes_in_use),
        "plugin_bytes_in_use": None if plugin is None else int(plugin["bytes_in_use"]),
        "free": None if usage is None else int(usage[0]),
    }


# Vendor ops that are a standard op under another name (ITEX's _ITEXMatMul is MatMul): their
# kernels are compared with the standard op's CPU kernel when inputs and outputs agree.
_VENDOR_PREFIXES = ("_ITEX",)


def _twin_ops(op: str) -> list[str]:
    for prefix in _VENDOR_PREFIXES:
        if op.startswith(prefix):
            rest = op[len(prefix) :]
            return [rest, f"_{rest}"]
    return []


def _reference_picker(registration: Any, plugin_kernels: set[int]) -> Any:
    """The function choosing the CPU reference (a ``Reference``) of ``registration`` for a dtype assignment."""
    from modtensor.framework.op_registry import global_registry
    from modtensor.plugin.conformance.numerics import Reference
    from modtensor.plugin.registry import loaded_plugins
    from modtensor.runtime.kernel_registry import global_kernel_registry

    kd = registration.kernel_def
    native_sources = {r.path for r in loaded_plugins() if r.kind == "native"}

    def cpu_kernels(op: str) -> list[Any]:
        return [
            r
            for r in global_kernel_registry().kernels_for_op(op)
            if r is not registration
            and r.kernel_def.device_type in ("CPU", "DEFAULT")
            and not r.kernel_def.label
            and not (kd.device_type == "CPU" and id(r) in plugin_kernels)  # a CPU kernel is checked against another's
        ]

    groups: list[tuple[Any, list[Any]]] = []  # (op_def, registrations), best first
    for op in [kd.op, *_twin_ops(kd.op)]:
        found = global_registry().lookup(op)
        candidates = cpu_kernels(op) if found is not None else []
        if not candidates:
            continue
        builtin = [r for r in candidates if r.source not in native_sources]
        groups.append((found.op_def, builtin))
        groups.append((found.op_def, [r for r in candidates if r.source in native_sources]))
        if op == kd.op:
            break

    def pick(types: dict[str, int]) -> Any:
        for op_def, group in groups:
            matching = [
                r
                for r in group
                if all(types.get(name) is None or types[name] in allowed for name, allowed in r.kernel_def.constraints)
            ]
            if matching:
                return Reference(max(matching, key=lambda r: r.kernel_def.priority), op_def)
        return None

    return pick


def _numerics(record: Any, args: argparse.Namespace, out: Reporter) -> None:
    from modtensor.plugin.conformance.numerics import check_kernel, kernel_key
    from modtensor.runtime.device_factory import get_device

    cpu = get_device("/device:CPU:0")
    kernels = list(record.kernels)
    plugin_ids = {id(r) for r in kernels}
    if args.ops:
        patterns = args.ops.split(",")
        kernels = [r for r in kernels if any(fnmatch.fnmatchcase(r.kernel_def.op, p) for p in patterns)]
    only = None
    if args.dtypes:
        from modtensor.framework import dtypes as dtypes_lib

        only = frozenset(dtypes_lib.as_dtype(name.strip()).as_datatype_enum for name in args.dtypes.split(","))
        kernels = [r for r in kernels if all(any(t in only for t in types) for _, types in r.kernel_def.constraints)]
    total = len(kernels)
    if args.max_kernels and len(kernels) > args.max_kernels:
        kernels = kernels[: args.max_kernels]
    devices: dict[str, Any] = {}
    platform = _platform(record.path)
    device = get_device(f"/device:{platform.type}:0") if platform is not None and platform.devices else None
    before = _memory_state(device) if device is not None else None
    out.write({
        "section": "numerics-plan",
        "kernels": len(record.kernels),
        "selected": total,
        "checked": len(kernels),
        "ops_filter": args.ops or "",
        "dtypes_filter": args.dtypes or "",
    })  # fmt: skip
    for registration in kernels:
        key = kernel_key(registration)
        if key in args.skip:  # checked by an earlier child, or crashed it
            continue
        device_type = registration.kernel_def.device_type
        if device_type in ("CPU", "DEFAULT"):
            target = cpu
        else:
            if device_type not in devices:
                try:
                    devices[device_type] = get_device(f"/device:{device_type}:0")
                except Exception:  # noqa: BLE001 - no device of that type in this process
                    devices[device_type] = None
            target = devices[device_type]
        if target is None:
            out.write({"section": "numerics", "kernel": key, "status": "skip", "results": [
                {"kernel": key, "dtype": "", "status": "skip", "detail": f"no {device_type} device in this process"}
            ]})  # fmt: skip
            continue
        out.begin("numerics", key)
        try:
            results = check_kernel(
                registration,
                _reference_picker(registration, plugin_ids),
                target,
                cpu,
                dtypes_per_kernel=args.dtypes_per_kernel,
                internal_ops=args.internal_ops,
                only_dtypes=only,
            )
            entries = [r.summary() for r in results]
        except Exception as e:  # noqa: BLE001 - a bug in the check itself: reported, the next kernel runs
            entries = [{"kernel": key, "dtype": "", "status": "error", "detail": f"{type(e).__name__}: {e}"}]
        out.write({"section": "numerics", "kernel": key, "results": entries})
    if device is not None and before is not None:
        out.begin("memory", device.name)
        after = _memory_state(device)
        out.write({"section": "memory", "device": device.name, "before": before, "after": after})


def _optimizer(record: Any, args: argparse.Namespace, out: Reporter) -> None:
    from modtensor.plugin.conformance.optimizer_checks import check_optimizer_on_models

    if not record.optimizers:
        out.write({"section": "optimizer", "device_type": None, "models": []})
        return
    for device_type in record.optimizers:
        for entry in check_optimizer_on_models(record.path, device_type, out.begin, skip=args.skip):
            out.write({"section": "optimizer", "device_type": device_type, **entry})


def main(argv: list[str] | None = None) -> int:
    """Run the requested sections on one plugin; exit status 0 (results are in the report file)."""
    parser = argparse.ArgumentParser(prog="python -m modtensor.plugin.conformance.probe")
    parser.add_argument("plugin")
    parser.add_argument("--report", required=True)
    parser.add_argument("--sections", default=",".join(SECTIONS))
    parser.add_argument("--skip-file", help="a file of kernel keys and model names not to check (one a line)")
    parser.add_argument("--ops", default="")
    parser.add_argument("--max-kernels", type=int, default=0)
    parser.add_argument("--dtypes-per-kernel", type=int, default=3)
    parser.add_argument("--internal-ops", action="store_true")
    parser.add_argument("--dtypes", default="", help="comma-separated dtype names (float32, ...) to check")
    args = parser.parse_args(argv)
    args.skip = set()
    if args.skip_file:
        with open(args.skip_file, encoding="utf-8") as f:
            args.skip = {line.rstrip("\n") for line in f if line.strip()}
    sections = set(args.sections.split(","))
    with open(args.report, "a", encoding="utf-8") as stream:
        out = Reporter(stream)
        record = _load(args.plugin, out)
        if record is not None:
            if "devices" in sections:
                _devices(record.path, out)
            if "streams" in sections:
                _streams(record.path, out)
            if "numerics" in sections:
                _numerics(record, args, out)
            if "optimizer" in sections:
                _optimizer(record, args, out)
        out.write({"done": True})
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
