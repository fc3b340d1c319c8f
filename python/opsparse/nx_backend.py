"""The ``opsparse`` backend of NetworkX: NetworkX's functions below computed by the library.

NetworkX finds it through the ``networkx.backends`` entry point; call a function with
``backend="opsparse"``, or set ``NETWORKX_BACKEND_PRIORITY=opsparse`` (NetworkX 3.3 and later;
``NETWORKX_AUTOMATIC_BACKENDS`` before that) to make it the first choice of every call:

>>> import networkx as nx
>>> G = nx.karate_club_graph()
>>> nx.triangles(G, backend="opsparse")[0]
18

Functions and how they are computed (each returns what NetworkX returns, in its types):

- ``triangles``, ``clustering``, ``average_clustering``, ``transitivity``: the triangles through
  every vertex by triangle counting's masked products (``opsparse.triangles``), degrees from
  the undirected simple graph. Weighted and directed clustering are left to NetworkX.
- ``k_truss``: the library's k-truss (support of every edge as (A·A)<A>, edges below k - 2
  removed until none is); the result is NetworkX's subgraph, attributes kept.
- ``single_source_shortest_path_length``: a multi-source BFS (``opsparse.msbfs``) from one
  source.
- ``jaccard_coefficient``: the library's Jaccard coefficients, (A·A)<P> for the pairs P; graphs
  with self-loops are left to NetworkX (it counts a loop in the union, not the intersection).

A graph is converted once (to CSR arrays) and NetworkX caches the conversion on the graph.
"""
from __future__ import annotations

import math

import networkx as nx
import numpy as np
import scipy.sparse as sp

from . import _opsparse
from ._convert import host_csr

__all__ = ["BackendInterface", "OpsparseGraph", "convert_from_nx", "convert_to_nx", "get_info"]

#: What this backend implements (the names of NetworkX's dispatchable functions).
FUNCTIONS = ("average_clustering", "clustering", "jaccard_coefficient", "k_truss",
             "single_source_shortest_path_length", "transitivity", "triangles")

_NOT_DIRECTED = "not implemented for directed type"
_NOT_MULTIGRAPH = "not implemented for multigraph type"


class OpsparseGraph:
    """A NetworkX graph as the library reads it: the vertices (NetworkX's node order), the
    adjacency as canonical CSR arrays, and the graph it came from (for the attributes of the
    subgraphs k_truss returns, and for ``convert_to_nx``)."""

    __networkx_backend__ = "opsparse"

    def __init__(self, graph):
        self.graph = graph
        self.nodes = list(graph)
        self.n = len(self.nodes)
        self.adjacency = _structure(graph, self.nodes)
        self.directed = graph.is_directed()
        self.multigraph = graph.is_multigraph()
        self._index = None
        self._simple = None
        self._degrees = None
        self._loops = None

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def __len__(self) -> int:
        return self.n

    def __contains__(self, node) -> bool:
        try:
            return node in self.index
        except TypeError:  # unhashable: not a node, as NetworkX answers
            return False

    @property
    def index(self) -> dict:
        """Vertex number of each node."""
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.nodes)}
        return self._index

    @property
    def simple(self):
        """The undirected simple graph (pattern tuple): edges both ways, no loops, no repeats."""
        if self._simple is None:
            self._simple = _opsparse.undirected_simple(self.adjacency)
        return self._simple

    @property
    def degrees(self) -> np.ndarray:
        """Neighbours of every vertex other than itself (NetworkX's degree in clustering)."""
        if self._degrees is None:
            self._degrees = np.diff(self.simple[2])
        return self._degrees

    @property
    def has_self_loops(self) -> bool:
        if self._loops is None:
            _, _, indptr, indices, _ = self.adjacency
            rows = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(indptr))
            self._loops = bool((rows == indices).any())
        return self._loops

    def nbunch_iter(self, nbunch=None):
        """The nodes of nbunch that are in the graph, as ``networkx.Graph.nbunch_iter``."""
        if nbunch is None:
            return iter(self.nodes)
        if nbunch in self:
            return iter([nbunch])
        index = self.index

        def bunch():
            try:
                for v in nbunch:
                    if v in index:
                        yield v
            except TypeError as err:
                message = err.args[0]
                if "iter" in message:
                    raise nx.NetworkXError(
                        "nbunch is not a node or a sequence of nodes.") from err
                if "hashable" in message:
                    raise nx.NetworkXError(
                        f"Node {v} in sequence nbunch is not a valid node.") from err
                raise
        return bunch()


