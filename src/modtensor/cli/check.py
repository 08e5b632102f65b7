"""``modtensor check PLUGIN.so``: the conformance kit, a report on one native plugin.

Before loading: the plugin's undefined symbols against what modtensor's libraries (and the
plugin's NEEDED libraries) export, and its entry points. Then, in a child process (so an
``abort()`` or segfault is reported, not fatal): loading, the struct sizes and versions it
filled, every op and kernel it registered, device properties, stream/event/memcpy behaviour,
each kernel's numerics against a CPU kernel on generated inputs, memory returned after the
kernels ran, and its graph optimizer's output on the bundled golden models. Text by default,
``--json`` for CI; exit status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Register the ``check`` subcommand."""
    p = sub.add_parser("check", help="run the conformance kit on a native plugin (in a child process)")
    p.add_argument("plugin", help="path of the plugin's shared library (.so)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--ops", default="", metavar="PATTERNS",
                   help="check the numerics of these ops only (comma-separated, * and ? allowed)")  # fmt: skip
    p.add_argument("--dtypes", default="", metavar="NAMES",
                   help="check kernels of these dtypes only (comma-separated: float32,int32,...)")  # fmt: skip
    p.add_argument("--max-kernels", type=int, default=0, metavar="N", help="check at most N kernels' numerics")
    p.add_argument("--dtypes-per-kernel", type=int, default=3, metavar="N",
                   help="dtypes checked per kernel, from its type constraints (default %(default)s)")  # fmt: skip
    p.add_argument("--internal-ops", action="store_true",
                   help="also run internal ops ('_' names) that have no CPU kernel to compare with")  # fmt: skip
    p.add_argument("--no-numerics", action="store_true", help="skip the numerics (and memory) check")
    p.add_argument("--no-optimizer", action="store_true", help="skip the graph optimizer check")
    p.add_argument("--timeout", type=float, default=1200.0, metavar="S", help="seconds per child process")
    p.add_argument("--verbose", action="store_true", help="list every skipped kernel case with its reason")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check one plugin, print the report; 0 when it passed, 1 when anything failed."""
    from modtensor.plugin.conformance.probe import SECTIONS
    from modtensor.plugin.conformance.report import CheckOptions, check_plugin, format_report

    sections = tuple(
        s
        for s in SECTIONS
        if not (s == "numerics" and args.no_numerics) and not (s == "optimizer" and args.no_optimizer)
    )
    options = CheckOptions(
        sections=sections,
        ops=args.ops,
        max_kernels=args.max_kernels,
        dtypes_per_kernel=args.dtypes_per_kernel,
        internal_ops=args.internal_ops,
        dtypes=args.dtypes,
        timeout=args.timeout,
    )
    report = check_plugin(args.plugin, options)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        print(format_report(report, verbose=args.verbose))
    return 0 if report["verdict"]["ok"] else 1
