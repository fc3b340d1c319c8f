// apps/mcl's input transformation (mcl's mclAlgorithmTransform + mclxMakeStochastic): the start
// matrix from a graph's adjacency (see start_matrix in mcl.hpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <omp.h>

#include "mcl.hpp"
#include "opsparse/error.hpp"
#include "mcl_detail.hpp"
#include "opsparse/io.hpp"

namespace opsparse::mcl {
namespace {

using detail::mcl_float;

/// A row of the start matrix being made: (column, value), sorted by column.
using start_row = std::vector<std::pair<index_t, double>>;

/// mcl's rules for one column of the start matrix (a row here) of the graph `s`.
class start_rows {
 public:
  /// `s`: rows first .. first + s.rows of the graph (all of it from row 0).
  start_rows(const host_csr<double>& s, const params& p, index_t first = 0)
      : s_(s),
        p_(p),
        first_(first),
        // -c multiplies the loop's weight (applied in make(), with the other weights' scaling);
        // a loop it makes zero is no entry.
        loop_scale_(p.loop_scale >= 0 ? mcl_float(p.loop_scale) : 1.0) {}

  index_t rows() const { return s_.rows; }
  index_t cols() const { return s_.cols; }
  std::size_t graph_entries() const { return s_.col.size(); }

  /// Row i's entries: visit(j, w) for every non-zero one in order, the loop included; returns
  /// the weight of the loop that the row gets (0: none).
  template <class Visit>
  double scan(index_t i, Visit&& visit) const {
    const index_t self = i + first_;
    double loop = 0;
    bool has_loop = false, edges = false;
    // The heaviest edge as mcl's mclxLoopCBmax finds it: the largest value from -FLT_MAX, so
    // that a node whose edges are all negative gets the least negative of them (the input's
    // loop does not count, checked with mcl 22-282 on ABC and native input).
    double heaviest = -static_cast<double>(std::numeric_limits<float>::max());
    for (offset_t k = s_.rpt[i]; k < s_.rpt[i + 1]; ++k) {
      const index_t j = s_.col[k];
      const double w = s_.val[k];
      if (w == 0) continue;  // a zero similarity is no edge (mcl keeps the nodes, not the arc)
      visit(j, w);
      if (j == self) {
        loop = w;
        has_loop = true;
        continue;
      }
      if (w > heaviest) heaviest = w;  // as mcl: NaN is never the heaviest, -inf neither
      edges = true;
    }
    if (p_.discard_loops) {
      // mcl 22-282's default: input loops are dropped, then every node gets a loop as heavy as its
      // heaviest edge (weight 1 for a node without edges). mcl's mclxLoopCBmax: 1 for a column
      // without entries, or whose largest value is 0 as a float (its edges are 1e-50: entries of 0
      // there).
      loop = edges && detail::to_float(heaviest) != 0 ? heaviest : 1.0;
      has_loop = true;
    }
    return has_loop && loop != 0 && loop_scale_ != 0 ? loop : 0.0;
  }

  /// The length of row i by make()'s rules (scan()), without making it (0 for a row that
  /// -pi empties: normalise() says so).
  offset_t length(index_t i) const {
    offset_t count = 0;
    bool small = false;
    const double loop = scan(i, [&](index_t j, double w) {
      count += j != i + first_;
      small = small || !(w >= 1.0);
    });
    // -pi empties a column whose powers sum to at most 0 in floats: one with a negative weight, or
    // whose weights' powers all underflow (1e-30 with -pi 2); such a row is made to know.
    if (small && p_.pre_inflation >= 0) {
      start_row row;
      make(i, row);
      return static_cast<offset_t>(row.size());
    }
    return count + (loop != 0 ? 1 : 0);
  }

  /// Row i of the start matrix into `row`; returns the sum its weights were divided by (the
  /// value mcl keeps with the column), 0 when none.
  double make(index_t i, start_row& row) const {
    row.clear();
    const index_t self = i + first_;
    const double loop = scan(i, [&](index_t j, double w) {
      if (j != self) row.emplace_back(j, w);
    });
    if (loop != 0) {
      const auto at = std::lower_bound(row.begin(), row.end(), self,
                                       [](const auto& e, index_t c) { return e.first < c; });
      row.insert(at, {self, loop});
    }
    return normalise(self, row);
  }

