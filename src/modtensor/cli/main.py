"""The ``modtensor`` command line: ``demo``, ``inspect``, ``run``, ``exec``, ``plugins``, ``optimize``, ``check``.

An unknown subcommand gets argparse's usage message; ``--version`` prints the version. Output
piped into a command that stops reading (``modtensor ... | head``) is cut short quietly: the
command still finishes its work (files it writes are written) and no traceback is printed.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from typing import Any

from modtensor.cli import check, demo, exec_program, inspect_graph, optimize, plugins, run
from modtensor.framework.errors import OpError


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every subcommand registered."""
    from modtensor import __version__

    parser = argparse.ArgumentParser(prog="modtensor", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"modtensor {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo.add_parser(sub)
    inspect_graph.add_parser(sub)
    run.add_parser(sub)
    exec_program.add_parser(sub)
    plugins.add_parser(sub)
    optimize.add_parser(sub)
    check.add_parser(sub)
    return parser


class PipeSafeStdout(io.TextIOBase):
    """stdout that stops writing, silently, once the reader of a pipe went away (BrokenPipeError).

    The command goes on (a file it was writing is still written); file descriptor 1 is pointed at
    /dev/null so the interpreter's flush at exit does not complain either.
    """

    def __init__(self, stream: Any):
        self.stream = stream
        self.broken = False

    def _broke(self) -> None:
        self.broken = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            pass

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                self.stream.write(text)
            except BrokenPipeError:
                self._broke()
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._broke()

    def isatty(self) -> bool:
        return not self.broken and self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", "utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``modtensor`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    stdout = sys.stdout
    sys.stdout = PipeSafeStdout(stdout)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except (OSError, ValueError, TypeError, OpError) as e:
        print(f"modtensor {args.command}: error: {e}", file=sys.stderr)
        return 1
    finally:
        sys.stdout.flush()
        sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(main())
