"""Errors and interruption: C++ messages as Python exceptions, Ctrl-C between iterations."""
import _thread
import signal

import networkx as nx
import pytest

import opsparse


def test_bad_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 2.0\n")
    with pytest.raises(opsparse.ParseError) as e:
        opsparse.triangles(bad)
    assert isinstance(e.value, ValueError)
    assert str(bad) in str(e.value) and "4" in str(e.value)


def test_bad_edge_list_line(tmp_path):
    bad = tmp_path / "edges.txt"
    bad.write_text("# comment\n1 2\n2 3\n3 four\n")
    with pytest.raises(opsparse.ParseError, match=r"edges\.txt.*4|4.*edges\.txt"):
        opsparse.msbfs(bad, ["1"])


def test_missing_file(tmp_path):
    missing = tmp_path / "nowhere.abc"
    with pytest.raises((OSError, RuntimeError, ValueError), match="nowhere.abc"):
        opsparse.mcl(missing)


def test_negative_weight_rejected_for_mcl(tmp_path):
    abc = tmp_path / "g.abc"
    abc.write_text("a\tb\t1\nb\tc\t-2\n")
    with pytest.raises(opsparse.ParseError, match="g.abc"):
        opsparse.mcl(abc)


@pytest.fixture
def sigint_raises():
    """Python's own Ctrl-C handler, even where the test runs with SIGINT ignored (a background
    job of a non-interactive shell: Python then installs none)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def slow_graph():
    # MCL needs several iterations on it
    return nx.connected_caveman_graph(30, 8)


def test_ctrl_c_stops_mcl_between_iterations(sigint_raises):
    seen = []

    def progress(info):
        seen.append(info["iteration"])
        if len(seen) == 2:
            _thread.interrupt_main()  # as Ctrl-C: a SIGINT for the main thread

    with pytest.raises(KeyboardInterrupt):
        opsparse.mcl(slow_graph(), progress=progress, backend="cpu")
    assert seen == [1, 2]  # stopped right after the iteration that saw the signal
    # the module is still usable
    assert len(opsparse.mcl(slow_graph(), backend="cpu")) == 30


def test_progress_exception_propagates():
    class Stop(Exception):
        pass

    def progress(info):
        raise Stop(info["iteration"])

    with pytest.raises(Stop):
        opsparse.mcl(slow_graph(), progress=progress, backend="cpu")


def test_ctrl_c_stops_msbfs_between_batches(sigint_raises):
    g = nx.gnp_random_graph(200, 0.05, seed=4)
    batches = []

    def progress(info):
        batches.append(info["first"])
        _thread.interrupt_main()

    with pytest.raises(KeyboardInterrupt):
        opsparse.msbfs(g, list(range(200)), batch=10, backend="cpu", progress=progress)
    assert batches == [0]


def test_gpu_backend_without_gpu():
    ok, why = opsparse.gpu_available()
    if ok:
        pytest.skip("a GPU is usable here")
    assert why
    with pytest.raises(RuntimeError):
        opsparse.triangles(nx.karate_club_graph(), backend="gpu")
