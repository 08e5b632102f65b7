"""Is a graph optimizer plugin's output valid? Checked on the bundled golden models.

Each model (``modtensor.golden_models.models_folder()``) is compiled as a session would compile it, with
every node asking for the optimizer's device type (soft placement: nodes without a kernel there
go to the CPU): placed, then optimized by the meta-optimizer, whose plugin step hands the plugin
the whole placed graph and validates what comes back with grappler's validation (inputs exist,
no cycle, fetched and preserved nodes kept, every op registered, dtypes agree). The plugin's row
says what happened ("ran", "no change", "invalid output: ...", "error: ..."); then the optimized
graph runs on TensorFlow's recorded inputs and its outputs are compared with TensorFlow's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

__all__ = ["check_optimizer_on_models"]

_TOLERANCE = 1e-4


def _placed(graph_def: Any, device_type: str) -> Any:
    from modtensor.framework.protos import graph_pb2

    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    if device_type != "CPU":
        for node in out.node:
            node.device = f"/device:{device_type}:0"
    return out


def check_optimizer_on_models(
    plugin: str, device_type: str, begin: Callable[[str, str], None] | None = None, *, skip: Any = ()
) -> Iterator[dict[str, Any]]:
    """One result per golden model: the plugin pass's row, nodes before and after, and the outputs' error."""
    from modtensor.framework.protos import graph_pb2
    from modtensor.golden_models import models_folder
    from modtensor.runtime.graph_execution import ExecutionOptions, compile_graph

    folder = models_folder()
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        yield {"model": None, "status": "skip", "detail": f"no bundled models ({manifest_path} is missing)"}
        return
    manifest = json.loads(manifest_path.read_text())["models"]
    for name in sorted(manifest):
        if name in skip:
            continue
        info = manifest[name]
        if begin is not None:
            begin("optimizer", name)
        entry: dict[str, Any] = {"model": name}
        try:
            graph_def = graph_pb2.GraphDef.FromString((folder / f"{name}.pb").read_bytes())
            arrays = np.load(folder / f"{name}.io.npz")
            batch = info["batches"][-1]
            feeds = [t["name"] for t in info["inputs"]]
            fetches = [t["name"] for t in info["outputs"]]
            options = ExecutionOptions(allow_soft_placement=True, inter_op_threads=1)
            compiled = compile_graph(_placed(graph_def, device_type), feeds, fetches, options=options)
            try:
                rows = compiled.optimization.stats if compiled.optimization is not None else []
                mine = [r for r in rows if r.name == f"plugin:{plugin}"]
                entry["nodes_before"] = len(graph_def.node)
                entry["nodes_after"] = len(compiled.optimization.graph_def.node) if compiled.optimization else None
                if not mine:
                    entry["plugin_status"] = "not run"
                    entry["detail"] = f"the meta-optimizer did not run the plugin (no node could be on {device_type})"
                else:
                    row = mine[0]
                    entry["plugin_status"] = row.status
                    entry["detail"] = row.message
                    entry["plugin_nodes"] = [row.nodes_before, row.nodes_after]
                outputs = compiled.run([arrays[f"b{batch}/in/{t}"] for t in feeds])
            finally:
                compiled.close()
            worst = 0.0
            for tensor, value in zip(fetches, outputs, strict=True):
                want = arrays[f"b{batch}/out/{tensor}"]
                value = np.asarray(value)
                if value.shape != want.shape:
                    raise ValueError(f"output {tensor}: shape {list(value.shape)}, TensorFlow {list(want.shape)}")
                if want.size:
                    scale = max(1.0, float(np.max(np.abs(want))))
                    worst = max(worst, float(np.max(np.abs(value.astype(np.float64) - want))) / scale)
            entry["max_relative_error"] = worst
            valid = entry.get("plugin_status") in ("ran", "no change", "not run")
            entry["status"] = "pass" if valid and worst <= _TOLERANCE else "fail"
            if entry["status"] == "pass" and entry.get("plugin_status") == "not run":
                entry["status"] = "skip"
            if worst > _TOLERANCE:
                entry["detail"] = (entry.get("detail") or "") + f" outputs differ from TensorFlow's by {worst:.2e}"
        except Exception as e:  # noqa: BLE001 - reported per model
            entry["status"] = "error"
            entry["detail"] = f"{type(e).__name__}: {getattr(e, 'message', e)}".splitlines()[0]
        yield entry
