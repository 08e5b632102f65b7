"""TensorFlow 1's ``Session``: run fetches of a Graph with a feed_dict, compiled once per signature.

``Session.run(fetches, feed_dict)`` follows ``tf.compat.v1.Session.run``: fetches
are a tensor, an operation, a name, or lists, tuples, namedtuples and dicts of
them (ops give None); feed keys are tensors or tensor names; feed values are
converted to the fed tensor's dtype with ``np.asarray`` and checked against its
static shape. Each (feeds, fetches, targets) signature is compiled once
(``graph_execution.compile_graph``) and cached until the graph grows; stateful
kernels (random ops) live as long as the session, as in TensorFlow.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import threading
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors
from modtensor.framework.graph import Graph, Operation, get_default_graph
from modtensor.framework.protos import config_pb2, graph_pb2, step_stats_pb2
from modtensor.framework.tensor import Tensor
from modtensor.runtime import device_factory
from modtensor.runtime.allocator import aligned_copy
from modtensor.runtime.cancellation import CancellationManager
from modtensor.runtime.graph_execution import CompiledGraph, ExecutionOptions, compile_graph
from modtensor.runtime.resource_mgr import ResourceMgr, session_resources

__all__ = ["DeviceAttributes", "Session", "get_default_session", "register_session_run_conversion_functions"]

# (type, fetch_fn, feed_fn) of the composite values ``run`` takes apart (TF's ``_REGISTERED_EXPANSIONS``):
# fetch_fn(value) -> (component tensors, build(component values) -> result); feed_fn(key, value) -> [(tensor, v)].
_EXPANSIONS: list[tuple[type, Any, Any]] = []


def register_session_run_conversion_functions(
    tensor_type: type, fetch_function: Any, feed_function: Any = None, feed_function_for_partial_run: Any = None
) -> None:
    """Let ``Session.run`` fetch (and feed) values of ``tensor_type`` by their component tensors (TF's function).

    ``fetch_function(value)`` returns the component tensors and a function building the fetched
    result from their values; ``feed_function(key, feed_value)`` returns (tensor, value) pairs.
    ``api.indexed_slices`` registers IndexedSlices (fetched as an ``IndexedSlicesValue``).
    """
    del feed_function_for_partial_run  # partial runs are not implemented
    for entry in _EXPANSIONS:
        if issubclass(tensor_type, entry[0]):
            raise ValueError(f"{tensor_type} has already been registered so ignore it.")
    _EXPANSIONS.insert(0, (tensor_type, fetch_function, feed_function))


class DeviceAttributes:
    """What ``Session.list_devices()`` returns per device (TF's ``_DeviceAttributes``)."""

    __slots__ = ("device_type", "incarnation", "memory_limit_bytes", "name")

    def __init__(self, name: str, device_type: str, memory_limit_bytes: int, incarnation: int):
        self.name = name
        self.device_type = device_type
        self.memory_limit_bytes = memory_limit_bytes
        self.incarnation = incarnation

    def __repr__(self) -> str:
        return f"_DeviceAttributes({self.name}, {self.device_type}, {self.memory_limit_bytes}, {self.incarnation})"


class _DefaultSessions(threading.local):
    def __init__(self) -> None:
        self.stack: list[Session] = []


_DEFAULT = _DefaultSessions()


def get_default_session() -> Session | None:
    """The innermost session of this thread's ``with sess:`` / ``sess.as_default()`` blocks, or None."""
    return _DEFAULT.stack[-1] if _DEFAULT.stack else None


class Session:
    """A TensorFlow 1 session over ``graph`` (default: the default graph) on this process's devices."""

    def __init__(self, target: str = "", graph: Graph | None = None, config: config_pb2.ConfigProto | None = None):
        if target:
            raise errors.UnimplementedError(
                None,
                None,
                f"Session target '{target}' is not supported: modtensor runs sessions in-process only (use target '')",
            )
        if config is not None and not isinstance(config, config_pb2.ConfigProto):
            raise TypeError(f"config must be a tf.ConfigProto, but got {type(config)}")
        self._graph = graph if graph is not None else get_default_graph()
        self._config = config if config is not None else config_pb2.ConfigProto()
        self._target = target
        self._options = ExecutionOptions(
            allow_soft_placement=self._config.allow_soft_placement,
            log_device_placement=self._config.log_device_placement,
            rewrite_options=(
                self._config.graph_options.rewrite_options if self._config.HasField("graph_options") else None
            ),
            inter_op_threads=self._config.inter_op_parallelism_threads,
            lower_control_flow=False if self._config.experimental.disable_functional_ops_lowering else None,
            lower_function_calls=self._config.graph_options.optimizer_options.do_function_inlining,
        )
        self._closed = False
        self._lock = threading.Lock()
        # Running steps (close() cancels them and waits for them before releasing kernels).
        self._cancellation = CancellationManager()
        self._running = 0
        self._idle = threading.Condition(self._lock)
        self._compiled: dict[tuple, CompiledGraph] = {}
        self._compiled_version = -1
        # Parsed flat fetch arguments by (graph version, identity): the fetch list of a serving loop is parsed once.
        self._fetch_structures: dict[tuple, tuple[_FetchStructure, Any]] = {}
        self._kernel_cache: dict = {}  # stateful kernels (TF's OpSegment), shared by every signature
        self._resources: dict[str, ResourceMgr] = {}  # this session's variables, per device (TF: the session's devices)
        self._context_stack: list[contextlib.ExitStack] = []

    # ------------------------------------------------------------------ properties

    @property
    def graph(self) -> Graph:
        """The graph this session runs."""
        return self._graph

    @property
    def graph_def(self) -> graph_pb2.GraphDef:
        """The graph as a GraphDef (as it is now)."""
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> str:
        """The target ("" for in-process)."""
        return self._target

    def list_devices(self) -> list[DeviceAttributes]:
        """The devices sessions run on, with their memory limit and incarnation."""
        return [
            DeviceAttributes(d.name, d.device_type, d.attributes.memory_limit, d.attributes.incarnation)
            for d in device_factory.device_set()
        ]

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        """Cancel running steps (they raise CancelledError), release compiled graphs and kernels; later ``run``
        calls raise RuntimeError. Callable from another thread while ``run`` is in progress, as in TF."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._cancellation.cancel()
        with self._lock:
            while self._running:
                self._idle.wait()
            self._drop_compiled()
            for _node_def, kernel in self._kernel_cache.values():
                kernel.close()
            self._kernel_cache.clear()
            for manager in self._resources.values():
                manager.clear()  # the session's variables go with it, as in TensorFlow

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Session]:
        """Make this the default session of this thread inside the block (it stays open afterwards)."""
        _DEFAULT.stack.append(self)
        try:
            yield self
        finally:
            if _DEFAULT.stack and _DEFAULT.stack[-1] is self:
                _DEFAULT.stack.pop()
            else:  # pragma: no cover - only when a caller unbalances the stack
                with contextlib.suppress(ValueError):
                    _DEFAULT.stack.remove(self)

    def __enter__(self) -> Session:
        stack = contextlib.ExitStack()
        stack.enter_context(self._graph.as_default())
        stack.enter_context(self.as_default())
        self._context_stack.append(stack)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._context_stack.pop().close()
        self.close()

    # ------------------------------------------------------------------ running

    def run(
        self,
        fetches: Any,
        feed_dict: Mapping[Any, Any] | None = None,
        options: config_pb2.RunOptions | None = None,
        run_metadata: config_pb2.RunMetadata | None = None,
    ) -> Any:
        """Compute ``fetches`` (any nesting of lists, tuples, namedtuples, dicts) given ``feed_dict``.

        Tensors give numpy arrays (numpy scalars for 0-d), operations None. With
        ``options.output_partition_graphs`` / a trace level, ``run_metadata`` gets the
        placed partition graphs / the step stats.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._graph.version == 0:
            raise RuntimeError("The Session graph is empty. Add operations to the graph before calling run().")
        structure = self._fetch_structure(fetches)
        feeds = self._feeds(feed_dict or {})
        names = structure.names
        fetch_tensors = list(dict.fromkeys(n for n, op in zip(names, structure.is_op, strict=True) if not op))
        fetch_tensors = [n for n in fetch_tensors if n not in feeds]
        targets = sorted({n for n, op in zip(names, structure.is_op, strict=True) if op})
        values: dict[str, Any] = {}
        if fetch_tensors or targets:
            feed_names = sorted(feeds)
            compiled = self._compile(tuple(feed_names), tuple(fetch_tensors), tuple(targets))
            step_stats = None
            trace = options is not None and options.trace_level > config_pb2.RunOptions.NO_TRACE
            if trace and run_metadata is not None:
                step_stats = step_stats_pb2.StepStats()
            timeout_ms = options.timeout_in_ms if options is not None and options.timeout_in_ms > 0 else 0
            timeout_ms = timeout_ms or self._config.operation_timeout_in_ms
            timeout = timeout_ms / 1000 if timeout_ms > 0 else None
            results = self._run_step(compiled, [feeds[name] for name in feed_names], step_stats, timeout)
            values = dict(zip(fetch_tensors, results, strict=True))
            if run_metadata is not None and options is not None:
                if options.output_partition_graphs:
                    run_metadata.partition_graphs.extend(compiled.partition_graphs)
                if step_stats is not None:
                    run_metadata.step_stats.CopyFrom(step_stats)
        outputs = []
        for name, is_op in zip(names, structure.is_op, strict=True):
            if is_op:
                outputs.append(None)
            elif name in feeds:  # a fed tensor fetches the fed value, as converted (TF)
                outputs.append(feeds[name])
            else:
                value = values[name]
                outputs.append(value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value)
        return structure.build(outputs)

    def _fetch_structure(self, fetches: Any) -> _FetchStructure:
        """``fetches`` parsed against the graph; a flat one (an element, or a list/tuple of them) is cached."""
        identity = _flat_fetch_identity(fetches)
        if identity is None:
            return _FetchStructure(self._graph, fetches)
        key = (self._graph.version, identity)
        cached = self._fetch_structures.get(key)
        if cached is None:
            structure = _FetchStructure(self._graph, fetches)
            if len(self._fetch_structures) >= _FETCH_CACHE_SIZE:
                self._fetch_structures.clear()
            # The fetched objects are kept with the entry so that the ids in its key stay theirs.
            kept = tuple(fetches) if type(fetches) in (list, tuple) else fetches
            self._fetch_structures[key] = cached = (structure, kept)
        return cached[0]

    def _run_step(self, compiled: CompiledGraph, feeds: list[Any], step_stats: Any, timeout: float | None) -> list[Any]:
        """One step, cancelled by ``close`` from another thread and after ``timeout`` seconds."""
        with self._lock:
            if self._closed:
                raise RuntimeError("Attempted to use a closed Session.")
            self._running += 1
        step = CancellationManager()  # this step's: a timeout cancels it alone, closing the session cancels all
        token = self._cancellation.register(step.cancel)
        try:
            return compiled.run(feeds, step_stats, cancellation=step, timeout=timeout)
        except errors.CancelledError as exc:
            if self._closed:
                raise errors.CancelledError(None, None, "Session has been closed.") from exc
            raise
        finally:
            self._cancellation.deregister(token)
            with self._lock:
                self._running -= 1
                if not self._running:
                    self._idle.notify_all()

    def _compile(self, feeds: tuple[str, ...], fetches: tuple[str, ...], targets: tuple[str, ...]) -> CompiledGraph:
        key = (feeds, fetches, targets)
        with self._lock:
            if self._closed:
                raise RuntimeError("Attempted to use a closed Session.")
            if self._compiled_version != self._graph.version:
                self._drop_compiled()  # the graph grew: signatures are compiled again from the new GraphDef
                self._compiled_version = self._graph.version
            compiled = self._compiled.get(key)
            if compiled is None:
                with session_resources(self._resources):  # kernels made here keep state in this session
                    compiled = compile_graph(
                        self._graph.as_graph_def(),
                        feeds,
                        fetches,
                        targets,
                        self._options,
                        kernel_cache=self._kernel_cache,
                    )
                self._compiled[key] = compiled
            return compiled

    def _drop_compiled(self) -> None:
        for compiled in self._compiled.values():
            compiled.close()
        self._compiled.clear()

    def _feeds(self, feed_dict: Mapping[Any, Any]) -> dict[str, np.ndarray]:
        """Feed values by tensor name, converted to the tensor's dtype and checked against its static shape."""
        feeds: dict[str, np.ndarray] = {}
        pairs: list[tuple[Any, Any]] = []
        for key, value in feed_dict.items():
            expansion = next((e for e in _EXPANSIONS if isinstance(key, e[0]) and e[2] is not None), None)
            pairs.extend(expansion[2](key, value) if expansion is not None else [(key, value)])
        for key, value in pairs:
            try:
                tensor = self._graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
            except Exception as exc:
                raise TypeError(f"Cannot interpret feed_dict key as Tensor: {exc.args[0]}") from None
            if isinstance(value, Tensor):
                raise TypeError(
                    "The value of a feed cannot be a tf.Tensor object. Acceptable feed values include Python scalars, "
                    "strings, lists, numpy ndarrays, or TensorHandles. For reference, the tensor object was "
                    f"{value} which was passed to the argument `feed_dict` with key {key}."
                )
            array = _feed_array(value, tensor.dtype)
            if not _shape_fits(tensor.shape, array.shape):
                raise ValueError(
                    f"Cannot feed value of shape {array.shape} for Tensor {tensor.name}, which has shape {tensor.shape}"
                )
            feeds[tensor.name] = aligned_copy(array)  # on TF's 64-byte alignment, as C kernels may require
        return feeds


def _shape_fits(static: Any, shape: tuple[int, ...]) -> bool:
    """True when a value of ``shape`` may be fed for a tensor of static shape ``static`` (TF's is_compatible_with)."""
    if static.rank is None:
        return True
    dims = static.as_list()
    return len(dims) == len(shape) and all(d is None or d == n for d, n in zip(dims, shape, strict=True))


def _feed_array(value: Any, dtype: dtypes.DType) -> np.ndarray:
    """``value`` as an array of ``dtype`` (TF's ``np.asarray(value, dtype=...)``, ints checked for overflow)."""
    np_dtype = dtype.as_numpy_dtype
    if isinstance(value, int) and not isinstance(value, bool) and np_dtype is not object:
        try:
            fits = np_dtype(value) == value
        except (OverflowError, ValueError):
            fits = False
        if not fits:
            raise TypeError(
                f"Type of feed value {value} with type {type(value)} is not compatible with Tensor type {np_dtype}. "
                "Try explicitly setting the type of the feed tensor to a larger type (e.g. int64)."
            )
    array = np.asarray(value, dtype=np_dtype)
    if dtype == dtypes.string:
        array = _encode(array)
    return array


def _encode(array: np.ndarray) -> np.ndarray:
    """Python ``str`` elements of a string feed become UTF-8 bytes, as TF's C API stores them."""
    if any(isinstance(item, str) for item in array.flat):
        out = np.empty(array.shape, dtype=object)
        for index, item in np.ndenumerate(array):
            out[index] = item.encode("utf-8") if isinstance(item, str) else item
        return out
    return array


_FETCH_CACHE_SIZE = 64


def _flat_fetch_identity(fetches: Any) -> tuple | None:
    """A hashable identity of a fetch argument that is one name/Tensor/Operation or a plain list or tuple of them
    (names by value, graph objects by id); None for anything else (nested, dicts, namedtuples: parsed each run)."""
    items = fetches if type(fetches) in (list, tuple) else (fetches,)
    parts: list[Any] = []
    for item in items:
        if type(item) is str:
            parts.append(item)
        elif isinstance(item, (Tensor, Operation)):
            parts.append(id(item))
        else:
            return None
    return (type(fetches), tuple(parts))


class _FetchStructure:
    """The graph elements of a nested fetch argument (deduplicated) and how to rebuild the nesting from values."""

    def __init__(self, graph: Graph, fetches: Any):
        self._graph = graph
        self.names: list[str] = []  # per distinct element: tensor name ("y:0") or op name ("op")
        self.is_op: list[bool] = []
        self._index: dict[tuple[bool, str], int] = {}
        self._tree = self._parse(fetches)

    def _parse(self, fetch: Any) -> Any:
        if fetch is None:
            raise TypeError(f'Argument `fetch` = {fetch} has invalid type "{type(fetch).__name__}". Cannot be None')
        if isinstance(fetch, (list, tuple)):
            return ("seq", type(fetch), [self._parse(f) for f in fetch])
        for fetch_type, fetch_function, _ in _EXPANSIONS:
            if isinstance(fetch, fetch_type):
                components, build = fetch_function(fetch)
                return ("expand", build, [self._parse(c) for c in components])
        if isinstance(fetch, Mapping):
            if isinstance(fetch, collections.defaultdict):
                ctor: Any = functools.partial(collections.defaultdict, fetch.default_factory)
            else:
                ctor = type(fetch)
            return ("map", ctor, [(k, self._parse(v)) for k, v in fetch.items()])
        try:
            element = self._graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
        except TypeError as exc:
            raise TypeError(
                f'Argument `fetch` = {fetch} has invalid type "{type(fetch).__name__}" must be a string or Tensor. '
                f"({exc})"
            ) from None
        except (ValueError, KeyError) as exc:
            raise ValueError(f"Argument `fetch` = {fetch} cannot be interpreted as a Tensor. ({exc})") from None
        key = (isinstance(element, Operation), element.name)
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self.names)
            self.is_op.append(key[0])
            self.names.append(key[1])
        return index

    def build(self, values: list[Any]) -> Any:
        """The fetch nesting with every element replaced by its value."""
        return self._build(self._tree, values)

    def _build(self, tree: Any, values: list[Any]) -> Any:
        if isinstance(tree, int):
            return values[tree]
        kind, ctor, items = tree
        if kind == "expand":
            return ctor([self._build(sub, values) for sub in items])
        if kind == "map":
            result = ctor()
            for key, sub in items:
                result[key] = self._build(sub, values)
            return result
        built = [self._build(sub, values) for sub in items]
        if issubclass(ctor, list):
            return built
        if ctor is tuple:
            return tuple(built)
        return ctor(*built)  # a namedtuple
