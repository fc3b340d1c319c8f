"""Graph inputs of the apps: a SciPy matrix, a NetworkX graph or a file path."""
from __future__ import annotations

import os
import warnings

import numpy as np
import scipy.sparse as sp

from . import _opsparse
from ._convert import host_csr, is_cupy_sparse


class Graph:
    """A square weighted adjacency as canonical CSR arrays, with the vertices' names (NetworkX
    nodes, file labels) when it has any."""

    def __init__(self, adjacency, names):
        self.adjacency = adjacency  # (n, n, indptr, indices, float64 weights)
        self.names = names          # list, or None: vertices are 0..n-1
        self.n = adjacency[0]

    def index_of(self, vertex) -> int:
        """Vertex number of a node (NetworkX), a label (file: its text) or a number (matrix)."""
        if self.names is None:
            v = int(vertex)
            if not 0 <= v < self.n:
                raise ValueError(f"source {vertex} is not a vertex of a graph of {self.n} vertices")
            return v
        if not hasattr(self, "_index"):
            self._index = {name: i for i, name in enumerate(self.names)}
        key = vertex if vertex in self._index else str(vertex)
        if key not in self._index:
            raise ValueError(f"source {vertex!r} is not a vertex of the graph")
        return self._index[key]

    def name(self, i: int):
        return i if self.names is None else self.names[i]


def _is_networkx(g) -> bool:
    return type(g).__module__.startswith("networkx")


_ComplexWarning = getattr(getattr(np, "exceptions", np), "ComplexWarning", Warning)


def _networkx_adjacency(graph, nodes):
    """The graph's weights as a float64 CSR array. Complex weights are refused: NumPy would
    drop their imaginary parts with only a ComplexWarning (NumPy complex scalars) or fail with
    a message about float() (Python complex numbers)."""
    import networkx as nx
    complex_weight = TypeError("graph: complex edge weights are not supported (weights are real "
                               "numbers)")
    with warnings.catch_warnings():
        warnings.simplefilter("error", _ComplexWarning)
        try:
            m = nx.to_scipy_sparse_array(graph, nodelist=nodes, weight="weight", dtype=None,
                                         format="csr")
            data = np.asarray(m.data)
            if np.iscomplexobj(data) or (data.dtype == object and any(
                    isinstance(x, (complex, np.complexfloating)) for x in data)):
                raise complex_weight
            return m.astype(np.float64)
        except _ComplexWarning:
            raise complex_weight from None


def as_graph(graph, nonnegative: bool = False) -> Graph:
    if isinstance(graph, (str, os.PathLike)):
        adjacency, labels = _opsparse.read_graph(os.fspath(graph), nonnegative)
        return Graph(adjacency, labels)
    if _is_networkx(graph):
        import networkx as nx
        nodes = list(graph)
        if not nodes:  # as a 0 x 0 matrix (NetworkX's conversion refuses an empty graph)
            empty = (0, 0, np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32),
                     np.zeros(0, dtype=np.float64))
            return Graph(empty, [])
        return Graph(host_csr(_networkx_adjacency(graph, nodes), np.float64, "graph"), nodes)
    if is_cupy_sparse(graph):
        graph = graph.get()  # the apps read their graph on the host
    if sp.issparse(graph):
        if graph.shape[0] != graph.shape[1]:
            raise ValueError(f"a graph needs a square adjacency matrix, not {graph.shape[0]} x "
                             f"{graph.shape[1]}")
        return Graph(host_csr(graph, np.float64, "graph"), None)
    raise TypeError("graph must be a scipy.sparse matrix, a NetworkX graph or a file path, not "
                    f"{type(graph).__name__}")
