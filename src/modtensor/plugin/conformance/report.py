"""``modtensor check``: run the conformance kit on one plugin file and put the report together.

The symbol check reads the files in this process (nothing of the plugin runs here). Everything
else runs in a child process (``conformance.probe``), so an ``abort()`` or a segfault of the plugin
becomes part of the report instead of ending the check: the child's report lines written before
the crash are kept, the crash is reported with the step it happened in and the shim's crash report
from the child's stderr, and a child is started again that skips the kernel (or step) that crashed,
up to ``max_restarts`` times.
"""

from __future__ import annotations

import collections
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from modtensor.plugin.conformance.probe import SECTIONS
from modtensor.plugin.conformance.symbols import check_symbols

__all__ = ["CheckOptions", "check_plugin", "format_report", "load_check"]


@dataclass
class CheckOptions:
    """What to check and how long to wait."""

    sections: tuple[str, ...] = SECTIONS
    ops: str = ""  # comma-separated op name patterns (fnmatch): check the numerics of these ops only
    max_kernels: int = 0  # at most this many kernels' numerics (0: all)
    dtypes_per_kernel: int = 3
    dtypes: str = ""  # comma-separated dtype names: check kernels of these dtypes only
    internal_ops: bool = False  # also run internal ops ('_' names) that have no CPU kernel to compare with
    timeout: float = 1200.0  # seconds for one child process
    max_restarts: int = 200  # children started again after a crash (each skips what crashed before)


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _crash_text(stderr: str) -> tuple[str, str]:
    """The shim's crash report (with the first lines of the Python stack after it) from a child's stderr, and
    what the plugin printed just before it (a failed CHECK's message, an uncaught exception)."""
    start = stderr.rfind("modtensor: fatal signal")
    if start < 0:
        return "\n".join(stderr.strip().splitlines()[-12:]), ""
    before = []
    for line in stderr[:start].splitlines():
        line = _LOG_PREFIX.sub("", line.strip())
        if line and not line.startswith("I "):  # a logger's INFO lines (glog/absl style) say nothing of the crash
            before.append(line)
    return "\n".join(stderr[start:].strip().splitlines()[:24]), " ".join(before[-3:])


# A timestamp as glog/absl/TensorFlow loggers print it: "2024-01-02 10:11:12.345678: ".
_LOG_PREFIX = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?: ")


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["MODTENSOR_NO_PLUGINS"] = "1"  # only the plugin under test loads
    env.pop("MODTENSOR_NO_CRASH_HANDLER", None)
    return env


