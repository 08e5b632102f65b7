"""``modtensor plugins``: what each plugin registered, and load errors."""

from __future__ import annotations

import json

from modtensor.cli.main import main


def test_json_lists_plugins_with_their_registrations(api_plugin, capsys):
    assert main(["plugins", "--json", "--load", str(api_plugin)]) in (0, 1)  # 1 if another test's bad plugin is listed
    listed = {p["path"]: p for p in json.loads(capsys.readouterr().out)}
    entry = listed[str(api_plugin)]
    assert entry["kind"] == "native" and entry["error"] is None
    assert entry["entry_points"] == {"TF_InitKernel": "called"}
    assert "MtApiCheck" in entry["ops"] and "MtApiCheck" in entry["kernels"]["CPU"]


def test_text_shows_the_load_error_and_exits_1(build_plugin, capsys):
    bad = build_plugin("bad_spec")
    assert main(["plugins", "--load", str(bad)]) == 1
    out = capsys.readouterr().out
    block = out[out.index("bad_spec.so  (native, FAILED)") :]
    assert f"  path: {bad}" in block
    assert "  error: InvalidArgumentError: TF_InitKernel of plugin" in block
    assert "Reference to unknown attr 'NoSuchType'" in block
