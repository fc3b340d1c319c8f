#pragma once
// The graph/matrix operations on host matrices (OpenMP, header-only like the CPU engine): the
// oracle of their GPU twins in opsparse/graph_ops.cuh, which return exactly what these return.
// The vocabulary (predicates, entry functions, monoids, unary functions, union rules) and the
// LAGraph/GraphBLAS names are in opsparse/graph_ops.hpp.
//
// Every operation is deterministic: its result does not depend on the number of threads (the
// floating-point folds of reduce_cols and reduce run over row blocks fixed by the matrix alone).
// Pattern matrices pass pattern{} as the value to predicates and functions, and pattern results
// carry no values. Only shapes are checked (O(1)); A's invariants are trusted (validate()). Call
// these qualified (cpu::transpose): opsparse::transpose(host_csr) is found by argument-dependent
// lookup too. row_products(A, B) is the CPU engine's (cpu/spgemm.hpp).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "opsparse/cpu/spgemm.hpp"  // row_products
#include "opsparse/csr.hpp"
#include "opsparse/error.hpp"
#include "opsparse/graph_ops.hpp"

namespace opsparse::cpu {

namespace graph_ops_detail {

/// Below this many entries plus rows an operation runs serially: waking a team costs more than
/// the work (and spins on a busy machine). The threshold of cpu/graph.hpp.
constexpr std::size_t parallel_size = std::size_t(1) << 16;

template <class V>
bool worth_parallel(const host_csr<V>& a) {
  return a.col.size() + static_cast<std::size_t>(a.rows) >= parallel_size;
}

inline int max_threads() {
#ifdef _OPENMP
  return std::max(1, omp_get_max_threads());
#else
  return 1;
#endif
}

/// O(1) shape checks: the arrays' sizes agree with rows and nnz. Rows are not scanned: A's
/// invariants (columns in range, rpt not decreasing) are trusted, as validate() checks them, and
/// an O(nnz) check would cost as much as select() itself.
template <class V>
void check_shape(const char* what, const host_csr<V>& a) {
  const std::string name(what);
  OPSPARSE_EXPECTS(a.rows >= 0 && a.cols >= 0, name + " has negative dimensions");
  OPSPARSE_EXPECTS(a.rpt.size() == static_cast<std::size_t>(a.rows) + 1 && a.rpt[0] == 0,
                   name + " row pointers must have rows + 1 entries, the first 0");
  OPSPARSE_EXPECTS(static_cast<std::size_t>(a.rpt.back()) == a.col.size(),
                   name + " has " + std::to_string(a.col.size()) + " column indices, rpt says " +
                       std::to_string(a.rpt.back()));
  if constexpr (has_values_v<V>)
    OPSPARSE_EXPECTS(a.val.size() == a.col.size(), name + " has " + std::to_string(a.val.size()) +
                                                       " values for " +
                                                       std::to_string(a.col.size()) + " columns");
}

/// The value of entry p: pattern{} for a pattern matrix.
template <class V>
V value_at(const host_csr<V>& a, offset_t p) {
  if constexpr (has_values_v<V>)
    return a.val[static_cast<std::size_t>(p)];
  else
    return pattern{};
}

/// rpt[i + 1] holds row i's length on entry, the row pointer on return.
inline void scan_lengths(std::vector<offset_t>& rpt) {
  for (std::size_t i = 1; i < rpt.size(); ++i) rpt[i] += rpt[i - 1];
}

/// `blocks` + 1 row boundaries that split a's entries into blocks of about equal size (a row
/// is never split; empty blocks are possible).
template <class V>
std::vector<index_t> row_blocks(const host_csr<V>& a, int blocks) {
  return balanced_row_blocks(a.rpt, blocks);
}

/// Sorts entries [b, e) of `a` by column, values following; equal columns keep their order.
/// `keys` is scratch.
template <class V>
void sort_segment(host_csr<V>& a, offset_t b, offset_t e,
                  std::vector<std::pair<index_t, offset_t>>& keys, std::vector<V>& vals) {
  const auto cb = a.col.begin() + b, ce = a.col.begin() + e;
  if (std::is_sorted(cb, ce)) return;
  if constexpr (!has_values_v<V>) {
    std::sort(cb, ce);  // equal pattern entries are indistinguishable
  } else {
    keys.clear();
    for (offset_t p = b; p < e; ++p) keys.emplace_back(a.col[p], p);
    std::sort(keys.begin(), keys.end());  // (column, position): stable
    vals.assign(a.val.begin() + b, a.val.begin() + e);
    for (offset_t q = 0; q < e - b; ++q) {
      a.col[b + q] = keys[q].first;
      a.val[b + q] = vals[keys[q].second - b];
    }
  }
}

/// body(i, j, v) for the entries of rows [begin, end) in order: one flat loop over the entries
/// with a row cursor, which the compiler drops when body ignores i (a loop per row ran 3.6x
/// slower on a sum of 4M values in rows of 13).
template <class V, class Body>
void for_each_entry(const host_csr<V>& a, index_t begin, index_t end, Body&& body) {
  if (begin >= end) return;
  const offset_t* rpt = a.rpt.data();
  const index_t* col = a.col.data();
  index_t i = begin;
  offset_t row_end = rpt[begin + 1];
  for (offset_t p = rpt[begin], last = rpt[end]; p < last; ++p) {
    while (p >= row_end) row_end = rpt[++i + 1];
    if constexpr (has_values_v<V>)
      body(i, col[p], a.val.data()[p]);
    else
      body(i, col[p], pattern{});
  }
}

/// How many blocks of rows a fold (reduce_cols, reduce) runs in: 1 when small; else one per
/// thread (at most `bound`) when T is an integer, where any grouping gives the same result; else
/// `fixed` (at most `bound`), a number that does not depend on the thread count, so that a
/// floating-point result, rounding included, is the same on any number of threads.
template <class T>
int fold_blocks(bool par, long long bound, int fixed) {
  if (!par) return 1;
  const int want = std::is_integral_v<T> ? max_threads() : fixed;
  return static_cast<int>(std::clamp<long long>(bound, 1, want));
}

/// select() over rows [begin, end): the kept entries appended to col and val, srpt[i + 1] the
/// count kept in rows [begin, i]. Everything the loop reads is a local copy: through captured
/// references or containers (or outlined into an OpenMP body when serial) it ran at half the
/// speed of a plain serial loop, reloading them after every push_back.
template <class V, class Keep>
void select_rows(const host_csr<V>& a, index_t begin, index_t end, Keep keep, offset_t* srpt,
                 std::vector<index_t>& col_out, std::vector<V>& val_out) {
  const offset_t* rpt = a.rpt.data();
  const index_t* acol = a.col.data();
  const V* aval = a.val.data();
  std::vector<index_t> col;
  std::vector<V> val;
  for (index_t i = begin; i < end; ++i) {
    for (offset_t p = rpt[i]; p < rpt[i + 1]; ++p) {
      const index_t j = acol[p];
      if constexpr (has_values_v<V>) {
        if (!keep(i, j, aval[p])) continue;
        val.push_back(aval[p]);
      } else {
        if (!keep(i, j, pattern{})) continue;
      }
      col.push_back(j);
    }
    srpt[static_cast<std::size_t>(i) + 1] = static_cast<offset_t>(col.size());
  }
  col_out = std::move(col);
  val_out = std::move(val);
}

}  // namespace graph_ops_detail

/// The operations run on the OpenMP default team; a caller with its own thread count (the CPU
/// engine's options::threads) sets it for a scope: `threads` > 0 while the guard lives, then
/// the earlier default (0: nothing changes).
class scoped_threads {
 public:
  explicit scoped_threads(int threads) {
#ifdef _OPENMP
    if (threads > 0) {
      was_ = omp_get_max_threads();
      omp_set_num_threads(threads);
    }
#else
    (void)threads;
#endif
  }
  ~scoped_threads() {
#ifdef _OPENMP
    if (was_ > 0) omp_set_num_threads(was_);
#endif
  }
  scoped_threads(const scoped_threads&) = delete;
  scoped_threads& operator=(const scoped_threads&) = delete;

