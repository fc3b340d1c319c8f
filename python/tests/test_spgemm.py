"""opsparse.spgemm on SciPy matrices (the CPU engine) against SciPy's A @ B."""
import sys
import threading

import numpy as np
import pytest
import scipy.sparse as sp

import opsparse

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]


def random_matrix(m, n, density, dtype, seed, fmt="csr"):
    rng = np.random.default_rng(seed)
    a = sp.random(m, n, density=density, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.integers(-9, 10, k))
    if dtype == np.bool_:
        a.data = a.data != 0
    a = a.astype(dtype)
    return a.asformat(fmt)


def pattern(m):
    p = sp.csr_array(m, copy=True)
    p.data = np.ones_like(p.data, dtype=np.int64)
    return p


def assert_same(c, ref):
    """Same values at every position, and C has an entry wherever a product was formed."""
    np.testing.assert_array_equal(np.asarray(c.toarray()), np.asarray(ref.toarray()))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_matches_scipy(dtype, fmt):
    a = random_matrix(60, 45, 0.08, dtype, 1, fmt)
    b = random_matrix(45, 70, 0.08, dtype, 2, fmt)
    c = opsparse.spgemm(a, b)
    assert c.format == fmt and type(c) is type(a)
    assert c.dtype == np.dtype(dtype)
    assert_same(c, a @ b)
    # structural: one entry per position some product reaches, even when its value is 0
    assert c.nnz == (pattern(a) @ pattern(b)).nnz


def test_array_and_matrix_kinds():
    a = sp.csr_array(random_matrix(20, 20, 0.2, np.float64, 3))
    assert isinstance(opsparse.spgemm(a, a), sp.csr_array)
    m = sp.csr_matrix(a)
    assert isinstance(opsparse.spgemm(m, m), sp.csr_matrix)
    assert isinstance(opsparse.spgemm(sp.coo_array(a), a), sp.coo_array)


def test_float_values_close():
    rng = np.random.default_rng(7)
    a = sp.random(200, 150, density=0.05, format="csr", random_state=rng)
    b = sp.random(150, 120, density=0.05, format="csr", random_state=rng)
    c = opsparse.spgemm(a, b)
    np.testing.assert_allclose(c.toarray(), (a @ b).toarray(), rtol=1e-12, atol=1e-14)
    c32 = opsparse.spgemm(a.astype(np.float32), b.astype(np.float32))
    np.testing.assert_allclose(c32.toarray(), (a @ b).toarray(), rtol=1e-5, atol=1e-6)


def test_promotion_and_widening():
    a = random_matrix(10, 10, 0.3, np.float32, 1)
    b = random_matrix(10, 10, 0.3, np.int64, 2)
    c = opsparse.spgemm(a, b)
    assert c.dtype == np.float64
    assert_same(c, a.astype(np.float64) @ b.astype(np.float64))
    i16 = random_matrix(10, 10, 0.3, np.int16, 3)
    assert opsparse.spgemm(i16, i16).dtype == np.int32


def test_integers_saturate():
    big = sp.csr_array(np.array([[2**20, 2**20]], dtype=np.int32))
    c = opsparse.spgemm(big, big.T.tocsr())
    assert c.toarray()[0, 0] == np.iinfo(np.int32).max  # 2^41 does not wrap around


def test_non_canonical_input_untouched():
    rows = np.array([0, 0, 1, 1, 1])
    cols = np.array([2, 0, 1, 1, 0])  # unsorted and a duplicate at (1, 1)
    coo = sp.coo_array((np.array([1.0, 2, 3, 4, 5]), (rows, cols)), shape=(2, 3))
    a = sp.csr_array((coo.data, coo.col, np.array([0, 2, 5])), shape=(2, 3))
    assert not a.has_canonical_format
    before = (a.data.copy(), a.indices.copy())
    b = random_matrix(3, 4, 0.9, np.float64, 4)
    assert_same(opsparse.spgemm(a, b), a @ b)
    np.testing.assert_array_equal(a.data, before[0])
    np.testing.assert_array_equal(a.indices, before[1])
    assert_same(opsparse.spgemm(coo, b), coo.tocsr() @ b)


@pytest.mark.parametrize("complement", [False, True])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_masks(dtype, complement):
    a = random_matrix(40, 30, 0.15, dtype, 5)
    b = random_matrix(30, 50, 0.15, dtype, 6)
    m = random_matrix(40, 50, 0.3, np.float64, 7)
    c = opsparse.spgemm(a, b, mask=m, complement=complement)
    full = pattern(a) @ pattern(b)
    inside = pattern(m).toarray() > 0
    keep = ~inside if complement else inside
    expected = np.where(keep, (a @ b).toarray(), 0)
    np.testing.assert_array_equal(c.toarray(), expected)
    # C's structure: exactly the formed positions that the mask keeps
    assert c.nnz == int(np.count_nonzero((full.toarray() > 0) & keep))


