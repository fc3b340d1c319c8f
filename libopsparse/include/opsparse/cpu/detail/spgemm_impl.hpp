#pragma once
// Header-only implementation of the CPU engine (cpu/spgemm.hpp): row-wise Gustavson SpGEMM in two
// passes. Pass 1 counts each output row's entries (structure only, mask applied), an exclusive
// scan turns the counts into C.rpt, and pass 2 recomputes every row with values straight into its
// final slice of C.col / C.val, so no row is ever stored twice or merged afterwards.
//
// Each thread owns one accumulator for the whole pass:
//  - dense_accumulator: a stamp per column of B. A row uses two fresh stamp values ("marked by
//    the mask", "present in C"), so nothing is cleared between rows; only when the 32-bit counter
//    would wrap is the array reset. Fast when B.cols is moderate.
//  - hash_accumulator: open addressing sized per row from an upper bound on the keys it can see
//    (products, mask row, exact nnz in pass 2), for very wide B where a dense array per thread
//    would be mostly untouched memory.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "opsparse/error.hpp"

namespace opsparse::cpu {
namespace detail {

/// A stored value of `m`, or `pattern{}` when m has no values (what Semiring::multiply receives).
template <class V>
inline auto value_at(const host_csr<V>& m, offset_t k) {
  if constexpr (has_values_v<V>)
    return m.val[static_cast<std::size_t>(k)];
  else
    return pattern{};
}

/// The state of one accumulator slot within the current row.
enum class slot_state : std::uint8_t { absent, marked, present };

template <class T>
class dense_accumulator {
 public:
  dense_accumulator(index_t cols, bool with_values) : stamp_(static_cast<std::size_t>(cols), 0) {
    if constexpr (has_values_v<T>)
      if (with_values) val_.resize(static_cast<std::size_t>(cols));
  }

  void begin_row(offset_t /*bound: the dense array holds every column*/) {
    if (gen_ > std::numeric_limits<std::uint32_t>::max() - 2) {
      // Once per 2^31 rows: stale stamps could otherwise alias the new ones.
      std::fill(stamp_.begin(), stamp_.end(), 0u);
      gen_ = 0;
    }
    gen_ += 2;  // gen_ - 1 = marked, gen_ = present; anything else is absent
  }
  std::size_t find(index_t j) const { return static_cast<std::size_t>(j); }
  slot_state state(std::size_t s) const {
    const std::uint32_t v = stamp_[s];
    return v == gen_       ? slot_state::present
           : v == gen_ - 1 ? slot_state::marked
                           : slot_state::absent;
  }
  void set(std::size_t s, index_t /*j*/, slot_state st) {
    stamp_[s] = st == slot_state::present ? gen_ : gen_ - 1;
  }
  T& value(std::size_t s) { return val_[s]; }

 private:
  std::vector<std::uint32_t> stamp_;
  std::vector<T> val_;
  std::uint32_t gen_ = 0;
};

template <class T>
class hash_accumulator {
 public:
  hash_accumulator(index_t /*cols*/, bool with_values) : with_values_(with_values) {}

  /// `bound` is an upper bound on the keys this row inserts; the table keeps load <= 1/2 so
  /// linear probing stays short, and only the slots this row uses are cleared.
  void begin_row(offset_t bound) {
    std::size_t cap = 16;
    int log2 = 4;
    while (static_cast<offset_t>(cap) < 2 * bound) {
      cap <<= 1;
      ++log2;
    }
    if (cap > key_.size()) {
      key_.resize(cap);
      state_.resize(cap);
      if constexpr (has_values_v<T>)
        if (with_values_) val_.resize(cap);
    }
    std::fill_n(state_.begin(), cap, slot_state::absent);
    mask_ = cap - 1;
    shift_ = 64 - log2;
  }
  /// The slot holding j, or the empty slot where j would go.
  std::size_t find(index_t j) const {
    // Fibonacci hashing: the top bits spread strided column patterns (multiples of 2^k).
    std::size_t s = static_cast<std::size_t>(
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(j)) * 0x9E3779B97F4A7C15ull) >>
        shift_);
    while (state_[s] != slot_state::absent && key_[s] != j) s = (s + 1) & mask_;
    return s;
  }
  slot_state state(std::size_t s) const { return state_[s]; }
  void set(std::size_t s, index_t j, slot_state st) {
    key_[s] = j;
    state_[s] = st;
  }
  T& value(std::size_t s) { return val_[s]; }

 private:
  bool with_values_;
  std::vector<index_t> key_;
  std::vector<slot_state> state_;
  std::vector<T> val_;
  std::size_t mask_ = 0;
  int shift_ = 60;
};