 private:
  int was_ = 0;
};

/// Aᵀ: row j holds A's entries of column j ordered by their row i (entries of A with equal (i, j)
/// in A's order), whether or not A's rows are sorted. The result is that of the serial counting
/// sort on any number of threads: rows of A are split into blocks, each block counts its
/// columns, and block c's entries of column j go after those of blocks < c.
template <class V>
host_csr<V> transpose(const host_csr<V>& a) {
  namespace gd = graph_ops_detail;
  gd::check_shape("A", a);
  const offset_t nnz = a.nnz();
  // A block's counters cost a.cols: at most half as many blocks as entries per column, so that
  // the counters' passes cost less than the scatter.
  const long long per_col = nnz / (static_cast<offset_t>(a.cols) + 1);
  const int blocks =
      gd::worth_parallel(a)
          ? static_cast<int>(std::clamp<long long>(per_col / 2, 1, gd::max_threads()))
          : 1;
  if (blocks == 1) return opsparse::transpose(a);  // the serial counting sort (csr.hpp)
  host_csr<V> t(a.cols, a.rows);
  t.col.resize(static_cast<std::size_t>(nnz));
  if constexpr (has_values_v<V>) t.val.resize(static_cast<std::size_t>(nnz));
  const std::vector<index_t> first = gd::row_blocks(a, blocks);
  const std::size_t cols = static_cast<std::size_t>(a.cols);
  std::vector<offset_t> at(static_cast<std::size_t>(blocks) * cols, 0);  // at[c * cols + j]
#pragma omp parallel for schedule(static, 1) num_threads(blocks)
  for (int c = 0; c < blocks; ++c) {
    offset_t* mine = at.data() + static_cast<std::size_t>(c) * cols;
    for (offset_t p = a.rpt[first[c]]; p < a.rpt[first[c + 1]]; ++p) ++mine[a.col[p]];
  }
  const long long ncols = a.cols;
#pragma omp parallel for schedule(static)
  for (long long j = 0; j < ncols; ++j) {
    offset_t total = 0;
    for (int c = 0; c < blocks; ++c) total += at[static_cast<std::size_t>(c) * cols + j];
    t.rpt[j + 1] = total;
  }
  gd::scan_lengths(t.rpt);
#pragma omp parallel for schedule(static)
  for (long long j = 0; j < ncols; ++j) {
    offset_t run = t.rpt[j];
    for (int c = 0; c < blocks; ++c) {
      offset_t& x = at[static_cast<std::size_t>(c) * cols + j];
      const offset_t n = x;
      x = run;
      run += n;
    }
  }
#pragma omp parallel for schedule(static, 1) num_threads(blocks)
  for (int c = 0; c < blocks; ++c) {
    offset_t* next = at.data() + static_cast<std::size_t>(c) * cols;
    for (index_t i = first[c]; i < first[c + 1]; ++i)
      for (offset_t p = a.rpt[i]; p < a.rpt[i + 1]; ++p) {
        const offset_t dst = next[a.col[p]]++;
        t.col[dst] = i;
        if constexpr (has_values_v<V>) t.val[dst] = a.val[p];
      }
  }
  return t;
}

/// The entries (i, j, v) of A with keep(i, j, v), in their order within each row; same shape.
/// One pass over A: each block of rows (one per thread, one when small) appends what it keeps to
/// a list of its own, and the lists are then copied into place (a single list is moved).
template <class V, class Keep>
host_csr<V> select(const host_csr<V>& a, Keep keep) {
  namespace gd = graph_ops_detail;
  gd::check_shape("A", a);
  const int blocks = gd::worth_parallel(a) ? gd::max_threads() : 1;
  const std::vector<index_t> first = gd::row_blocks(a, blocks);
  std::vector<std::vector<index_t>> cols(static_cast<std::size_t>(blocks));
  std::vector<std::vector<V>> vals(static_cast<std::size_t>(blocks));
  host_csr<V> s(a.rows, a.cols);
  offset_t* srpt = s.rpt.data();
  const auto run = [&](int c) {
    gd::select_rows(a, first[c], first[c + 1], keep, srpt, cols[c], vals[c]);
  };
  if (blocks == 1) {
    run(0);
    s.col = std::move(cols[0]);
    if constexpr (has_values_v<V>) s.val = std::move(vals[0]);
    return s;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(blocks)
  for (int c = 0; c < blocks; ++c) run(c);
  std::vector<offset_t> base(static_cast<std::size_t>(blocks) + 1, 0);
  for (int c = 0; c < blocks; ++c) base[c + 1] = base[c] + static_cast<offset_t>(cols[c].size());
  s.col.resize(static_cast<std::size_t>(base[blocks]));
  if constexpr (has_values_v<V>) s.val.resize(s.col.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(blocks)
  for (int c = 0; c < blocks; ++c) {
    for (index_t i = first[c]; i < first[c + 1]; ++i)
      srpt[static_cast<std::size_t>(i) + 1] += base[c];
    std::copy(cols[c].begin(), cols[c].end(), s.col.begin() + base[c]);
    if constexpr (has_values_v<V>)
      std::copy(vals[c].begin(), vals[c].end(), s.val.begin() + base[c]);
  }
  return s;
}

/// A(row_begin:row_end, col_begin:col_end): rows [row_begin, row_end) and columns [col_begin,
/// col_end) of A, indexed from (row_begin, col_begin), entries in their order within each row (a
/// tile of a product computed in parts, a block of a distributed matrix). Throws
/// std::invalid_argument when a range is not within A.
template <class V>
host_csr<V> submatrix(const host_csr<V>& a, index_t row_begin, index_t row_end, index_t col_begin,
                      index_t col_end) {
  namespace gd = graph_ops_detail;
  gd::check_shape("A", a);
  OPSPARSE_EXPECTS(0 <= row_begin && row_begin <= row_end && row_end <= a.rows && 0 <= col_begin &&
                       col_begin <= col_end && col_end <= a.cols,
                   "submatrix: rows [" + std::to_string(row_begin) + ", " +
                       std::to_string(row_end) + ") and columns [" + std::to_string(col_begin) +
                       ", " + std::to_string(col_end) + ") are not within a " +
                       std::to_string(a.rows) + " x " + std::to_string(a.cols) + " matrix");
  host_csr<V> s(row_end - row_begin, col_end - col_begin);
  const bool all_cols = col_begin == 0 && col_end == a.cols;
  const auto inside = [&](index_t j) { return all_cols || (j >= col_begin && j < col_end); };
  const long long rows = s.rows;
  const bool par =
      a.rpt[row_end] - a.rpt[row_begin] + rows >= static_cast<offset_t>(gd::parallel_size);
#pragma omp parallel for if (par) schedule(dynamic, 1024)
  for (long long r = 0; r < rows; ++r) {
    const index_t i = row_begin + static_cast<index_t>(r);
    offset_t kept = 0;
    for (offset_t p = a.rpt[i]; p < a.rpt[i + 1]; ++p) kept += inside(a.col[p]) ? 1 : 0;
    s.rpt[static_cast<std::size_t>(r) + 1] = kept;
  }
  gd::scan_lengths(s.rpt);
  s.col.resize(static_cast<std::size_t>(s.nnz()));
  if constexpr (has_values_v<V>) s.val.resize(s.col.size());
#pragma omp parallel for if (par) schedule(dynamic, 1024)
  for (long long r = 0; r < rows; ++r) {
    const index_t i = row_begin + static_cast<index_t>(r);
    offset_t dst = s.rpt[static_cast<std::size_t>(r)];
    for (offset_t p = a.rpt[i]; p < a.rpt[i + 1]; ++p) {
      if (!inside(a.col[p])) continue;
      s.col[dst] = a.col[p] - col_begin;
      if constexpr (has_values_v<V>) s.val[dst] = a.val[p];
      ++dst;
    }
  }
  return s;
}

/// B(r, col_map[j]) = A(row_order[r], j): B has row_order.size() rows (a subset, a repeat or a
/// reordering of A's) and A's columns. Without col_map the rows are copied as they are; with
/// it every row of B is sorted by its new columns, stably (P·A·Qᵀ; P·A·Pᵀ when col_map is the
/// inverse of row_order, see invert_permutation). Throws std::invalid_argument when an entry of
/// row_order is not a row of A, or col_map has not A.cols entries in [0, A.cols).
template <class V>
host_csr<V> permute(const host_csr<V>& a, const std::vector<index_t>& row_order,
                    const std::vector<index_t>* col_map) {
  namespace gd = graph_ops_detail;
  gd::check_shape("A", a);
  OPSPARSE_EXPECTS(
      row_order.size() <= static_cast<std::size_t>(std::numeric_limits<index_t>::max()),
      "permute: row_order has more entries than a matrix has rows");
  const index_t rows = static_cast<index_t>(row_order.size());
  for (index_t r = 0; r < rows; ++r)
    OPSPARSE_EXPECTS(row_order[r] >= 0 && row_order[r] < a.rows,
                     "permute: row_order[" + std::to_string(r) +
                         "] = " + std::to_string(row_order[r]) + " is not a row of a " +
                         std::to_string(a.rows) + "-row matrix");
  if (col_map != nullptr) {
    OPSPARSE_EXPECTS(col_map->size() == static_cast<std::size_t>(a.cols),
                     "permute: col_map has " + std::to_string(col_map->size()) + " entries for " +
                         std::to_string(a.cols) + " columns");
    for (index_t j = 0; j < a.cols; ++j)
      OPSPARSE_EXPECTS((*col_map)[j] >= 0 && (*col_map)[j] < a.cols,
                       "permute: col_map[" + std::to_string(j) +
                           "] = " + std::to_string((*col_map)[j]) + " is not a column");
  }
  host_csr<V> b(rows, a.cols);
  for (index_t r = 0; r < rows; ++r) b.rpt[r + 1] = a.rpt[row_order[r] + 1] - a.rpt[row_order[r]];
  gd::scan_lengths(b.rpt);
  b.col.resize(static_cast<std::size_t>(b.nnz()));
  if constexpr (has_values_v<V>) b.val.resize(b.col.size());
  const bool par = b.col.size() + static_cast<std::size_t>(rows) >= gd::parallel_size;
  const long long n = rows;
#pragma omp parallel if (par)
  {
    std::vector<std::pair<index_t, offset_t>> keys;
    std::vector<V> vals;
#pragma omp for schedule(dynamic, 1024)
    for (long long r = 0; r < n; ++r) {
      const index_t i = row_order[r];
      const offset_t src = a.rpt[i], len = a.rpt[i + 1] - src, dst = b.rpt[r];
      if (col_map == nullptr) {
        std::copy_n(a.col.begin() + src, len, b.col.begin() + dst);
      } else {
        for (offset_t q = 0; q < len; ++q) b.col[dst + q] = (*col_map)[a.col[src + q]];
      }
      if constexpr (has_values_v<V>) std::copy_n(a.val.begin() + src, len, b.val.begin() + dst);
      if (col_map != nullptr) gd::sort_segment(b, dst, dst + len, keys, vals);
    }
  }
  return b;
}

/// out[i] = Monoid::identity() ⊕ f(i, j, v) ⊕ ... over row i's entries in their order; out gets
/// A.rows entries. accumulate: out[i] = out[i] ⊕ (that fold), and out must already have A.rows
/// entries (else std::invalid_argument).
template <class Monoid, class V, class F>
void reduce_rows(const host_csr<V>& a, F f, std::vector<typename Monoid::value_type>& out,
                 bool accumulate = false) {
  using T = typename Monoid::value_type;
  namespace gd = graph_ops_detail;
  gd::check_shape("A", a);
  if (accumulate)
    OPSPARSE_EXPECTS(out.size() == static_cast<std::size_t>(a.rows),
                     "reduce_rows: accumulating into " + std::to_string(out.size()) +
                         " entries for " + std::to_string(a.rows) + " rows");
  else
    out.resize(static_cast<std::size_t>(a.rows));
  const long long n = a.rows;
#pragma omp parallel for schedule(dynamic, 1024) if (gd::worth_parallel(a))
  for (long long i = 0; i < n; ++i) {
    T acc = Monoid::identity();
    for (offset_t p = a.rpt[i]; p < a.rpt[i + 1]; ++p)
      acc = Monoid::add(acc, f(static_cast<index_t>(i), a.col[p], gd::value_at(a, p)));
    out[i] = accumulate ? Monoid::add(out[i], acc) : acc;
  }
}

/// out[j] = the fold of f(i, j, v) over column j in row order, out getting A.cols entries
/// (accumulate: as in reduce_rows, out must have A.cols entries). Large matrices are folded in
/// blocks of rows, each from the identity, and the blocks' results in block order; see
/// graph_ops_detail::fold_blocks for why the result does not depend on the thread count.
template <class Monoid, class V, class F>
void reduce_cols(const host_csr<V>& a, F f, std::vector<typename Monoid::value_type>& out,
                 bool accumulate = false) {
  using T = typename Monoid::value_type;
  namespace gd = graph_ops_detail;
  gd::check_shape("A", a);
  if (accumulate)
    OPSPARSE_EXPECTS(out.size() == static_cast<std::size_t>(a.cols),
                     "reduce_cols: accumulating into " + std::to_string(out.size()) +
                         " entries for " + std::to_string(a.cols) + " columns");
  const std::size_t cols = static_cast<std::size_t>(a.cols);
  // A block's partial vector costs a.cols: blocks are worth it while that is well below its
  // share of the entries.
  const long long per_col = a.nnz() / (static_cast<offset_t>(a.cols) + 1);
  const int blocks = gd::fold_blocks<T>(gd::worth_parallel(a), per_col / 4, 16);
  const std::vector<index_t> first = gd::row_blocks(a, blocks);
  const auto fold = [&](int c, T* acc) {
    gd::for_each_entry(a, first[c], first[c + 1], [&](index_t i, index_t j, auto v) {
      acc[j] = Monoid::add(acc[j], f(i, j, v));
    });
  };
  if (blocks == 1) {
    // Straight into out: the same as out ⊕ (a fold from the identity) when T is an integer.
    if (!accumulate || std::is_integral_v<T>) {
      if (!accumulate) out.assign(cols, Monoid::identity());
      fold(0, out.data());
      return;
    }
  }
  std::vector<T> part(static_cast<std::size_t>(blocks) * cols, Monoid::identity());
#pragma omp parallel for schedule(dynamic, 1) if (blocks > 1)
  for (int c = 0; c < blocks; ++c) fold(c, part.data() + static_cast<std::size_t>(c) * cols);
  out.resize(cols);
  const long long ncols = a.cols;
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (long long j = 0; j < ncols; ++j) {
    T acc = part[j];
    for (int c = 1; c < blocks; ++c)
      acc = Monoid::add(acc, part[static_cast<std::size_t>(c) * cols + j]);
    out[j] = accumulate ? Monoid::add(out[j], acc) : acc;
  }
}

/// The fold of f(i, j, v) over all of A's entries in row order. Large matrices are folded in
/// blocks of rows, each from the identity, then the blocks in order; see
/// graph_ops_detail::fold_blocks for why the result does not depend on the thread count.
template <class Monoid, class V, class F>
typename Monoid::value_type reduce(const host_csr<V>& a, F f) {
  using T = typename Monoid::value_type;
  namespace gd = graph_ops_detail;
  gd::check_shape("A", a);
  const int blocks = gd::fold_blocks<T>(gd::worth_parallel(a), 64, 64);
  const std::vector<index_t> first = gd::row_blocks(a, blocks);
  const auto fold = [&](int c) {
    T acc = Monoid::identity();
    gd::for_each_entry(a, first[c], first[c + 1],
                       [&](index_t i, index_t j, auto v) { acc = Monoid::add(acc, f(i, j, v)); });
    return acc;
  };
  if (blocks == 1) return fold(0);
  std::vector<T> part(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(dynamic, 1)
  for (int c = 0; c < blocks; ++c) part[c] = fold(c);
  T acc = part[0];
  for (int c = 1; c < blocks; ++c) acc = Monoid::add(acc, part[c]);
  return acc;
}

/// A(i, j) ← f(A(i, j)) for every stored value; nothing for a pattern matrix.
template <class V, class F>
void apply(host_csr<V>& a, F f) {
  if constexpr (has_values_v<V>) {
    const long long n = static_cast<long long>(a.val.size());
#pragma omp parallel for schedule( \
    static) if (n >= static_cast <long long>(graph_ops_detail::parallel_size))
    for (long long k = 0; k < n; ++k) a.val[k] = f(a.val[k]);
  }
}

/// Each row's entries by column, values following; entries of equal column keep their order.
template <class V>
void sort_rows(host_csr<V>& a) {
  namespace gd = graph_ops_detail;
  gd::check_shape("A", a);
  const long long n = a.rows;
#pragma omp parallel if (gd::worth_parallel(a))
  {
    std::vector<std::pair<index_t, offset_t>> keys;
    std::vector<V> vals;
#pragma omp for schedule(dynamic, 1024)
    for (long long i = 0; i < n; ++i) gd::sort_segment(a, a.rpt[i], a.rpt[i + 1], keys, vals);
  }
}

/// A's row indices ordered by row length (ascending or descending), equal lengths by index
/// ascending in both directions: a stable counting sort, O(rows + longest row).
template <class V>
std::vector<index_t> degree_order(const host_csr<V>& a, bool ascending) {
  graph_ops_detail::check_shape("A", a);
  const index_t n = a.rows;
  offset_t longest = 0;
  for (index_t i = 0; i < n; ++i) longest = std::max(longest, a.rpt[i + 1] - a.rpt[i]);
  auto key = [&](index_t i) {
    const offset_t d = a.rpt[i + 1] - a.rpt[i];
    return static_cast<std::size_t>(ascending ? d : longest - d);
  };
  std::vector<index_t> at(static_cast<std::size_t>(longest) + 2, 0);
  for (index_t i = 0; i < n; ++i) ++at[key(i) + 1];
  for (std::size_t k = 1; k < at.size(); ++k) at[k] += at[k - 1];
  std::vector<index_t> order(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) order[at[key(i)]++] = i;
  return order;
}

/// The rows of A with more than `length` entries, ascending (the GPU's rows_longer_than).
template <class V>
std::vector<index_t> rows_longer_than(const host_csr<V>& a, offset_t length) {
  graph_ops_detail::check_shape("A", a);
  std::vector<index_t> rows;
  for (index_t i = 0; i < a.rows; ++i)
    if (a.rpt[i + 1] - a.rpt[i] > length) rows.push_back(i);
  return rows;
}

/// inverse[order[r]] = r (new_of_old from old_of_new). Throws std::invalid_argument when order
/// is not a permutation of 0 .. order.size() - 1.
inline std::vector<index_t> invert_permutation(const std::vector<index_t>& order) {
  OPSPARSE_EXPECTS(order.size() <= static_cast<std::size_t>(std::numeric_limits<index_t>::max()),
                   "invert_permutation: more entries than index_t counts");
  const index_t n = static_cast<index_t>(order.size());
  std::vector<index_t> inv(order.size(), -1);
  for (index_t r = 0; r < n; ++r) {
    const index_t v = order[r];
    OPSPARSE_EXPECTS(v >= 0 && v < n && inv[v] < 0,
                     "invert_permutation: order[" + std::to_string(r) + "] = " + std::to_string(v) +
                         " is out of range or repeated");
    inv[v] = r;
  }
  return inv;
}

/// out[i] = src[idx[i]]. Throws std::invalid_argument when an index is outside src.
template <class T>
std::vector<T> gather(const std::vector<T>& src, const std::vector<index_t>& idx) {
  for (std::size_t i = 0; i < idx.size(); ++i)
    OPSPARSE_EXPECTS(idx[i] >= 0 && static_cast<std::size_t>(idx[i]) < src.size(),
                     "gather: idx[" + std::to_string(i) + "] = " + std::to_string(idx[i]) +
                         " is outside a source of " + std::to_string(src.size()));
  std::vector<T> out(idx.size());
  const long long n = static_cast<long long>(idx.size());
#pragma omp parallel for schedule( \
    static) if (n >= static_cast <long long>(graph_ops_detail::parallel_size))
  for (long long i = 0; i < n; ++i) out[i] = src[idx[i]];
  return out;
}

/// The value type of ewise_add(A, B, rule): what rule.left returns for A's values.
template <class VA, class Rule>
using ewise_result_t = std::decay_t<decltype(std::declval<const Rule&>().left(std::declval<VA>()))>;

/// The union of A's and B's entries (GrB_eWiseAdd): rule.both(a, b) where both have (i, j),
/// rule.left(a) where only A does, rule.right(b) where only B does. A's and B's rows must be
/// sorted without repeats; the result's are. Throws std::invalid_argument unless the shapes match.
template <class VA, class VB, class Rule>
host_csr<ewise_result_t<VA, Rule>> ewise_add(const host_csr<VA>& a, const host_csr<VB>& b,
                                             Rule rule) {
  using R = ewise_result_t<VA, Rule>;
  namespace gd = graph_ops_detail;
  gd::check_shape("A", a);
  gd::check_shape("B", b);
  OPSPARSE_EXPECTS(a.rows == b.rows && a.cols == b.cols,
                   "ewise_add: A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) +
                       ", B is " + std::to_string(b.rows) + "x" + std::to_string(b.cols));
  host_csr<R> c(a.rows, a.cols);
  const bool par =
      a.col.size() + b.col.size() + static_cast<std::size_t>(a.rows) >= gd::parallel_size;
  const long long n = a.rows;
#pragma omp parallel for schedule(dynamic, 1024) if (par)
  for (long long i = 0; i < n; ++i) {
    offset_t p = a.rpt[i], q = b.rpt[i], k = 0;
    const offset_t pe = a.rpt[i + 1], qe = b.rpt[i + 1];
    while (p < pe && q < qe) {
      const index_t ja = a.col[p], jb = b.col[q];
      p += ja <= jb;
      q += jb <= ja;
      ++k;
    }
    c.rpt[i + 1] = k + (pe - p) + (qe - q);
  }
  gd::scan_lengths(c.rpt);
  c.col.resize(static_cast<std::size_t>(c.nnz()));
  if constexpr (has_values_v<R>) c.val.resize(c.col.size());
#pragma omp parallel for schedule(dynamic, 1024) if (par)
  for (long long i = 0; i < n; ++i) {
    offset_t p = a.rpt[i], q = b.rpt[i], out = c.rpt[i];
    const offset_t pe = a.rpt[i + 1], qe = b.rpt[i + 1];
    while (p < pe || q < qe) {
      const index_t ja = p < pe ? a.col[p] : a.cols, jb = q < qe ? b.col[q] : b.cols;
      if (ja == jb) {
        c.col[out] = ja;
        if constexpr (has_values_v<R>)
          c.val[out] = static_cast<R>(rule.both(gd::value_at(a, p), gd::value_at(b, q)));
        ++p;
        ++q;
      } else if (ja < jb) {
        c.col[out] = ja;
        if constexpr (has_values_v<R>) c.val[out] = static_cast<R>(rule.left(gd::value_at(a, p)));
        ++p;
      } else {
        c.col[out] = jb;
        if constexpr (has_values_v<R>) c.val[out] = static_cast<R>(rule.right(gd::value_at(b, q)));
        ++q;
      }
      ++out;
    }
  }
  return c;
}

}  // namespace opsparse::cpu
