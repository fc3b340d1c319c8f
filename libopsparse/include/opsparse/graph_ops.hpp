#pragma once
// The graph/matrix operations' vocabulary, shared by both engines (g++ compiles it): the entry
// predicates that select() keeps entries by, the entry functions that reductions fold, the
// monoids they fold with, and the unary value functions of apply(). The operations themselves:
//   GPU  opsparse/graph_ops.cuh      (nvcc; device matrices, a context's stream and pool)
//   CPU  opsparse/cpu/graph_ops.hpp  (OpenMP; host matrices)
// Each GPU operation returns exactly what its CPU twin returns (tests/unit/gpu/test_graph_ops.cu).
// Algorithms built from these and masked products (k-truss, Jaccard coefficients):
//   GPU  opsparse/graph_algorithms.cuh
//   CPU  opsparse/cpu/graph_algorithms.hpp
//
// LAGraph/GraphBLAS names, where they exist:
//   transpose(A)                    Aᵀ, rows sorted
//   select(A, keep)                 the entries (i, j, v) of A with keep(i, j, v), order kept
//                                   (GrB_select with tril/triu/value predicates, or a mask)
//   permute(A, row_order, col_map)  B(r, col_map[j]) = A(row_order[r], j); rows sorted again
//                                   when columns move (P·A·Qᵀ; P·A·Pᵀ with col_map the inverse
//                                   of row_order)
//   reduce_rows / reduce_cols       out[i] = ⊕_j f(i, j, A(i,j)) (GrB_reduce to a vector)
//   apply(A, f)                     A(i,j) ← f(A(i,j)) (GrB_apply)
//   row_products(A, B)              out[i] = Σ_{k ∈ A(i,:)} nnz(B(k,:)): the work of row i of A·B
//   ewise_add(A, B, rule)           the union of A's and B's entries (GrB_eWiseAdd): rule.both(a,
//   b)
//                                   where both have (i, j), rule.left(a) or rule.right(b)
//                                   elsewhere; A's and B's rows sorted, the result's too
//   sort_rows(A)                    each row's entries by column
//   degree_order(A, ascending)      the rows by their length, ties by index (a stable sort)
//   rows_longer_than(A, length)     the rows with more than `length` entries, ascending (hubs)
//   invert_permutation, gather      inverse[order[r]] = r; out[i] = src[idx[i]]
#include <cmath>
#include <limits>

#include "opsparse/mask.hpp"
#include "opsparse/semiring.hpp"  // OPSPARSE_HD, add_kind
#include "opsparse/types.hpp"

