"""``modtensor plugins``: every discovered plugin, where it came from, what it registered, and load errors.

Runs plugin discovery (unless ``MODTENSOR_NO_PLUGINS`` is set), loads the
libraries given with ``--load``, and prints one block per plugin: path, origin,
entry points, ops, kernels per device type, device types, graph optimizers, for a
StreamExecutor plugin its platform (name, type, allocator, memory growth, devices
with hardware name, vendor and PCI bus id), and the load error if any (``--json``
for a machine-readable list). Exits 1 when a plugin failed to load.
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


def run(args: argparse.Namespace) -> int:
    """Discover and list plugins; returns 1 when any failed to load."""
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
