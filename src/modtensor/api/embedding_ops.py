"""``tf.nn.embedding_lookup`` (TF 2's ``embedding_lookup_v2``) for one unpartitioned params tensor or variable.

As TF's ``_embedding_lookup_and_transform``: in the ``embedding_lookup`` name scope the ids are converted,
the rows gathered (``GatherV2`` named by the scope, or ``ResourceGather`` for a variable) colocated with the
params (a graph tensor's; not a variable's handle, unlike TF), and the result passed through ``Identity``.
Sharded params (a list of several) and ``max_norm`` clipping are not built.
"""

from __future__ import annotations

import contextlib
from typing import Any

from modtensor.api import array_ops, context
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.framework.tensor import Tensor

__all__ = ["embedding_lookup"]


def embedding_lookup(params: Any, ids: Any, max_norm: Any = None, name: str | None = None) -> Tensor:
    """The rows of ``params`` at ``ids`` (shape ``ids.shape + params.shape[1:]``)."""
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError("modtensor's tf.nn.embedding_lookup takes one params tensor (no sharded list)")
        params = params[0]
    if max_norm is not None:
        raise NotImplementedError("modtensor's tf.nn.embedding_lookup does not clip rows (max_norm)")
    with op_scope(name, "embedding_lookup", [params, ids]) as scope:
        if not hasattr(params, "sparse_read"):
            params = convert_to_tensor(params, name="params_0")
        ids = convert_to_tensor(ids, name="ids")
        colocation: Any = contextlib.nullcontext()
        if not context.executing_eagerly() and isinstance(params, Tensor) and getattr(params, "graph", None):
            colocation = params.graph.colocate_with(params.op)  # (a variable's rows are not colocated: see above)
        with colocation:
            result = array_ops.gather(params, ids, name=scope)
        return array_ops.identity(result)