def test_semirings():
    a = random_matrix(30, 25, 0.2, np.float64, 8)
    b = random_matrix(25, 35, 0.2, np.float64, 9)
    pa, pb = pattern(a), pattern(b)
    counts = opsparse.spgemm(a, b, semiring="plus_pair")
    assert counts.dtype == np.int64
    assert_same(counts, pa @ pb)
    reach = opsparse.spgemm(a, b, semiring="any_pair")
    assert reach.dtype == np.bool_
    assert_same(reach, (pa @ pb).astype(bool))
    orand = opsparse.spgemm(a, b, semiring="or_and")
    assert orand.dtype == np.bool_
    assert_same(orand, (a != 0).astype(np.int64) @ (b != 0).astype(np.int64) > 0)


def test_min_plus_shortest_paths():
    a = random_matrix(25, 20, 0.25, np.float64, 10)
    b = random_matrix(20, 30, 0.25, np.float64, 11)
    c = opsparse.spgemm(a, b, semiring="min_plus")
    da, db = a.toarray(), b.toarray()
    ea, eb = pattern(a).toarray() > 0, pattern(b).toarray() > 0
    expected = np.full((25, 30), np.inf)
    for k in range(20):
        both = ea[:, k, None] & eb[None, k, :]
        expected = np.where(both, np.minimum(expected, da[:, k, None] + db[None, k, :]), expected)
    got = np.full((25, 30), np.inf)
    cc = c.tocoo()
    got[cc.row, cc.col] = cc.data
    np.testing.assert_array_equal(got, expected)


def test_empty_and_degenerate():
    z = sp.csr_array((0, 5))
    b = random_matrix(5, 4, 0.5, np.float64, 12)
    assert opsparse.spgemm(z, b).shape == (0, 4)
    e = sp.csr_array((3, 5))
    c = opsparse.spgemm(e, b)
    assert c.shape == (3, 4) and c.nnz == 0


def test_shape_mismatch_raises_before_work():
    a = random_matrix(4, 5, 0.5, np.float64, 13)
    with pytest.raises(ValueError, match="shapes do not match"):
        opsparse.spgemm(a, a)
    with pytest.raises(ValueError, match="mask"):
        opsparse.spgemm(a, a.T, mask=sp.csr_array((5, 5)))
    with pytest.raises(ValueError, match="unknown semiring"):
        opsparse.spgemm(a, a.T, semiring="max_times")
    with pytest.raises(ValueError, match="not supported"):
        opsparse.spgemm(a.astype(np.complex128), a.T)
    with pytest.raises(TypeError):
        opsparse.spgemm(a.toarray(), a.T)
    with pytest.raises(ValueError, match="bool"):
        opsparse.spgemm(a.astype(bool), a.T.astype(bool), semiring="min_plus")


def test_plan_and_threads():
    a = random_matrix(80, 80, 0.1, np.float64, 14)
    plan = opsparse.Plan(threads=1)
    ref = a @ a
    for _ in range(3):
        assert_same(opsparse.spgemm(a, a, plan=plan), ref)
    assert plan.metadata_allocations == 0  # the CPU engine keeps no workspace
    assert_same(opsparse.spgemm(a, a, threads=2), ref)


def test_gil_released_during_product():
    """Another Python thread runs while a product is computed (no timing: it counts)."""
    rng = np.random.default_rng(15)
    a = sp.random(3000, 3000, density=0.01, format="csr", random_state=rng)
    counter = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            counter[0] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)  # while the GIL is held, the spinner would wait a whole second
    t = threading.Thread(target=spin)
    t.start()
    try:
        advanced = 0
        for _ in range(3):
            before = counter[0]
            opsparse.spgemm(a, a)
            advanced += counter[0] > before
    finally:
        stop.set()
        sys.setswitchinterval(old)
        t.join()
    assert advanced >= 2


@pytest.mark.parametrize("semiring", ["plus_times", "plus_pair", "any_pair"])
def test_unsorted_rows_hold_the_same_entries(semiring):
    a = random_matrix(300, 250, 0.05, np.float64, 41)
    b = random_matrix(250, 400, 0.05, np.float64, 42)
    want = opsparse.spgemm(a, b, semiring)
    got = opsparse.spgemm(a, b, semiring, sorted=False).tocsr()
    got.sort_indices()
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.data, want.data)
    assert want.nnz > 0
