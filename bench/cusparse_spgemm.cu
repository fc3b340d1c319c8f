#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "cusparse_spgemm.hpp"

namespace opsparse::bench {
namespace {

#define BENCH_CUSPARSE(call)                                                              \
  do {                                                                                    \
    const cusparseStatus_t st_ = (call);                                                  \
    if (st_ != CUSPARSE_STATUS_SUCCESS)                                                   \
      throw std::runtime_error(std::string(#call) + ": " + cusparseGetErrorString(st_));  \
  } while (0)
#define BENCH_CUDA(call)                                                                  \
  do {                                                                                    \
    const cudaError_t e_ = (call);                                                        \
    if (e_ != cudaSuccess) {                                                              \
      (void)cudaGetLastError();                                                           \
      throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(e_));       \
    }                                                                                     \
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
              const host_csr<T>& b, const dev_mat<T>& da, const dev_mat<T>& db, bool keep,
              host_csr<double>* out) {
  cusparseSpMatDescr_t ma, mb, mc;
  BENCH_CUSPARSE(cusparseCreateCsr(&ma, a.rows, a.cols, a.nnz(), da.rpt, da.col, da.val,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, data_type<T>()));
  BENCH_CUSPARSE(cusparseCreateCsr(&mb, b.rows, b.cols, b.nnz(), db.rpt, db.col, db.val,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, data_type<T>()));
  BENCH_CUSPARSE(cusparseCreateCsr(&mc, a.rows, b.cols, 0, nullptr, nullptr, nullptr,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, data_type<T>()));
  cusparseSpGEMMDescr_t desc;
  BENCH_CUSPARSE(cusparseSpGEMM_createDescr(&desc));
  const T alpha = 1, beta = 0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const cudaDataType ct = data_type<T>();
  std::size_t s1 = 0, s2 = 0, s3 = 0;
  void *b1 = nullptr, *b2 = nullptr, *b3 = nullptr;
  dev_mat<T> dc;
  try {
    BENCH_CUSPARSE(cusparseSpGEMM_workEstimation(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg,
                                                 desc, &s1, nullptr));
    BENCH_CUDA(cudaMalloc(&b1, s1 ? s1 : 1));
    BENCH_CUSPARSE(cusparseSpGEMM_workEstimation(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg,
                                                 desc, &s1, b1));
    if (alg != CUSPARSE_SPGEMM_ALG1) {
      const float chunk = 0.2f;
      BENCH_CUSPARSE(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg,
                                                   desc, chunk, &s3, nullptr, nullptr));
      BENCH_CUDA(cudaMalloc(&b3, s3 ? s3 : 1));
      BENCH_CUSPARSE(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg,
                                                   desc, chunk, &s3, b3, &s2));
      cudaFree(b3);
      b3 = nullptr;
    } else {
      BENCH_CUSPARSE(cusparseSpGEMM_compute(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg, desc,
                                            &s2, nullptr));
    }
    BENCH_CUDA(cudaMalloc(&b2, s2 ? s2 : 1));
    BENCH_CUSPARSE(cusparseSpGEMM_compute(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg, desc,
                                          &s2, b2));
    int64_t rows, cols, nnz;
    BENCH_CUSPARSE(cusparseSpMatGetSize(mc, &rows, &cols, &nnz));
    BENCH_CUDA(cudaMalloc(&dc.rpt, (rows + 1) * sizeof(int)));
    BENCH_CUDA(cudaMalloc(&dc.col, std::max<int64_t>(1, nnz) * sizeof(int)));
    BENCH_CUDA(cudaMalloc(&dc.val, std::max<int64_t>(1, nnz) * sizeof(T)));
    BENCH_CUSPARSE(cusparseCsrSetPointers(mc, dc.rpt, dc.col, dc.val));
    BENCH_CUSPARSE(cusparseSpGEMM_copy(h, op, op, &alpha, ma, mb, &beta, mc, ct, alg, desc));
    if (keep) {
      BENCH_CUDA(cudaDeviceSynchronize());
      host_csr<double> c(static_cast<index_t>(rows), static_cast<index_t>(cols));
      std::vector<int> rpt(rows + 1);
      std::vector<T> val(nnz);
      c.col.resize(nnz);
      BENCH_CUDA(cudaMemcpy(rpt.data(), dc.rpt, rpt.size() * sizeof(int), cudaMemcpyDeviceToHost));
      BENCH_CUDA(cudaMemcpy(c.col.data(), dc.col, nnz * sizeof(int), cudaMemcpyDeviceToHost));
      BENCH_CUDA(cudaMemcpy(val.data(), dc.val, nnz * sizeof(T), cudaMemcpyDeviceToHost));
      c.rpt.assign(rpt.begin(), rpt.end());
      c.val.assign(val.begin(), val.end());
      *out = std::move(c);
    }
  } catch (...) {
    cudaFree(b1);
    cudaFree(b2);
    cudaFree(b3);
    cusparseSpGEMM_destroyDescr(desc);
    cusparseDestroySpMat(ma);
    cusparseDestroySpMat(mb);
    cusparseDestroySpMat(mc);
    throw;
  }
  cudaFree(b1);
  cudaFree(b2);
  cusparseSpGEMM_destroyDescr(desc);
  cusparseDestroySpMat(ma);
  cusparseDestroySpMat(mb);
  cusparseDestroySpMat(mc);
}

}  // namespace

template <class T>
cusparse_result cusparse_spgemm(const host_csr<T>& a, const host_csr<T>& b, int runs) {
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
    const std::pair<cusparseSpGEMMAlg_t, const char*> algs[] = {
        {CUSPARSE_SPGEMM_ALG1, "ALG1"}, {CUSPARSE_SPGEMM_ALG2, "ALG2"}, {CUSPARSE_SPGEMM_ALG3, "ALG3"}};
    for (auto [alg, name] : algs) {
      try {
        run_once(h, alg, a, b, da, db, true, &r.c);  // warm-up, and the result to check
        for (int i = 0; i < runs; ++i) {
          BENCH_CUDA(cudaEventRecord(e0));
          run_once(h, alg, a, b, da, db, false, nullptr);
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

template cusparse_result cusparse_spgemm<double>(const host_csr<double>&, const host_csr<double>&, int);
template cusparse_result cusparse_spgemm<float>(const host_csr<float>&, const host_csr<float>&, int);

}  // namespace opsparse::bench
