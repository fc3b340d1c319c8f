#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "cusparse_spgemm.hpp"

namespace opsparse::bench {
namespace {

#define BENCH_CUSPARSE(call)                                                             \
  do {                                                                                   \
    const cusparseStatus_t st_ = (call);                                                 \
    if (st_ != CUSPARSE_STATUS_SUCCESS)                                                  \
      throw std::runtime_error(std::string(#call) + ": " + cusparseGetErrorString(st_)); \
  } while (0)
#define BENCH_CUDA(call)                                                            \
  do {                                                                              \
    const cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                        \
      (void)cudaGetLastError();                                                     \
      throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(e_)); \
    }                                                                               \
  } while (0)

template <class T>
struct dev_mat {
  int* rpt = nullptr;
  int* col = nullptr;
  T* val = nullptr;
  ~dev_mat() {
    cudaFree(rpt);
    cudaFree(col);
    cudaFree(val);
  }
};

/// Where cuSPARSE's buffers and C come from (cusparse_spgemm's `pooled`): cudaMalloc and
/// cudaFree, or a stream-ordered pool of their own on the legacy stream, which the handle uses.
class peer_memory {
 public:
  explicit peer_memory(bool pooled) {
    if (!pooled) return;
    int dev = 0;
    BENCH_CUDA(cudaGetDevice(&dev));
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    BENCH_CUDA(cudaMemPoolCreate(&pool_, &props));
    std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
    const cudaError_t e = cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep);
    if (e != cudaSuccess) {
      cudaMemPoolDestroy(pool_);
      BENCH_CUDA(e);
    }
  }
  ~peer_memory() {
    if (!pool_) return;
    cudaDeviceSynchronize();  // every free issued before the pool goes
    cudaMemPoolDestroy(pool_);
  }
  peer_memory(const peer_memory&) = delete;
  peer_memory& operator=(const peer_memory&) = delete;