def _structure(graph, nodes):
    """The adjacency's structure as canonical CSR arrays (weights 1: attributes of any type are
    never read), read from the graph's adjacency dicts: NetworkX's own conversions are
    dispatchable functions, which the backend's priority would send back here."""
    n = len(nodes)
    adj = graph._adj
    index = {v: i for i, v in enumerate(nodes)}
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter((len(adj[v]) for v in nodes), dtype=np.int64, count=n), out=indptr[1:])
    nnz = int(indptr[-1])
    indices = np.fromiter((index[w] for v in nodes for w in adj[v]), dtype=np.int32, count=nnz)
    m = sp.csr_array((np.ones(nnz), indices, indptr), shape=(n, n))
    m.sort_indices()  # a node's neighbours are distinct: sorting makes the rows canonical
    return host_csr(m, np.float64, "graph")


def _graph(G) -> OpsparseGraph:
    return G if isinstance(G, OpsparseGraph) else OpsparseGraph(G)


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                    preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                    graph_name=None):
    """A NetworkX graph as an OpsparseGraph (the structure; attributes stay on ``G``)."""
    return _graph(G)


def convert_to_nx(obj, *, name=None):
    """An OpsparseGraph back to the NetworkX graph it came from; other results unchanged."""
    if isinstance(obj, OpsparseGraph):
        return obj.graph
    return obj


def _ceil_within(x, lo: int, hi: int) -> int:
    """ceil(x) clamped to [lo, hi] (infinities included)."""
    if x == math.inf:
        return hi
    if x == -math.inf:
        return lo
    return max(lo, min(int(math.ceil(x)), hi))


def _refuse(G, directed=True, multigraph=True):
    if directed and G.directed:
        raise nx.NetworkXNotImplemented(_NOT_DIRECTED)
    if multigraph and G.multigraph:
        raise nx.NetworkXNotImplemented(_NOT_MULTIGRAPH)


def _triangle_counts(G: OpsparseGraph) -> np.ndarray:
    """Triangles through every vertex (int64, by vertex number)."""
    if G.n == 0:
        return np.zeros(0, dtype=np.int64)
    _count, counts, _backend = _opsparse.triangles(G.adjacency, True, "ul", "auto", "auto", 0)
    return np.asarray(counts, dtype=np.int64)


def _clustering_values(G: OpsparseGraph) -> list:
    """NetworkX's t / (d (d - 1)) with t twice the triangles, 0 (an int) where t is 0."""
    t = (2 * _triangle_counts(G)).tolist()
    d = G.degrees.tolist()
    return [0 if ti == 0 else ti / (di * (di - 1)) for ti, di in zip(t, d)]


def _per_node(G: OpsparseGraph, values: list, nodes):
    if nodes is not None and nodes in G:
        return values[G.index[nodes]]
    if nodes is None:
        return dict(zip(G.nodes, values))
    index = G.index
    return {v: values[index[v]] for v in G.nbunch_iter(nodes)}


def triangles(G, nodes=None):
    G = _graph(G)
    _refuse(G, multigraph=nodes is not None)
    return _per_node(G, _triangle_counts(G).tolist(), nodes)


def clustering(G, nodes=None, weight=None):
    G = _graph(G)
    if G.directed or weight is not None:
        raise NotImplementedError("opsparse computes undirected, unweighted clustering only")
    _refuse(G)
    return _per_node(G, _clustering_values(G), nodes)


def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    c = clustering(G, nodes, weight=weight).values()
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


