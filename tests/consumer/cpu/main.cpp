// Reads a Matrix Market file, squares it with the CPU engine and compares every entry with a
// dense product: proves that the host headers, the host library and its dependencies come
// through find_package(opsparse) without CUDA.
#include <opsparse/cpu/graph.hpp>
#include <opsparse/cpu/spgemm.hpp>
#include <opsparse/csr.hpp>
#include <opsparse/device_info.hpp>
#include <opsparse/error.hpp>
#include <opsparse/io.hpp>
#include <opsparse/mask.hpp>
#include <opsparse/policy.hpp>
#include <opsparse/semiring.hpp>
#include <opsparse/types.hpp>

// The host headers must not pull in the CUDA runtime: a CPU-only consumer has no CUDA headers.
#ifdef CUDART_VERSION
#error "an opsparse host header included the CUDA runtime"
#endif

#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer FILE.mtx\n");
    return 2;
  }
  try {
    const auto a = opsparse::io::read_matrix_market<double>(argv[1]);
    const auto c = opsparse::cpu::spgemm<opsparse::plus_times<double>>(a, a);
    const int n = a.rows;
    std::vector<double> da(static_cast<std::size_t>(n) * n, 0.0), want(da.size(), 0.0);
    for (int i = 0; i < n; ++i)
      for (auto k = a.rpt[i]; k < a.rpt[i + 1]; ++k) da[i * n + a.col[k]] = a.val[k];
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j) want[i * n + j] += da[i * n + k] * da[k * n + j];
    std::vector<double> got(da.size(), 0.0);
    for (int i = 0; i < n; ++i)
      for (auto k = c.rpt[i]; k < c.rpt[i + 1]; ++k) got[i * n + c.col[k]] = c.val[k];
    long long want_nnz = 0;
    for (double w : want) want_nnz += w != 0.0;
    const bool ok = a.rows == a.cols && n > 0 && got == want && c.nnz() == want_nnz &&
                    opsparse::symbolic_config(opsparse::h100_like()).bins.size() == 9;
    std::printf("consumer: %d x %d, nnz(A) = %lld, nnz(A*A) = %lld, %s\n", a.rows, a.cols,
                static_cast<long long>(a.nnz()), static_cast<long long>(c.nnz()),
                ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
