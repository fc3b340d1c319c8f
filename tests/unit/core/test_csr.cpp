#include "opsparse/csr.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

using opsparse::host_csr;

TEST(HostCsr, EmptyIsValid) {
  host_csr<double> a(0, 0);
  EXPECT_EQ(opsparse::check(a), "");
  host_csr<double> b(3, 0);
  EXPECT_EQ(opsparse::check(b), "");
}

TEST(HostCsr, DetectsEachViolation) {
  host_csr<double> a(2, 3);
  a.rpt = {0, 2, 3};
  a.col = {0, 2, 1};
  a.val = {1, 2, 3};
  EXPECT_EQ(opsparse::check(a), "");
  auto b = a;
  b.col[1] = 3;
  EXPECT_NE(opsparse::check(b).find("out of range"), std::string::npos);
  b = a;
  b.col = {2, 0, 1};
  EXPECT_NE(opsparse::check(b).find("strictly increasing"), std::string::npos);
  b = a;
  b.rpt = {0, 3, 2};
  EXPECT_NE(opsparse::check(b).find("decreases"), std::string::npos);
  b = a;
  b.val.pop_back();
  EXPECT_NE(opsparse::check(b).find("val has"), std::string::npos);
  EXPECT_THROW(opsparse::validate(b), std::invalid_argument);
}

TEST(HostCsr, TransposeTwiceIsIdentity) {
  auto a = opsparse::test::random_csr<double>(37, 53, 4.0, 7);
  auto t = opsparse::transpose(a);
  EXPECT_EQ(t.rows, 53);
  EXPECT_EQ(opsparse::check(t), "");
  EXPECT_TRUE(opsparse::test::csr_near(opsparse::transpose(t), a, 0.0));
}

TEST(HostCsr, ConvertPatternGivesOnes) {
  auto a = opsparse::test::random_csr<double>(5, 5, 2.0, 1);
  auto p = opsparse::convert<opsparse::pattern>(a);
  EXPECT_TRUE(p.val.empty());
  auto d = opsparse::convert<double>(p);
  for (double v : d.val) EXPECT_EQ(v, 1.0);
}
