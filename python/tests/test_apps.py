"""opsparse.triangles, msbfs and mcl against NetworkX, the shared data sets' reference results
and the C++ programs."""
import subprocess

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import opsparse
from conftest import graph_facts


def two_cliques():
    g = nx.Graph()
    g.add_edges_from(nx.complete_graph(["a1", "a2", "a3", "a4", "a5"]).edges)
    g.add_edges_from(nx.complete_graph(["b1", "b2", "b3", "b4", "b5"]).edges)
    g.add_edge("a1", "b1")
    return g


GRAPHS = {
    "karate": nx.karate_club_graph,
    "gnp": lambda: nx.gnp_random_graph(300, 0.05, seed=1),
    "powerlaw": lambda: nx.powerlaw_cluster_graph(500, 4, 0.3, seed=2),
    "two_cliques": two_cliques,
}


@pytest.mark.parametrize("name", GRAPHS)
@pytest.mark.parametrize("method", ["ul", "sandia-ll", "sandia-uu", "cohen", "burkhardt"])
def test_triangles_match_networkx(name, method):
    g = GRAPHS[name]()
    expected = nx.triangles(g)
    total, per_vertex = opsparse.triangles(g, per_vertex=True, method=method, backend="cpu")
    assert total == sum(expected.values()) // 3
    assert per_vertex == expected
    assert opsparse.triangles(nx.to_scipy_sparse_array(g), method=method, backend="cpu") == total


def test_triangles_ignore_direction_loops_and_weights():
    a = sp.csr_array(np.array([[5, 2, 0], [0, 0, 3], [7, 0, 0]], dtype=float))  # a directed 3-cycle
    assert opsparse.triangles(a) == 1
    with pytest.raises(ValueError, match="square"):
        opsparse.triangles(sp.csr_array((2, 3)))


def bfs_reference(g, source):
    return nx.single_source_shortest_path_length(g, source)


@pytest.mark.parametrize("directed", [False, True])
def test_msbfs_matches_networkx(directed):
    g = nx.gnp_random_graph(400, 0.01, seed=3, directed=directed)
    sources = [0, 7, 7, 399, 123]
    r = opsparse.msbfs(g, sources, backend="cpu")
    assert r.levels.shape == (len(sources), 400)
    for row, s in enumerate(sources):
        dist = bfs_reference(g, s)
        lv = r.levels[[row], :].tocoo()
        assert dict(zip(lv.col.tolist(), lv.data.tolist())) == dist
        assert r.reached[row] == len(dist)
        assert r.level_sum[row] == sum(dist.values())
        assert r.eccentricity[row] == max(dist.values())
    assert np.all(r.sources == sources)


def test_msbfs_depth_limit_and_node_names():
    g = nx.path_graph(["x", "y", "z", "w"])
    r = opsparse.msbfs(g, ["y"], max_depth=1)
    assert r.reached.tolist() == [3] and r.eccentricity.tolist() == [1]
    assert opsparse.msbfs(g, "x", levels=False).levels is None
    with pytest.raises(ValueError, match="not a vertex"):
        opsparse.msbfs(g, ["nowhere"])
    with pytest.raises(ValueError, match="not a vertex"):
        opsparse.msbfs(sp.csr_array((3, 3)), [3])


def test_mcl_two_cliques():
    g = two_cliques()
    clusters = opsparse.mcl(g)
    assert sorted(map(sorted, clusters)) == [["a1", "a2", "a3", "a4", "a5"],
                                             ["b1", "b2", "b3", "b4", "b5"]]
    labels = opsparse.mcl(nx.to_scipy_sparse_array(g, nodelist=list(g)), output="labels")
    assert len(set(labels[:5].tolist())) == 1 and len(set(labels[5:].tolist())) == 1
    assert labels[0] != labels[5]


