"""opsparse.spgemm(..., device_memory=bytes): SciPy matrices multiplied on the GPU in blocks of
rows within a device-memory budget, C gathered on the host, against SciPy's A @ B and the CPU
engine. The argument checks run everywhere; the products need a usable GPU (skipped with the
reason without one, failed when OPSPARSE_REQUIRE_GPU=1)."""
import os

import numpy as np
import pytest
import scipy.sparse as sp

import opsparse


def _why_no_gpu():
    if not opsparse.has_gpu_engine:
        return "this build of opsparse has no GPU engine (built without the CUDA toolkit)"
    ok, why = opsparse.gpu_available()
    return None if ok else f"no usable GPU: {why}"


_REASON = _why_no_gpu()
if _REASON is not None and os.environ.get("OPSPARSE_REQUIRE_GPU") == "1":
    raise RuntimeError(f"OPSPARSE_REQUIRE_GPU=1 but {_REASON}")
needs_gpu = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")


def random_matrix(m, n, density, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return sp.random(m, n, density=density, format="csr", random_state=rng,
                     data_rvs=lambda k: rng.uniform(0.5, 1.5, k)).astype(dtype)


def whole_bytes(a, b):
    """About what the whole product takes (12 bytes a product, 64 a row), as the blocks are cut."""
    products = int(np.diff(b.indptr)[a.indices].sum())
    return products * 12 + a.shape[0] * 64


@pytest.mark.parametrize("bad", [0, -5, 1.5, "1e9", True])
def test_budget_must_be_a_positive_count_of_bytes(bad):
    a = random_matrix(20, 20, 0.2, 1)
    with pytest.raises(ValueError, match="device_memory"):
        opsparse.spgemm(a, a, device_memory=bad)


@pytest.mark.parametrize("semiring,dtype", [("min_plus", np.float64), ("plus_times", np.int64),
                                            ("plus_times", np.bool_), ("or_and", np.float64)])
def test_semirings_not_offered_are_refused_before_any_work(semiring, dtype):
    a = random_matrix(20, 20, 0.2, 2, dtype)
    with pytest.raises(ValueError, match="device_memory: the GPU engine computes"):
        opsparse.spgemm(a, a, semiring, device_memory=10**6)


@pytest.mark.skipif(_REASON is None, reason="a GPU is usable here")
def test_without_a_gpu_the_reason_is_raised():
    a = random_matrix(20, 20, 0.2, 3)
    with pytest.raises(RuntimeError, match="GPU|CUDA|device"):
        opsparse.spgemm(a, a, device_memory=10**6)


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("share", [1.0, 0.2, 0.02])
def test_blocks_give_scipys_product(dtype, share):
    a = random_matrix(1200, 900, 0.01, 4, dtype)
    b = random_matrix(900, 1500, 0.008, 5, dtype)
    budget = int(whole_bytes(a, b) * share * 4 / 3) + 1
    c = opsparse.spgemm(a, b, device_memory=budget)
    ref = (a @ b).tocsr()
    ref.sort_indices()
    assert c.dtype == dtype
    assert c.shape == ref.shape
    np.testing.assert_array_equal(c.indptr, ref.indptr)
    np.testing.assert_array_equal(c.indices, ref.indices)
    np.testing.assert_allclose(c.data, ref.data, rtol=1e-12 if dtype == np.float64 else 1e-5)


@needs_gpu
@pytest.mark.parametrize("semiring", ["plus_pair", "any_pair"])
@pytest.mark.parametrize("complement", [False, True])
def test_masked_patterns_in_blocks_equal_the_cpu_engine(semiring, complement):
    a = random_matrix(800, 800, 0.02, 6)
    m = random_matrix(800, 800, 0.05, 7)
    budget = int(whole_bytes(a, a) * 0.05 * 4 / 3) + 1
    got = opsparse.spgemm(a, a, semiring, mask=m, complement=complement, device_memory=budget)
    want = opsparse.spgemm(a, a, semiring, mask=m, complement=complement)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.data, want.data)
    assert want.nnz > 0


@needs_gpu
def test_a_budget_no_row_fits_names_the_row():
    a = random_matrix(300, 300, 0.1, 8)
    with pytest.raises(ValueError, match="row [0-9]+ of A·B alone needs"):
        opsparse.spgemm(a, a, device_memory=200)


@needs_gpu
def test_unsorted_blocks_hold_the_same_entries():
    a = random_matrix(600, 600, 0.03, 9)
    budget = int(whole_bytes(a, a) * 0.1 * 4 / 3) + 1
    want = opsparse.spgemm(a, a)
    got = opsparse.spgemm(a, a, device_memory=budget, sorted=False).tocsr()
    got.sort_indices()
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_allclose(got.data, want.data, rtol=1e-12)
