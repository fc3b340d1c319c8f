// Squares a 3x3 matrix with the CPU engine and checks one entry: proves headers, the library
// and its dependencies come through find_package(opsparse).
#include <opsparse/cpu/spgemm.hpp>
#include <opsparse/policy.hpp>

#include <cstdio>

int main() {
  opsparse::host_csr<double> a(3, 3);
  a.rpt = {0, 2, 3, 4};
  a.col = {0, 1, 2, 0};
  a.val = {1, 2, 3, 4};
  const auto c = opsparse::cpu::spgemm<opsparse::plus_times<double>>(a, a);
  // row 0 of A*A: 1*[1 2 0] + 2*[0 0 3] = [1 2 6]
  const bool ok = c.nnz() == 6 && c.col[2] == 2 && c.val[2] == 6.0 &&
                  opsparse::symbolic_config(opsparse::h100_like()).bins.size() == 9;
  std::printf("consumer: nnz(A*A) = %lld, %s\n", static_cast<long long>(c.nnz()), ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
