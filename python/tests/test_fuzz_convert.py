"""A seeded property test of the conversion layer: matrices of random shapes, formats, value
types and contents, many of them malformed (row pointers that decrease or point past the stored
entries, indices out of range or not integers, arrays of the wrong length, NaN, infinite and
complex values, dimensions up to 2^31 - 1), through opsparse.spgemm, mcl, triangles and msbfs.
Every call returns what a reference computes (a product over the entries' dictionary here,
NetworkX for triangles and BFS, a valid clustering for MCL) or raises ValueError, TypeError or
MemoryError with a message. A crash ends pytest, and a call that hangs ends it too (faulthandler,
after HANG_SECONDS), so that neither can pass unnoticed.
OPSPARSE_FUZZ_SEED and OPSPARSE_FUZZ_CASES choose the seed and the number of cases."""
import faulthandler
import math
import os
from collections import defaultdict

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import opsparse
from opsparse import _convert

SEED = int(os.environ.get("OPSPARSE_FUZZ_SEED", "20261128"))
CASES = int(os.environ.get("OPSPARSE_FUZZ_CASES", "300"))
HANG_SECONDS = 120
REFUSALS = (ValueError, TypeError, MemoryError)
BIG = 2**31 - 1

VALUE_TYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
               np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128, object]
# What spgemm computes in (the rest it refuses).
COMPUTED = {np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                  np.uint32, np.int64, np.float16, np.float32, np.float64)}
# Value types SciPy's constructors refuse (a matrix can still hold them).
UNCONSTRUCTIBLE = {np.dtype(np.float16), np.dtype(object)}
CORRUPTIONS_COMPRESSED = ["indptr_decreases", "indptr_past_end", "indptr_start", "indptr_short",
                          "index_negative", "index_too_big", "indices_float", "indptr_float",
                          "data_short"]
CORRUPTIONS_COO = ["row_too_big", "col_negative", "row_short", "coords_float"]


@pytest.fixture(autouse=True)
def no_hang():
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


class Case:
    """A matrix and what it is: `valid` when SciPy's arrays describe a matrix (whatever its
    values), with `entries` {(i, j): value} after duplicates are summed."""

    def __init__(self, m, valid, note):
        self.m, self.valid, self.note = m, valid, note
        self.entries = None  # also for values that are no numbers
        if valid:
            try:
                self.entries = entries_of(m)
            except (TypeError, ValueError):
                pass

    def __repr__(self):
        return f"<{self.note}>"


def entries_of(m):
    if m.dtype == object or m.dtype == np.float16:  # as the conversion widens them
        m = m.astype(np.float64 if m.dtype == object else np.float32)
    c = sp.coo_matrix(m, copy=True)
    c.sum_duplicates()
    return {(int(i), int(j)): v for i, j, v in zip(c.row, c.col, c.data)}