 private:
  /// An entry's weight in row i before the division by the sum: -c on the loop, -pi on every
  /// weight.
  double weight(const std::pair<index_t, double>& e, index_t i) const {
    double w = e.second;
    if (e.first == i) w *= loop_scale_;                                // -c
    return p_.pre_inflation >= 0 ? std::pow(w, p_.pre_inflation) : w;  // -pi
  }

  /// The column's probabilities: the weights divided by their sum, which is returned.
  double normalise(index_t i, start_row& row) const {
    // Weights beyond float's range as doubles (the library's callers; the programs read them as mcl
    // does, into floats) are normalised in double; all others in mcl's float cells.
    const bool huge = std::any_of(row.begin(), row.end(), [](const auto& e) {
      return std::isfinite(e.second) &&
             std::fabs(e.second) > static_cast<double>(std::numeric_limits<float>::max());
    });
    if (!huge) return normalise_cells(i, row);
    double sum = 0;
    for (const auto& e : row) sum += weight(e, i);
    if (std::isfinite(sum)) {
      if (sum > 0)
        for (auto& e : row) e.second = weight(e, i) / sum;
      return sum;
    }
    normalise_overflowing(i, row);
    return 0;
  }

  /// normalise() in mcl's arithmetic (float cells, double sums: weights that cancel in decimals
  /// need not cancel in floats; 1e-30 to the power 2 is 0 there), with its rules for such sums
  /// (mclvNormalize, mclvInflate): a negative sum divides too (mcl warns), a zero sum leaves the
  /// column as it is, -pi empties a column whose powers sum to at most 0 (negative weights, or
  /// powers that underflow), a NaN sum (a negative weight's fractional power) makes every value
  /// NaN, and an infinite sum (1e300 in a native matrix, -tf 'pow(1000)', -pi or -c past float's
  /// range) makes the infinite values NaN and the others 0, as mcl's division does.
  double normalise_cells(index_t i, start_row& row) const {
    const auto cell = [](double x) { return static_cast<double>(detail::to_float(x)); };
    for (auto& e : row) {
      e.second = cell(e.second);
      if (e.first == i) e.second = cell(e.second * loop_scale_);  // -c
    }
    if (p_.pre_inflation >= 0) {  // -pi: mclxInflate, then mclxMakeStochastic below
      double powsum = 0;
      for (auto& e : row) powsum += e.second = cell(std::pow(e.second, p_.pre_inflation));
      if (powsum <= 0) {
        row.clear();
        return 0;
      }
      for (auto& e : row) e.second = cell(e.second / powsum);
    }
    double sum = 0;
    for (const auto& e : row) sum += e.second;
    if (sum != 0)
      for (auto& e : row) e.second /= sum;
    return sum;
  }

  /// normalise() for weights near the top of double's range (1e308), which overflow the sum:
  /// every node landed in one cluster. Divided by the largest weight (with -c applied) first,
  /// every weight is at most 1, and so is its power: the probabilities are the same in exact
  /// arithmetic.
  void normalise_overflowing(index_t i, start_row& row) const {
    double largest = 0;
    for (const auto& e : row) largest = std::max(largest, e.second);
    const double first = 1.0 / largest;  // -c can still make the loop exceed 1
    double top = 0;
    for (const auto& e : row)
      top = std::max(top, e.second * first * (e.first == i ? loop_scale_ : 1.0));
    for (auto& e : row) {
      const double w = e.second * first * (e.first == i ? loop_scale_ : 1.0) / top;
      e.second = p_.pre_inflation >= 0 ? std::pow(w, p_.pre_inflation) : w;
    }
    double sum = 0;
    for (const auto& e : row) sum += e.second;
    if (sum > 0)
      for (auto& e : row) e.second /= sum;
  }

