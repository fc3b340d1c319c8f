"""Conversions between SciPy / CuPy sparse matrices and the canonical CSR arrays of the core."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

# dtype of the values -> dtype the engines compute in (smaller types are widened losslessly).
_WIDEN = {
    np.dtype(np.bool_): np.dtype(np.bool_),
    np.dtype(np.int8): np.dtype(np.int32),
    np.dtype(np.uint8): np.dtype(np.int32),
    np.dtype(np.int16): np.dtype(np.int32),
    np.dtype(np.uint16): np.dtype(np.int32),
    np.dtype(np.int32): np.dtype(np.int32),
    np.dtype(np.uint32): np.dtype(np.int64),
    np.dtype(np.int64): np.dtype(np.int64),
    np.dtype(np.float16): np.dtype(np.float32),
    np.dtype(np.float32): np.dtype(np.float32),
    np.dtype(np.float64): np.dtype(np.float64),
}

SEMIRINGS = ("plus_times", "min_plus", "plus_pair", "any_pair", "or_and")

# When set to a list, device calls append the addresses they pass to the core (tests check that
# CuPy inputs are used in place).
TRACE: list | None = None


def compute_dtype(a_dtype, b_dtype) -> np.dtype:
    t = np.result_type(a_dtype, b_dtype)
    if t not in _WIDEN:
        raise ValueError(f"opsparse.spgemm: values of type {t} are not supported "
                         "(float32, float64, int32, int64 and bool are)")
    return _WIDEN[t]


def is_cupy_sparse(m) -> bool:
    return type(m).__module__.startswith("cupyx.scipy.sparse")


def scipy_kind(m):
    """A constructor that turns a CSR result into the kind (format, array or matrix API) of m."""
    fmt = m.format
    array_api = isinstance(m, sp.sparray)
    def make(c):
        c = c if array_api else sp.csr_matrix(c)
        if fmt == "csc":
            return c.tocsc()
        if fmt == "coo":
            return c.tocoo()
        return c
    return make


def _read_int(path: str):
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None  # absent, or "max": no limit


def _available_memory() -> int:
    """Host memory available now (Linux's MemAvailable, or less under a container's memory
    limit: cgroup v2 memory.max, v1 limit_in_bytes), 0 when unknown."""
    avail = 0
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    for folder, limit_name, usage_name, cache_name in (
            ("/sys/fs/cgroup", "memory.max", "memory.current", "inactive_file"),
            ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes",
             "total_inactive_file")):
        limit = _read_int(f"{folder}/{limit_name}")
        used = _read_int(f"{folder}/{usage_name}")
        if limit is None or used is None or limit >= (1 << 60):
            continue
        try:  # the usage counts page cache that the kernel gives back on demand
            with open(f"{folder}/memory.stat") as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == cache_name:
                        used -= int(value)
                        break
        except (OSError, ValueError):
            pass
        left = max(limit - used, 1)
        avail = min(avail, left) if avail else left
        break
    return avail


def _check_integer(arr, name, what):
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name}: {what} must be integers, not {arr.dtype}")


def check_structure(m, name):
    """Refuses, before SciPy or the core reads them, the arrays of a sparse matrix that do not
    describe one (row pointers that decrease or point past the stored entries, indices out of
    range) and shapes whose conversion alone would not fit in memory."""
    rows, cols = (int(x) for x in m.shape)
    if rows >= 2**31 or cols >= 2**31:
        raise ValueError(f"{name}: a {rows} x {cols} matrix; dimensions must be below 2^31")
    fmt = m.format
    nnz_stored = int(np.asarray(m.data).shape[0]) if fmt in ("csr", "csc", "coo") else int(m.nnz)
    # The conversion holds row pointers (int64) twice and the entries once or twice.
    need = 2 * 8 * (rows + 1) + 2 * 16 * nnz_stored
    avail = _available_memory() if need > (1 << 30) else 0  # no file read for small matrices
    if avail and need > avail:
        raise MemoryError(f"{name}: a {rows} x {cols} matrix needs about {need / 1e9:.1f} GB to "
                          f"convert (its row pointers alone: {8 * (rows + 1) / 1e9:.1f} GB), and "
                          f"{avail / 1e9:.1f} GB are available")
    if fmt in ("csr", "csc"):
        major, minor = (rows, cols) if fmt == "csr" else (cols, rows)
        what = "row" if fmt == "csr" else "column"
        indptr, indices = np.asarray(m.indptr), np.asarray(m.indices)
        _check_integer(indptr, name, "indptr")
        _check_integer(indices, name, "indices")
        if indptr.ndim != 1 or indptr.shape[0] != major + 1:
            raise ValueError(f"{name}: indptr has {indptr.size} entries; a {rows} x {cols} "
                             f"{fmt.upper()} matrix needs {major + 1}")
        if major > 0 and indptr[0] != 0:
            raise ValueError(f"{name}: indptr[0] is {indptr[0]}, not 0")
        steps = np.diff(indptr)
        if steps.size and (steps < 0).any():
            i = int(np.argmax(steps < 0))
            raise ValueError(f"{name}: indptr decreases from {what} {i} to {what} {i + 1} "
                             f"({indptr[i]} then {indptr[i + 1]})")
        end = int(indptr[-1]) if indptr.size else 0
        if end > indices.shape[0] or end > nnz_stored:
            raise ValueError(f"{name}: indptr ends at {end} but only "
                             f"{min(indices.shape[0], nnz_stored)} entries are stored")
        used = indices[:end]
        if used.size and (int(used.min()) < 0 or int(used.max()) >= minor):
            bad = int(used.min()) if int(used.min()) < 0 else int(used.max())
            raise ValueError(f"{name}: index {bad} is out of range for {minor} "
                             f"{'columns' if fmt == 'csr' else 'rows'}")
    elif fmt == "coo":
        r, c = np.asarray(m.row if hasattr(m, "row") else m.coords[0]), \
            np.asarray(m.col if hasattr(m, "col") else m.coords[1])
        _check_integer(r, name, "row indices")
        _check_integer(c, name, "column indices")
        if r.ndim != 1 or r.shape != c.shape or r.shape[0] != nnz_stored:
            raise ValueError(f"{name}: row, col and data of a COO matrix differ in length")
        for arr, bound, axis in ((r, rows, "row"), (c, cols, "column")):
            if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= bound):
                raise ValueError(f"{name}: a {axis} index is out of range for {bound} {axis}s")


def check_finite_real(values, name):
    """Refuses complex values and NaN or infinite ones (weights are finite real numbers)."""
    if values is None:
        return
    if np.iscomplexobj(values):
        raise TypeError(f"{name}: complex values are not supported (weights are real)")
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name}: value {values[i]} at stored entry {i} is not finite "
                         "(weights must be finite real numbers)")


def host_csr(m, values_dtype, name):
    """(rows, cols, indptr int64, indices int32, values or None): m as canonical CSR, converted
    once (a CSR input in canonical form is not copied beyond the index widening)."""
    if not sp.issparse(m):
        raise TypeError(f"{name} must be a scipy.sparse matrix or array, or a cupyx.scipy.sparse "
                        f"matrix, not {type(m).__name__}")
    check_structure(m, name)
    if values_dtype is not None and np.issubdtype(m.dtype, np.complexfloating):
        raise TypeError(f"{name}: complex values are not supported")
    if m.dtype == np.float16 or m.dtype == object:
        # SciPy's conversions hold neither: widen first (object values must be numbers)
        try:
            m = m.astype(np.float32 if m.dtype == np.float16 else np.float64)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{name}: values of type {m.dtype} that are not numbers ({e})") \
                from None
    c = m.tocsr()
    if not c.has_canonical_format:
        c = c.copy() if c is m else c
        c.sum_duplicates()
    values = None
    if isinstance(values_dtype, str) and values_dtype == "nonzero":  # or_and reads 0/1 bytes
        values = np.ascontiguousarray(c.data != 0).view(np.uint8)
    elif values_dtype is not None:
        values = np.ascontiguousarray(c.data, dtype=values_dtype)
    return (int(c.shape[0]), int(c.shape[1]),
            np.ascontiguousarray(c.indptr, dtype=np.int64),
            np.ascontiguousarray(c.indices, dtype=np.int32), values)


def host_result(t, out_dtype):
    rows, cols, indptr, indices, values = t
    if values is None:
        values = np.ones(indices.shape[0], dtype=out_dtype)
    elif values.dtype != out_dtype:
        values = values.view(out_dtype) if values.itemsize == np.dtype(out_dtype).itemsize \
            else values.astype(out_dtype)
    return sp.csr_array((values, indices, indptr), shape=(rows, cols))


def device_csr(m, values_dtype, name):
    """Canonical CSR on the device: (rows, cols, nnz, indptr, indices, values) as CuPy arrays
    (indptr widened to int64 on the device; nothing goes through the host)."""
    import cupy
    c = m.tocsr()
    if not c.has_canonical_format:
        c = c.copy() if c is m else c
        c.sum_duplicates()
    indptr = cupy.ascontiguousarray(c.indptr, dtype=cupy.int64)
    indices = cupy.ascontiguousarray(c.indices, dtype=cupy.int32)
    if isinstance(values_dtype, str) and values_dtype == "nonzero":  # or_and reads 0/1 int32
        values = (c.data != 0).astype(cupy.int32)
    else:
        values = None if values_dtype is None else cupy.ascontiguousarray(c.data, dtype=values_dtype)
    return (int(c.shape[0]), int(c.shape[1]), int(indices.shape[0]), indptr, indices, values)


def device_args(d):
    rows, cols, nnz, indptr, indices, values = d
    t = (rows, cols, nnz, indptr.data.ptr, indices.data.ptr, 0 if values is None else values.data.ptr)
    if TRACE is not None:
        TRACE.append(t)
    return t


def device_result(r, storage_dtype, out_dtype):
    """CuPy arrays over the core's result (no copy; they keep the result alive). storage_dtype:
    the core's value type (None for a pattern); out_dtype: the values' type for the caller."""
    import cupy
    import cupyx.scipy.sparse as csp

    def wrap(ptr, n, dtype):
        dtype = np.dtype(dtype)
        if n == 0:
            return cupy.empty(0, dtype=dtype)
        mem = cupy.cuda.UnownedMemory(ptr, n * dtype.itemsize, r, device_id=r.device)
        return cupy.ndarray((n,), dtype=dtype, memptr=cupy.cuda.MemoryPointer(mem, 0))

    indptr = wrap(r.indptr, r.rows + 1, np.int64)
    indices = wrap(r.indices, r.nnz, np.int32)
    if r.values == 0 or storage_dtype is None:
        values = cupy.ones(r.nnz, dtype=out_dtype)
    else:
        values = wrap(r.values, r.nnz, storage_dtype)
        if values.dtype != out_dtype:
            values = values.astype(out_dtype)
    return csp.csr_matrix((values, indices, indptr), shape=(r.rows, r.cols), copy=False)
