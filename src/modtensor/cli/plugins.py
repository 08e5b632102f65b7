"""``modtensor plugins``: every discovered plugin, where it came from, what it registered, and load errors.

Runs plugin discovery (unless ``MODTENSOR_NO_PLUGINS`` is set), loads the
libraries given with ``--load``, and prints one block per plugin: path, origin,
entry points, ops, kernels per device type, device types, graph optimizers, for a
StreamExecutor plugin its platform (name, type, allocator, memory growth, devices
with hardware name, vendor and PCI bus id), and the load error if any (``--json``
for a machine-readable list). Exits 1 when a plugin failed to load.

``--check`` loads nothing in this process: each native plugin discovery would load (and each
``--load`` library) is loaded in a child process of its own, as ``modtensor check`` does, so a
plugin that aborts or segfaults while loading is reported instead of ending the listing; its
symbols are checked against modtensor's exports before that.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import warnings
from typing import Any

from modtensor.framework.errors import OpError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Register the ``plugins`` subcommand."""
    p = sub.add_parser("plugins", help="list discovered plugins, what they registered, and load errors")
    p.add_argument("--load", action="append", default=[], metavar="PATH", help="also load this library or folder")
    p.add_argument("--json", action="store_true", help="print a JSON list instead of text")
    p.add_argument(
        "--check",
        action="store_true",
        help="load each native plugin in a child process of its own (a crash is reported, not fatal)",
    )
    p.set_defaults(func=run)


def _search_locations() -> list[str]:
    from modtensor.plugin.discovery import PLUGIN_FOLDER, PLUGIN_PATH_ENV, site_packages_folders

    places = [str(folder / PLUGIN_FOLDER) for folder in site_packages_folders()]
    env = os.environ.get(PLUGIN_PATH_ENV)
    if env:
        places.append(f"{PLUGIN_PATH_ENV}={env}")
    places.append("entry points of the group 'modtensor.plugins'")
    return places


def _platform_summary(path: str) -> dict[str, Any] | None:
    """What the StreamExecutor platform loaded from ``path`` reports, or None when it has none."""
    from modtensor.config.experimental import memory_growth_enabled
    from modtensor.plugin.native.stream_executor import loaded_platforms

    platform = next((p for p in loaded_platforms().values() if p.path == path), None)
    if platform is None:
        return None
    devices = []
    for index, device in enumerate(platform.devices):
        name = f"/physical_device:{platform.type}:{index}"
        if platform.force_memory_growth:
            growth = "on (forced by the plugin)"
        else:
            growth = "on" if memory_growth_enabled(name) else "off (reserves the device's memory up front)"
        devices.append({
            "name": name,
            "hardware_name": device.hardware_name,
            "vendor": device.vendor,
            "pci_bus_id": device.pci_bus_id,
            "memory_growth": growth,
        })  # fmt: skip
    return {
        "name": platform.name,
        "type": platform.type,
        "allocator": "BFC over the plugin's allocate" if platform.use_bfc_allocator else "the plugin's own",
        "supports_unified_memory": platform.supports_unified_memory,
        "devices": devices,
        "notes": list(platform.notes),
    }


def _format_platform(platform: dict[str, Any]) -> list[str]:
    lines = [
        f"  platform: {platform['name']} (device type {platform['type']})",
        f"    allocator: {platform['allocator']}",
    ]
    for d in platform["devices"]:
        details = ", ".join(f"{k.replace('_', ' ')}: {d[k]}" for k in ("hardware_name", "vendor", "pci_bus_id") if d[k])
        lines.append(f"    {d['name']}: {details or 'no details reported'}; memory growth {d['memory_growth']}")
    lines.extend(f"    note: {note}" for note in platform["notes"])
    return lines


def _format(summary: dict[str, Any]) -> list[str]:
    state = "loaded" if summary["error"] is None else "FAILED"
    lines = [f"{summary['name']}  ({summary['kind']}, {state})", f"  path: {summary['path']}"]
    lines.append(f"  from: {summary['origin']}")
    entry_points = ", ".join(f"{name} ({what})" for name, what in summary["entry_points"].items())
    lines.append(f"  entry points: {entry_points or '-'}")
    lines.append(f"  ops: {', '.join(summary['ops']) or '-'}")
    kernels = summary["kernels"]
    if kernels:
        lines.append("  kernels:")
        lines.extend(f"    {device}: {', '.join(items)}" for device, items in sorted(kernels.items()))
    else:
        lines.append("  kernels: -")
    lines.append(f"  device types: {', '.join(summary['device_types']) or '-'}")
    lines.append(f"  graph optimizers: {', '.join(summary['optimizers']) or '-'}")
    if summary.get("platform"):
        lines.extend(_format_platform(summary["platform"]))
    if summary["error"] is not None:
        lines.append(f"  error: {summary['error']}")
    return lines