namespace opsparse {

// ---- entry predicates: bool keep(index_t i, index_t j, V v) -----------------------------------
/// tril(A, k): j <= i + k (k = -1: strictly lower).
struct lower_triangle {
  long long k = 0;
  template <class V>
  OPSPARSE_HD bool operator()(index_t i, index_t j, V) const {
    return static_cast<long long>(j) - i <= k;
  }
};
/// triu(A, k): j >= i + k (k = 1: strictly upper).
struct upper_triangle {
  long long k = 0;
  template <class V>
  OPSPARSE_HD bool operator()(index_t i, index_t j, V) const {
    return static_cast<long long>(j) - i >= k;
  }
};
/// i != j.
struct off_diagonal {
  template <class V>
  OPSPARSE_HD bool operator()(index_t i, index_t j, V) const {
    return i != j;
  }
};
/// v >= bar (values compared as double).
struct value_at_least {
  double bar = 0;
  template <class V>
  OPSPARSE_HD bool operator()(index_t, index_t, V v) const {
    return static_cast<double>(v) >= bar;
  }
};
/// The entries whose position is (structural) or is not (complemented) in a mask matrix M,
/// GraphBLAS's A<M> and A<¬M>. M's rows are sorted; its pointers are host pointers for the CPU
/// operations and device pointers for the GPU ones (make_mask / device_mask build it).
template <class Mask>
struct in_mask {
  Mask m;
  template <class V>
  OPSPARSE_HD bool operator()(index_t i, index_t j, V) const {
    offset_t lo = m.rpt[i], hi = m.rpt[i + 1];
    const offset_t end = hi;
    while (lo < hi) {
      const offset_t mid = lo + (hi - lo) / 2;
      if (m.col[mid] < j)
        lo = mid + 1;
      else
        hi = mid;
    }
    const bool present = lo < end && m.col[lo] == j;
    return Mask::kind == mask_kind::complemented ? !present : present;
  }
};

// ---- entry functions: T f(index_t i, index_t j, V v) ------------------------------------------
/// The entry's value as T (reduce the values).
template <class T>
struct value_as {
  template <class V>
  OPSPARSE_HD T operator()(index_t, index_t, V v) const {
    return static_cast<T>(v);
  }
};
/// 1 for every entry (count the entries).
template <class T>
struct count_one {
  template <class V>
  OPSPARSE_HD T operator()(index_t, index_t, V) const {
    return T(1);
  }
};

/// The length of B's row j for an entry (i, j) of A: reduced over A's row i, the products of
/// row i of A·B (row_products).
struct row_length_of {
  const offset_t* rpt = nullptr;  ///< B's row pointers (host or device, as the engine)
  template <class V>
  OPSPARSE_HD offset_t operator()(index_t, index_t j, V) const {
    return rpt[j + 1] - rpt[j];
  }
};

// ---- monoids: value_type, identity(), add(a, b) and the GPU's add_kind (see semiring.hpp) ---
template <class T>
struct plus_monoid {
  using value_type = T;
  static constexpr add_kind kind = add_kind::plus;
  OPSPARSE_HD static T identity() { return T(0); }
  OPSPARSE_HD static T add(T a, T b) { return a + b; }
};
template <class T>
struct max_monoid {
  using value_type = T;
  static constexpr add_kind kind = add_kind::custom;
  static constexpr T lowest = std::numeric_limits<T>::lowest();  // a constant: device code reads it
  OPSPARSE_HD static T identity() { return lowest; }
  OPSPARSE_HD static T add(T a, T b) { return a < b ? b : a; }
};
template <class T>
struct min_monoid {
  using value_type = T;
  static constexpr add_kind kind = add_kind::min;
  static constexpr T largest = std::numeric_limits<T>::max();
  OPSPARSE_HD static T identity() { return largest; }
  OPSPARSE_HD static T add(T a, T b) { return b < a ? b : a; }
};

// ---- unary value functions: V f(V v) -----------------------------------------------------------
/// v^p, computed in double and stored as V (MCL's inflation).
struct power {
  double p = 1;
  template <class V>
  OPSPARSE_HD V operator()(V v) const {
    const double x = static_cast<double>(v);
    return static_cast<V>(p == 2.0 ? x * x : ::pow(x, p));
  }
};
/// s·v.
struct scale_by {
  double s = 1;
  template <class V>
  OPSPARSE_HD V operator()(V v) const {
    return static_cast<V>(s * static_cast<double>(v));
  }
};

// ---- ewise_add's rules: V both(VA a, VB b), V left(VA a), V right(VB b) ------------------------
/// GraphBLAS eWiseAdd with a monoid: a ⊕ b where both have an entry, the entry elsewhere.
template <class Monoid>
struct union_with {
  using T = typename Monoid::value_type;
  template <class VA, class VB>
  OPSPARSE_HD T both(VA a, VB b) const {
    return Monoid::add(static_cast<T>(a), static_cast<T>(b));
  }
  template <class VA>
  OPSPARSE_HD T left(VA a) const {
    return static_cast<T>(a);
  }
  template <class VB>
  OPSPARSE_HD T right(VB b) const {
    return static_cast<T>(b);
  }
};
/// A's values where A has an entry, `fill` on B's other entries (B may be a pattern): BFS's
/// visited ∪ frontier with the frontier's level.
template <class T>
struct union_fill {
  T fill{};
  template <class VA, class VB>
  OPSPARSE_HD T both(VA a, VB) const {
    return static_cast<T>(a);
  }
  template <class VA>
  OPSPARSE_HD T left(VA a) const {
    return static_cast<T>(a);
  }
  template <class VB>
  OPSPARSE_HD T right(VB) const {
    return fill;
  }
};

}  // namespace opsparse
