// The derived kernel configurations: on a V100-like device they must be the paper's Tables 5
// and 6 (table sizes and ranges), and on an H100-like device they must grow while keeping the
// occupancy the paper chose for each kernel.
#include "opsparse/policy.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

using namespace opsparse;

TEST(Policy, V100SymbolicIsPaperTable5) {
  const auto cfg = symbolic_config(v100_like(), 1.2);
  ASSERT_EQ(cfg.bins.size(), 9u);  // bins 0-7 shared + the global kernel 8
  const int tables[] = {32, 512, 1024, 2048, 4096, 8192, 12287};
  const offset_t ranges[] = {26, 426, 853, 1706, 3413, 6826, 10240};
  // Bin 0: the paper's 1024 threads a block, now multi_row_block_threads (the same table a row).
  const int threads[] = {multi_row_block_threads, 64, 128, 256, 512, 1024, 1024};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(cfg.bins[i].table_size, tables[i]) << "bin " << i;
    EXPECT_EQ(cfg.bins[i].range, ranges[i]) << "bin " << i;
    EXPECT_EQ(cfg.bins[i].block_threads, threads[i]) << "bin " << i;
  }
  EXPECT_EQ(cfg.bins[0].threads_per_row, 4);
  // Kernel 7: the whole 96 KiB at 50% occupancy (the paper's 24575 less the overflow flag).
  EXPECT_NEAR(cfg.bins[7].table_size, 24575, 2);
  EXPECT_EQ(cfg.bins[7].blocks_per_sm, 1);
  EXPECT_EQ(cfg.bins[7].range, std::numeric_limits<offset_t>::max());
  EXPECT_EQ(cfg.overflow_threshold, static_cast<int>(0.8 * cfg.bins[7].table_size));
  for (int i = 0; i <= 6; ++i)
    EXPECT_EQ(cfg.bins[i].blocks_per_sm * cfg.bins[i].block_threads, 2048);
}

TEST(Policy, V100NumericIsPaperTable6) {
  const auto cfg = numeric_config(v100_like(), sizeof(double), 2.0);
  ASSERT_EQ(cfg.bins.size(), 8u);
  const int tables[] = {31, 255, 511, 1023, 2047, 4095, 8191};
  const offset_t ranges[] = {16, 128, 256, 512, 1024, 2048, 4096};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(cfg.bins[i].table_size, tables[i]) << "bin " << i;
    EXPECT_EQ(cfg.bins[i].range, ranges[i]) << "bin " << i;
  }
  EXPECT_EQ(cfg.bins[0].threads_per_row, 8);
  EXPECT_EQ(cfg.bins[6].blocks_per_sm, 1);  // deliberately 50%
  EXPECT_EQ(cfg.bins[7].table_size, 0);     // global
}

TEST(Policy, H100TablesGrowAndFit) {
  const auto d = h100_like();
  const auto v = symbolic_config(v100_like());
  const auto s = symbolic_config(d);
  const auto n = numeric_config(d, sizeof(double));
  for (std::size_t i = 0; i + 1 < s.bins.size(); ++i) {
    EXPECT_GT(s.bins[i].table_size, v.bins[i].table_size) << "symbolic bin " << i;
    const auto& b = s.bins[i];
    // blocks_per_sm blocks of this size must fit the SM, reservation included.
    EXPECT_LE(b.blocks_per_sm * (b.smem_bytes + d.smem_reserved_per_block), d.smem_per_sm);
    EXPECT_LE(b.smem_bytes, d.smem_per_block_optin);
  }
  for (std::size_t i = 0; i + 1 < n.bins.size(); ++i) {
    const auto& b = n.bins[i];
    EXPECT_LE(b.blocks_per_sm * (b.smem_bytes + d.smem_reserved_per_block), d.smem_per_sm);
    EXPECT_LE(b.smem_bytes, d.smem_per_block_optin);
    if (i > 0) EXPECT_GT(b.range, n.bins[i - 1].range);
  }
  // The largest shared numeric bin on an H100 holds rows of more than 9,000 entries in double.
  EXPECT_GT(n.bins[6].range, 9000);
}

TEST(Policy, RangeFactorsMoveRanges) {
  const auto d = h100_like();
  const auto a = numeric_config(d, 8, 1.0), b = numeric_config(d, 8, 3.0);
  EXPECT_GT(a.bins[3].range, b.bins[3].range);
  const auto s1 = symbolic_config(d, 1.0), s15 = symbolic_config(d, 1.5);
  EXPECT_EQ(s1.bins[2].range, s1.bins[2].table_size);
  EXPECT_LT(s15.bins[2].range, s1.bins[2].range);
  EXPECT_NE(describe(s1, "symbolic").find("global"), std::string::npos);
  // with factor 1 no row may have more keys than its table has slots
  for (const auto& cfg :
       {s1, a, symbolic_config(v100_like(), 1.0), numeric_config(v100_like(), 8, 1.0)})
    for (const auto& bin : cfg.bins)
      if (bin.table_size > 0 && bin.range != std::numeric_limits<offset_t>::max())
        EXPECT_LE(bin.range, bin.table_size);
}

// Fewer lanes a row in bin 0: more rows a block in the same shared memory, smaller tables.
TEST(Policy, BinZeroLanesTradeTableForRows) {
  const auto d = h100_like();
  for (int lanes : {2, 4, 8}) {
    SCOPED_TRACE(lanes);
    const auto s = symbolic_config(d, 1.2, lanes);
    const auto n = numeric_config(d, sizeof(double), 2.0, lanes);
    for (const auto* cfg : {&s, &n}) {
      const auto& b0 = cfg->bins[0];
      EXPECT_EQ(b0.threads_per_row, lanes);
      EXPECT_EQ(b0.block_threads, multi_row_block_threads);
      EXPECT_LE(b0.blocks_per_sm * (b0.smem_bytes + d.smem_reserved_per_block), d.smem_per_sm);
      EXPECT_LE(b0.range, b0.table_size);
      EXPECT_LE(b0.range, cfg->bins[1].range);
    }
  }
  EXPECT_LT(symbolic_config(d, 1.2, 2).bins[0].table_size,
            symbolic_config(d, 1.2, 4).bins[0].table_size);
  EXPECT_LT(numeric_config(d, 8, 2.0, 4).bins[0].table_size,
            numeric_config(d, 8, 2.0, 8).bins[0].table_size);
  // the other bins do not depend on bin 0's lanes
  EXPECT_EQ(numeric_config(d, 8, 2.0, 2).bins[3].range, numeric_config(d, 8, 2.0, 8).bins[3].range);
  EXPECT_THROW(symbolic_config(d, 1.2, 3), std::invalid_argument);
  EXPECT_THROW(numeric_config(d, 8, 2.0, 16), std::invalid_argument);
}
