"""OpSparse for Python: sparse products (SpGEMM) over semirings on the CPU or, for CuPy
matrices, the GPU, and the Markov clustering, triangle counting and multi-source BFS apps.

>>> import opsparse, scipy.sparse as sp
>>> A = sp.random(100, 100, density=0.05, format="csr", random_state=1)
>>> C = opsparse.spgemm(A, A)          # same values as A @ A, a CSR again
"""
from __future__ import annotations

import atexit
import threading
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from . import _convert, _opsparse
from ._graph import as_graph

__version__ = _opsparse.__version__
#: True when this build has the GPU engine (built with the CUDA toolkit).
has_gpu_engine: bool = _opsparse.has_gpu_engine
ParseError = _opsparse.ParseError
CudaError = _opsparse.CudaError
SEMIRINGS = _convert.SEMIRINGS

__all__ = ["spgemm", "Plan", "mcl", "triangles", "msbfs", "BFSResult", "gpu_available",
           "has_gpu_engine", "ParseError", "CudaError", "SEMIRINGS", "__version__"]


def __dir__():
    """The public names only (not the modules this one uses: np, sp, threading, atexit)."""
    return sorted(__all__)


def gpu_available() -> tuple[bool, str]:
    """(True, "") when the GPU engine is built and a device is usable, else (False, why)."""
    return _opsparse.gpu_available()


class Plan:
    """The persistent workspace of repeated products, as the C++ apps keep one.

    For CuPy inputs it holds a GPU context (streams, events, pinned staging, a stream-ordered
    memory pool) and the plan (bins, scan scratch, hash pools): once it has grown to a problem's
    sizes, ``spgemm(..., plan=p)`` makes no allocation of its own; only the result's arrays are
    taken, from the context's pool. For SciPy inputs the CPU engine needs no workspace; the plan
    carries the thread count. Products on one plan are serialised.
    """

    def __init__(self, device: int | None = None, threads: int = 0):
        self.device = device
        self.threads = int(threads)
        self._gpu = None
        self._lock = threading.Lock()

    def _gpu_plan(self, device: int):
        with self._lock:
            if self._gpu is None:
                if self.device is not None and self.device != device:
                    raise ValueError(f"this plan is for device {self.device}, the matrices are on "
                                     f"device {device}")
                self._gpu = _opsparse.GpuPlan(device)
            elif self._gpu.device != device:
                raise ValueError(f"this plan is for device {self._gpu.device}, the matrices are "
                                 f"on device {device}")
            return self._gpu

    @property
    def metadata_allocations(self) -> int:
        """Device allocations the plan made for its metadata and hash pools (0 before any GPU
        product)."""
        return 0 if self._gpu is None else self._gpu.metadata_allocations

    @property
    def device_bytes(self) -> int:
        """Device memory the plan holds."""
        return 0 if self._gpu is None else self._gpu.device_bytes

    @property
    def stats(self) -> dict:
        """What the last GPU product did: products, nnz, longest rows."""
        return {} if self._gpu is None else self._gpu.stats


_default_plans: dict = {}
_default_lock = threading.Lock()
# The default contexts go before the interpreter's teardown, while the CUDA runtime is alive.
atexit.register(_default_plans.clear)


def _default_plan(device: int) -> Plan:
    with _default_lock:
        if device not in _default_plans:
            _default_plans[device] = Plan(device)
        return _default_plans[device]


def _out_dtype(semiring: str, dtype: np.dtype) -> np.dtype:
    if semiring == "plus_pair":
        return np.dtype(np.int64)
    if semiring in ("any_pair", "or_and"):
        return np.dtype(np.bool_)
    return dtype


