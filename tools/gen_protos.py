"""Regenerate the committed ``*_pb2.py`` modules from modtensor's ``.proto`` sources.

The generated Python is committed so that ``pip install .`` needs no protoc;
run this script (with ``grpcio-tools`` installed) after editing a ``.proto``.
"""

from __future__ import annotations

import pathlib
import sys

from grpc_tools import protoc

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"
PROTO_DIRS = [SRC / "modtensor" / "framework" / "protos"]


def main() -> int:
    """Compile every .proto under PROTO_DIRS into a sibling _pb2.py and .pyi."""
    protos = sorted(str(p.relative_to(SRC)) for d in PROTO_DIRS for p in d.glob("*.proto"))
    include = pathlib.Path(protoc.__file__).parent / "_proto"
    args = ["protoc", f"-I{SRC}", f"-I{include}", f"--python_out={SRC}", f"--pyi_out={SRC}", *protos]
    rc = protoc.main(args)
    if rc != 0:
        print("protoc failed", file=sys.stderr)
    else:
        print(f"generated {len(protos)} modules")
    return rc


if __name__ == "__main__":
    sys.exit(main())