def _check_candidates(paths: list[str]) -> list[tuple[str, str]]:
    """(path, origin) of every native plugin discovery would load, then the ``--load`` paths (folders expanded)."""
    from pathlib import Path

    from modtensor.plugin.discovery import native_plugin_candidates, plugins_disabled

    found = [] if plugins_disabled() else [(str(p), origin) for p, origin in native_plugin_candidates()]
    for path in paths:
        location = Path(path)
        if location.is_dir():
            found.extend((str(p), "--load") for p in sorted(location.iterdir()) if p.name.endswith(".so"))
        else:
            found.append((path, "--load"))
    unique: dict[str, tuple[str, str]] = {}
    for path, origin in found:
        unique.setdefault(os.path.realpath(path), (path, origin))
    return list(unique.values())


def _check_lines(path: str, origin: str, report: dict[str, Any]) -> list[str]:
    verdict = report["verdict"]
    load = report.get("load", {})
    lines = [f"{os.path.basename(path)}  (native, {'ok' if verdict['ok'] else 'FAILED'} in a child process)"]
    lines += [f"  path: {path}", f"  from: {origin}"]
    symbols = report.get("symbols", {})
    if symbols:
        ours = sum(len(lib["from_modtensor"]) for lib in symbols.get("libraries", []))
        state = "ok" if symbols.get("ok") else "problems"
        lines.append(f"  symbols: {state}; {ours} C API functions resolved by modtensor; "
                     f"exports {', '.join(symbols.get('entry_points', [])) or 'no entry point'}")  # fmt: skip
    if load.get("ok"):
        entry_points = ", ".join(f"{name} ({what})" for name, what in load["entry_points"].items())
        kernels = sum(len(v) for v in load.get("kernels", {}).values())
        lines.append(f"  load: ok in {load['seconds'] * 1e3:.0f} ms; {entry_points}; {len(load.get('ops', []))} ops, "
                     f"{kernels} kernels, device types: {', '.join(load.get('device_types', [])) or '-'}, "
                     f"graph optimizers: {', '.join(load.get('optimizers', [])) or '-'}")  # fmt: skip
    lines += [f"  problem: {p}" for p in verdict["problems"]]
    for crash in report.get("crashes", []):
        lines += [f"  | {line}" for line in crash["report"].splitlines()[:8]]
    return lines


def _run_check(args: argparse.Namespace) -> int:
    """``--check``: each native plugin loaded in a child process of its own; 1 when any failed."""
    from modtensor.plugin.conformance.report import load_check

    candidates = _check_candidates(args.load)
    reports = []
    for path, origin in candidates:
        reports.append((path, origin, load_check(path)))
    if args.json:
        print(json.dumps([{"path": p, "origin": o, "check": r} for p, o, r in reports], indent=2, default=str))
    else:
        if not candidates:
            print("No native plugins found. Searched:")
            print("\n".join(f"  {place}" for place in _search_locations()))
        for path, origin, report in reports:
            print("\n".join(_check_lines(path, origin, report)))
        print("(Python entry-point plugins are not checked here: they load in-process with `modtensor plugins`)")
    return 1 if any(not r["verdict"]["ok"] for _, _, r in reports) else 0


def run(args: argparse.Namespace) -> int:
    """Discover and list plugins; returns 1 when any failed to load."""
    if args.check:
        return _run_check(args)
    from modtensor.plugin import discover_plugins, load_library, loaded_plugins
    from modtensor.plugin.discovery import plugins_disabled

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # failures are listed below instead
        discover_plugins()
        for path in args.load:
            with contextlib.suppress(OpError):  # recorded; shown with the others
                load_library(path)
    summaries = []
    for record in loaded_plugins():
        summary = record.summary()
        if record.error is None and "SE_InitPlugin" in record.entry_points:
            summary["platform"] = _platform_summary(record.path)
        summaries.append(summary)
    if args.json:
        print(json.dumps(summaries, indent=2))
    else:
        if plugins_disabled():
            print("Plugin discovery is off (MODTENSOR_NO_PLUGINS is set).")
        if not summaries:
            print("No plugins found. Searched:")
            print("\n".join(f"  {place}" for place in _search_locations()))
        for summary in summaries:
            print("\n".join(_format(summary)))
    return 1 if any(s["error"] is not None for s in summaries) else 0