def spgemm(A, B, semiring: str = "plus_times", mask=None, complement: bool = False, *,
           plan: Plan | None = None, threads: int | None = None,
           device_memory: int | None = None, sorted: bool = True):
    """C = A·B over a semiring, optionally masked: C<M> = A·B (``mask=M``) or C<¬M> = A·B
    (``mask=M, complement=True``); only the mask's structure counts.

    A and B are SciPy sparse matrices or arrays (CSR, CSC or COO; converted once to CSR) and C
    is of A's kind (format and matrix/array API) — or both are ``cupyx.scipy.sparse`` matrices,
    multiplied on the GPU in place (their device arrays are read where they are; no host copy),
    and C is a CuPy CSR matrix over device memory the library allocated.

    Semirings: ``plus_times`` (ordinary product; saturating for integers; OR-AND for bool),
    ``min_plus`` (shortest paths; host only), ``plus_pair`` (counts of common entries, int64 —
    float64 for CuPy, whose sparse matrices have no integers), ``any_pair`` (structure, bool) and
    ``or_and`` (bool: nonzero values). Values: float32, float64, int32, int64, bool (smaller types
    are widened; A's and B's types are promoted together). Every entry a product forms is kept,
    even when its value is zero.

    ``device_memory=bytes`` (SciPy inputs): the product runs on the GPU (the plan's device, else
    device 0) in blocks of A's rows, each cut from its products so that the block of C and the
    engine's scratch fit that many bytes beyond A, B and the mask, and C is gathered on the host:
    for products larger than the device. ``plus_times`` over float32 or float64, ``plus_pair``
    and ``any_pair``; the same entries as without it. RuntimeError without a usable GPU;
    ValueError when a single row of C alone needs more than the budget.

    ``sorted=False`` leaves each row of C in any column order (its entries are the same), which
    saves the engines' sort; SciPy notes it (``has_sorted_indices``).

    Raises ValueError for mismatched shapes, an unknown semiring or unsupported values, before
    any work; TypeError for other inputs.
    """
    if semiring not in SEMIRINGS:
        raise ValueError(f"unknown semiring {semiring!r}; choose one of {', '.join(SEMIRINGS)}")
    for name, m in (("A", A), ("B", B)) + ((("mask", mask),) if mask is not None else ()):
        if not (sp.issparse(m) or _convert.is_cupy_sparse(m)):
            raise TypeError(f"{name} must be a scipy.sparse or cupyx.scipy.sparse matrix, not "
                            f"{type(m).__name__}")
        if len(m.shape) != 2:
            raise ValueError(f"{name} must be two-dimensional")
    if A.shape[1] != B.shape[0]:
        raise ValueError(f"shapes do not match for A·B: A is {A.shape[0]} x {A.shape[1]}, B is "
                         f"{B.shape[0]} x {B.shape[1]}")
    if mask is not None and tuple(mask.shape) != (A.shape[0], B.shape[1]):
        raise ValueError(f"the mask is {mask.shape[0]} x {mask.shape[1]}, the product "
                         f"{A.shape[0]} x {B.shape[1]}")
    for n in A.shape + B.shape:
        if n >= 2**31:
            raise ValueError("dimensions must be below 2^31")
    dtype = _convert.compute_dtype(A.dtype, B.dtype)
    if semiring == "min_plus" and dtype == np.bool_:
        raise ValueError("min_plus needs numeric values, not bool")
    out_dtype = _out_dtype(semiring, dtype)
    if device_memory is not None:
        if isinstance(device_memory, bool) or not isinstance(device_memory, (int, np.integer)) \
                or device_memory <= 0:
            raise ValueError(f"device_memory must be a positive number of bytes, not "
                             f"{device_memory!r}")
    on_device = [_convert.is_cupy_sparse(m) for m in (A, B) + ((mask,) if mask is not None else ())]
    if any(on_device) and device_memory is not None:
        raise ValueError("device_memory is for SciPy (host) matrices: the product of CuPy "
                         "matrices is formed on the device whole")
    if any(on_device):
        if not all(on_device):
            raise ValueError("A, B and the mask must all be SciPy (host) or all CuPy (device) "
                             "matrices")
        return _spgemm_device(A, B, semiring, mask, complement, plan, dtype, out_dtype,
                              bool(sorted))

    # Host: the values each semiring reads (none for the pattern semirings).
    if semiring in ("plus_pair", "any_pair"):
        values = None
    elif semiring == "or_and" or dtype == np.bool_:
        values = "nonzero"  # or_and over 0/1 bytes: a bool product is an OR of ANDs
        semiring = "or_and"
    else:
        values = dtype
    if device_memory is not None:
        offered = semiring in ("plus_pair", "any_pair") or \
            (semiring == "plus_times" and values in (np.float32, np.float64))
        if not offered:
            raise ValueError(f"device_memory: the GPU engine computes plus_times over float32 or "
                             f"float64 values, plus_pair and any_pair in blocks, not {semiring} "
                             f"over {np.dtype(dtype).name}")
    a = _convert.host_csr(A, values, "A")
    b = _convert.host_csr(B, values, "B")
    m = _convert.host_csr(mask, None, "mask") if mask is not None else None
    if device_memory is not None:
        device = plan.device if plan is not None and plan.device is not None else 0
        gpu = (plan if plan is not None else _default_plan(device))._gpu_plan(device)
        core_dtype = "none" if values is None else np.dtype(values).name
        c = _opsparse.spgemm_blocks_host(gpu, semiring, core_dtype, a, b, m, bool(complement),
                                         sorted=bool(sorted), device_bytes=int(device_memory))
        return _convert.scipy_kind(A)(_convert.host_result(c, out_dtype))
    if threads is None:
        threads = plan.threads if plan is not None else 0
    c = _opsparse.spgemm_host(semiring, a, b, m, bool(complement), int(threads), bool(sorted))
    return _convert.scipy_kind(A)(_convert.host_result(c, out_dtype))


