#pragma once
#include <cmath>

#include "opsparse/semiring.hpp"

namespace opsparse::test {
/// (max, ×): the strongest path of two steps. Five members make a semiring.
struct max_times {
  using value_type = double;
  static constexpr add_kind kind = add_kind::custom;
  OPSPARSE_HD static double identity() { return -INFINITY; }
  OPSPARSE_HD static double add(double a, double b) { return a > b ? a : b; }
  template <class A, class B>
  OPSPARSE_HD static double multiply(A a, B b) {
    return static_cast<double>(a) * static_cast<double>(b);
  }
};
}  // namespace opsparse::test
