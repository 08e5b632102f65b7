"""The ``modtensor`` command line: ``demo`` and ``inspect`` today.

Subcommands are added as the features behind them land (``run`` with the
runtime, ``plugins`` with plugin loading, ``optimize`` with the graph
optimizers); an unknown subcommand gets argparse's usage message.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from modtensor.cli import check, demo, inspect_graph, optimize, plugins, run
from modtensor.framework.errors import OpError


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(prog="modtensor", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo.add_parser(sub)
    inspect_graph.add_parser(sub)
    run.add_parser(sub)
    plugins.add_parser(sub)
    optimize.add_parser(sub)
    check.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``modtensor`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except (OSError, ValueError, TypeError, OpError) as e:
        print(f"modtensor {args.command}: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
