"""Record ICU's script code (``UScriptCode``) of every codepoint as TensorFlow 2.21's ``UnicodeScript`` gives it,
as a compact range table for modtensor's CPU kernel (Python has no ICU; ``unicodedata`` knows no scripts).

    cd /tmp/scratch && /work/tfvenv/bin/python /work/main/tools/make_unicode_script_table.py

Writes ``src/modtensor/kernels/cpu/unicode_scripts.json``: ``starts`` (the first codepoint of each run of equal
script codes, ascending, the first 0) and ``scripts`` (each run's code); a codepoint's code is that of the last run
starting at or before it. Codepoints outside 0..0x10FFFF are -1 (the kernel's rule, not in the table).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "src" / "modtensor" / "kernels" / "cpu" / "unicode_scripts.json"


def main() -> int:
    codepoints = np.arange(0x110000, dtype=np.int32)
    scripts = tf.raw_ops.UnicodeScript(input=codepoints).numpy()
    starts = np.flatnonzero(np.concatenate([[True], scripts[1:] != scripts[:-1]]))
    table = {"tensorflow": tf.__version__, "generated_by": "tools/make_unicode_script_table.py",
             "starts": starts.tolist(), "scripts": scripts[starts].tolist()}  # fmt: skip
    OUT.write_text(json.dumps(table, separators=(",", ":")) + "\n")
    print(f"{len(starts)} runs, {OUT.stat().st_size} bytes -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
