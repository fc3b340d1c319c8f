// Integer semirings saturate (semiring.hpp): once plus_times<int32> gave -737418241 and
// min_plus<int32> -2147483648 where "infinity" + 200000 was meant. Checked against 128-bit
// arithmetic clamped to the type's range. Saturating sums do not depend on the order of the
// terms when they all have one sign, which is what the products below have.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/semiring.hpp"

namespace {

using namespace opsparse;

/// a op b in 128 bits (unsigned for unsigned T: 64-bit products fill all 128), clamped to T.
template <class T, class Op>
T exact_clamped(T a, T b, Op op) {
  using W = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
  const W x = op(static_cast<W>(a), static_cast<W>(b));
  const W hi = std::numeric_limits<T>::max(), lo = std::numeric_limits<T>::min();
  return static_cast<T>(x > hi ? hi : x < lo ? lo : x);
}

template <class T>
class Saturation : public ::testing::Test {};
using integer_types = ::testing::Types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(Saturation, integer_types);

TYPED_TEST(Saturation, AddAndMultiplyClampToTheRange) {
  using T = TypeParam;
  constexpr T hi = std::numeric_limits<T>::max(), lo = std::numeric_limits<T>::min();
  std::vector<T> edge = {0,
                         1,
                         2,
                         3,
                         hi,
                         static_cast<T>(hi - 1),
                         static_cast<T>(hi / 2),
                         static_cast<T>(hi / 2 + 1),
                         lo,
                         static_cast<T>(lo + 1)};
  if constexpr (std::is_signed_v<T>)
    for (T x : {T(-1), T(-2), T(-3), static_cast<T>(lo / 2), static_cast<T>(lo / 2 - 1)})
      edge.push_back(x);
  std::mt19937_64 rng(7);
  for (int k = 0; k < 600; ++k) edge.push_back(static_cast<T>(rng() >> (rng() % 64)));
  for (T a : edge)
    for (T b : edge) {
      ASSERT_EQ(saturating_add(a, b), exact_clamped(a, b, [](auto x, auto y) { return x + y; }))
          << a << " + " << b;
      ASSERT_EQ(saturating_multiply(a, b),
                exact_clamped(a, b, [](auto x, auto y) { return x * y; }))
          << a << " * " << b;
    }
}

TEST(SaturatingSemirings, PlusTimesInt32SaturatesInsteadOfWrapping) {
  // Row 0: 2^30 * 4 + 2^30 * 4 (each product already beyond 2^31 - 1); row 1: the negatives;
  // row 2: in range.
  host_csr<std::int32_t> a(3, 2), b(2, 1);
  a.rpt = {0, 2, 4, 6};
  a.col = {0, 1, 0, 1, 0, 1};
  a.val = {1 << 30, 1 << 30, -(1 << 30), -(1 << 30), 1000, 2000};
  b.rpt = {0, 1, 2};
  b.col = {0, 0};
  b.val = {4, 4};
  const auto c = cpu::spgemm<plus_times<std::int32_t>>(a, b);
  ASSERT_EQ(c.nnz(), 3);
  EXPECT_EQ(c.val[0], std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(c.val[1], std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(c.val[2], 12000);
}

TEST(SaturatingSemirings, PlusTimesInt64AccumulatesToTheLimit) {
  // 64 products of 2^60 each: the sum passes 2^63 after 8 of them.
  host_csr<std::int64_t> a(1, 64), b(64, 1);
  for (int k = 0; k < 64; ++k) {
    a.col.push_back(k);
    a.val.push_back(std::int64_t(1) << 30);
    b.col.push_back(0);
    b.val.push_back(std::int64_t(1) << 30);
    b.rpt[k + 1] = k + 1;
  }
  a.rpt[1] = 64;
  const auto c = cpu::spgemm<plus_times<std::int64_t>>(a, b);
  EXPECT_EQ(c.val.at(0), std::numeric_limits<std::int64_t>::max());
}

TEST(SaturatingSemirings, MinPlusInfinityPlusALengthStaysInfinity) {
  constexpr std::int32_t inf = std::numeric_limits<std::int32_t>::max();
  host_csr<std::int32_t> a(1, 2), b(2, 2);
  a.rpt = {0, 2};
  a.col = {0, 1};
  a.val = {inf, 5};
  b.rpt = {0, 1, 2};
  b.col = {0, 1};
  b.val = {200000, 7};
  const auto c = cpu::spgemm<min_plus<std::int32_t>>(a, b);
  ASSERT_EQ(c.nnz(), 2);
  EXPECT_EQ(c.val[0], inf);  // once -2147483648 + 200000 - 1 wrapped
  EXPECT_EQ(c.val[1], 12);
}

}  // namespace