def test_mcl_options_checked():
    with pytest.raises(ValueError, match="inflation|-I"):
        opsparse.mcl(two_cliques(), inflation=-1)
    with pytest.raises(ValueError, match="overlap"):
        opsparse.mcl(two_cliques(), overlap="merge")


# ---- the shared data sets --------------------------------------------------------------------

def test_graph_facts(datasets):
    """Triangles and BFS of every shared graph (file input, labels as sources) against the
    reference computed with SciPy."""
    done = set()
    for f, n, _edges, tri, src, reached, level_sum, depth in graph_facts(datasets):
        path = datasets / f
        if path.stat().st_size > 3_000_000:
            continue  # keep the suite quick
        if f not in done:
            assert opsparse.triangles(path, backend="cpu") == tri, f
            done.add(f)
        r = opsparse.msbfs(path, [src], undirected=True, levels=False, backend="cpu")
        assert (r.reached[0], r.level_sum[0], r.eccentricity[0]) == (reached, level_sum, depth), f


def read_clusters(text):
    return sorted(sorted(line.split("\t")) for line in text.splitlines() if line.strip())


@pytest.mark.parametrize("name", ["PPISB_E.coli", "ghsom_Uetz_screen", "ghsom_Ito_core"])
def test_mcl_matches_mcl_reference(datasets, name):
    clusters = opsparse.mcl(datasets / "ppi" / f"{name}.abc", inflation=2.0, backend="cpu")
    ref = (datasets / "reference" / "mcl" / f"{name}.I20.clusters").read_text()
    assert sorted(sorted(c) for c in clusters) == read_clusters(ref)


def test_against_cpp_programs(datasets, app, tmp_path):
    """The functions and the programs agree (same cores, same readers)."""
    abc = datasets / "ppi" / "PPISB_mouse.abc"
    out = tmp_path / "clusters"
    subprocess.run([app("mcl"), abc, "--abc", "-I", "2.0", "-o", out, "--backend", "cpu"],
                   check=True, capture_output=True)
    assert sorted(sorted(c) for c in opsparse.mcl(abc, backend="cpu")) == \
        read_clusters(out.read_text())

    graph = datasets / "graphs" / "email-Eu-core.txt"
    printed = subprocess.run([app("triangle"), graph, "--backend", "cpu", "-q"], check=True,
                             capture_output=True, text=True).stdout
    assert opsparse.triangles(graph, backend="cpu") == int(printed.split()[0])

    summary = tmp_path / "summary.tsv"
    subprocess.run([app("msbfs"), graph, "--sources", "0,5,17", "-u", "--backend", "cpu",
                    "--summary", summary, "-q"], check=True, capture_output=True)
    rows = [l.split("\t") for l in summary.read_text().splitlines() if not l.startswith("#")]
    r = opsparse.msbfs(graph, ["0", "5", "17"], undirected=True, levels=False, backend="cpu")
    for i, row in enumerate(rows):
        assert (int(row[1]), int(row[2]), int(row[3])) == \
            (r.reached[i], r.level_sum[i], r.eccentricity[i])
        assert float(row[4]) == pytest.approx(r.closeness[i], rel=1e-5)


def test_level_array_tells_the_source_from_unreached_vertices():
    # The sparse levels' .toarray() shows 0 for the source and for unreached vertices alike.
    import numpy as np
    import scipy.sparse as sp
    a = sp.csr_matrix((np.ones(4), ([0, 1, 1, 2], [1, 0, 2, 1])), shape=(4, 4))  # 0-1-2, 3 alone
    r = opsparse.msbfs(a, [0, 3], backend="cpu")
    assert r.levels.toarray()[0, 3] == r.levels.toarray()[0, 0] == 0
    assert r.level_array().tolist() == [[0, 1, 2, -1], [-1, -1, -1, 0]]
    assert r.level_array(unreached=-9999)[0, 3] == -9999
    with pytest.raises(ValueError, match="levels=False"):
        opsparse.msbfs(a, [0], levels=False, backend="cpu").level_array()
