// Statistics of A*A for checking the stand-ins: a plain row-wise Gustavson symbolic pass with a
// dense stamp array per thread. Deliberately independent of the library's CPU engine.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "opsparse_datasets/generators.hpp"

namespace opsparse::datasets {

square_stats compute_product_count(const host_csr<double>& a) {
  if (a.rows != a.cols) throw std::invalid_argument("compute_square_stats: matrix is not square");
  square_stats s;
  s.rows = a.rows;
  s.nnz = a.nnz();
  s.nnz_per_row = a.rows > 0 ? static_cast<double>(s.nnz) / a.rows : 0.0;
  offset_t products = 0, max_row = 0;
#pragma omp parallel for reduction(+ : products) reduction(max : max_row) schedule(static, 4096)
  for (index_t i = 0; i < a.rows; ++i) {
    max_row = std::max(max_row, a.rpt[i + 1] - a.rpt[i]);
    for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k) {
      const index_t j = a.col[k];
      products += a.rpt[j + 1] - a.rpt[j];
    }
  }
  s.products = products;
  s.max_row = max_row;
  return s;
}

square_stats compute_square_stats(const host_csr<double>& a) {
  square_stats s = compute_product_count(a);
  offset_t nnz_c = 0;
#pragma omp parallel reduction(+ : nnz_c)
  {
    // stamp[c] == i + 1 marks column c as already seen in row i of A*A.
    std::vector<index_t> stamp(static_cast<std::size_t>(a.cols), 0);
#pragma omp for schedule(dynamic, 256)
    for (index_t i = 0; i < a.rows; ++i) {
      offset_t row = 0;
      for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k) {
        const index_t j = a.col[k];
        for (offset_t l = a.rpt[j]; l < a.rpt[j + 1]; ++l) {
          const index_t c = a.col[l];
          if (stamp[c] != i + 1) {
            stamp[c] = i + 1;
            ++row;
          }
        }
      }
      nnz_c += row;
    }
  }
  s.nnz_c = nnz_c;
  s.compression = nnz_c > 0 ? static_cast<double>(s.products) / static_cast<double>(nnz_c) : 0.0;
  return s;
}

}  // namespace opsparse::datasets
