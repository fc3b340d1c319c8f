#pragma once
// Semirings, GraphBLAS style. A semiring names its output value type, the additive identity, the
// additive operation (`add`, with `add_kind` telling the GPU engine which hardware atomic, if any,
// implements it) and the multiplicative operation `multiply(a, b)` over the two input values.
// Both engines take a semiring as a template parameter. A user semiring needs the same five
// members; an `add_kind::custom` add is applied on the GPU with a compare-and-swap loop.
//
//   struct max_times { using value_type = double;
//     static constexpr add_kind kind = add_kind::custom;
//     OPSPARSE_HD static double identity() { return -INFINITY; }
//     OPSPARSE_HD static double add(double a, double b) { return a > b ? a : b; }
//     template <class A, class B> OPSPARSE_HD static double multiply(A a, B b) { return a * b; } };
#include <cstdint>
#include <limits>

#include "opsparse/types.hpp"

#if defined(__CUDACC__)
#define OPSPARSE_HD __host__ __device__ __forceinline__
#else
#define OPSPARSE_HD inline
#endif

namespace opsparse {

/// How the GPU engine applies `add` to a shared or global accumulator.
enum class add_kind {
  plus,    ///< atomicAdd
  min,     ///< atomicMin (CAS loop for floating point)
  any,     ///< any value will do: the first product's value is kept, no accumulation
  custom,  ///< compare-and-swap loop calling Semiring::add
};

/// (+, ×): MCL's expansion, ordinary numerics.
template <class T>
struct plus_times {
  using value_type = T;
  static constexpr add_kind kind = add_kind::plus;
  OPSPARSE_HD static T identity() { return T(0); }
  OPSPARSE_HD static T add(T a, T b) { return a + b; }
  template <class A, class B>
  OPSPARSE_HD static T multiply(A a, B b) {
    return static_cast<T>(a) * static_cast<T>(b);
  }
};

/// (+, pair): every product counts 1; triangle counting (C<L> = L·L, count = sum C).
template <class T>
struct plus_pair {
  using value_type = T;
  static constexpr add_kind kind = add_kind::plus;
  OPSPARSE_HD static T identity() { return T(0); }
  OPSPARSE_HD static T add(T a, T b) { return a + b; }
  template <class A, class B>
  OPSPARSE_HD static T multiply(A, B) {
    return T(1);
  }
};

/// (any, pair) over patterns: structural reachability (BFS frontier expansion). No values at all.
struct any_pair {
  using value_type = pattern;
  static constexpr add_kind kind = add_kind::any;
  OPSPARSE_HD static pattern identity() { return {}; }
  OPSPARSE_HD static pattern add(pattern, pattern) { return {}; }
  template <class A, class B>
  OPSPARSE_HD static pattern multiply(A, B) {
    return {};
  }
};

/// (or, and) over 0/1 values of type T (GraphBLAS LOR_LAND): boolean reachability with values.
template <class T>
struct or_and {
  using value_type = T;
  static constexpr add_kind kind = add_kind::custom;
  OPSPARSE_HD static T identity() { return T(0); }
  OPSPARSE_HD static T add(T a, T b) { return (a != T(0) || b != T(0)) ? T(1) : T(0); }
  template <class A, class B>
  OPSPARSE_HD static T multiply(A a, B b) {
    return (a != A(0) && b != B(0)) ? T(1) : T(0);
  }
};

/// (min, +): shortest paths. The identity is +infinity (or the largest integer).
template <class T>
struct min_plus {
  using value_type = T;
  static constexpr add_kind kind = add_kind::min;
  OPSPARSE_HD static T identity() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::max();
  }
  OPSPARSE_HD static T add(T a, T b) { return b < a ? b : a; }
  template <class A, class B>
  OPSPARSE_HD static T multiply(A a, B b) {
    return static_cast<T>(a) + static_cast<T>(b);
  }
};

}  // namespace opsparse
