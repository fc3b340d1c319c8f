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
//
// Integer semirings saturate: a sum or product beyond the value type's range is its largest (or
// smallest) value, in both engines, instead of overflowing (undefined behaviour in C++; the GPU
// wrapped, so plus_times<int> once gave -737418241 and min_plus<int> -2147483648 where
// "infinity" + 200000 was meant). For that, integer plus_times (and plus_pair below 64 bits)
// accumulate on the GPU with a compare-and-swap loop instead of atomicAdd.
#include <cstdint>
#include <limits>
#include <type_traits>

#include "opsparse/types.hpp"

#if defined(__CUDACC__)
#define OPSPARSE_HD __host__ __device__ __forceinline__
#else
#define OPSPARSE_HD inline
#endif

namespace opsparse {

/// a + b and a * b clamped to T's range for integers; the plain operations otherwise.
template <class T>
OPSPARSE_HD T saturating_add(T a, T b) {
  if constexpr (!std::is_integral_v<T> || std::is_same_v<T, bool>) {
    return a + b;
  } else {
    // constexpr locals: device code may use host constexpr functions only in constant expressions
    constexpr T hi = std::numeric_limits<T>::max(), lo = std::numeric_limits<T>::min();
    if constexpr (std::is_unsigned_v<T>) {
      const T r = static_cast<T>(a + b);
      return r < a ? hi : r;
    } else {
      if (b > 0 && a > hi - b) return hi;
      if (b < 0 && a < lo - b) return lo;
      return static_cast<T>(a + b);
    }
  }
}

template <class T>
OPSPARSE_HD T saturating_multiply(T a, T b) {
  if constexpr (!std::is_integral_v<T> || std::is_same_v<T, bool>) {
    return a * b;
  } else {
    constexpr T hi = std::numeric_limits<T>::max(), lo = std::numeric_limits<T>::min();
    if constexpr (std::is_unsigned_v<T>) {
      return (a != 0 && b > hi / a) ? hi : static_cast<T>(a * b);
    } else if constexpr (sizeof(T) < 8) {
      const long long r = static_cast<long long>(a) * static_cast<long long>(b);
      return r > hi ? hi : r < lo ? lo : static_cast<T>(r);
    } else {
      // The CERT INT32-C checks, by division: no wider type on every compiler and device.
      if (a > 0) {
        if (b > 0) return a > hi / b ? hi : a * b;
        return b < lo / a ? lo : a * b;
      }
      if (b > 0) return a < lo / b ? lo : a * b;
      return (a != 0 && b < hi / a) ? hi : a * b;
    }
  }
}

/// How the GPU engine applies `add` to a shared or global accumulator.
enum class add_kind {
  plus,    ///< atomicAdd
  min,     ///< atomicMin (CAS loop for floating point)
  any,     ///< any value will do: the first product's value is kept, no accumulation
  custom,  ///< compare-and-swap loop calling Semiring::add
};

/// (+, ×): MCL's expansion, ordinary numerics; saturating for integers.
template <class T>
struct plus_times {
  using value_type = T;
  static constexpr add_kind kind = std::is_integral_v<T> ? add_kind::custom : add_kind::plus;
  OPSPARSE_HD static T identity() { return T(0); }
  OPSPARSE_HD static T add(T a, T b) { return saturating_add(a, b); }
  template <class A, class B>
  OPSPARSE_HD static T multiply(A a, B b) {
    return saturating_multiply(static_cast<T>(a), static_cast<T>(b));
  }
};

/// (+, pair): every product counts 1; triangle counting (C<L> = L·L, count = sum C). Saturating
/// below 64 bits; a 64-bit count keeps atomicAdd, since counting one per product it cannot pass
/// 2^63 before the products (at most 2^63 row offsets) run out.
template <class T>
struct plus_pair {
  using value_type = T;
  static constexpr add_kind kind =
      std::is_integral_v<T> && sizeof(T) < 8 ? add_kind::custom : add_kind::plus;
  OPSPARSE_HD static T identity() { return T(0); }
  OPSPARSE_HD static T add(T a, T b) { return saturating_add(a, b); }
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
  /// Saturating for integers: "infinity" (the largest value) plus a length stays infinity.
  template <class A, class B>
  OPSPARSE_HD static T multiply(A a, B b) {
    return saturating_add(static_cast<T>(a), static_cast<T>(b));
  }
};

}  // namespace opsparse
