"""``modtensor exec PROGRAM.py [ARGS...]``: run an unchanged TensorFlow program on modtensor.

``import tensorflow`` in the program (and ``tensorflow.X``) resolves to modtensor
(``modtensor.tensorflow_alias``); the program runs as ``__main__`` with ``sys.argv`` set to
``PROGRAM.py ARGS...``, as ``python PROGRAM.py ARGS...`` would run it. Its exit status is the
command's; an exception it raises prints Python's traceback and exits 1. ``--plugin PATH``
loads a plugin library (or a folder of them) first.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback
from typing import Any


def add_parser(sub: Any) -> None:
    """Register the ``exec`` subcommand."""
    p = sub.add_parser("exec", help="run a TensorFlow Python program unchanged, with modtensor as tensorflow")
    p.add_argument("program", help="the Python file to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the program")
    p.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="PATH",
        help="load this plugin library (or every .so of a folder) first; repeatable",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the program; return its exit status."""
    from modtensor import tensorflow_alias
    from modtensor.plugin import load_library

    program = os.path.abspath(args.program)
    if not os.path.isfile(program):
        raise ValueError(f"no such program file: {args.program}")
    for path in args.plugin:
        load_library(path)
    tensorflow_alias.install()
    saved_argv, saved_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.argv = [args.program, *args.args]
    sys.path.insert(0, os.path.dirname(program))  # as `python PROGRAM.py`: the program's folder first
    try:
        runpy.run_path(program, run_name="__main__")
    except SystemExit as e:
        return _exit_status(e.code)
    except KeyboardInterrupt:
        raise
    except BaseException:  # the program's own failure: Python's traceback, status 1
        sys.stdout.flush()
        traceback.print_exc()
        return 1
    finally:
        sys.argv = saved_argv
        if sys.path and sys.path[0] == os.path.dirname(program) and saved_path0 != sys.path[0]:
            del sys.path[0]
    return 0


def _exit_status(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1