  const host_csr<double>& s_;
  index_t first_;  ///< the graph's row of s_'s row 0
  const params& p_;
  const double loop_scale_;
};

/// The start matrix in one pass, appending.
host_csr<double> start_matrix_serial(const start_rows& rows) {
  const index_t n = rows.rows();
  host_csr<double> out(n, rows.cols());
  out.col.reserve(rows.graph_entries() + static_cast<std::size_t>(n));
  out.val.reserve(rows.graph_entries() + static_cast<std::size_t>(n));
  start_row row;
  for (index_t i = 0; i < n; ++i) {
    rows.make(i, row);
    for (const auto& e : row) {
      out.col.push_back(e.first);
      out.val.push_back(e.second);
    }
    out.rpt[i + 1] = static_cast<offset_t>(out.col.size());
  }
  return out;
}

/// f(i, row) for every row i made, on `threads` threads. The exception of the lowest row that
/// threw is rethrown: the one a serial pass would throw.
template <class F>
void for_start_rows(const start_rows& rows, int threads, F&& f) {
  const index_t n = rows.rows();
  std::exception_ptr error;
  index_t error_row = n;
#pragma omp parallel num_threads(threads)
  {
    start_row row;
#pragma omp for schedule(dynamic, 1024)
    for (index_t i = 0; i < n; ++i) {
      try {
        rows.make(i, row);
        f(i, row);
      } catch (...) {
#pragma omp critical(opsparse_mcl_start_matrix)
        if (i < error_row) {
          error_row = i;
          error = std::current_exception();
        }
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

/// The start matrix in parallel: every row's length, then its entries in place (rows are
/// independent). A row's length is counted without making it (making every row twice took half
/// of the time).
host_csr<double> start_matrix_parallel(const start_rows& rows, int threads) {
  const index_t n = rows.rows();
  host_csr<double> out(n, rows.cols());
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads)
  for (index_t i = 0; i < n; ++i) out.rpt[static_cast<std::size_t>(i) + 1] = rows.length(i);
  for (index_t i = 0; i < n; ++i) out.rpt[i + 1] += out.rpt[i];
  out.col.resize(static_cast<std::size_t>(out.rpt.back()));
  out.val.resize(static_cast<std::size_t>(out.rpt.back()));
  for_start_rows(rows, threads, [&](index_t i, const start_row& row) {
    std::size_t at = static_cast<std::size_t>(out.rpt[i]);
    OPSPARSE_EXPECTS(at + row.size() == static_cast<std::size_t>(out.rpt[i + 1]),
                     "start_matrix: row " + std::to_string(i) + " counted " +
                         std::to_string(out.rpt[i + 1] - out.rpt[i]) + " entries, made " +
                         std::to_string(row.size()));
    for (const auto& e : row) {
      out.col[at] = e.first;
      out.val[at++] = e.second;
    }
  });
  return out;
}

}  // namespace

host_csr<double> start_matrix(const host_csr<double>& adjacency, const params& p) {
  OPSPARSE_EXPECTS(adjacency.rows == adjacency.cols, "the graph's adjacency must be square, not " +
                                                         std::to_string(adjacency.rows) + "x" +
                                                         std::to_string(adjacency.cols));
  // mcl mirrors every arc and merges duplicates by their maximum (--abc streaming); a native
  // matrix is taken as it is (p.mirror off), without a copy.
  host_csr<double> mirrored;
  if (p.mirror) mirrored = io::symmetrize_max(adjacency);
  const host_csr<double>& s = p.mirror ? mirrored : adjacency;
  return start_matrix_rows(s, 0, p);
}

host_csr<double> start_matrix_rows(const host_csr<double>& rows, index_t first, const params& p) {
  if (p.mirror && (first != 0 || rows.rows != rows.cols))
    throw std::invalid_argument("start_matrix_rows: mirroring needs the whole graph");
  OPSPARSE_EXPECTS(first >= 0 && static_cast<long long>(first) + rows.rows <= rows.cols,
                   "start_matrix_rows: rows beyond the graph's columns");
  const start_rows made(rows, p, first);
  const int threads = p.threads > 0 ? p.threads : omp_get_max_threads();
  if (threads <= 1 || rows.col.size() < (std::size_t(1) << 16)) return start_matrix_serial(made);
  return start_matrix_parallel(made, threads);
}

std::vector<double> start_column_sums(const host_csr<double>& adjacency, const params& p) {
  OPSPARSE_EXPECTS(adjacency.rows == adjacency.cols, "the graph's adjacency must be square");
  host_csr<double> mirrored;
  if (p.mirror) mirrored = io::symmetrize_max(adjacency);
  const start_rows rows(p.mirror ? mirrored : adjacency, p);
  std::vector<double> sums(static_cast<std::size_t>(rows.rows()));
  start_row row;
  for (index_t i = 0; i < rows.rows(); ++i) sums[i] = rows.make(i, row);
  return sums;
}

}  // namespace opsparse::mcl