inline int ceil_log2(offset_t x) {
  int r = 0;
  while ((offset_t{1} << r) < x) ++r;
  return r;
}

/// Computes (Fill = false: counts) row i of C. With Fill, writes the row's `known_nnz` columns to
/// out_col (sorted when asked) and values to out_val. Returns the number of entries.
template <class Semiring, bool Fill, class Acc, class VA, class VB, class Mask>
offset_t multiply_row(index_t i, const host_csr<VA>& a, const host_csr<VB>& b, const Mask& mask,
                      offset_t products, Acc& acc, index_t* out_col,
                      typename Semiring::value_type* out_val, bool sorted, offset_t known_nnz) {
  using T = typename Semiring::value_type;
  constexpr mask_kind mk = Mask::kind;
  constexpr bool with_values = Fill && has_values_v<T>;
  if (products == 0) return 0;

  // The mask is applied before accumulating, in one of two ways: mark its row in the accumulator
  // (cost: nnz of the mask row) or binary-search its sorted row per product (cost: products x
  // log). A complement mask of a large visited set against a small frontier wants the latter.
  const index_t* m_begin = nullptr;
  const index_t* m_end = nullptr;
  bool use_marks = false;
  offset_t m_nnz = 0;
  if constexpr (mk != mask_kind::none) {
    m_begin = mask.col + mask.rpt[i];
    m_end = mask.col + mask.rpt[i + 1];
    m_nnz = mask.rpt[i + 1] - mask.rpt[i];
    if constexpr (mk == mask_kind::structural)
      if (m_nnz == 0) return 0;
    use_marks = m_nnz > 0 && m_nnz <= products * ceil_log2(m_nnz + 1);
  }

  const offset_t base = Fill ? known_nnz : std::min<offset_t>(products, b.cols);
  offset_t bound = base;
  if (use_marks) bound = mk == mask_kind::structural ? m_nnz : m_nnz + base;
  acc.begin_row(bound);
  if (use_marks)
    for (const index_t* p = m_begin; p != m_end; ++p) acc.set(acc.find(*p), *p, slot_state::marked);

  offset_t n = 0;
  for (offset_t ka = a.rpt[i]; ka < a.rpt[i + 1]; ++ka) {
    const index_t k = a.col[ka];
    const auto av = value_at(a, ka);
    for (offset_t kb = b.rpt[k]; kb < b.rpt[k + 1]; ++kb) {
      const index_t j = b.col[kb];
      if constexpr (mk != mask_kind::none) {
        if (!use_marks) {
          const bool in_mask = std::binary_search(m_begin, m_end, j);
          if ((mk == mask_kind::structural) != in_mask) continue;
        }
      }
      const std::size_t s = acc.find(j);
      const slot_state st = acc.state(s);
      if (st == slot_state::present) {
        if constexpr (with_values)
          acc.value(s) = Semiring::add(acc.value(s), Semiring::multiply(av, value_at(b, kb)));
        continue;
      }
      if constexpr (mk == mask_kind::structural)
        if (use_marks && st == slot_state::absent) continue;  // outside M
      if constexpr (mk == mask_kind::complemented)
        if (st == slot_state::marked) continue;  // inside M
      acc.set(s, j, slot_state::present);
      if constexpr (with_values) acc.value(s) = Semiring::multiply(av, value_at(b, kb));
      if constexpr (Fill) out_col[n] = j;
      ++n;
    }
  }

  if constexpr (Fill) {
    if (sorted) std::sort(out_col, out_col + n);
    if constexpr (with_values)
      for (offset_t t = 0; t < n; ++t) out_val[t] = acc.value(acc.find(out_col[t]));
  }
  return n;
}

