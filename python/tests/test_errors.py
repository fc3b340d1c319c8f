"""Errors and interruption: C++ messages as Python exceptions, Ctrl-C between iterations."""
import _thread
import signal

import networkx as nx
import numpy as np
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


def _slow_large_graph(n=100_000):
    """Groups of 20 nodes with a few edges across: MCL needs about 20 iterations and several
    seconds on two cores."""
    import scipy.sparse as sp
    rng = np.random.default_rng(1)
    m = n * 8
    a = rng.integers(0, n, m)
    b = np.where(rng.random(m) < 0.98, (a // 20) * 20 + rng.integers(0, 20, m),
                 rng.integers(0, n, m))
    g = sp.csr_matrix((rng.random(m) + 0.1, (a, np.minimum(b, n - 1))), shape=(n, n))
    return g + g.T


def test_a_real_sigint_stops_mcl_within_an_iteration(sigint_raises):
    # SIGINT from the system (as Ctrl-C sends it), not interrupt_main: it lands while the
    # iterations run without the GIL, and the run stops after the iteration it arrived in.
    import os
    import threading
    g = _slow_large_graph()
    full = []
    opsparse.mcl(g, backend="cpu", progress=lambda info: full.append(info["iteration"]))
    seen = []
    # The signal goes out from another thread once the first iteration has reported, so that
    # it lands in a later one however fast the machine runs them (a fixed delay did not: 16
    # cores finished the whole run in less).
    timers = []

    def progress(info):
        seen.append(info["iteration"])
        if len(seen) == 1:
            timers.append(threading.Timer(0.0, os.kill, (os.getpid(), signal.SIGINT)))
            timers[0].start()

    try:
        with pytest.raises(KeyboardInterrupt):
            opsparse.mcl(g, backend="cpu", progress=progress)
    finally:
        for t in timers:
            t.cancel()
    assert len(full) >= 10
    assert len(seen) < len(full) // 2, (seen, full)


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


def _valid_csr(n=50, seed=3):
    import scipy.sparse as sp
    return sp.random(n, n, density=0.1, format="csr", random_state=seed)


def test_row_pointers_past_the_entries_are_refused_not_a_crash():
    # indptr[3] = 10**6 on a valid matrix made the core read past its arrays (SIGSEGV)
    a = _valid_csr()
    a.indptr = a.indptr.copy()
    a.indptr[3] = 10**6
    with pytest.raises(ValueError, match="indptr"):
        opsparse.spgemm(a, _valid_csr())
    with pytest.raises(ValueError, match="indptr"):
        opsparse.mcl(a)


def test_decreasing_row_pointers_are_refused():
    a = _valid_csr()
    a.indptr = a.indptr.copy()
    a.indptr[10], a.indptr[11] = a.indptr[11] + 1, a.indptr[10]
    with pytest.raises(ValueError, match="decreases"):
        opsparse.spgemm(a, a.copy())
    b = _valid_csr().tocsc()
    b.indptr = b.indptr[:-1]
    with pytest.raises(ValueError, match="indptr has"):
        opsparse.triangles(b)


def test_out_of_range_indices_in_coo_are_refused():
    import numpy as np
    import scipy.sparse as sp
    c = sp.coo_matrix((np.ones(2), (np.array([0, 1]), np.array([1, 0]))), shape=(2, 2))
    c.col = c.col.copy()
    c.col[1] = 7
    with pytest.raises(ValueError, match="out of range"):
        opsparse.spgemm(c, c)


def test_a_huge_dimension_is_refused_by_its_memory_not_killed():
    # A (2**31 - 1)^2 matrix of one entry grew the process to 23.8 GB before it was killed.
    import numpy as np
    import scipy.sparse as sp
    n = 2**31 - 1
    a = sp.coo_matrix((np.ones(1), (np.array([0]), np.array([1]))), shape=(n, n))
    if opsparse._convert._available_memory() == 0:
        pytest.skip("no MemAvailable to compare with on this system")
    if opsparse._convert._available_memory() > 2 * 8 * (n + 1):
        pytest.skip("this machine has the memory to convert it")
    with pytest.raises(MemoryError, match="GB"):
        opsparse.mcl(a)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_mcl_refuses_weights_that_are_not_finite(bad):
    # Python clustered it into other clusters; such a weight is refused here (opsparse-mcl reads
    # an ABC file's inf or nan as 1, as mcl does)
    import numpy as np
    import scipy.sparse as sp
    a = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, bad], [0, bad, 0]], dtype=float))
    with pytest.raises(ValueError, match="not finite"):
        opsparse.mcl(a)
    g = nx.Graph()
    g.add_edge("a", "b", weight=1.0)
    g.add_edge("b", "c", weight=bad)
    with pytest.raises(ValueError, match="not finite"):
        opsparse.mcl(g)


def test_mcl_refuses_complex_weights():
    import numpy as np
    import scipy.sparse as sp
    a = sp.csr_matrix(np.array([[0, 1j], [1j, 0]]))
    with pytest.raises(TypeError, match="complex"):
        opsparse.mcl(a)


@pytest.mark.parametrize("weight", [np.complex128(1 + 2j), 1 + 2j, np.complex64(3)],
                         ids=["numpy-complex128", "python-complex", "numpy-complex64"])
def test_mcl_refuses_complex_networkx_weights(weight):
    # NumPy complex weights were cast to their real parts with only a ComplexWarning (and
    # clustered); Python complex ones failed with a message about float().
    import warnings
    g = nx.Graph()
    g.add_edge("a", "b", weight=1.0)
    g.add_edge("b", "c", weight=weight)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning instead of the refusal fails the test
        with pytest.raises(TypeError, match="complex edge weights"):
            opsparse.mcl(g)
        with pytest.raises(TypeError, match="complex edge weights"):
            opsparse.triangles(g)


def test_public_namespace_holds_the_api_only():
    names = dir(opsparse)
    for module in ("np", "sp", "threading", "atexit"):
        assert module not in names
    for name in opsparse.__all__:
        assert name in names and hasattr(opsparse, name)


def test_an_empty_networkx_graph_is_treated_as_a_0x0_matrix():
    import scipy.sparse as sp
    empty = sp.csr_matrix((0, 0))
    assert opsparse.mcl(nx.Graph()) == opsparse.mcl(empty) == []
    assert opsparse.triangles(nx.Graph()) == opsparse.triangles(empty)
