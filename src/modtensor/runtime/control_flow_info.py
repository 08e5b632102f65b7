"""Which while-loop frame each node of a graph runs in, from its Enter and Exit nodes (TF's ControlFlowInfo).

A v1 while loop is the set of nodes between the ``Enter`` nodes that carry values into
it and the ``Exit`` nodes that carry results out. Every node runs in the frame its data
and control inputs come from: the outputs of an ``Enter`` are in the child frame it
names (``frame_name``), the outputs of an ``Exit`` in the parent of its frame, and all
other nodes' outputs in their own frame. Nodes without inputs run in the root frame
(named ``""``). A node whose inputs come from different frames is an error, as in
TensorFlow. The executor uses the frames for its per-iteration state; the partitioner
uses them to add control loops for frames that span devices.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from modtensor.framework import errors
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.protos import node_def_pb2

__all__ = ["CONTROL_FLOW_OPS", "ControlFlowInfo", "build_control_flow_info", "has_control_flow"]

# Ops whose presence makes a graph need the dataflow executor (dead tensors or frames).
CONTROL_FLOW_OPS = frozenset(
    {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "ControlTrigger", "RefSwitch", "RefMerge",
     "RefEnter", "RefExit", "RefNextIteration", "_SwitchN", "_XlaMerge"}
)  # fmt: skip
ROOT_FRAME = ""


def has_control_flow(nodes: Sequence[node_def_pb2.NodeDef]) -> bool:
    """True when some node is a v1 control-flow op."""
    return any(node.op in CONTROL_FLOW_OPS for node in nodes)


@dataclass
class ControlFlowInfo:
    """Per node (by position): the frame it runs in, and per frame its parent and its Enter attributes.

    ``frame_of[i]`` is the name of the frame node ``i``'s inputs belong to (an Enter runs in
    the parent frame; an Exit in the child frame). ``parent_of[name]`` is the enclosing
    frame's name; ``parallel_iterations[name]`` the frame's Enter attr (TF requires all
    Enters of a frame to agree).
    """

    frame_of: list[str]
    parent_of: dict[str, str]
    parallel_iterations: dict[str, int]

    def output_frame(self, i: int, node: node_def_pb2.NodeDef) -> str:
        """The frame node ``i``'s outputs are in: a child frame for Enter, the parent frame for Exit."""
        if node.op in ("Enter", "RefEnter"):
            return node.attr["frame_name"].s.decode()
        if node.op in ("Exit", "RefExit"):
            return self.parent_of.get(self.frame_of[i], ROOT_FRAME)
        return self.frame_of[i]


def build_control_flow_info(nodes: Sequence[node_def_pb2.NodeDef]) -> ControlFlowInfo:
    """Assign every node its frame by a breadth-first walk from the nodes without inputs.

    Raises InvalidArgumentError (TF's texts) for a node with inputs from different frames,
    an Exit in the root frame, and Enters of one frame that disagree on parallel_iterations.
    """
    index = {node.name: i for i, node in enumerate(nodes)}
    consumers: list[list[int]] = [[] for _ in nodes]
    for i, node in enumerate(nodes):
        for text in node.input:
            j = index.get(node_def_lib.parse_tensor_name(text)[0])
            if j is not None:
                consumers[j].append(i)
    frame_of: list[str | None] = [None] * len(nodes)
    via: list[int] = [-1] * len(nodes)  # the input that gave a node its frame, for error messages
    parent_of: dict[str, str] = {}
    parallel: dict[str, int] = {}
    queue: deque[int] = deque()
    for i, node in enumerate(nodes):
        if not node.input:
            frame_of[i] = ROOT_FRAME
            queue.append(i)
    while queue:
        i = queue.popleft()
        node = nodes[i]
        frame = frame_of[i]
        assert frame is not None
        if node.op in ("Enter", "RefEnter"):
            out_frame = node.attr["frame_name"].s.decode()
            _record_frame(node, out_frame, frame, parent_of, parallel)
        elif node.op in ("Exit", "RefExit"):
            if frame == ROOT_FRAME:
                raise errors.InvalidArgumentError(
                    node, None, f"Exit node '{node.name}' is not inside a while loop: its input is in the root frame."
                )
            out_frame = parent_of.get(frame, ROOT_FRAME)
        else:
            out_frame = frame
        for k in consumers[i]:
            found = frame_of[k]
            if found is None:
                frame_of[k] = out_frame
                via[k] = i
                queue.append(k)
            elif found != out_frame:
                other = nodes[via[k]].name if via[k] >= 0 else "(none)"
                raise errors.InvalidArgumentError(
                    nodes[k],
                    None,
                    f"The node '{nodes[k].name}' has inputs from different frames. The input '{node.name}' is in "
                    f"frame '{out_frame}'. The input '{other}' is in frame '{found}'.",
                )
    # Nodes only reachable through a cycle that is not a loop were never reached: leave them in the root frame
    # (the executor's walk reports the cycle).
    return ControlFlowInfo([f if f is not None else ROOT_FRAME for f in frame_of], parent_of, parallel)


def _record_frame(
    node: node_def_pb2.NodeDef, frame: str, parent: str, parent_of: dict[str, str], parallel: dict[str, int]
) -> None:
    known_parent = parent_of.setdefault(frame, parent)
    if known_parent != parent:
        raise errors.InvalidArgumentError(
            node,
            None,
            f"Enter node '{node.name}' enters frame '{frame}' from frame '{parent}', but another Enter of that frame "
            f"comes from frame '{known_parent}'.",
        )
    iterations = node.attr["parallel_iterations"].i if "parallel_iterations" in node.attr else 10
    known = parallel.setdefault(frame, iterations)
    if known != iterations:
        raise errors.InvalidArgumentError(
            node,
            None,
            f"The node '{node.name}' has a different parallel_iterations ({iterations}) than other Enter nodes of "
            f"frame '{frame}' ({known}).",
        )
