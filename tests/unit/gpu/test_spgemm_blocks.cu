// Products computed in row blocks within a device-memory budget (opsparse/spgemm_blocks.cuh)
// against the CPU engine and the GPU engine's whole product: budgets a fifth and a fiftieth of
// what the whole takes (several blocks, each within the budget), masks and their complements,
// patterns, skewed rows, empty matrices, and a budget no single row fits.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/spgemm_blocks.cuh"
#include "test_support.hpp"

namespace {

using namespace opsparse;
using i64 = long long;

/// The device bytes that leave `share` of what the whole product is estimated to take to a block.
template <class T>
std::size_t budget_for(const host_csr<double>& a, const host_csr<double>& b, double share) {
  using costs = spgemm_block_costs<T>;
  const double whole = static_cast<double>(cpu::count_products(a, b)) * costs::per_product +
                       static_cast<double>(a.rows) * costs::per_row;
  return static_cast<std::size_t>(whole * share * 4 / 3) + 1;  // a quarter is held back
}

/// A with a few rows far heavier than the rest (blocks of uneven row counts).
host_csr<double> skewed(index_t n, std::uint64_t seed) {
  host_csr<double> a = test::random_csr<double>(n, n, 6, seed);
  host_csr<double> heavy = test::random_csr<double>(n, n, n / 10.0, seed + 1);
  host_csr<double> out(n, n);
  for (index_t i = 0; i < n; ++i) {
    const host_csr<double>& from = i % 97 == 5 ? heavy : a;
    for (offset_t k = from.rpt[i]; k < from.rpt[i + 1]; ++k) {
      out.col.push_back(from.col[k]);
      out.val.push_back(from.val[k]);
    }
    out.rpt[i + 1] = static_cast<offset_t>(out.col.size());
  }
  return out;
}

TEST(SpgemmBlocks, BlocksWithinTheBudgetGiveTheWholeProduct) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  context ctx;
  plan p;
  struct input {
    std::string name;
    host_csr<double> a, b;
  };
  const std::vector<input> inputs = {
      {"random 3000 x 2500 times 2500 x 4000", test::random_csr<double>(3000, 2500, 9, 3),
       test::random_csr<double>(2500, 4000, 7, 4)},
      {"skewed 2000 squared", skewed(2000, 11), skewed(2000, 11)}};
  for (const input& in : inputs) {
    const host_csr<double> want = cpu::spgemm<plus_times<double>>(in.a, in.b);
    const device_csr<double> a = device_csr<double>::upload(in.a),
                             b = device_csr<double>::upload(in.b);
    device_csr<double> whole_d;
    spgemm<plus_times<double>>(ctx, p, a.view(), b.view(), whole_d);
    ctx.synchronize();
    const host_csr<double> whole = whole_d.download();
    for (const double share : {0.2, 0.02}) {
      const std::size_t budget = budget_for<double>(in.a, in.b, share);
      const double usable = spgemm_block_costs<double>::rows_budget(budget);
      std::vector<index_t> firsts;
      offset_t entries = 0;
      const std::size_t blocks = spgemm_blocks<plus_times<double>>(
          ctx, p, a.view(), b.view(), budget, [&](index_t r0, const device_csr<double>& c) {
            firsts.push_back(r0);
            entries += c.nnz();
            EXPECT_LE(static_cast<double>(c.nnz()) * spgemm_block_costs<double>::per_product,
                      usable)
                << in.name << ": the block at row " << r0 << " is larger than the budget";
          });
      const std::string what = in.name + ", a share of " + std::to_string(share);
      EXPECT_EQ(blocks, firsts.size()) << what;
      EXPECT_GE(blocks, share < 0.1 ? 20u : 4u) << what;
      for (std::size_t k = 1; k < firsts.size(); ++k) EXPECT_LT(firsts[k - 1], firsts[k]) << what;
      EXPECT_EQ(entries, want.nnz()) << what;
      const host_csr<double> got =
          spgemm_to_host<plus_times<double>>(ctx, p, a.view(), b.view(), budget);
      EXPECT_TRUE(test::csr_near(got, want, 1e-12)) << what << ": against the CPU engine";
      EXPECT_TRUE(test::csr_near(got, whole, 1e-12)) << what << ": against the whole GPU product";
    }
  }
}

