"""The NetworkX backend (opsparse.nx_backend) against NetworkX's own functions: the same values
and types through NetworkX's dispatching (backend="opsparse" against backend="networkx"), the
entry points, and the environment switch of automatic dispatching."""
import os
import subprocess
import sys

import pytest

nx = pytest.importorskip("networkx")
if not hasattr(nx.utils.backends, "backend_info") or "opsparse" not in nx.utils.backends.backends:
    pytest.skip("NetworkX without backend dispatching (3.2 or later) or opsparse's entry point "
                "not installed (pip install .)", allow_module_level=True)

from opsparse import nx_backend  # noqa: E402

# NetworkX notes when it reuses a graph's cached conversion; the tests convert on purpose
pytestmark = pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs:UserWarning")


def with_loops_and_isolates():
    g = nx.gnp_random_graph(80, 0.08, seed=3)
    g.add_edges_from([(0, 0), (5, 5)])
    g.add_nodes_from(["lone", ("a", 1)])
    return g


def named():
    g = nx.relabel_nodes(nx.powerlaw_cluster_graph(200, 3, 0.4, seed=4),
                         {i: f"v{i}" for i in range(200)})
    g.add_edge("v3", "v3")  # a loop: ignored by triangles and clustering, as NetworkX does
    return g


GRAPHS = {
    "empty": nx.Graph,
    "edgeless": lambda: nx.empty_graph(5),
    "karate": nx.karate_club_graph,
    "gnp": lambda: nx.gnp_random_graph(300, 0.05, seed=1),
    "caveman": lambda: nx.connected_caveman_graph(8, 6),
    "loops_isolates": with_loops_and_isolates,
    "named": named,
}


def both(func, *args, **kwargs):
    return (func(*args, backend="opsparse", **kwargs), func(*args, backend="networkx", **kwargs))


def test_entry_points_are_registered():
    assert "opsparse" in nx.utils.backends.backends
    info = nx.utils.backends.backend_info["opsparse"]
    assert set(nx_backend.FUNCTIONS) <= set(info["functions"])
    for name in nx_backend.FUNCTIONS:
        assert "opsparse" in getattr(nx, name).backends


@pytest.mark.parametrize("name", GRAPHS)
def test_triangles_and_clustering_match_networkx(name):
    g = GRAPHS[name]()
    got, want = both(nx.triangles, g)
    assert got == want and list(got) == list(want)
    assert all(type(v) is int for v in got.values())
    got, want = both(nx.clustering, g)
    assert got == want  # bit for bit: the same formula on the same integers
    assert [type(v) for v in got.values()] == [type(v) for v in want.values()]
    got, want = both(nx.transitivity, g)
    assert got == want and type(got) is type(want)
    if len(g):
        got, want = both(nx.average_clustering, g)
        assert got == want
    if any(nx.triangles(g).values()):
        got, want = both(nx.average_clustering, g, count_zeros=False)
        assert got == want


def test_node_arguments_match_networkx():
    g = named()
    some = ["v1", "v7", "v3", "missing", "v1"]
    for func in (nx.triangles, nx.clustering):
        got, want = both(func, g, some)
        assert got == want and list(got) == list(want)
        got, want = both(func, g, "v7")
        assert got == want and type(got) is type(want)
    got, want = both(nx.average_clustering, g, some)
    assert got == want
    with pytest.raises(nx.NetworkXError):
        nx.triangles(g, 12.5, backend="opsparse")


@pytest.mark.parametrize("name", ["karate", "gnp", "caveman", "named", "edgeless"])
@pytest.mark.parametrize("k", [2, 3, 4, 5, 7])
def test_k_truss_matches_networkx(name, k):
    g = GRAPHS[name]()
    g.remove_edges_from(list(nx.selfloop_edges(g)))
    nx.set_edge_attributes(g, {e: {"w": i} for i, e in enumerate(g.edges)})
    nx.set_node_attributes(g, {v: {"label": str(v)} for v in g})
    g.graph["title"] = name
    got, want = both(nx.k_truss, g, k)
    assert type(got) is type(want)
    assert list(got.nodes(data=True)) == list(want.nodes(data=True))
    assert {frozenset(e): d for *e, d in got.edges(data=True)} == \
        {frozenset(e): d for *e, d in want.edges(data=True)}
    assert got.graph == want.graph