def _spgemm_device(A, B, semiring, mask, complement, plan, dtype, out_dtype, sorted_rows):
    import cupy
    if dtype not in (np.float32, np.float64, np.bool_):
        raise ValueError(f"CuPy sparse matrices of {dtype} are not supported")
    if semiring == "min_plus":
        raise ValueError("min_plus is offered for SciPy (host) matrices only")
    device = cupy.cuda.runtime.getDevice()
    if plan is None:
        plan = _default_plan(device)
    # values read, the core's dtype name, the result's value type in the core
    if semiring == "plus_pair":
        values, core_dtype, storage = None, "int32", np.dtype(np.int64)
    elif semiring == "any_pair":
        values, core_dtype, storage = None, "int32", None
    elif semiring == "or_and" or dtype == np.bool_:
        values, core_dtype, storage, semiring = "nonzero", "int32", np.dtype(np.int32), "or_and"
    else:
        values, core_dtype, storage = dtype, np.dtype(dtype).name, np.dtype(dtype)
    a = _convert.device_csr(A, values, "A")
    b = _convert.device_csr(B, values, "B")
    m = _convert.device_csr(mask, None, "mask") if mask is not None else None
    # The core runs on its own streams: what CuPy queued for the inputs must be done first.
    cupy.cuda.get_current_stream().synchronize()
    r = _opsparse.spgemm_device(plan._gpu_plan(device), semiring, core_dtype,
                                _convert.device_args(a), _convert.device_args(b),
                                None if m is None else _convert.device_args(m), bool(complement),
                                sorted_rows)
    if out_dtype == np.int64:
        out_dtype = np.dtype(np.float64)  # plus_pair counts: CuPy sparse has no integer values
    return _convert.device_result(r, storage, out_dtype)


# ----------------------------------------------------------------------------------------------
# The apps
# ----------------------------------------------------------------------------------------------

def mcl(graph, inflation: float = 2.0, *, output: str = "clusters", scheme: int | None = None,
        prune: int | None = None, select: int | None = None, recover: int | None = None,
        pct: int | None = None, max_iter: int = 10000, chaos_limit: float = 1e-4,
        discard_loops: bool = True, loop_scale: float | None = None,
        pre_inflation: float | None = None, overlap: str = "cut", precision: str = "float32",
        backend: str = "auto", threads: int = 0, progress=None):
    """Markov clustering with the semantics of ``mcl`` 22-282 (apps/mcl; mcl's option names:
    inflation -I, scheme -scheme, prune -P, select -S, recover -R, pct -pct, loop_scale -c,
    pre_inflation -pi, overlap -overlap, discard_loops --discard-loops).

    ``graph``: a SciPy matrix (vertices 0..n-1), a NetworkX graph (edge attribute ``weight``,
    1 when absent) or a path (Matrix Market, ABC, edge list). Returns, with ``output="clusters"``,
    the clusters as lists of vertices (node names, file labels or numbers), largest first, as
    mcl writes them; with ``output="labels"``, a NumPy array giving each vertex's cluster number.
    ``progress(info)`` is called after every iteration; Ctrl-C stops the run between iterations
    (KeyboardInterrupt). ``backend``: "auto" (the GPU when usable), "cpu" or "gpu".
    """
    if output not in ("clusters", "labels"):
        raise ValueError("output must be 'clusters' or 'labels'")
    if precision in ("float", "single"):
        precision = "float32"
    elif precision == "double":
        precision = "float64"
    g = as_graph(graph, nonnegative=True)
    _convert.check_finite_real(g.adjacency[4], "opsparse.mcl: graph")
    names = [str(x) for x in g.names] if g.names is not None else None
    clusters, _iterations, _converged, _backend = _opsparse.mcl(
        g.adjacency, float(inflation), int(scheme or 0), prune, select, recover, pct,
        int(max_iter), float(chaos_limit), bool(discard_loops),
        -1.0 if loop_scale is None else float(loop_scale),
        -1.0 if pre_inflation is None else float(pre_inflation), overlap, int(threads),
        precision, backend, progress, names)
    if output == "labels":
        labels = np.full(g.n, -1, dtype=np.int64)
        for k in range(len(clusters) - 1, -1, -1):  # a vertex in several: its first cluster
            labels[np.asarray(clusters[k], dtype=np.int64)] = k
        return labels
    return [[g.name(i) for i in c] for c in clusters]