TEST(SpgemmBlocks, MasksAndPatternsInBlocks) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  context ctx;
  plan p;
  const host_csr<double> a = skewed(1500, 21), m = test::random_csr<double>(1500, 1500, 40, 22);
  const host_csr<pattern> ap = convert<pattern>(a), mp = convert<pattern>(m);
  const device_csr<double> da = device_csr<double>::upload(a), dm = device_csr<double>::upload(m);
  const device_csr<pattern> dap = device_csr<pattern>::upload(ap);
  const std::size_t budget = budget_for<double>(a, a, 0.05);
  const auto dmask = make_mask<structural_mask>(dm.rows(), dm.cols(), dm.rpt(), dm.col());
  const auto dnot = make_mask<complement_mask>(dm.rows(), dm.cols(), dm.rpt(), dm.col());
  EXPECT_TRUE(test::csr_near(
      spgemm_to_host<plus_times<double>>(ctx, p, da.view(), da.view(), budget, dmask),
      cpu::spgemm<plus_times<double>>(a, a, cpu::host_mask<structural_mask>(m)), 1e-12))
      << "C<M> = A·A";
  const host_csr<pattern> got_not =
      spgemm_to_host<any_pair>(ctx, p, dap.view(), dap.view(), budget, dnot);
  const host_csr<pattern> want_not =
      cpu::spgemm<any_pair>(ap, ap, cpu::host_mask<complement_mask>(mp));
  EXPECT_EQ(got_not.rpt, want_not.rpt) << "any_pair, C<¬M> = A·A";
  EXPECT_EQ(got_not.col, want_not.col);
  const host_csr<i64> got =
      spgemm_to_host<plus_pair<i64>>(ctx, p, dap.view(), dap.view(), budget, dmask);
  const host_csr<i64> want =
      cpu::spgemm<plus_pair<i64>>(ap, ap, cpu::host_mask<structural_mask>(mp));
  EXPECT_EQ(got.rpt, want.rpt) << "plus_pair, C<M> = A·A";
  EXPECT_EQ(got.col, want.col);
  EXPECT_EQ(got.val, want.val);
  EXPECT_GT(want.nnz(), 0);
}

TEST(SpgemmBlocks, EmptyOneBlockAndRowsTooLarge) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  context ctx;
  plan p;
  const host_csr<double> none(0, 5), b = test::random_csr<double>(5, 7, 2, 1);
  const device_csr<double> dn = device_csr<double>::upload(none),
                           db = device_csr<double>::upload(b);
  const host_csr<double> c = spgemm_to_host<plus_times<double>>(ctx, p, dn.view(), db.view(), 1000);
  EXPECT_EQ(c.rows, 0);
  EXPECT_EQ(c.cols, 7);
  EXPECT_EQ(c.nnz(), 0);
  const host_csr<double> a = test::random_csr<double>(400, 400, 20, 5);
  const device_csr<double> da = device_csr<double>::upload(a);
  // a budget the whole product fits: one block, the whole product
  std::size_t calls = 0;
  EXPECT_EQ(spgemm_blocks<plus_times<double>>(ctx, p, da.view(), da.view(), std::size_t{1} << 30,
                                              [&](index_t r0, const device_csr<double>& blk) {
                                                ++calls;
                                                EXPECT_EQ(r0, 0);
                                                EXPECT_EQ(blk.rows(), a.rows);
                                              }),
            1u);
  EXPECT_EQ(calls, 1u);
  // a budget under one row's products: refused before any block, naming the row
  try {
    spgemm_to_host<plus_times<double>>(ctx, p, da.view(), da.view(), 200);
    ADD_FAILURE() << "a budget no row fits was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("row "), std::string::npos) << e.what();
  }
  EXPECT_THROW(spgemm_to_host<plus_times<double>>(ctx, p, da.view(), db.view(), 1000),
               std::invalid_argument)
      << "A's columns are not B's rows";
  EXPECT_THROW(spgemm_to_host<plus_times<double>>(ctx, p, da.view(), da.view(), 0),
               std::invalid_argument);
}

}  // namespace