def transitivity(G):
    G = _graph(G)
    if G.directed:
        raise NotImplementedError("opsparse computes the transitivity of undirected graphs")
    _refuse(G)
    if G.n == 0:
        return 0
    t = int(2 * _triangle_counts(G).sum())
    d = G.degrees.astype(object)  # Python integers: d (d - 1) summed without overflow
    contri = int((d * (d - 1)).sum())
    return 0 if t == 0 else t / contri


def k_truss(G, k):
    G = _graph(G)
    _refuse(G)
    if G.has_self_loops:
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")
    # supports are integers: S >= k - 2 exactly when S >= ceil(k) - 2
    _, _, indptr, indices, _ = _opsparse.k_truss(G.simple, _ceil_within(k, -1, 2**62), 0)
    nodes = G.nodes
    rows = np.repeat(np.arange(G.n, dtype=np.int64), np.diff(indptr))
    kept = {(nodes[u], nodes[v]) for u, v in zip(rows.tolist(), indices.tolist())}
    touched = {nodes[u] for u in np.nonzero(np.diff(indptr))[0].tolist()}
    # as NetworkX's G.copy() less the edges that went and the vertices left without edges: the
    # same class, attributes, node order and order of every adjacency
    g = G.graph
    H = g.__class__()
    H.graph.update(g.graph)
    H.add_nodes_from((n, d.copy()) for n, d in g._node.items() if n in touched)
    H.add_edges_from((u, v, d.copy()) for u, nbrs in g._adj.items() if u in touched
                     for v, d in nbrs.items() if (u, v) in kept)
    return H


def single_source_shortest_path_length(G, source, cutoff=None):
    G = _graph(G)
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if cutoff is None or cutoff == math.inf:
        depth = -1
    else:
        # NetworkX goes one level deeper while the level is below the cutoff
        depth = _ceil_within(cutoff, 0, 2**31 - 1)
    reached, _sum, _ecc, levels, _backend = _opsparse.msbfs(
        G.adjacency, [G.index[source]], False, depth, 0, "auto", True, "auto", 0, None)
    _, _, indptr, indices, level = levels
    order = np.argsort(level, kind="stable")  # by level, then vertex number
    nodes = G.nodes
    return {nodes[v]: lv for v, lv in zip(indices[order].tolist(), level[order].tolist())}


def _pairs_matrix(n, us, vs):
    """The pattern tuple of the pairs (us[i], vs[i]), repeats merged, rows sorted."""
    key = np.unique(us.astype(np.int64) * n + vs)
    rows, cols = key // n, key % n
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return (n, n, indptr, np.ascontiguousarray(cols, dtype=np.int32), None), key


def _jaccard_of(G: OpsparseGraph, us: np.ndarray, vs: np.ndarray) -> np.ndarray:
    """The coefficients of the pairs (us[i], vs[i]) by the library (float64, in their order)."""
    pairs, key = _pairs_matrix(G.n, us, vs)
    values = _opsparse.jaccard(G.simple, pairs, 0)[4]
    return values[np.searchsorted(key, us.astype(np.int64) * G.n + vs)]


def _non_edge_blocks(G: OpsparseGraph, budget: int = 1 << 20):
    """(us, vs) of the vertex pairs u < v that are not edges, in blocks of rows of about
    `budget` candidate pairs."""
    n = G.n
    _, _, indptr, indices, _ = G.simple
    u0 = 0
    while u0 < n:
        u1 = u0 + 1
        while u1 < n and (u1 + 1 - u0) * (n - u0) <= budget:
            u1 += 1
        us, vs = [], []
        for u in range(u0, u1):
            free = np.ones(n - u - 1, dtype=bool)
            nbrs = indices[indptr[u]:indptr[u + 1]]
            nbrs = nbrs[nbrs > u]
            free[nbrs - u - 1] = False
            v = np.nonzero(free)[0] + u + 1
            us.append(np.full(v.shape[0], u, dtype=np.int64))
            vs.append(v)
        yield np.concatenate(us), np.concatenate(vs)
        u0 = u1