def triangles(graph, per_vertex: bool = False, *, method: str = "ul",
              presort: str = "auto", backend: str = "auto", threads: int = 0):
    """Triangles of the undirected simple graph on ``graph``'s structure (apps/triangle: edges in
    either direction count once, loops and weights ignored).

    Returns the count; with ``per_vertex``, ``(count, per-vertex counts)``: a dict node -> count
    for a NetworkX graph (as ``networkx.triangles``), else a NumPy array by vertex number.
    ``method``: ul, sandia-ll, sandia-uu, sandia-lut, sandia-ult, cohen, burkhardt.
    """
    g = as_graph(graph)
    count, counts, _backend = _opsparse.triangles(g.adjacency, bool(per_vertex), method, presort,
                                                  backend, int(threads))
    if not per_vertex:
        return int(count)
    if g.names is not None and not isinstance(graph, (str, bytes)) and \
            type(graph).__module__.startswith("networkx"):
        return int(count), {name: int(c) for name, c in zip(g.names, counts)}
    return int(count), counts


class BFSResult(NamedTuple):
    """Multi-source BFS results, one row (entry) per source, in the order of ``sources``."""
    levels: sp.csr_array | None  #: len(sources) x n, int32: level of every reached vertex
    sources: np.ndarray          #: vertex numbers of the sources
    reached: np.ndarray          #: vertices reached, the source included
    level_sum: np.ndarray        #: sum of the levels of the reached vertices
    eccentricity: np.ndarray     #: largest level reached
    closeness: np.ndarray        #: (reached - 1) / level_sum, 0 when nothing else is reached

    def level_array(self, unreached: int = -1) -> np.ndarray:
        """The levels as a dense len(sources) x n array, ``unreached`` (default -1) where the
        search did not reach a vertex. The sparse ``levels`` stores every reached vertex, the
        source at level 0 included, but its ``.toarray()`` shows 0 for unreached ones too."""
        if self.levels is None:
            raise ValueError("the search ran with levels=False: no levels to lay out")
        m = self.levels
        out = np.full(m.shape, unreached, dtype=np.int64)
        rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
        out[rows, m.indices] = m.data
        return out


def msbfs(graph, sources, *, undirected: bool = False, max_depth: int | None = None,
          levels: bool = True, batch: int = 0, direction: str = "auto", backend: str = "auto",
          threads: int = 0, progress=None) -> BFSResult:
    """Breadth-first search from every source at once, as sparse products (apps/msbfs).

    ``sources``: vertices (node names for a NetworkX graph, labels for a file, numbers for a
    matrix). Edges are followed from row to column (``undirected=True``: both ways). Returns a
    BFSResult; ``levels=False`` leaves out the levels matrix (summaries only; a GPU search may
    then switch to bitmaps). ``progress(info)`` is called after every batch of sources; Ctrl-C
    stops the search between batches (KeyboardInterrupt).
    """
    g = as_graph(graph)
    if np.ndim(sources) == 0 and not isinstance(sources, (list, tuple)):
        sources = [sources]
    idx = [g.index_of(s) for s in sources]
    reached, level_sum, ecc, lv, _backend = _opsparse.msbfs(
        g.adjacency, idx, bool(undirected), -1 if max_depth is None else int(max_depth),
        int(batch), direction, bool(levels), backend, int(threads), progress)
    with np.errstate(divide="ignore", invalid="ignore"):
        closeness = np.where(level_sum > 0, (reached - 1) / np.maximum(level_sum, 1), 0.0)
    level_matrix = None
    if lv is not None:
        level_matrix = sp.csr_array((lv[4], lv[3], lv[2]), shape=(lv[0], lv[1]))
    return BFSResult(level_matrix, np.asarray(idx, dtype=np.int64), reached, level_sum, ecc,
                     closeness)
