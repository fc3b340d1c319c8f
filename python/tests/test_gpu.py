"""The GPU engine through CuPy: products on cupyx.scipy.sparse matrices (device arrays used in
place, results in device memory), the plan's steady state, and the apps' GPU backends against
the CPU's. Skipped, with the reason, without CuPy, without the GPU engine or without a device."""
import gc
import os

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import opsparse
from opsparse import _convert, _opsparse

if os.environ.get("OPSPARSE_REQUIRE_GPU") == "1":
    import cupy  # a missing CuPy fails here, not skips
    import cupyx.scipy.sparse as csp
else:
    cupy = pytest.importorskip("cupy")
    csp = pytest.importorskip("cupyx.scipy.sparse")


def _why_no_gpu():
    if not opsparse.has_gpu_engine:
        return "this build of opsparse has no GPU engine (built without the CUDA toolkit)"
    ok, why = opsparse.gpu_available()
    if not ok:
        return f"no usable GPU: {why}"
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 (any CUDA failure means no device for CuPy)
        return f"CuPy sees no device: {e}"
    return None


_REASON = _why_no_gpu()
if _REASON is not None and os.environ.get("OPSPARSE_REQUIRE_GPU") == "1":
    raise RuntimeError(f"OPSPARSE_REQUIRE_GPU=1 but {_REASON}")
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")

DEVICE_MEMORY = getattr(cupy.cuda.runtime, "memoryTypeDevice", 2)


def host_matrix(m, n, density, dtype, seed):
    rng = np.random.default_rng(seed)
    a = sp.random(m, n, density=density, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.integers(1, 10, k).astype(np.float64))
    return a.astype(dtype)


def on_device(a):
    return csp.csr_matrix(a)


def is_device_pointer(ptr):
    return cupy.cuda.runtime.pointerGetAttributes(ptr).type == DEVICE_MEMORY


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.bool_], ids=lambda t: np.dtype(t).name)
def test_products_match_scipy(dtype):
    a = host_matrix(300, 200, 0.03, dtype, 1)
    b = host_matrix(200, 250, 0.03, dtype, 2)
    c = opsparse.spgemm(on_device(a), on_device(b))
    assert isinstance(c, csp.csr_matrix)
    assert c.dtype == np.dtype(dtype)
    ref = (a @ b).toarray()
    got = c.get().toarray()
    if dtype == np.bool_:
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-5 if dtype == np.float32 else 1e-12)
    # the same entries as the CPU engine, which keeps every formed product
    assert c.nnz == opsparse.spgemm(a, b).nnz


def test_no_host_copy():
    """Inputs are read where they are; the result's arrays are device memory the library
    allocated, wrapped without a copy."""
    a = on_device(host_matrix(500, 500, 0.01, np.float64, 3))
    _convert.TRACE = []
    try:
        c = opsparse.spgemm(a, a)
        passed = _convert.TRACE[0]
    finally:
        _convert.TRACE = None
    # (rows, cols, nnz, indptr, indices, values): columns and values are A's own device arrays
    assert passed[4] == a.indices.data.ptr
    assert passed[5] == a.data.data.ptr
    assert all(is_device_pointer(p) for p in passed[3:])
    for arr in (c.data, c.indices, c.indptr):
        assert isinstance(arr, cupy.ndarray)
        assert is_device_pointer(arr.data.ptr)
    # the values are the library's allocation itself, not a copy made by CuPy
    assert isinstance(c.data.data.mem, cupy.cuda.UnownedMemory)


@pytest.mark.parametrize("complement", [False, True])
def test_masks_match_host(complement):
    a = host_matrix(200, 150, 0.05, np.float64, 4)
    b = host_matrix(150, 180, 0.05, np.float64, 5)
    m = host_matrix(200, 180, 0.2, np.float64, 6)
    c = opsparse.spgemm(on_device(a), on_device(b), mask=on_device(m), complement=complement)
    ref = opsparse.spgemm(a, b, mask=m, complement=complement)
    np.testing.assert_allclose(c.get().toarray(), ref.toarray(), rtol=1e-12)
    assert c.nnz == ref.nnz


@pytest.mark.parametrize("semiring", ["plus_pair", "any_pair", "or_and"])
def test_semirings_match_host(semiring):
    a = host_matrix(150, 150, 0.05, np.float64, 7)
    c = opsparse.spgemm(on_device(a), on_device(a), semiring=semiring)
    ref = opsparse.spgemm(a, a, semiring=semiring)
    np.testing.assert_array_equal(c.get().toarray(), ref.toarray().astype(c.dtype))


def test_plan_steady_state_allocates_nothing_of_its_own():
    a = on_device(host_matrix(2000, 2000, 0.005, np.float64, 8))
    plan = opsparse.Plan()
    for _ in range(2):  # warm-up: the plan grows to this problem
        opsparse.spgemm(a, a, plan=plan)
    metadata = plan.metadata_allocations
    before = _opsparse.device_allocation_count()
    results = [opsparse.spgemm(a, a, plan=plan) for _ in range(4)]
    assert plan.metadata_allocations == metadata
    # only each result's own two arrays (row pointers; columns and values in one block)
    assert _opsparse.device_allocation_count() - before <= 2 * len(results)
    assert plan.stats["nnz"] == results[-1].nnz


def test_result_outlives_plan():
    a = host_matrix(300, 300, 0.02, np.float64, 9)
    plan = opsparse.Plan()
    c = opsparse.spgemm(on_device(a), on_device(a), plan=plan)
    del plan
    gc.collect()
    np.testing.assert_allclose(c.get().toarray(), (a @ a).toarray(), rtol=1e-12)


def test_host_and_device_not_mixed():
    a = host_matrix(10, 10, 0.3, np.float64, 10)
    with pytest.raises(ValueError, match="must all be SciPy"):
        opsparse.spgemm(on_device(a), a)
    with pytest.raises(ValueError, match="shapes"):
        opsparse.spgemm(on_device(a), on_device(host_matrix(11, 10, 0.3, np.float64, 1)))


def test_apps_gpu_backend_match_cpu():
    g = nx.powerlaw_cluster_graph(2000, 5, 0.3, seed=11)
    assert opsparse.triangles(g, per_vertex=True, backend="gpu") == \
        opsparse.triangles(g, per_vertex=True, backend="cpu")
    gpu = opsparse.msbfs(g, [0, 10, 999], backend="gpu")
    cpu = opsparse.msbfs(g, [0, 10, 999], backend="cpu")
    assert (gpu.levels != cpu.levels).nnz == 0
    assert gpu.level_sum.tolist() == cpu.level_sum.tolist()
    caves = nx.connected_caveman_graph(20, 6)
    assert sorted(map(sorted, opsparse.mcl(caves, backend="gpu"))) == \
        sorted(map(sorted, opsparse.mcl(caves, backend="cpu")))


def test_mcl_gpu_matches_mcl_reference(datasets):
    name = "PPISB_E.coli"
    clusters = opsparse.mcl(datasets / "ppi" / f"{name}.abc", backend="gpu")
    ref = (datasets / "reference" / "mcl" / f"{name}.I20.clusters").read_text()
    expected = sorted(sorted(l.split("\t")) for l in ref.splitlines() if l.strip())
    assert sorted(sorted(c) for c in clusters) == expected