  void* get(std::size_t bytes) {
    void* p = nullptr;
    if (pool_)
      BENCH_CUDA(cudaMallocFromPoolAsync(&p, bytes ? bytes : 1, pool_, cudaStreamLegacy));
    else
      BENCH_CUDA(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
  }
  /// Gives the pool's memory back to the device (after an algorithm failed, before the next).
  void trim() {
    if (!pool_) return;
    cudaDeviceSynchronize();
    cudaMemPoolTrimTo(pool_, 0);
  }
  void put(void* p) {
    if (!p) return;
    if (pool_)
      cudaFreeAsync(p, cudaStreamLegacy);
    else
      cudaFree(p);
  }

 private:
  cudaMemPool_t pool_ = nullptr;
};

template <class T>
void upload32(const host_csr<T>& h, dev_mat<T>& d) {
  if (h.nnz() > std::numeric_limits<int>::max())
    throw std::runtime_error("cuSPARSE path uses 32-bit indices; nnz passes 2^31");
  std::vector<int> rpt(h.rpt.begin(), h.rpt.end());
  BENCH_CUDA(cudaMalloc(&d.rpt, rpt.size() * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d.col, std::max<std::size_t>(1, h.col.size()) * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d.val, std::max<std::size_t>(1, h.val.size()) * sizeof(T)));
  BENCH_CUDA(cudaMemcpy(d.rpt, rpt.data(), rpt.size() * sizeof(int), cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(d.col, h.col.data(), h.col.size() * sizeof(int), cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(d.val, h.val.data(), h.val.size() * sizeof(T), cudaMemcpyHostToDevice));
}

template <class T>
constexpr cudaDataType data_type() {
  return std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;
}

// One end-to-end product. Returns C on the host when `keep`.
template <class T>
void run_once(cusparseHandle_t h, cusparseSpGEMMAlg_t alg, const host_csr<T>& a,
              const host_csr<T>& b, const dev_mat<T>& da, const dev_mat<T>& db, peer_memory& mem,
              bool keep, host_csr<double>* out) {
  cusparseSpMatDescr_t ma = nullptr, mb = nullptr, mc = nullptr;
  cusparseSpGEMMDescr_t desc = nullptr;
  std::size_t s1 = 0, s2 = 0, s3 = 0;
  void *b1 = nullptr, *b2 = nullptr, *b3 = nullptr;
  int *c_rpt = nullptr, *c_col = nullptr;
  T* c_val = nullptr;
  auto release = [&] {
    for (void* p : {b1, b2, b3, static_cast<void*>(c_rpt), static_cast<void*>(c_col),
                    static_cast<void*>(c_val)})
      mem.put(p);
    if (desc) cusparseSpGEMM_destroyDescr(desc);
    for (cusparseSpMatDescr_t m : {ma, mb, mc})
      if (m) cusparseDestroySpMat(m);
  };
  try {
    BENCH_CUSPARSE(cusparseCreateCsr(&ma, a.rows, a.cols, a.nnz(), da.rpt, da.col, da.val,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, data_type<T>()));
    BENCH_CUSPARSE(cusparseCreateCsr(&mb, b.rows, b.cols, b.nnz(), db.rpt, db.col, db.val,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, data_type<T>()));
    BENCH_CUSPARSE(cusparseCreateCsr(&mc, a.rows, b.cols, 0, nullptr, nullptr, nullptr,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, data_type<T>()));
    BENCH_CUSPARSE(cusparseSpGEMM_createDescr(&desc));
    const T alpha = 1, beta = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cudaDataType ct = data_type<T>();
    BENCH_CUSPARSE(cusparseSpGEMM_workEstimation(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg,
                                                 desc, &s1, nullptr));
    b1 = mem.get(s1);
    BENCH_CUSPARSE(cusparseSpGEMM_workEstimation(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg,
                                                 desc, &s1, b1));
    if (alg != CUSPARSE_SPGEMM_ALG1) {
      const float chunk = 0.2f;
      BENCH_CUSPARSE(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg,
                                                   desc, chunk, &s3, nullptr, nullptr));
      b3 = mem.get(s3);
      BENCH_CUSPARSE(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg,
                                                   desc, chunk, &s3, b3, &s2));
      mem.put(b3);
      b3 = nullptr;
    } else {
      BENCH_CUSPARSE(cusparseSpGEMM_compute(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg, desc,
                                            &s2, nullptr));
    }
    b2 = mem.get(s2);
    BENCH_CUSPARSE(
        cusparseSpGEMM_compute(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg, desc, &s2, b2));
    int64_t rows, cols, nnz;
    BENCH_CUSPARSE(cusparseSpMatGetSize(mc, &rows, &cols, &nnz));
    c_rpt = static_cast<int*>(mem.get((rows + 1) * sizeof(int)));
    c_col = static_cast<int*>(mem.get(std::max<int64_t>(1, nnz) * sizeof(int)));
    c_val = static_cast<T*>(mem.get(std::max<int64_t>(1, nnz) * sizeof(T)));
    BENCH_CUSPARSE(cusparseCsrSetPointers(mc, c_rpt, c_col, c_val));
    BENCH_CUSPARSE(cusparseSpGEMM_copy(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg, desc));
    if (keep) {
      BENCH_CUDA(cudaDeviceSynchronize());
      host_csr<double> c(static_cast<index_t>(rows), static_cast<index_t>(cols));
      std::vector<int> rpt(rows + 1);
      std::vector<T> val(nnz);
      c.col.resize(nnz);
      BENCH_CUDA(cudaMemcpy(rpt.data(), c_rpt, rpt.size() * sizeof(int), cudaMemcpyDeviceToHost));
      BENCH_CUDA(cudaMemcpy(c.col.data(), c_col, nnz * sizeof(int), cudaMemcpyDeviceToHost));
      BENCH_CUDA(cudaMemcpy(val.data(), c_val, nnz * sizeof(T), cudaMemcpyDeviceToHost));
      c.rpt.assign(rpt.begin(), rpt.end());
      c.val.assign(val.begin(), val.end());
      *out = std::move(c);
    }
  } catch (...) {
    release();
    throw;
  }
  release();
}

}  // namespace

template <class T>
cusparse_result cusparse_spgemm(const host_csr<T>& a, const host_csr<T>& b, int runs, bool pooled) {
  cusparse_result r;
  cusparseHandle_t h = nullptr;
  if (cusparseCreate(&h) != CUSPARSE_STATUS_SUCCESS) {
    r.error = "cusparseCreate failed";
    return r;
  }
  try {
    dev_mat<T> da, db;
    upload32(a, da);
    upload32(b, db);
    cudaEvent_t e0, e1;
    BENCH_CUDA(cudaEventCreate(&e0));
    BENCH_CUDA(cudaEventCreate(&e1));
    const std::pair<cusparseSpGEMMAlg_t, const char*> algs[] = {{CUSPARSE_SPGEMM_ALG1, "ALG1"},
                                                                {CUSPARSE_SPGEMM_ALG2, "ALG2"},
                                                                {CUSPARSE_SPGEMM_ALG3, "ALG3"}};
    peer_memory mem(pooled);
    for (auto [alg, name] : algs) {
      try {
        run_once(h, alg, a, b, da, db, mem, true, &r.c);  // warm-up, and the result to check
        for (int i = 0; i < runs; ++i) {
          BENCH_CUDA(cudaEventRecord(e0));
          run_once(h, alg, a, b, da, db, mem, false, nullptr);
          BENCH_CUDA(cudaEventRecord(e1));
          BENCH_CUDA(cudaEventSynchronize(e1));
          float ms = 0;
          BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
          r.ms.push_back(ms);
        }
        r.ok = true;
        r.algorithm = name;
        break;
      } catch (const std::exception& ex) {
        r.error += std::string(name) + ": " + ex.what() + "; ";
        r.ms.clear();
        mem.trim();
      }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  } catch (const std::exception& ex) {
    r.error += ex.what();
  }
  cusparseDestroy(h);
  return r;
}

template cusparse_result cusparse_spgemm<double>(const host_csr<double>&, const host_csr<double>&,
                                                 int, bool);
template cusparse_result cusparse_spgemm<float>(const host_csr<float>&, const host_csr<float>&, int,
                                                bool);

}  // namespace opsparse::bench