def _run_child(path: str, sections: list[str], skip: list[str], options: CheckOptions) -> tuple[list[dict], dict]:
    """One child process: its report lines and how it ended (returncode, signal, stderr, timed_out)."""
    with tempfile.TemporaryDirectory(prefix="modtensor-check-") as tmp:
        report = Path(tmp) / "report.jsonl"
        report.touch()
        cmd = [sys.executable, "-m", "modtensor.plugin.conformance.probe", path, "--report", str(report)]
        cmd += ["--sections", ",".join(sections), "--dtypes-per-kernel", str(options.dtypes_per_kernel)]
        if options.ops:
            cmd += ["--ops", options.ops]
        if options.dtypes:
            cmd += ["--dtypes", options.dtypes]
        if options.internal_ops:
            cmd += ["--internal-ops"]
        if options.max_kernels:
            cmd += ["--max-kernels", str(options.max_kernels)]
        if skip:
            skip_file = Path(tmp) / "skip.txt"
            skip_file.write_text("".join(f"{item}\n" for item in skip), encoding="utf-8")
            cmd += ["--skip-file", str(skip_file)]
        ended: dict[str, Any] = {"timed_out": False}
        try:
            done = subprocess.run(
                cmd, capture_output=True, text=True, errors="replace", timeout=options.timeout, env=_child_env()
            )
            ended.update(returncode=done.returncode, stderr=done.stderr, stdout=done.stdout)
        except subprocess.TimeoutExpired as e:
            stderr = e.stderr.decode("utf-8", "replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            ended.update(returncode=None, stderr=stderr, stdout="", timed_out=True)
        lines = []
        for text in report.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError:  # a line cut by the crash
                continue
    return lines, ended


def check_plugin(path: str | os.PathLike[str], options: CheckOptions | None = None) -> dict[str, Any]:
    """The full report of one plugin (a JSON-friendly dict; ``format_report`` prints it)."""
    from modtensor import __version__

    options = options or CheckOptions()
    path = os.path.abspath(os.fspath(path))
    start = time.perf_counter()
    report: dict[str, Any] = {"plugin": path, "modtensor_version": __version__, "crashes": []}
    if not os.path.isfile(path):
        report["error"] = f"{path}: no such file"
        report["verdict"] = {"ok": False, "problems": [report["error"]]}
        return report
    report["symbols"] = check_symbols(path).summary()
    numerics: dict[str, dict[str, Any]] = {}
    optimizer: list[dict[str, Any]] = []
    skip: list[str] = []
    sections = [s for s in SECTIONS if s in options.sections and s != "load"]
    for _attempt in range(options.max_restarts + 1):
        lines, ended = _run_child(path, sections, skip, options)
        open_item: tuple[str, str] | None = None
        finished = False
        for entry in lines:
            if "begin" in entry:
                open_item = (entry["begin"], entry.get("item", ""))
                continue
            if entry.get("done"):
                finished = True
                continue
            section = entry.get("section")
            open_item = None
            if section == "load":
                report.setdefault("load", entry)
            elif section == "numerics":
                if entry["kernel"] not in numerics:
                    numerics[entry["kernel"]] = entry
                    skip.append(entry["kernel"])  # a restarted child does not check it again
            elif section == "numerics-plan":
                report.setdefault("numerics_plan", entry)
            elif section == "optimizer":
                if entry.get("model") is not None or not optimizer:
                    optimizer.append(entry)
                    skip.append(entry.get("model") or "")
            elif section in ("devices", "streams", "memory"):
                report[section] = entry
        if finished and ended.get("returncode") == 0:
            break
        returncode = ended.get("returncode")
        during, item = open_item if open_item is not None else ("", "")
        text, said = _crash_text(ended.get("stderr", ""))
        if ended["timed_out"]:
            how = f"timed out after {options.timeout:g} s"
        elif returncode is not None and returncode < 0:
            how = _signal_name(returncode)
        else:
            how = f"exit status {returncode}"
        crash = {"during": during or "start-up", "item": item, "how": how, "report": text, "plugin_output": said}
        report["crashes"].append(crash)
        if during in ("", "load"):
            report.setdefault("load", {"section": "load", "ok": False, "error": f"the plugin crashed while loading "
                                       f"({crash['how']})", "entry_points": {}, "ops": [], "kernels": {}})  # fmt: skip
            break
        if during == "numerics":
            detail = crash["how"] + (f"; the plugin printed: {said}" if said else "")
            result = {"kernel": item, "dtype": "", "status": "crashed", "detail": detail, "reference": "",
                      "shapes": [], "max_error": None}  # fmt: skip
            numerics[item] = {"section": "numerics", "kernel": item, "status": "crashed", "results": [result]}
            skip.append(item)
            sections = [s for s in sections if s in ("numerics", "optimizer")]
        elif during == "optimizer":
            optimizer.append({"section": "optimizer", "model": item, "status": "crashed", "detail": crash["how"]})
            skip.append(item)
            sections = ["optimizer"]
        else:  # devices, streams or memory: that step is not repeated
            report[during] = {"section": during, "crashed": crash["how"]}
            order = list(SECTIONS)
            sections = [s for s in sections if order.index(s) > order.index(during if during in order else "numerics")]
            if during == "memory":
                sections = [s for s in sections if s == "optimizer"]
        if not sections:
            break
    report["numerics"] = list(numerics.values())
    report["optimizer"] = [e for e in optimizer if e.get("model") is not None]
    report["seconds"] = round(time.perf_counter() - start, 2)
    report["verdict"] = _verdict(report, options)
    return report


def _numerics_counts(report: dict[str, Any]) -> collections.Counter[str]:
    return collections.Counter(r["status"] for k in report.get("numerics", []) for r in k["results"])


def _verdict(report: dict[str, Any], options: CheckOptions) -> dict[str, Any]:
    problems: list[str] = []
    symbols = report.get("symbols", {})
    if symbols.get("error"):
        problems.append(f"symbols: {symbols['error']}")
    problems += [f"symbols: {p}" for p in symbols.get("problems", [])]
    load = report.get("load", {})
    if not load.get("ok"):
        problems.append(f"load: {load.get('error') or 'did not load'}")
    for name, info in load.get("structs", {}).items():
        if "expected_version" in info and info["version"].split(".")[0] != info["expected_version"].split(".")[0]:
            problems.append(f"structs: {name} version {info['version']}, modtensor {info['expected_version']}")
    for check in report.get("streams", {}).get("checks", []):
        if not check["ok"]:
            problems.append(f"streams: {check['check']}: {check['detail']}")
    for section in ("devices", "streams", "memory"):
        if report.get(section, {}).get("crashed"):
            problems.append(f"{section}: the plugin crashed ({report[section]['crashed']})")
    for kernel in report.get("numerics", []):
        for r in kernel["results"]:
            if r["status"] in ("fail", "error", "crashed"):
                dtype = f" ({r['dtype']})" if r.get("dtype") else ""
                problems.append(f"numerics: {r['kernel']}{dtype}: {r['status']}: {r['detail']}")
    memory = report.get("memory")
    if memory and "before" in memory and memory["after"]["bytes_in_use"] != memory["before"]["bytes_in_use"]:
        leaked = memory["after"]["bytes_in_use"] - memory["before"]["bytes_in_use"]
        problems.append(f"memory: {leaked} bytes still in use on {memory['device']} after the kernels ran")
    for entry in report.get("optimizer", []):
        if entry["status"] in ("fail", "error", "crashed"):
            problems.append(f"optimizer: {entry['model']}: {entry['status']}: {entry.get('detail', '')}".rstrip(": "))
    for crash in report.get("crashes", []):
        if crash["during"] in ("start-up",):
            problems.append(f"the check's child process ended ({crash['how']}) before loading the plugin")
    counts = _numerics_counts(report)
    plan = report.get("numerics_plan", {})
    subset = bool(plan) and plan.get("checked", 0) < plan.get("kernels", 0)
    return {"ok": not problems, "problems": problems, "numerics": dict(counts), "numerics_subset": subset}


def load_check(path: str | os.PathLike[str], timeout: float = 300.0) -> dict[str, Any]:
    """Only the child-process load (``modtensor plugins --check``): symbols, load, crash."""
    return check_plugin(path, CheckOptions(sections=("load",), timeout=timeout, max_restarts=0))


# ---------------------------------------------------------------------- text


def _mark(ok: bool | None) -> str:
    return {True: "ok  ", False: "FAIL", None: "-   "}[ok]


def _bytes(n: int | None) -> str:
    if n is None:
        return "?"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _symbols_lines(symbols: dict[str, Any]) -> list[str]:
    if symbols.get("error"):
        return [f"symbols      FAIL {symbols['error']}"]
    ours = {Path(lib["path"]).name: len(lib["from_modtensor"]) for lib in symbols["libraries"] if lib["from_modtensor"]}
    other = sum(lib["from_other_libraries"] for lib in symbols["libraries"] if lib["needed_by"] == "")
    found = {n["name"]: n["found"] for n in symbols["needed"]}
    by_modtensor = sorted(name for name, where in found.items() if where == "modtensor")
    missing = sorted(name for name, where in found.items() if not where)
    total = sum(ours.values())
    per_library = ", ".join(f"{name} {count}" for name, count in ours.items())
    lines = [
        f"symbols      {_mark(not symbols['problems'])} {symbols['machine']}; {total} C API functions resolved by "
        f"modtensor ({per_library or 'none'}); {other} other symbols from system libraries",
        f"             NEEDED: {len(found)} libraries found"
        + (f" ({', '.join(by_modtensor)} provided by modtensor)" if by_modtensor else "")
        + (f"; missing: {', '.join(missing)}" if missing else ""),
        f"entry points      {', '.join(symbols['entry_points']) or 'none exported'}",
    ]
    lines += [f"             problem: {p}" for p in symbols["problems"]]
    return lines


def _load_lines(load: dict[str, Any]) -> list[str]:
    if not load:
        return ["load         -    not run"]
    if not load.get("ok"):
        return [f"load         FAIL {load.get('error')}"]
    entry_points = ", ".join(f"{name} ({what})" for name, what in load["entry_points"].items())
    lines = [f"load         ok   in {load['seconds'] * 1e3:.1f} ms; {entry_points}"]
    structs = load.get("structs", {})
    if structs:
        parts = []
        for name, info in structs.items():
            text = f"{name} {info['struct_size']}"
            text += "" if info["struct_size"] == info["expected"] else f" (modtensor {info['expected']})"
            if "version" in info:
                text += f" v{info['version']}"
            parts.append(text)
        lines.append("structs           " + "; ".join(parts))
    kernels = load.get("kernels", {})
    per_device = ", ".join(f"{device} {len(items)}" for device, items in sorted(kernels.items()))
    ops = load.get("ops", [])
    shown = ", ".join(ops[:12]) + (f", ... ({len(ops)} in all)" if len(ops) > 12 else "")
    lines.append(f"registered        {len(ops)} ops{': ' + shown if ops else ''}")
    lines.append(f"                  {sum(len(v) for v in kernels.values())} kernels ({per_device or 'none'}); "
                 f"device types: {', '.join(load.get('device_types', [])) or '-'}; "
                 f"graph optimizers: {', '.join(load.get('optimizers', [])) or '-'}")  # fmt: skip
    lines += [f"             warning: {w}" for w in load.get("warnings", [])[:5]]
    return lines


def _device_lines(report: dict[str, Any]) -> list[str]:
    devices = report.get("devices")
    if not devices or devices.get("crashed"):
        return [f"devices      FAIL crashed ({devices['crashed']})"] if devices and devices.get("crashed") else []
    platform = devices.get("platform")
    if platform is None:
        return ["devices      -    (not a device plugin)"]
    allocator = "BFC over the plugin's allocate" if platform["use_bfc_allocator"] else "the plugin's own allocator"
    lines = [
        f"devices      ok   platform {platform['name']} (type {platform['type']}, StreamExecutor C API "
        f"v{platform['version']}); {allocator}; unified memory {'yes' if platform['supports_unified_memory'] else 'no'}"
    ]
    for d in devices["devices"]:
        facts = [f"{k.replace('_', ' ')} {d[k]}" for k in ("hardware_name", "vendor", "pci_bus_id") if d.get(k)]
        if d.get("numa_node") is not None:
            facts.append(f"NUMA node {d['numa_node']}")
        if d.get("memory_bandwidth") is not None:
            facts.append(f"memory bandwidth {d['memory_bandwidth']}")
        if d.get("gflops") is not None:
            facts.append(f"{d['gflops']:g} GFLOPS")
        if d.get("memory"):
            facts.append(f"memory {_bytes(d['memory']['free'])} free of {_bytes(d['memory']['total'])}")
        lines.append(f"             {platform['type']}:{d['ordinal']}: {'; '.join(facts) or 'no properties reported'}")
    lines += [f"             note: {note}" for note in platform.get("notes", [])]
    return lines


def _stream_lines(report: dict[str, Any]) -> list[str]:
    streams = report.get("streams")
    if not streams or streams.get("device") is None:
        return (
            [] if not streams or not streams.get("crashed") else [f"streams      FAIL crashed ({streams['crashed']})"]
        )
    checks = streams["checks"]
    bad = [c for c in checks if not c["ok"]]
    lines = [
        f"streams      {_mark(not bad)} {len(checks) - len(bad)}/{len(checks)} checks passed on {streams['device']}"
    ]
    lines += [f"             FAIL {c['check']}: {c['detail']}" for c in bad]
    return lines


def _numerics_lines(report: dict[str, Any], verdict: dict[str, Any], verbose: bool) -> list[str]:
    kernels = report.get("numerics", [])
    plan = report.get("numerics_plan")
    if plan is None and not kernels:
        return []
    counts = _numerics_counts(report)
    bad = counts["fail"] + counts["error"] + counts["crashed"]
    total = sum(counts.values())
    parts = [f"{counts[k]} {label}" for k, label in (
        ("pass", "passed"), ("fail", "failed"), ("error", "errors"), ("crashed", "crashed"),
        ("ran", "ran without a reference"), ("skip", "skipped")) if counts[k]]  # fmt: skip
    lines = [
        f"numerics     {_mark(not bad)} {len(kernels)} kernels, {total} kernel/dtype cases: {', '.join(parts) or '-'}"
    ]
    if verdict.get("numerics_subset") and plan:
        what = []
        if plan.get("ops_filter"):
            what.append(f"ops matching '{plan['ops_filter']}'")
        if plan.get("dtypes_filter"):
            what.append(f"dtypes {plan['dtypes_filter']}")
        if plan["checked"] < plan.get("selected", plan["checked"]):
            what.append(f"the first {plan['checked']}")
        lines.append(
            f"             a subset: {plan['checked']} of the plugin's {plan['kernels']} kernels ({', '.join(what)})"
        )
    results = [r for k in kernels for r in k["results"]]
    for r in results:
        if r["status"] in ("fail", "error", "crashed") or (verbose and r["status"] != "pass"):
            dtype = f" ({r['dtype']})" if r.get("dtype") else ""
            lines.append(f"             {r['status'].upper():<7} {r['kernel']}{dtype}: {r['detail']}")
    if not verbose:
        reasons = collections.Counter(r["detail"].split(" (last:")[0] for r in results if r["status"] == "skip")
        for reason, n in reasons.most_common(5):
            lines.append(f"             skipped {n}: {reason}")
        if len(reasons) > 5:
            lines.append(f"             ... {len(reasons) - 5} other skip reasons (--verbose lists every case)")
    return lines


def _memory_lines(report: dict[str, Any]) -> list[str]:
    memory = report.get("memory")
    if not memory:
        return []
    if memory.get("crashed"):
        return [f"memory       FAIL crashed ({memory['crashed']})"]
    before, after = memory["before"], memory["after"]
    ok = before["bytes_in_use"] == after["bytes_in_use"]
    text = (
        f"memory       {_mark(ok)} {memory['device']}: allocator bytes in use {before['bytes_in_use']} before the "
        f"kernels ran, {after['bytes_in_use']} after"
    )
    if before.get("plugin_bytes_in_use") is not None:
        text += f"; the plugin's own count {before['plugin_bytes_in_use']} -> {after['plugin_bytes_in_use']}"
    return [text]


def _optimizer_lines(report: dict[str, Any]) -> list[str]:
    entries = report.get("optimizer", [])
    load = report.get("load", {})
    if not load.get("optimizers"):
        return ["optimizer    -    (no graph optimizer)"] if load.get("ok") else []
    bad = [e for e in entries if e["status"] in ("fail", "error", "crashed")]
    lines = [
        f"optimizer    {_mark(not bad)} {len(entries)} golden models, optimizer for {', '.join(load['optimizers'])}"
    ]
    for e in entries:
        status = e.get("plugin_status", e["status"])
        nodes = f"{e['nodes_before']} -> {e['nodes_after']} nodes" if e.get("nodes_after") is not None else ""
        error = (
            f"; outputs vs TensorFlow's {e['max_relative_error']:.1e}"
            if e.get("max_relative_error") is not None
            else ""
        )
        detail = f" ({e['detail']})" if e.get("detail") else ""
        lines.append(f"             {e['status'].upper():<5} {e['model']}: plugin {status}{detail}; {nodes}{error}")
    return lines


def format_report(report: dict[str, Any], *, verbose: bool = False) -> str:
    """The human-readable report."""
    lines = [f"modtensor check {report['plugin']}  (modtensor {report['modtensor_version']})"]
    if report.get("error"):
        return "\n".join([*lines, f"error: {report['error']}", "result: FAIL"])
    verdict = report["verdict"]
    lines += _symbols_lines(report["symbols"])
    lines += _load_lines(report.get("load", {}))
    lines += _device_lines(report)
    lines += _stream_lines(report)
    lines += _numerics_lines(report, verdict, verbose)
    lines += _memory_lines(report)
    lines += _optimizer_lines(report)
    for index, crash in enumerate(report.get("crashes", [])):
        item = f" ({crash['item']})" if crash.get("item") else ""
        lines.append(f"crash        {crash['how']} during {crash['during']}{item}")
        if index == 0 or verbose:  # the first crash in full; the others are one line each (--verbose: all)
            if crash.get("plugin_output"):
                lines.append(f"             | the plugin printed: {crash['plugin_output']}")
            lines += [f"             | {line}" for line in crash["report"].splitlines()[:12]]
    problems = verdict["problems"]
    result = "PASS" if verdict["ok"] else f"FAIL ({len(problems)} problem{'s' if len(problems) != 1 else ''})"
    lines.append(f"result: {result} in {report.get('seconds', 0):.1f} s")
    return "\n".join(lines)