/// Runs body(acc, i) for every row with dynamic scheduling, one accumulator per thread. An
/// exception thrown by a thread (e.g. bad_alloc) is carried out of the parallel region and
/// rethrown, instead of terminating the program.
template <class Acc, class Body>
void for_each_row(int threads, index_t rows, index_t cols, bool with_values, Body body) {
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  // Small chunks balance skewed rows (power-law graphs); not so small that the shared counter
  // becomes the bottleneck on wide, uniform matrices.
  const index_t chunk =
      std::clamp<index_t>(rows / std::max(1, threads * 32), index_t{1}, index_t{256});
  auto record = [&] {
#pragma omp critical(opsparse_cpu_spgemm_error)
    if (!error) error = std::current_exception();
    failed.store(true, std::memory_order_relaxed);
  };
#pragma omp parallel num_threads(threads)
  {
    std::optional<Acc> acc;
    try {
      acc.emplace(cols, with_values);
    } catch (...) {
      record();
    }
#pragma omp for schedule(dynamic, chunk)
    for (index_t i = 0; i < rows; ++i) {
      if (failed.load(std::memory_order_relaxed)) continue;
      try {
        body(*acc, i);
      } catch (...) {
        record();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

/// Cheap O(rows + nnz) checks that make the kernels memory safe: a malformed operand throws
/// instead of indexing out of bounds.
inline void check_operand(const char* what, index_t rows, index_t cols, const offset_t* rpt,
                          std::size_t rpt_size, const index_t* col, std::size_t col_size) {
  const std::string name(what);
  OPSPARSE_EXPECTS(rows >= 0 && cols >= 0, name + " has negative dimensions");
  OPSPARSE_EXPECTS(rpt_size == static_cast<std::size_t>(rows) + 1 && rpt != nullptr,
                   name + " row pointers must have rows + 1 entries");
  OPSPARSE_EXPECTS(rpt[0] == 0, name + " row pointers must start at 0");
  for (index_t i = 0; i < rows; ++i)
    OPSPARSE_EXPECTS(rpt[i + 1] >= rpt[i],
                     name + " row pointers decrease at row " + std::to_string(i));
  OPSPARSE_EXPECTS(static_cast<std::size_t>(rpt[rows]) == col_size,
                   name + " has " + std::to_string(col_size) + " column indices, rpt says " +
                       std::to_string(rpt[rows]));
  bool in_range = true;
  const std::int64_t n = static_cast<std::int64_t>(col_size);
#pragma omp parallel for reduction(&& : in_range) if (n > (1 << 16))
  for (std::int64_t k = 0; k < n; ++k) in_range = in_range && col[k] >= 0 && col[k] < cols;
  OPSPARSE_EXPECTS(in_range,
                   name + " has a column index outside [0, " + std::to_string(cols) + ")");
}

template <class V>
void check_operand(const char* what, const host_csr<V>& m) {
  check_operand(what, m.rows, m.cols, m.rpt.data(), m.rpt.size(), m.col.data(), m.col.size());
  if constexpr (has_values_v<V>)
    OPSPARSE_EXPECTS(m.val.size() == m.col.size(),
                     std::string(what) + " has " + std::to_string(m.val.size()) + " values for " +
                         std::to_string(m.col.size()) + " columns");
}

template <class VA, class VB>
void check_inner_dims(const host_csr<VA>& a, const host_csr<VB>& b) {
  OPSPARSE_EXPECTS(a.cols == b.rows, "A·B needs A.cols == B.rows, got A " + std::to_string(a.rows) +
                                         "x" + std::to_string(a.cols) + " and B " +
                                         std::to_string(b.rows) + "x" + std::to_string(b.cols));
}

/// Threads the engine uses for `opt`.
inline int thread_count(const options& opt) {
  return opt.threads > 0 ? opt.threads : std::max(1, omp_get_max_threads());
}

template <class Semiring, class Acc, class VA, class VB, class Mask>
void spgemm_passes(const host_csr<VA>& a, const host_csr<VB>& b, const Mask& mask,
                   const std::vector<offset_t>& products, int threads, bool sorted,
                   host_csr<typename Semiring::value_type>& c) {
  using T = typename Semiring::value_type;
  const index_t rows = a.rows;

  // Pass 1: entries per row into rpt[i + 1].
  offset_t* rpt = c.rpt.data();
  for_each_row<Acc>(threads, rows, b.cols, false, [&](Acc& acc, index_t i) {
    rpt[i + 1] = multiply_row<Semiring, false>(i, a, b, mask, products[i], acc, nullptr,
                                               static_cast<T*>(nullptr), sorted, 0);
  });
  for (index_t i = 0; i < rows; ++i) rpt[i + 1] += rpt[i];

  c.col.resize(static_cast<std::size_t>(c.nnz()));
  if constexpr (has_values_v<T>) c.val.resize(static_cast<std::size_t>(c.nnz()));

  // Pass 2: each row straight into its slice.
  index_t* col = c.col.data();
  T* val = nullptr;
  if constexpr (has_values_v<T>) val = c.val.data();
  for_each_row<Acc>(threads, rows, b.cols, true, [&](Acc& acc, index_t i) {
    const offset_t nnz = rpt[i + 1] - rpt[i];
    if (nnz == 0) return;
    multiply_row<Semiring, true>(i, a, b, mask, products[i], acc, col + rpt[i],
                                 val ? val + rpt[i] : nullptr, sorted, nnz);
  });
}

}  // namespace detail

inline bool prefer_dense_accumulator(index_t cols, offset_t products, int threads) {
  // Up to 2^18 columns a thread's stamp array (1 MiB, plus values) stays cache friendly and its
  // setup is negligible. Beyond that it is worth it only when each thread's share of products
  // is larger than the array it would have to allocate and touch.
  constexpr offset_t always_dense = offset_t{1} << 18;
  return cols <= always_dense || static_cast<offset_t>(cols) * std::max(1, threads) <= products;
}

template <class VA, class VB>
std::vector<offset_t> row_products(const host_csr<VA>& a, const host_csr<VB>& b) {
  detail::check_inner_dims(a, b);
  detail::check_operand("A", a);
  detail::check_operand("B", b);
  std::vector<offset_t> p(static_cast<std::size_t>(a.rows), 0);
#pragma omp parallel for schedule(static) if (a.rows > 4096)
  for (index_t i = 0; i < a.rows; ++i) {
    offset_t s = 0;
    for (offset_t ka = a.rpt[i]; ka < a.rpt[i + 1]; ++ka) {
      const index_t k = a.col[ka];
      s += b.rpt[k + 1] - b.rpt[k];
    }
    p[i] = s;
  }
  return p;
}

template <class VA, class VB>
offset_t count_products(const host_csr<VA>& a, const host_csr<VB>& b) {
  detail::check_inner_dims(a, b);
  detail::check_operand("A", a);
  detail::check_operand("B", b);
  offset_t total = 0;
  const std::int64_t nnz = static_cast<std::int64_t>(a.col.size());
#pragma omp parallel for reduction(+ : total) schedule(static) if (nnz > (1 << 16))
  for (std::int64_t ka = 0; ka < nnz; ++ka) {
    const index_t k = a.col[ka];
    total += b.rpt[k + 1] - b.rpt[k];
  }
  return total;
}

namespace detail {

/// How a product of `total` multiplications into `cols` columns runs: its threads (a team woken
/// for a small product costs more than the product, and spins on a busy machine: at least 2^14
/// products, ~50 us of work, a thread) and whether its accumulator is dense.
struct run_shape {
  int threads;
  bool dense;
};
inline run_shape shape_of(const options& opt, index_t cols, offset_t total) {
  constexpr offset_t min_products_per_thread = offset_t{1} << 14;
  const int threads = static_cast<int>(std::min<offset_t>(
      thread_count(opt), std::max<offset_t>(1, total / min_products_per_thread)));
  bool dense = opt.accumulator == accumulator_kind::dense;
  if (opt.accumulator == accumulator_kind::automatic)
    dense = prefer_dense_accumulator(cols, total, threads);
  return {threads, dense};
}

}  // namespace detail

template <class Semiring, class VA, class VB, class Mask>
host_csr<typename Semiring::value_type> spgemm(const host_csr<VA>& a, const host_csr<VB>& b,
                                               const Mask& mask, const options& opt) {
  using T = typename Semiring::value_type;
  static_assert(std::is_same_v<Mask, no_mask> || std::is_same_v<Mask, structural_mask> ||
                    std::is_same_v<Mask, complement_mask>,
                "mask must be no_mask, structural_mask or complement_mask");
  const std::vector<offset_t> products = row_products(a, b);  // also checks A and B
  if constexpr (Mask::kind != mask_kind::none) {
    OPSPARSE_EXPECTS(mask.rows == a.rows && mask.cols == b.cols,
                     "mask is " + std::to_string(mask.rows) + "x" + std::to_string(mask.cols) +
                         " but C = A·B is " + std::to_string(a.rows) + "x" +
                         std::to_string(b.cols));
    OPSPARSE_EXPECTS(mask.rpt != nullptr, "mask has no row pointers");
    detail::check_operand("mask", mask.rows, mask.cols, mask.rpt,
                          static_cast<std::size_t>(mask.rows) + 1, mask.col,
                          static_cast<std::size_t>(mask.rpt[mask.rows]));
  }

  host_csr<T> c(a.rows, b.cols);
  offset_t total = 0;
  for (offset_t p : products) total += p;
  if (total == 0) return c;

  const detail::run_shape run = detail::shape_of(opt, b.cols, total);
  if (run.dense)
    detail::spgemm_passes<Semiring, detail::dense_accumulator<T>>(a, b, mask, products, run.threads,
                                                                  opt.sorted, c);
  else
    detail::spgemm_passes<Semiring, detail::hash_accumulator<T>>(a, b, mask, products, run.threads,
                                                                 opt.sorted, c);
  return c;
}

}  // namespace opsparse::cpu