def random_values(rng, n, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(n) < 0.7
    if dtype.kind in "iu":
        lo = 0 if dtype.kind == "u" else -3
        return rng.integers(lo, 4, n).astype(dtype)
    if dtype.kind == "O":
        return np.array([rng.choice([1, 2.5, "x", None]) for _ in range(n)], dtype=object)
    v = np.round(rng.normal(size=n) * 4) / 4
    if dtype.kind == "c":
        v = v + 1j * np.round(rng.normal(size=n))
    if n and rng.random() < 0.15:  # a special value somewhere
        v[rng.integers(n)] = rng.choice([np.nan, np.inf, -np.inf])
    if n and rng.random() < 0.15:  # an explicit zero
        v[rng.integers(n)] = 0
    return v.astype(dtype)


def random_matrix(rng, rows, cols, dtype, fmt, array_api, nnz=None):
    cells = rows * cols
    if nnz is None:
        nnz = int(rng.integers(0, min(cells, 40) + 1)) if cells else 0
    r = rng.integers(0, rows, nnz) if rows else np.zeros(0, dtype=np.int64)
    c = rng.integers(0, cols, nnz) if cols else np.zeros(0, dtype=np.int64)
    v = random_values(rng, nnz, dtype)
    make = sp.coo_array if array_api else sp.coo_matrix
    if np.dtype(dtype) in UNCONSTRUCTIBLE:  # SciPy refuses them at construction: set later
        m = make((np.ones(nnz), (r, c)), shape=(rows, cols))
        m.data = v
        return m
    m = make((v, (r, c)), shape=(rows, cols))  # duplicates kept (summed by conversions)
    if fmt != "coo":
        m = m.asformat(fmt)
    if fmt in ("csr", "csc") and rng.random() < 0.3:
        m.has_sorted_indices = False  # SciPy's flag only; the conversion sorts again
    return m


def corrupt(rng, m):
    """m with arrays that describe no matrix; m has at least one row, column and entry."""
    if m.format in ("csr", "csc"):
        kind = rng.choice(CORRUPTIONS_COMPRESSED)
        indptr, indices = m.indptr.copy(), m.indices.copy()
        minor = m.shape[1] if m.format == "csr" else m.shape[0]
        first = int(np.argmax(np.diff(indptr) > 0))  # a row with an entry
        if kind == "indptr_decreases":
            indptr[1] = -1
        elif kind == "indptr_past_end":
            indptr = indptr.astype(np.int64)
            indptr[-1] = indices.shape[0] + int(rng.integers(1, 2**40))
        elif kind == "indptr_start":
            indptr[0] = 1
        elif kind == "indptr_short":
            indptr = indptr[:-1]
        elif kind == "index_negative":
            indices[indptr[first]] = -int(rng.integers(1, 2**31))
        elif kind == "index_too_big":
            indices = indices.astype(np.int64)
            indices[indptr[first]] = minor + int(rng.integers(0, 2**40))
        elif kind == "indices_float":
            indices = indices.astype(np.float64) + 0.5
        elif kind == "indptr_float":
            indptr = indptr.astype(np.float64)
            indptr[-1] += 0.5
        elif kind == "data_short":
            m.data = m.data[:-1]
        m.indptr, m.indices = indptr, indices
        return kind
    kind = rng.choice(CORRUPTIONS_COO)
    row, col = np.asarray(m.row).copy(), np.asarray(m.col).copy()
    if kind == "row_too_big":
        row = row.astype(np.int64)
        row[0] = m.shape[0] + int(rng.integers(0, 2**40))
    elif kind == "col_negative":
        col[0] = -1
    elif kind == "row_short":
        row = row[:-1]
    elif kind == "coords_float":
        row = row.astype(np.float64) + 0.5
    m.coords = (row, col)
    return kind


def random_case(rng, rows, cols, dtype=None, allow_corrupt=True):
    dtype = dtype or rng.choice(VALUE_TYPES)
    fmt = rng.choice(["csr", "csr", "csc", "coo", "coo", "lil", "dok", "bsr", "dia"])
    array_api = bool(rng.random() < 0.5)
    if allow_corrupt and rows and cols and rng.random() < 0.3 and \
            np.dtype(dtype) not in UNCONSTRUCTIBLE:
        fmt = rng.choice(["csr", "csc", "coo"])
        m = random_matrix(rng, rows, cols, dtype, fmt, array_api, nnz=int(rng.integers(1, 8)))
        kind = corrupt(rng, m)
        return Case(m, False, f"{fmt} {rows}x{cols} {np.dtype(dtype)} {kind}")
    if np.dtype(dtype) in UNCONSTRUCTIBLE:
        fmt = "coo"
    m = random_matrix(rng, rows, cols, dtype, fmt, array_api)
    return Case(m, True, f"{m.format} {rows}x{cols} {np.dtype(dtype)} nnz={m.nnz}")


# ------------------------------------------------------------------------------------------
# spgemm: a reference product over the entries' dictionaries
# ------------------------------------------------------------------------------------------

def reference_product(a, b, semiring, mask, complement, as_bool):
    """{(i, j): value} of the product, and the entries whose value depends on the order of the
    terms (a minimum over NaN): their presence is checked, not their value."""
    by_row = defaultdict(list)
    for (k, j), v in b.items():
        by_row[k].append((j, v))
    out, unordered = {}, set()
    for (i, k), x in a.items():
        for j, y in by_row[k]:
            key = (i, j)
            if mask is not None and ((key in mask) == complement):
                continue
            if semiring == "plus_pair":
                out[key] = out.get(key, 0) + 1
            elif semiring == "any_pair":
                out[key] = True
            elif semiring == "or_and" or as_bool:
                out[key] = out.get(key, False) or (bool(x != 0) and bool(y != 0))
            elif semiring == "min_plus":
                t = float(x) + float(y)
                if math.isnan(t):
                    unordered.add(key)
                out[key] = t if key not in out else min(out[key], t)
            elif isinstance(x, np.integer) and isinstance(y, np.integer):
                out[key] = out.get(key, 0) + int(x) * int(y)
            else:
                out[key] = out.get(key, 0.0) + float(x) * float(y)
    return out, unordered


def same_value(got, want, dtype):
    if isinstance(want, bool) or isinstance(got, (bool, np.bool_)):
        return bool(got) == bool(want)
    got, want = float(got), float(want)
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    tol = 1e-3 if dtype in (np.float16, np.float32) else 1e-9
    return got == want or math.isclose(got, want, rel_tol=tol, abs_tol=tol)


def check_spgemm(A, B, semiring, M, complement, threads):
    """Calls spgemm and checks the property; returns 'result' or 'refused'."""
    try:
        C = opsparse.spgemm(A.m, B.m, semiring=semiring, mask=None if M is None else M.m,
                            complement=complement, threads=threads)
    except REFUSALS as e:
        assert str(e), f"{type(e).__name__} without a message"
        return "refused"
    every = [A, B] + ([M] if M is not None else [])
    assert all(c.valid for c in every), "a malformed matrix was multiplied"
    assert all(c.entries is not None for c in every), "values that are no numbers"
    assert semiring in opsparse.SEMIRINGS
    t = np.result_type(A.m.dtype, B.m.dtype)
    assert t in COMPUTED, f"values of type {t} were multiplied"
    assert not (semiring == "min_plus" and t == np.bool_)
    assert A.m.shape[1] == B.m.shape[0]
    assert sp.issparse(C) and C.shape == (A.m.shape[0], B.m.shape[1])
    if A.m.format in ("csc", "coo"):
        assert C.format == A.m.format
    mask = set(M.entries) if M is not None else None
    want, unordered = reference_product(A.entries, B.entries, semiring, mask, complement,
                                        as_bool=t == np.bool_)
    got = entries_of(C)
    assert set(got) == set(want), f"entries differ: {sorted(set(got) ^ set(want))[:5]}"
    compute = _convert.compute_dtype(A.m.dtype, B.m.dtype)
    for key, w in want.items():
        if key not in unordered:
            assert same_value(got[key], w, compute), f"C{key} = {got[key]}, expected {w}"
    return "result"


def test_spgemm_random_inputs():
    rng = np.random.default_rng(SEED)
    outcomes = defaultdict(int)
    for case in range(CASES):
        m, k, n = (int(x) for x in rng.integers(0, 7, 3))
        if rng.random() < 0.1:  # shapes that do not match
            k2 = k + int(rng.integers(1, 3))
        else:
            k2 = k
        dtype = rng.choice(VALUE_TYPES) if rng.random() < 0.5 else None
        A = random_case(rng, m, k, dtype)
        B = random_case(rng, k2, n, dtype if rng.random() < 0.7 else None)
        semiring = rng.choice(list(opsparse.SEMIRINGS) + ["plus_times", "times_plus"])
        M = None
        complement = bool(rng.random() < 0.5)
        if rng.random() < 0.4:
            M = random_case(rng, m, n, np.float64)
        threads = int(rng.choice([0, 1, 2]))
        try:
            outcomes[check_spgemm(A, B, semiring, M, complement, threads)] += 1
        except AssertionError as e:
            raise AssertionError(f"case {case} (seed {SEED}): spgemm(A={A}, B={B}, "
                                 f"semiring={semiring}, mask={M}, complement={complement}): "
                                 f"{e}") from None
    assert outcomes["result"] > CASES // 5 and outcomes["refused"] > CASES // 10, dict(outcomes)


def test_spgemm_not_sparse_inputs():
    A = sp.random(3, 3, density=0.5, format="csr", random_state=1)
    for other in (np.ones((3, 3)), [[1, 0], [0, 1]], None, "A", 3.0, np.ones(3)):
        for args in ((other, A), (A, other)):
            with pytest.raises(TypeError, match="must be"):
                opsparse.spgemm(*args)
        if other is not None:
            with pytest.raises(TypeError, match="must be"):
                opsparse.spgemm(A, A, mask=other)


# ------------------------------------------------------------------------------------------
# Dimensions up to 2^31 - 1 and beyond
# ------------------------------------------------------------------------------------------

@pytest.fixture
def memory_of(monkeypatch):
    """Pretends the machine has this much memory available, so that the refusals of shapes
    whose conversion would not fit do not depend on the machine."""
    def set_available(nbytes):
        monkeypatch.setattr(_convert, "_available_memory", lambda: nbytes)
    return set_available


def one_entry(rows, cols, i, j, value=2.0, array_api=False):
    make = sp.coo_array if array_api else sp.coo_matrix
    return make((np.array([value]), (np.array([i]), np.array([j]))), shape=(rows, cols))


def test_huge_dimensions_with_one_entry(memory_of):
    memory_of(16 << 30)
    huge = one_entry(BIG, BIG, BIG - 1, BIG - 1)
    for call in (lambda: opsparse.spgemm(huge, huge), lambda: opsparse.mcl(huge),
                 lambda: opsparse.triangles(huge), lambda: opsparse.msbfs(huge, [0])):
        with pytest.raises(MemoryError, match="GB"):
            call()
    # (3 x 2^31-1) · (2^31-1 x 3): B's row pointers alone are 17 GB
    with pytest.raises(MemoryError, match="B"):
        opsparse.spgemm(one_entry(3, BIG, 1, BIG - 1), one_entry(BIG, 3, BIG - 1, 2))


def test_wide_product_with_few_rows():
    # 3 x 2 times 2 x (2^31-1): few rows, so nothing of size 2^31 is needed
    A = one_entry(3, 2, 1, 0, 3.0)
    B = one_entry(2, BIG, 0, BIG - 1, 5.0)
    C = opsparse.spgemm(A, B)
    assert C.shape == (3, BIG) and entries_of(C) == {(1, BIG - 1): 15.0}


def test_dimensions_of_2_31_and_more():
    for n in (2**31, 2**32 + 1, 2**40):
        m = one_entry(n, n, 0, 0)
        with pytest.raises(ValueError, match="2"):
            opsparse.spgemm(m, m)
        for call in (opsparse.mcl, opsparse.triangles, lambda g: opsparse.msbfs(g, [0])):
            with pytest.raises(ValueError, match="2\\^31"):
                call(m)


# ------------------------------------------------------------------------------------------
# The apps
# ------------------------------------------------------------------------------------------

def structure_graph(entries, n, undirected):
    g = nx.Graph() if undirected else nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(e for e in entries)
    return g


def check_triangles(case, n):
    try:
        count, per = opsparse.triangles(case.m, per_vertex=True, backend="cpu")
    except REFUSALS as e:
        assert str(e)
        return "refused"
    assert case.valid and case.entries is not None, "a malformed graph was read"
    g = structure_graph([e for e in case.entries if e[0] != e[1]], n, undirected=True)
    want = nx.triangles(g)
    assert count == sum(want.values()) // 3
    assert [int(x) for x in per] == [want[v] for v in range(n)]
    return "result"


def check_msbfs(rng, case, n):
    sources = [int(x) for x in rng.integers(0, n, int(rng.integers(1, 4)))] if n else [0]
    if rng.random() < 0.15:
        sources.append(int(rng.choice([-1, n, n + 7, 2**40])))
    undirected = bool(rng.random() < 0.5)
    try:
        r = opsparse.msbfs(case.m, sources, undirected=undirected, backend="cpu")
    except REFUSALS as e:
        assert str(e)
        return "refused"
    assert case.valid and case.entries is not None, "a malformed graph was read"
    assert all(0 <= s < n for s in sources), "a source that is no vertex was searched from"
    g = structure_graph(list(case.entries), n, undirected)
    levels = r.level_array()
    for row, s in enumerate(sources):
        d = nx.single_source_shortest_path_length(g, s)
        assert int(r.reached[row]) == len(d)
        assert int(r.level_sum[row]) == sum(d.values())
        assert int(r.eccentricity[row]) == max(d.values())
        want = np.full(n, -1)
        for v, lv in d.items():
            want[v] = lv
        assert (levels[row] == want).all()
    return "result"


def check_mcl(case, n):
    try:
        clusters = opsparse.mcl(case.m, backend="cpu", max_iter=60)
    except REFUSALS as e:
        assert str(e)
        return "refused"
    assert case.valid and case.entries is not None, "a malformed graph was clustered"
    assert case.m.dtype.kind != "c", "complex weights were clustered"
    weights = np.array(list(case.entries.values()), dtype=np.float64)
    assert np.isfinite(weights).all(), "NaN or infinite weights were clustered"
    members = [v for c in clusters for v in c]
    assert set(members) == set(range(n)), "a vertex is in no cluster"
    # Clusters never join vertices that no path of edges joins.
    comp = {}
    g = structure_graph(list(case.entries), n, undirected=True)
    for k, cc in enumerate(nx.connected_components(g)):
        for v in cc:
            comp[v] = k
    for c in clusters:
        assert len({comp[v] for v in c}) == 1, f"cluster {c} spans components"
    return "result"


def test_apps_random_inputs():
    rng = np.random.default_rng(SEED + 1)
    outcomes = defaultdict(int)
    for case_no in range(CASES // 3):
        n = int(rng.integers(0, 9))
        cols = n if rng.random() < 0.9 else n + 1  # sometimes not square
        dtype = rng.choice([np.float64, np.float32, np.int32, np.bool_, np.uint8, np.complex128,
                            np.float16, None])
        case = random_case(rng, n, cols, dtype)
        for name, check in (("triangles", lambda: check_triangles(case, n)),
                            ("msbfs", lambda: check_msbfs(rng, case, n)),
                            ("mcl", lambda: check_mcl(case, n))):
            try:
                outcomes[check()] += 1
            except AssertionError as e:
                raise AssertionError(f"case {case_no} (seed {SEED}): {name}({case}): {e}") \
                    from None
    assert outcomes["result"] > CASES // 6 and outcomes["refused"] > CASES // 30, dict(outcomes)


def test_apps_same_clusters_in_every_format():
    rng = np.random.default_rng(SEED + 2)
    for _ in range(10):
        n = int(rng.integers(2, 12))
        m = sp.random(n, n, density=0.4, format="coo", random_state=rng) * 3
        m.data += 0.5
        want = opsparse.mcl(m.tocsr(), backend="cpu")
        for fmt in ("csc", "coo", "lil", "dok"):
            assert opsparse.mcl(m.asformat(fmt), backend="cpu") == want


def test_binding_checks_a_mask_read_in_place():
    # The module reads a mask's arrays where they are: it checks them itself, whoever calls it.
    from opsparse import _opsparse
    a = _convert.host_csr(sp.identity(3, format="csr"), np.float64, "A")

    def mask(indptr, indices):
        return (3, 3, np.asarray(indptr, dtype=np.int64), np.asarray(indices, dtype=np.int32),
                None)
    for indptr, indices, says in (([0, 2, 1, 3], [0, 1, 2], "indptr"),
                                  ([0, 1, 2, 9], [0, 1, 2], "indptr"),
                                  ([1, 1, 2, 3], [0, 1, 2], "indptr"),
                                  ([0, 1, 2, 3], [0, 1, 2**30], "column"),
                                  ([0, 1, 2, 3], [0, -5, 2], "column"),
                                  ([0, 2, 2, 3], [1, 0, 2], "column"),
                                  ([0, 1, 2], [0, 1], "indptr")):
        for complement in (False, True):
            with pytest.raises(ValueError, match=f"mask: .*{says}"):
                _opsparse.spgemm_host("plus_times", a, a, mask(indptr, indices), complement, 1)
    good = _opsparse.spgemm_host("plus_times", a, a, mask([0, 1, 2, 3], [0, 1, 2]), False, 1)
    assert good[3].tolist() == [0, 1, 2]
