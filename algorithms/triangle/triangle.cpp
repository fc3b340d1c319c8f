// The triangle-counting algorithm, written once over triangle::backend (see triangle.hpp for the
// mathematics), and the host-side graph preparation it starts from.
#include "triangle/triangle.hpp"

#include "opsparse/cpu/graph.hpp"
#include "opsparse/cpu/graph_ops.hpp"
#include "opsparse/error.hpp"

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace opsparse::triangle {

namespace {

struct method_name {
  method m;
  const char* name;
};
constexpr method_name method_names[] = {
    {method::ul, "ul"},
    {method::sandia_ll, "sandia-ll"},
    {method::sandia_uu, "sandia-uu"},
    {method::sandia_lut, "sandia-lut"},
    {method::sandia_ult, "sandia-ult"},
    {method::cohen, "cohen"},
    {method::burkhardt, "burkhardt"},
};

/// One method as products: the counting product C<M> = X·Y, what its rows and columns credit
/// per vertex, and the second product that supplies the role C does not name.
struct method_spec {
  operand x, y, m;
  std::int64_t divisor;         ///< times each triangle is counted in sum(C)
  bool rows, cols;              ///< credit row i / column j of every entry C(i,j)
  bool has_extra;               ///< per-vertex counts need a second product
  operand ex, ey, em;           ///< its operands; its row sums credit the missing role
  std::int64_t vertex_divisor;  ///< times each triangle is credited to a vertex by rows/cols
};

method_spec spec_of(method m) {
  switch (m) {
    case method::ul:  // rows = middle, cols = smallest; the largest from sandia-ll's C
      return {operand::u, operand::l, operand::l, 1,          true, true,
              true,       operand::l, operand::l, operand::l, 1};
    case method::sandia_ll:
    case method::sandia_lut:  // L·Uᵀ = L·L for symmetric A (triangle.hpp)
      return {operand::l, operand::l, operand::l, 1,          true, true,
              true,       operand::l, operand::u, operand::u, 1};
    case method::sandia_uu:
    case method::sandia_ult:  // U·Lᵀ = U·U
      return {operand::u, operand::u, operand::u, 1,          true, true,
              true,       operand::u, operand::l, operand::l, 1};
    case method::cohen:
      return {operand::l, operand::u, operand::a, 2,          true, false,
              true,       operand::u, operand::u, operand::u, 1};
    case method::burkhardt:
      return {operand::a, operand::a, operand::a, 6,          true, false,
              false,      operand::a, operand::a, operand::a, 2};
  }
  throw std::logic_error("unknown triangle-counting method");
}

const char* operand_name(operand o) { return o == operand::a ? "A" : o == operand::l ? "L" : "U"; }

class stopwatch {
 public:
  double lap_ms() {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

std::string describe(operand x, operand y, operand m, const product_info& info) {
  const std::string c =
      std::string("C<") + operand_name(m) + "> = " + operand_name(x) + "·" + operand_name(y);
  return (info.fused ? "sum(" + c + "), C not formed"
                     : c + ", nnz(C) " + std::to_string(info.nnz)) +
         (info.products > 0 ? ", products " + std::to_string(info.products) : std::string());
}

/// parts + 1 row boundaries splitting rows [0, n) into ranges of about equal total length over
/// the matrices `ms` (all with n rows); a range may be empty.
std::vector<index_t> balanced_cuts(std::initializer_list<const host_csr<pattern>*> ms, index_t n,
                                   int parts) {
  offset_t total = 0;
  for (const auto* m : ms) total += m->nnz();
  std::vector<index_t> cut(static_cast<std::size_t>(parts) + 1, n);
  cut[0] = 0;
  offset_t seen = 0;
  int p = 1;
  for (index_t i = 0; i < n && p < parts; ++i) {
    for (const auto* m : ms) seen += m->rpt[i + 1] - m->rpt[i];
    while (p < parts && seen * parts >= total * p) cut[p++] = i + 1;
  }
  return cut;
}

/// count_triangles with options::parts > 1 (triangle.hpp): relabelling and L/U on the host, then
/// the counting product tile by tile, inner ranges outermost so that each Y(K,:) is cut once
/// (and each M(I,:) once, before).
result count_in_parts(backend& be, const host_csr<pattern>& a, const options& opt) {
  OPSPARSE_EXPECTS(!opt.per_vertex,
                   "counting in parts gives the total only: the triangles "
                   "through each vertex need the whole product (no --parts)");
  OPSPARSE_EXPECTS(!opt.materialize,
                   "counting in parts sums each tile as it goes: C is never "
                   "formed whole (no --materialize with --parts)");
  const method_spec s = spec_of(opt.how);
  const int parts = opt.parts;
  const cpu::scoped_threads team(opt.host_threads);
  result r;
  stopwatch clock;
  r.sorted = opt.sort == presort::automatic ? automatic_presort(a, opt.how) : opt.sort;
  host_csr<pattern> sorted_a;
  const host_csr<pattern>* ap = &a;
  if (r.sorted == presort::ascending || r.sorted == presort::descending) {
    const std::vector<index_t> order = cpu::degree_order(a, r.sorted == presort::ascending);
    const std::vector<index_t> new_of_old = cpu::invert_permutation(order);
    sorted_a = cpu::permute(a, order, &new_of_old);
    ap = &sorted_a;
    r.stages.push_back({"presort", clock.lap_ms(), std::string(to_string(r.sorted)) + " (host)"});
  }
  host_csr<pattern> l, u;
  auto uses = [&](operand o) { return s.x == o || s.y == o || s.m == o; };
  if (uses(operand::l)) {
    l = cpu::select(*ap, lower_triangle{-1});
    r.stages.push_back({"extract L", clock.lap_ms(), "host"});
  }
  if (uses(operand::u)) {
    u = cpu::select(*ap, upper_triangle{1});
    r.stages.push_back({"extract U", clock.lap_ms(), "host"});
  }
  if (!uses(operand::a)) sorted_a = host_csr<pattern>();
  auto get = [&](operand o) -> const host_csr<pattern>& {
    return o == operand::a ? *ap : o == operand::l ? l : u;
  };
  const host_csr<pattern>& x = get(s.x);
  const host_csr<pattern>& y = get(s.y);
  const host_csr<pattern>& m = get(s.m);
  const index_t n = a.rows;
  const std::vector<index_t> rows = balanced_cuts({&x, &m}, n, parts);
  const std::vector<index_t> inner = balanced_cuts({&y}, n, parts);
  std::int64_t sum = 0;
  product_info all;
  all.fused = true;  // C is never formed whole (tiles over K add to the same entries)
  int tiles = 0;
  std::vector<host_csr<pattern>> mask_rows;  // M(I,:) for each range of rows, cut once
  for (int p = 0; p < parts; ++p)
    mask_rows.push_back(cpu::submatrix(m, rows[p], rows[p + 1], 0, n));
  for (int q = 0; q < parts; ++q) {
    const host_csr<pattern> yq = cpu::submatrix(y, inner[q], inner[q + 1], 0, n);
    if (yq.nnz() == 0) continue;
    for (int p = 0; p < parts; ++p) {
      if (mask_rows[p].nnz() == 0) continue;
      const host_csr<pattern> xpq = cpu::submatrix(x, rows[p], rows[p + 1], inner[q], inner[q + 1]);
      if (xpq.nnz() == 0) continue;
      sum += be.count_tile(xpq, yq, mask_rows[p]);
      all.products += be.last_product().products;
      ++tiles;
    }
  }
  r.stages.push_back({"product", clock.lap_ms(),
                      describe(s.x, s.y, s.m, all) + ", in " + std::to_string(parts) + " x " +
                          std::to_string(parts) + " parts (" + std::to_string(tiles) +
                          " tiles with work)"});
  if (sum % s.divisor != 0)
    throw std::logic_error("sum(C) = " + std::to_string(sum) + " is not a multiple of " +
                           std::to_string(s.divisor) + " for " + to_string(opt.how));
  r.triangles = sum / s.divisor;
  return r;
}

}  // namespace

method parse_method(const std::string& s) {
  for (const auto& mn : method_names)
    if (s == mn.name) return mn.m;
  throw std::invalid_argument(
      "--method must be one of ul, sandia-ll, sandia-uu, sandia-lut, "
      "sandia-ult, cohen, burkhardt; not '" +
      s + "'");
}

const char* to_string(method m) {
  for (const auto& mn : method_names)
    if (m == mn.m) return mn.name;
  return "?";
}

presort parse_presort(const std::string& s) {
  if (s == "auto") return presort::automatic;
  if (s == "none") return presort::none;
  if (s == "ascending") return presort::ascending;
  if (s == "descending") return presort::descending;
  throw std::invalid_argument("--presort must be auto, none, ascending or descending; not '" + s +
                              "'");
}

const char* to_string(presort p) {
  switch (p) {
    case presort::automatic: return "auto";
    case presort::none: return "none";
    case presort::ascending: return "ascending";
    case presort::descending: return "descending";
  }
  return "?";
}

host_csr<pattern> simple_undirected(const host_csr<double>& adj) {
  return cpu::undirected_simple(adj);
}

bool degrees_skewed(const host_csr<pattern>& a) {
  const index_t n = a.rows;
  if (n <= 1000) return false;
  const double mean = static_cast<double>(a.nnz()) / n;
  if (mean < 10) return false;
  std::vector<offset_t> degree(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) degree[i] = a.rpt[i + 1] - a.rpt[i];
  // LAGr_SampleDegree's median is the upper middle of the sorted sample; here the sample is all
  // of them, so the rule is deterministic.
  std::nth_element(degree.begin(), degree.begin() + n / 2, degree.end());
  const double median = static_cast<double>(degree[n / 2]);
  return mean > 4 * median;
}

presort automatic_presort(const host_csr<pattern>& a, method how) {
  const bool lower = how == method::sandia_ll || how == method::sandia_lut || how == method::ul;
  const bool upper = how == method::sandia_uu || how == method::sandia_ult;
  if (!lower && !upper) return presort::none;  // LAGraph presorts only the Sandia methods
  if (!degrees_skewed(a)) return presort::none;
  // Higher-degree neighbours in the probed rows (header comment): L ← descending, U ← ascending.
  return lower ? presort::descending : presort::ascending;
}

void warm_up(backend& be, const options& opt) {
  host_csr<pattern> a(4, 4);  // K4 less the edge {0, 3}: two triangles
  const std::vector<std::vector<index_t>> rows = {{1, 2}, {0, 2, 3}, {0, 1, 3}, {1, 2}};
  for (index_t v = 0; v < 4; ++v) {
    a.col.insert(a.col.end(), rows[v].begin(), rows[v].end());
    a.rpt[v + 1] = static_cast<offset_t>(a.col.size());
  }
  for (presort p : {presort::descending, presort::ascending, presort::none}) {
    options o = opt;
    o.sort = p;
    o.parts = 1;
    (void)count_triangles(be, a, o);
  }
}

result count_triangles(backend& be, const host_csr<pattern>& a, const options& opt) {
  OPSPARSE_EXPECTS(a.rows == a.cols, "triangle counting needs a square matrix");
  OPSPARSE_EXPECTS(opt.parts >= 1, "the number of parts must be at least 1");
  if (opt.parts > 1) return count_in_parts(be, a, opt);
  const method_spec s = spec_of(opt.how);
  result r;
  stopwatch clock;

  be.load(a);
  r.stages.push_back({"load", clock.lap_ms(), be.name()});

  r.sorted = opt.sort == presort::automatic ? automatic_presort(a, opt.how) : opt.sort;
  if (r.sorted == presort::ascending || r.sorted == presort::descending) {
    be.sort_by_degree(r.sorted == presort::ascending);
    r.stages.push_back({"presort", clock.lap_ms(), to_string(r.sorted)});
  }

  auto uses = [&](operand o) {
    return s.x == o || s.y == o || s.m == o ||
           (opt.per_vertex && s.has_extra && (s.ex == o || s.ey == o || s.em == o));
  };
  for (operand o : {operand::l, operand::u})
    if (uses(o)) {
      be.extract(o);
      r.stages.push_back({std::string("extract ") + operand_name(o), clock.lap_ms(), ""});
    }

  const std::int64_t sum = be.product(s.x, s.y, s.m, opt.per_vertex || opt.materialize);
  r.stages.push_back({"product", clock.lap_ms(), describe(s.x, s.y, s.m, be.last_product())});
  // The divisor is exact by construction; a remainder means an engine bug, not a user error.
  if (sum % s.divisor != 0)
    throw std::logic_error("sum(C) = " + std::to_string(sum) + " is not a multiple of " +
                           std::to_string(s.divisor) + " for " + to_string(opt.how));
  r.triangles = sum / s.divisor;

  if (opt.per_vertex) {
    be.reset_vertex_counts();
    be.add_vertex_counts(s.rows, s.cols);
    r.stages.push_back({"vertex counts", clock.lap_ms(), ""});
    if (s.has_extra) {
      const std::int64_t again = be.product(s.ex, s.ey, s.em);
      r.stages.push_back(
          {"second product", clock.lap_ms(), describe(s.ex, s.ey, s.em, be.last_product())});
      if (again != r.triangles)
        throw std::logic_error("the second product found " + std::to_string(again) +
                               " triangles, the first " + std::to_string(r.triangles));
      be.add_vertex_counts(true, false);
      r.stages.push_back({"vertex counts", clock.lap_ms(), ""});
    }
    r.per_vertex = be.vertex_counts();
    std::int64_t total = 0;
    for (auto& t : r.per_vertex) {
      if (t % s.vertex_divisor != 0) throw std::logic_error("odd Burkhardt vertex count");
      t /= s.vertex_divisor;
      total += t;
    }
    if (total != 3 * r.triangles)
      throw std::logic_error("per-vertex counts sum to " + std::to_string(total) + ", not 3 × " +
                             std::to_string(r.triangles));
    r.stages.push_back({"download", clock.lap_ms(), ""});
  }
  return r;
}

std::vector<double> clustering_coefficients(const host_csr<pattern>& a,
                                            const std::vector<std::int64_t>& per_vertex) {
  OPSPARSE_EXPECTS(per_vertex.size() == static_cast<std::size_t>(a.rows),
                   "one count per vertex expected");
  std::vector<double> c(per_vertex.size(), 0.0);
  for (index_t i = 0; i < a.rows; ++i) {
    const double d = static_cast<double>(a.rpt[i + 1] - a.rpt[i]);
    if (d >= 2) c[i] = static_cast<double>(per_vertex[i]) / (d * (d - 1) / 2);
  }
  return c;
}

}  // namespace opsparse::triangle
