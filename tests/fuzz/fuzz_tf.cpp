// libFuzzer target for mcl's transform language (apps/mcl's value_transform
// and matrix_transform: -tf with its graph steps, -abc-tf). Nothing but std::invalid_argument, with
// a message, may escape parse(); a transform parsed applies to a few values (0, tiny, ordinary,
// huge, negative, infinite, NaN) without a crash, and each result is a value as opsparse-mcl holds
// mcl's float cells: 0 (removed), a float's value (infinity and NaN included), or a nonzero double
// that is 0 as a float. Applying it again gives the same result, and so does the transform parsed
// again. The spec read with its graph steps ('#knn(2)') applies to a small graph and leaves a
// well-formed matrix, the same twice.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "fuzz_support.hpp"
#include "core/mcl_compat.hpp"
#include "core/mcl_graph_tf.hpp"

using opsparse::mcl::value_transform;
using opsparse_fuzz::fail;

namespace {

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

/// A value as value_transform gives it (see float_entry in mcl_compat.hpp).
bool is_entry(double r) {
  if (r == 0 || std::isnan(r) || std::isinf(r)) return true;
  if (std::fabs(r) > std::numeric_limits<float>::max()) return false;
  const float f = static_cast<float>(r);
  return f == 0 || static_cast<double>(f) == r;
}

/// A small graph with a loop, ties, a negative weight, a float zero and infinity.
opsparse::host_csr<double> small_graph() {
  opsparse::host_csr<double> a(5, 5);
  a.rpt = {0, 3, 5, 8, 10, 11};
  a.col = {0, 1, 2, 0, 3, 0, 3, 4, 1, 2, 2};
  a.val = {1.0, 2.0,  2.0, 0.5, -1.0, 2.0, 1e-50, std::numeric_limits<double>::infinity(),
           3.0, 0.25, 4.0};
  return a;
}

/// The spec read with its graph steps (matrix_transform): only std::invalid_argument may escape;
/// applied to small_graph() it gives a square matrix with sorted rows of indices in range and no
/// value that is not an entry, the same twice.
void check_graph_steps(const std::string& spec) {
  opsparse::mcl::matrix_transform m;
  try {
    m = opsparse::mcl::matrix_transform::parse(spec);
  } catch (const std::invalid_argument& e) {
    if (std::strlen(e.what()) == 0) fail("matrix_transform threw without a message");
    return;
  }
  opsparse::host_csr<double> a = small_graph(), b = small_graph();
  m.apply(a);
  m.apply(b);
  if (a.rows != 5 || a.cols != 5 || a.rpt.size() != 6 || a.col.size() != a.val.size())
    fail("'" + spec + "' changes the matrix's shape");
  for (opsparse::index_t i = 0; i < a.rows; ++i)
    for (opsparse::offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k) {
      if (a.col[k] < 0 || a.col[k] >= a.cols || (k > a.rpt[i] && a.col[k] <= a.col[k - 1]))
        fail("'" + spec + "' leaves a row unsorted or an index out of range");
      if (a.val[k] == 0 || !is_entry(a.val[k])) fail("'" + spec + "' leaves a value not an entry");
    }
  if (a.rpt != b.rpt || a.col != b.col) fail("'" + spec + "' applies differently twice");
  for (std::size_t k = 0; k < a.val.size(); ++k)
    if (!same(a.val[k], b.val[k])) fail("'" + spec + "' gives other values twice");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  value_transform t;
  try {
    t = value_transform::parse(spec);
  } catch (const std::invalid_argument& e) {
    if (std::strlen(e.what()) == 0) fail("parse threw invalid_argument without a message");
    return 0;
  }
  // Anything else thrown escapes: libFuzzer reports it as a crash.
  const value_transform again = value_transform::parse(spec);
  const double inf = std::numeric_limits<double>::infinity();
  const double values[] = {0.0,    1e-300, 1e-50, 1e-40, 0.25,   0.5, 1.0,  2.0,         1e30,
                           3.4e38, 1e300,  -1.0,  -0.5,  -1e300, inf, -inf, std::nan("")};
  for (const double v : values) {
    const double r = t(v);
    if (!is_entry(r))
      fail("'" + spec + "' gives " + std::to_string(r) + " for " + std::to_string(v));
    if (!same(r, again(v))) fail("'" + spec + "' parsed twice transforms differently");
    if (!same(r, t(v)))
      fail("'" + spec + "' transforms " + std::to_string(v) + " differently twice");
  }
  value_transform twice = t;
  twice.append(t);
  for (const double v : values) (void)twice(v);
  check_graph_steps(spec);
  return 0;
}
