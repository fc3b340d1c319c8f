# Type stubs of the opsparse package (the public API of __init__.py).
from os import PathLike
from typing import Any, Callable, Literal, NamedTuple, TypeVar, overload

import numpy as np
import scipy.sparse as sp

__version__: str
has_gpu_engine: bool
SEMIRINGS: tuple[str, ...]

class ParseError(ValueError): ...
class CudaError(RuntimeError): ...

Semiring = Literal["plus_times", "min_plus", "plus_pair", "any_pair", "or_and"]
M = TypeVar("M")
GraphLike = sp.spmatrix | sp.sparray | str | PathLike[str] | Any  # Any: a NetworkX graph

def gpu_available() -> tuple[bool, str]: ...

class Plan:
    device: int | None
    threads: int
    def __init__(self, device: int | None = ..., threads: int = ...) -> None: ...
    @property
    def metadata_allocations(self) -> int: ...
    @property
    def device_bytes(self) -> int: ...
    @property
    def stats(self) -> dict[str, int]: ...

def spgemm(A: M, B: Any, semiring: Semiring = ..., mask: Any | None = ...,
           complement: bool = ..., *, plan: Plan | None = ..., threads: int | None = ...,
           device_memory: int | None = ..., sorted: bool = ...) -> M: ...

@overload
def mcl(graph: GraphLike, inflation: float = ..., *, output: Literal["clusters"] = ...,
        scheme: int | None = ..., prune: int | None = ..., select: int | None = ...,
        recover: int | None = ..., pct: int | None = ..., max_iter: int = ...,
        chaos_limit: float = ..., discard_loops: bool = ..., loop_scale: float | None = ...,
        pre_inflation: float | None = ..., overlap: Literal["cut", "keep", "split"] = ...,
        precision: Literal["float32", "float64", "float", "double"] = ...,
        backend: Literal["auto", "cpu", "gpu"] = ..., threads: int = ...,
        progress: Callable[[dict[str, Any]], object] | None = ...) -> list[list[Any]]: ...
@overload
def mcl(graph: GraphLike, inflation: float = ..., *, output: Literal["labels"],
        scheme: int | None = ..., prune: int | None = ..., select: int | None = ...,
        recover: int | None = ..., pct: int | None = ..., max_iter: int = ...,
        chaos_limit: float = ..., discard_loops: bool = ..., loop_scale: float | None = ...,
        pre_inflation: float | None = ..., overlap: Literal["cut", "keep", "split"] = ...,
        precision: Literal["float32", "float64", "float", "double"] = ...,
        backend: Literal["auto", "cpu", "gpu"] = ..., threads: int = ...,
        progress: Callable[[dict[str, Any]], object] | None = ...) -> np.ndarray: ...

@overload
def triangles(graph: GraphLike, per_vertex: Literal[False] = ..., *, method: str = ...,
              presort: str = ..., backend: str = ..., threads: int = ...) -> int: ...
@overload
def triangles(graph: GraphLike, per_vertex: Literal[True], *, method: str = ...,
              presort: str = ..., backend: str = ...,
              threads: int = ...) -> tuple[int, np.ndarray | dict[Any, int]]: ...

class BFSResult(NamedTuple):
    levels: sp.csr_array | None
    sources: np.ndarray
    reached: np.ndarray
    level_sum: np.ndarray
    eccentricity: np.ndarray
    closeness: np.ndarray
    def level_array(self, unreached: int = ...) -> np.ndarray: ...

def msbfs(graph: GraphLike, sources: Any, *, undirected: bool = ..., max_depth: int | None = ...,
          levels: bool = ..., batch: int = ..., direction: Literal["auto", "push", "pull"] = ...,
          backend: Literal["auto", "cpu", "gpu"] = ..., threads: int = ...,
          progress: Callable[[dict[str, Any]], object] | None = ...) -> BFSResult: ...