def test_k_truss_refuses_self_loops():
    g = nx.complete_graph(4)
    g.add_edge(0, 0)
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.k_truss(g, 3, backend="opsparse")


@pytest.mark.parametrize("cutoff", [None, 0, 1, 2, 2.5, -1])
def test_shortest_path_lengths_match_networkx(cutoff):
    for g in (nx.karate_club_graph(), named(), nx.gnp_random_graph(200, 0.01, seed=5,
                                                                    directed=True)):
        for source in list(g)[:5]:
            got, want = both(nx.single_source_shortest_path_length, g, source, cutoff=cutoff)
            assert got == want
            assert all(type(v) is int for v in got.values())
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_shortest_path_length(nx.path_graph(3), 7, backend="opsparse")


@pytest.mark.parametrize("name", ["edgeless", "karate", "gnp", "caveman"])
def test_jaccard_of_all_non_edges_matches_networkx(name):
    g = GRAPHS[name]()
    got, want = both(nx.jaccard_coefficient, g)
    got = {frozenset((u, v)): p for u, v, p in got}
    want = {frozenset((u, v)): p for u, v, p in want}
    assert got == want  # the same division of the same integers
    assert {type(p) for p in got.values()} == {type(p) for p in want.values()}


def test_jaccard_of_given_pairs_matches_networkx():
    g = nx.powerlaw_cluster_graph(150, 3, 0.4, seed=6)
    g.add_nodes_from(["x", "y"])
    pairs = [(0, 1), (1, 0), (3, 3), (0, 1), ("x", "y"), ("x", 0), (10, 99)] + \
        list(g.edges)[:50]
    got, want = both(nx.jaccard_coefficient, g, pairs)
    got, want = list(got), list(want)
    assert got == want  # same order, same values, same types
    assert [type(p) for *_, p in got] == [type(p) for *_, p in want]
    with pytest.raises(nx.NodeNotFound):
        nx.jaccard_coefficient(g, [(0, "missing")], backend="opsparse")


def test_calls_left_to_networkx():
    d = nx.gnp_random_graph(30, 0.2, seed=7, directed=True)
    g = nx.karate_club_graph()
    assert isinstance(nx_backend.can_run("clustering", (d,), {}), str)
    assert isinstance(nx_backend.can_run("clustering", (g,), {"weight": "weight"}), str)
    assert isinstance(nx_backend.can_run("transitivity", (d,), {}), str)
    looped = nx.complete_graph(4)
    looped.add_edge(1, 1)
    assert isinstance(nx_backend.can_run("jaccard_coefficient", (looped,), {}), str)
    assert nx_backend.can_run("clustering", (g,), {}) is True
    # and with the backend first and NetworkX after it, those calls still get NetworkX's answer
    with nx.config.backend_priority(algos=["opsparse", "networkx"]):
        assert nx.clustering(d) == nx.clustering(d, backend="networkx")
        assert nx.clustering(g, weight="weight") == nx.clustering(g, weight="weight",
                                                                  backend="networkx")


SWITCH = """
import networkx as nx
from opsparse import nx_backend
calls = []
real = nx_backend.BackendInterface.triangles
nx_backend.BackendInterface.triangles = staticmethod(lambda *a, **k: calls.append(1) or real(*a, **k))
g = nx.karate_club_graph()
assert nx.triangles(g) == nx.triangles(g, backend="networkx")
print(len(calls))
"""


@pytest.mark.parametrize("variable", ["NETWORKX_BACKEND_PRIORITY", "NETWORKX_AUTOMATIC_BACKENDS"])
def test_environment_switch(variable):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NETWORKX_")}
    on = subprocess.run([sys.executable, "-c", SWITCH], env={**env, variable: "opsparse"},
                        capture_output=True, text=True, timeout=120)
    assert on.returncode == 0, on.stderr
    assert on.stdout.split() == ["1"]  # the call went to opsparse
    off = subprocess.run([sys.executable, "-c", SWITCH], env=env, capture_output=True, text=True,
                         timeout=120)
    assert off.returncode == 0, off.stderr
    assert off.stdout.split() == ["0"]