def jaccard_coefficient(G, ebunch=None):
    G = _graph(G)
    _refuse(G)
    if G.has_self_loops:
        raise NotImplementedError("opsparse leaves Jaccard coefficients with self-loops to "
                                  "NetworkX")
    degrees = G.degrees
    nodes = G.nodes

    def triples(us, vs, values):
        for u, v, j in zip(us.tolist(), vs.tolist(), values.tolist()):
            yield u, v, 0 if degrees[u] == 0 and degrees[v] == 0 else j

    if ebunch is None:
        def all_non_edges():
            for us, vs in _non_edge_blocks(G):
                for u, v, j in triples(us, vs, _jaccard_of(G, us, vs)):
                    yield nodes[u], nodes[v], j
        return all_non_edges()
    pairs = list(ebunch)
    index = G.index
    for u, v in pairs:  # before any work, as NetworkX checks them
        if u not in G:
            raise nx.NodeNotFound(f"Node {u} not in G.")
        if v not in G:
            raise nx.NodeNotFound(f"Node {v} not in G.")
    us = np.fromiter((index[u] for u, _ in pairs), dtype=np.int64, count=len(pairs))
    vs = np.fromiter((index[v] for _, v in pairs), dtype=np.int64, count=len(pairs))
    values = _jaccard_of(G, us, vs) if pairs else np.zeros(0)
    return ((u, v, j) for (u, v), (_, _, j) in zip(pairs, triples(us, vs, values)))


def _graph_argument(args, kwargs):
    return args[0] if args else kwargs.get("G")


def _argument(args, kwargs, position, name, default=None):
    return args[position] if len(args) > position else kwargs.get(name, default)


def can_run(name, args, kwargs):
    """False (with the reason) for the calls NetworkX answers instead."""
    G = _graph_argument(args, kwargs)
    if name in ("clustering", "average_clustering"):
        if _argument(args, kwargs, 2, "weight") is not None:
            return "weighted clustering is computed by NetworkX"
        if G is not None and G.is_directed():
            return "directed clustering is computed by NetworkX"
    if name == "transitivity" and G is not None and G.is_directed():
        return "the transitivity of directed graphs is computed by NetworkX"
    if name == "jaccard_coefficient" and G is not None:
        loops = G.has_self_loops if isinstance(G, OpsparseGraph) else \
            nx.number_of_selfloops(G) > 0
        if loops:
            return "Jaccard coefficients of graphs with self-loops are computed by NetworkX"
    return name in FUNCTIONS


def should_run(name, args, kwargs):
    return True


class BackendInterface:
    """What NetworkX loads from the ``networkx.backends`` entry point."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)
    triangles = staticmethod(triangles)
    clustering = staticmethod(clustering)
    average_clustering = staticmethod(average_clustering)
    transitivity = staticmethod(transitivity)
    k_truss = staticmethod(k_truss)
    single_source_shortest_path_length = staticmethod(single_source_shortest_path_length)
    jaccard_coefficient = staticmethod(jaccard_coefficient)


def get_info():
    """NetworkX's ``networkx.backend_info`` entry point: what the documentation shows."""
    return {
        "backend_name": "opsparse",
        "project": "opsparse",
        "package": "opsparse",
        "short_summary": "Sparse products (SpGEMM) with masks and semirings on the CPU "
                         "(OpenMP) or an NVIDIA GPU.",
        "functions": {
            "triangles": {"additional_docs": "Masked products (triangle counting)."},
            "clustering": {"additional_docs": "Unweighted, undirected graphs; the others "
                                              "run in NetworkX."},
            "average_clustering": {"additional_docs": "Unweighted, undirected graphs."},
            "transitivity": {"additional_docs": "Undirected graphs."},
            "k_truss": {"additional_docs": "Support (A·A)<A>, removal until none goes."},
            "single_source_shortest_path_length": {"additional_docs": "Multi-source BFS."},
            "jaccard_coefficient": {"additional_docs": "(A·A)<P> for the pairs P; graphs "
                                                       "with self-loops run in NetworkX."},
        },
    }
