// The GPU engine against the CPU engine (the oracle): shapes, every bin of both phases, the
// global-memory paths, real matrices, a power-law graph, >1e8 products, plan reuse, numeric-only
// reuse, every instantiated semiring/mask, every ablation switch, and misuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>

#include "opsparse/context.hpp"
#include "opsparse/cpu/graph.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/distributed/gpu_engine.hpp"
#include "opsparse/io.hpp"
#include "opsparse/policy.hpp"
#include "opsparse/spgemm.hpp"
#include "opsparse/spgemm_reduce.hpp"

#include "test_support.hpp"
#include "user_semiring.hpp"

using namespace opsparse;
using opsparse::test::csr_near;
using opsparse::test::random_csr;

namespace {

context& shared_context() {
  static std::unique_ptr<context> ctx = std::make_unique<context>();
  return *ctx;
}

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!gpu_available(&why)) {
      if (opsparse::test::gpu_required()) FAIL() << "OPSPARSE_REQUIRE_GPU=1 but " << why;
      GTEST_SKIP() << "GPU test skipped: " << why;
    }
  }
  context& ctx() { return shared_context(); }
};

template <class S, class VA, class VB, class Mask = no_mask>
host_csr<typename S::value_type> on_gpu(context& ctx, plan& p, const host_csr<VA>& a,
                                        const host_csr<VB>& b, const host_csr<pattern>* m = nullptr,
                                        const spgemm_options& opt = {}) {
  auto da = device_csr<VA>::upload(a, ctx.stream());
  auto db = device_csr<VB>::upload(b, ctx.stream());
  device_csr<pattern> dm;
  Mask mask{};
  if constexpr (Mask::kind != mask_kind::none) {
    dm = device_csr<pattern>::upload(*m, ctx.stream());
    mask = device_mask<Mask>(dm);
  }
  device_csr<typename S::value_type> dc;
  spgemm<S>(ctx, p, da.view(), db.view(), dc, mask, opt);
  ctx.synchronize();
  return dc.download(ctx.stream());
}

template <class S, class VA, class VB, class Mask = no_mask>
host_csr<typename S::value_type> on_cpu(const host_csr<VA>& a, const host_csr<VB>& b,
                                        const host_csr<pattern>* m = nullptr) {
  if constexpr (Mask::kind == mask_kind::none)
    return cpu::spgemm<S>(a, b);
  else
    return cpu::spgemm<S>(a, b, cpu::host_mask<Mask>(*m));
}

template <class S, class VA, class VB, class Mask = no_mask>
::testing::AssertionResult same(context& ctx, const host_csr<VA>& a, const host_csr<VB>& b,
                                const host_csr<pattern>* m = nullptr, double rel = 1e-12,
                                const spgemm_options& opt = {}) {
  plan p;
  const auto g = on_gpu<S, VA, VB, Mask>(ctx, p, a, b, m, opt);
  const auto c = on_cpu<S, VA, VB, Mask>(a, b, m);
  const std::string bad = check(g);
  if (!bad.empty()) return ::testing::AssertionFailure() << "GPU result invalid: " << bad;
  return csr_near(g, c, rel);
}

/// Rows of exactly the given sizes over `cols` columns, random distinct columns.
host_csr<double> rows_of_sizes(const std::vector<int>& sizes, index_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  host_csr<double> a(static_cast<index_t>(sizes.size()), cols);
  std::vector<index_t> perm(cols);
  for (index_t i = 0; i < cols; ++i) perm[i] = i;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    // partial Fisher-Yates: the first sizes[i] entries are a random subset
    for (int k = 0; k < sizes[i]; ++k) std::swap(perm[k], perm[k + rng() % (cols - k)]);
    std::vector<index_t> row(perm.begin(), perm.begin() + sizes[i]);
    std::sort(row.begin(), row.end());
    for (index_t c : row) {
      a.col.push_back(c);
      a.val.push_back(0.5 + (rng() % 1000) / 1000.0);
    }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

/// Rows of the given sizes whose distinct columns lie in a window of `spread` times their size,
/// the windows placed along the diagonal: the narrow rows of a mesh's matrix.
host_csr<double> narrow_rows(const std::vector<int>& sizes, index_t cols, int spread,
                             std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto rows = static_cast<index_t>(sizes.size());
  host_csr<double> a(rows, cols);
  for (index_t i = 0; i < rows; ++i) {
    const index_t w = std::min<index_t>(cols, std::max(1, spread * sizes[i]));
    const index_t start =
        static_cast<index_t>((static_cast<long long>(i) * cols / rows) % (cols - w + 1));
    std::vector<index_t> pick(static_cast<std::size_t>(w));
    for (index_t k = 0; k < w; ++k) pick[k] = start + k;
    for (int k = 0; k < sizes[i]; ++k) std::swap(pick[k], pick[k + rng() % (w - k)]);
    std::sort(pick.begin(), pick.begin() + sizes[i]);
    for (int k = 0; k < sizes[i]; ++k) {
      a.col.push_back(pick[k]);
      a.val.push_back(0.5 + (rng() % 1000) / 1000.0);
    }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

/// B with `per_row` consecutive entries per row starting at the row index (wrapping): A·B then
/// has products = per_row * deg and nnz between deg and per_row * deg.
host_csr<double> band(index_t n, int per_row) {
  host_csr<double> b(n, n);
  for (index_t i = 0; i < n; ++i) {
    std::vector<index_t> cols;
    for (int k = 0; k < per_row; ++k) cols.push_back((i + k) % n);
    std::sort(cols.begin(), cols.end());
    for (index_t c : cols) {
      b.col.push_back(c);
      b.val.push_back(1.0 + c % 7);
    }
    b.rpt[i + 1] = static_cast<offset_t>(b.col.size());
  }
  return b;
}

host_csr<double> rmat(int scale, int edge_factor, std::uint64_t seed) {
  const index_t n = 1 << scale;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::pair<index_t, index_t>> e;
  for (long long k = 0; k < static_cast<long long>(edge_factor) * n; ++k) {
    index_t r = 0, c = 0;
    for (int l = 0; l < scale; ++l) {
      const double x = u(rng);
      const int q = x < 0.57 ? 0 : x < 0.76 ? 1 : x < 0.95 ? 2 : 3;
      r = 2 * r + (q >> 1);
      c = 2 * c + (q & 1);
    }
    e.emplace_back(r, c);
  }
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  host_csr<double> a(n, n);
  for (auto [r, c] : e) {
    a.col.push_back(c);
    a.val.push_back(u(rng) + 0.5);
    ++a.rpt[r + 1];
  }
  for (index_t i = 0; i < n; ++i) a.rpt[i + 1] += a.rpt[i];
  return a;
}

/// spgemm_reduce against the CPU engine: row sums of C<M> = A·B, their total and the products
/// enumerated (those of a row whose mask row is not empty; where B is large and every row of it
/// sorted, only the entries of B rows longer than a warp that lie between the least and the
/// greatest column of the mask row).
template <class S, class VA, class VB>
::testing::AssertionResult reduce_matches(context& ctx, plan& p, const host_csr<VA>& a,
                                          const host_csr<VB>& b, const host_csr<pattern>& m,
                                          double rel) {
  using T = typename S::value_type;
  auto da = device_csr<VA>::upload(a, ctx.stream());
  auto db = device_csr<VB>::upload(b, ctx.stream());
  auto dm = device_csr<pattern>::upload(m, ctx.stream());
  device_buffer<T> sums(static_cast<std::size_t>(a.rows) + 1);
  const T total =
      spgemm_reduce<S>(ctx, p, da.view(), db.view(), device_mask<structural_mask>(dm), sums.data());
  std::vector<T> got(static_cast<std::size_t>(a.rows));
  if (a.rows > 0)
    OPSPARSE_CUDA_TRY(
        cudaMemcpy(got.data(), sums.data(), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
  const auto c = cpu::spgemm<S>(a, b, cpu::host_mask<structural_mask>(m));
  double want_total = 0, scale = 0;
  offset_t want_products = 0;
  bool ranged = b.nnz() >= spgemm_reduce_range_min_entries;
  for (index_t k = 0; k < b.rows; ++k)
    ranged = ranged && std::is_sorted(b.col.begin() + b.rpt[k], b.col.begin() + b.rpt[k + 1]);
  for (index_t i = 0; i < a.rows; ++i) {
    double row = 0, row_scale = 0;
    for (offset_t q = c.rpt[i]; q < c.rpt[i + 1]; ++q) {
      row += static_cast<double>(c.val[q]);
      row_scale += std::abs(static_cast<double>(c.val[q]));
    }
    if (std::abs(static_cast<double>(got[i]) - row) > rel * row_scale)
      return ::testing::AssertionFailure() << "row " << i << ": GPU " << got[i] << ", CPU " << row;
    want_total += row;
    scale += row_scale;
    if (m.rpt[i + 1] == m.rpt[i]) continue;
    const auto [lo, hi] =
        std::minmax_element(m.col.begin() + m.rpt[i], m.col.begin() + m.rpt[i + 1]);
    for (offset_t q = a.rpt[i]; q < a.rpt[i + 1]; ++q) {
      const offset_t start = b.rpt[a.col[q]], end = b.rpt[a.col[q] + 1];
      const bool whole = !ranged || end - start <= 32;  // column_range::min_entries
      for (offset_t e = start; e < end; ++e)
        want_products += whole || (b.col[e] >= *lo && b.col[e] <= *hi);
    }
  }
  if (std::abs(static_cast<double>(total) - want_total) > rel * scale)
    return ::testing::AssertionFailure() << "total: GPU " << total << ", CPU " << want_total;
  if (p.stats().products != want_products)
    return ::testing::AssertionFailure()
           << "products: GPU " << p.stats().products << ", CPU " << want_products;
  return ::testing::AssertionSuccess() << total;
}

host_csr<pattern> strictly_lower(const host_csr<pattern>& a) {
  host_csr<pattern> l(a.rows, a.cols);
  for (index_t i = 0; i < a.rows; ++i) {
    for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k)
      if (a.col[k] < i) l.col.push_back(a.col[k]);
    l.rpt[i + 1] = static_cast<offset_t>(l.col.size());
  }
  return l;
}

}  // namespace

TEST_F(Gpu, EmptyAndDegenerateShapes) {
  const std::pair<std::pair<index_t, index_t>, index_t> shapes[] = {
      {{0, 0}, 0}, {{0, 5}, 3}, {{4, 0}, 6}, {{3, 4}, 0}, {{1, 1}, 1}};
  for (auto [mk, n] : shapes) {
    const auto a = random_csr<double>(mk.first, mk.second, 2.0, 1);
    const auto b = random_csr<double>(mk.second, n, 2.0, 2);
    EXPECT_TRUE((same<plus_times<double>>(ctx(), a, b)))
        << mk.first << "x" << mk.second << "x" << n;
  }
  host_csr<double> zero(5, 5);  // no entries at all
  EXPECT_TRUE((same<plus_times<double>>(ctx(), zero, zero)));
}

TEST_F(Gpu, OneByOneAndIdentity) {
  host_csr<double> one(1, 1);
  one.rpt = {0, 1};
  one.col = {0};
  one.val = {3.0};
  plan p;
  const auto c = on_gpu<plus_times<double>>(ctx(), p, one, one);
  ASSERT_EQ(c.nnz(), 1);
  EXPECT_EQ(c.val[0], 9.0);
  host_csr<double> eye(100, 100);
  for (index_t i = 0; i < 100; ++i) {
    eye.col.push_back(i);
    eye.val.push_back(1.0);
    eye.rpt[i + 1] = i + 1;
  }
  const auto a = random_csr<double>(100, 100, 9.0, 3);
  plan q;
  EXPECT_TRUE(csr_near(on_gpu<plus_times<double>>(ctx(), q, eye, a), a, 0.0));
}

TEST_F(Gpu, RectangularRandom) {
  const index_t dims[][3] = {{50, 80, 30}, {300, 7, 500}, {1000, 2000, 100}, {17, 1, 17}};
  for (auto& d : dims) {
    const auto a = random_csr<double>(d[0], d[1], 5.0, 11 + d[0]);
    const auto b = random_csr<double>(d[1], d[2], 5.0, 12 + d[1]);
    EXPECT_TRUE((same<plus_times<double>>(ctx(), a, b))) << d[0] << "x" << d[1] << "x" << d[2];
  }
}

// The distributed layer's GPU engine (opsparse/distributed/gpu_engine.hpp) alone, as dist::spgemm
// calls it for a stage's pieces: rectangular, empty operands, one engine and its copy reused (the
// device buffers grow and shrink in use), against the CPU engine.
TEST_F(Gpu, DistGpuEngineMatchesTheCpuEngine) {
  const opsparse::dist::gpu_engine<plus_times<double>> engine;
  const auto copy = engine;  // copies share the device state
  const index_t dims[][3] = {
      {37, 53, 29}, {3000, 2500, 3000}, {1, 1, 1}, {800, 7, 4000}, {50, 80, 30}};
  int k = 0;
  for (auto& d : dims) {
    const auto a = random_csr<double>(d[0], d[1], 6.0, 31 + d[0]);
    const auto b = random_csr<double>(d[1], d[2], 6.0, 32 + d[1]);
    const auto got = (k++ % 2 ? copy : engine)(a, b);
    const std::string bad = check(got);
    EXPECT_TRUE(bad.empty()) << bad;
    EXPECT_TRUE(csr_near(got, cpu::spgemm<plus_times<double>>(a, b), 1e-12))
        << d[0] << "x" << d[1] << "x" << d[2];
  }
  const auto empty = engine(host_csr<double>(37, 53), random_csr<double>(53, 29, 3.0, 5));
  EXPECT_EQ(empty.rows, 37);
  EXPECT_EQ(empty.cols, 29);
  EXPECT_EQ(empty.nnz(), 0);
  EXPECT_THROW(engine(random_csr<double>(3, 4, 1.0, 1), random_csr<double>(5, 6, 1.0, 2)),
               std::invalid_argument);
}

// EveryBinOfBothPhases with bin 0 at `sym_lanes` and `num_lanes` threads a row.
static void every_bin_of_both_phases(int sym_lanes, int num_lanes) {
  const auto sym = symbolic_config(shared_context().device(), 1.2, sym_lanes);
  const auto num = numeric_config(shared_context().device(), sizeof(double), 2.0, num_lanes);
  std::vector<int> sizes = {0, 1, 2};
  auto add_range = [&](const phase_config& cfg) {
    for (std::size_t i = 0; i + 1 < cfg.bins.size(); ++i) {
      const offset_t r = cfg.bins[i].range;
      if (r > 200000) continue;
      sizes.push_back(static_cast<int>(r));
      sizes.push_back(static_cast<int>(r) + 1);
    }
  };
  add_range(sym);
  add_range(num);
  // past the symbolic overflow threshold and the numeric shared tables
  sizes.push_back(sym.overflow_threshold + 1000);
  sizes.push_back(sym.bins[7].table_size);
  sizes.push_back(num.bins[6].range * 3);
  const index_t cols = 1 << 18;
  // a row covering half of C's columns: the windows' bin (beside the dense accumulator's when
  // C's rows span more than spgemm_tuning::sparse_row_max_windows windows)
  sizes.push_back(cols / 2);
  for (int& s : sizes) s = std::min(s, static_cast<int>(cols));
  const auto a = rows_of_sizes(sizes, cols, 5);
  // identity-like B: products == nnz == row size, so both phases see the same sizes
  const auto b1 = band(cols, 1);
  // a band of 3: products = 3 x size, nnz = size + ~2: symbolic and numeric bins differ
  const auto b3 = band(cols, 3);
  spgemm_options lanes;
  lanes.tuning.symbolic_row_lanes = sym_lanes;
  lanes.tuning.numeric_row_lanes = num_lanes;
  {
    plan p;
    const auto g = on_gpu<plus_times<double>>(shared_context(), p, a, b3, nullptr, lanes);
    EXPECT_TRUE(csr_near(g, cpu::spgemm<plus_times<double>>(a, b3), 1e-12));
  }
  for (bool dense : {true, false}) {
    SCOPED_TRACE(dense ? "bitmap + dense accumulator for long rows" : "paper's global hash tables");
    spgemm_options opt = lanes;
    opt.tuning.dense_long_rows = dense;
    const auto* b = &b1;
    plan p;
    const auto g = on_gpu<plus_times<double>>(shared_context(), p, a, *b, nullptr, opt);
    EXPECT_TRUE(csr_near(g, cpu::spgemm<plus_times<double>>(a, *b), 1e-12));
    const auto& st = p.stats();
    for (std::size_t i = 0; i < st.symbolic_bin_rows.size(); ++i)
      EXPECT_GT(st.symbolic_bin_rows[i], 0) << "symbolic bin " << i << " not hit";
    for (std::size_t i = 0; i < st.numeric_bin_rows.size(); ++i)
      EXPECT_GT(st.numeric_bin_rows[i], 0) << "numeric bin " << i << " not hit";
    EXPECT_GT(st.max_row_nnz, sym.overflow_threshold)
        << "no row reached the symbolic global kernel";
  }
}

// Rows sized at every range boundary of both phases (from this device's configuration), plus
// rows past the largest shared table in both phases: every shared kernel, the symbolic overflow
// to global memory (kernel 8) and the numeric global kernel run, each checked by plan.stats();
// with bin 0's lanes a row as the paper has them and as the other kernels compiled take them.
TEST_F(Gpu, EveryBinOfBothPhases) {
  const std::pair<int, int> lanes[] = {{4, 8}, {2, 4}, {8, 2}};
  for (const auto& [sym_lanes, num_lanes] : lanes) {
    SCOPED_TRACE("bin 0 lanes " + std::to_string(sym_lanes) + ", " + std::to_string(num_lanes));
    every_bin_of_both_phases(sym_lanes, num_lanes);
  }
}

// Symbolic bin 0's kernel is queued before the host knows the bin's rows: it reads their count
// on the device, on a grid for every row of A. Every row in bin 0 (the fill's bins[i] = i), rows
// of bin 0 among longer ones, and no row in bin 0, each with three times the rows the device
// holds at once, and 2M rows; the same C as the CPU's and the bins' rows as counted.
TEST_F(Gpu, SymbolicBinZeroReadsItsRowsOnTheDevice) {
  const device_info& dev = ctx().device();
  for (const int lanes : {2, 4, 8}) {
    SCOPED_TRACE("bin 0 lanes " + std::to_string(lanes));
    const auto sym = symbolic_config(dev, spgemm_options{}.tuning.symbolic_range, lanes);
    const bin_config& b0 = sym.bins[0];
    const long long resident = static_cast<long long>(dev.sm_count) * b0.blocks_per_sm *
                               (b0.block_threads / b0.threads_per_row);
    const int m = static_cast<int>(3 * resident + 77);
    const index_t cols = 1 << 20;
    const auto b = band(cols, 3);  // a row of A of k entries: 3k products
    const int small = 1, large = static_cast<int>(b0.range);  // 3 and 3 x range products
    ASSERT_GT(3 * large, b0.range);
    struct shape {
      const char* name;
      int every;  // one row in |every| is large (1: all, 0: none; < 0: `many` rows)
    };
    // rows enough for several steps of every binning block (a bin_grid chunk)
    const int many = (1 << 21) + 5;
    for (const shape sh : {shape{"all in bin 0", 0}, shape{"mixed", 97}, shape{"none", 1},
                           shape{"mixed, many rows", -97}}) {
      SCOPED_TRACE(sh.name);
      if (sh.every < 0 && lanes != 4) continue;
      std::vector<int> sizes(sh.every == 1 ? 4000 : sh.every < 0 ? many : m, small);
      if (sh.every != 0)
        for (std::size_t i = 0; i < sizes.size(); i += std::abs(sh.every)) sizes[i] = large;
      const auto a = rows_of_sizes(sizes, cols, 17);
      spgemm_options opt;
      opt.tuning.symbolic_row_lanes = lanes;
      plan p;
      const auto g = on_gpu<plus_times<double>>(ctx(), p, a, b, nullptr, opt);
      EXPECT_TRUE(csr_near(g, cpu::spgemm<plus_times<double>>(a, b), 1e-12));
      offset_t in_bin0 = 0;
      for (const int n : sizes) in_bin0 += 3 * n <= b0.range;
      EXPECT_EQ(p.stats().symbolic_bin_rows.at(0), in_bin0);
    }
  }
}

// The numeric bin 0's lanes a row, automatic: 4 where A's rows average under 3.5 nonzeros, so
// that rows of C between the 4-lane and the 8-lane bin 0's ranges leave bin 0; 8 elsewhere. The
// same C either way, equal to the CPU's.
TEST_F(Gpu, NumericBinZeroLanesFollowAsRows) {
  const auto r4 = numeric_config(ctx().device(), sizeof(double), 2.0, 4).bins[0].range;
  const auto r8 = numeric_config(ctx().device(), sizeof(double), 2.0, 8).bins[0].range;
  ASSERT_LT(r4 + 4, r8);
  const index_t cols = 1 << 16;
  const int c_row = static_cast<int>((r4 + r8) / 2);  // C's rows: above r4, at most r8
  for (const int a_row : {2, 4}) {
    SCOPED_TRACE("A's rows of " + std::to_string(a_row));
    const auto a = rows_of_sizes(std::vector<int>(2000, a_row), cols, 11);
    const auto b = rows_of_sizes(std::vector<int>(cols, c_row / a_row), cols, 12);
    const auto want = cpu::spgemm<plus_times<double>>(a, b);
    for (const int lanes : {0, 8}) {
      spgemm_options opt;
      opt.tuning.numeric_row_lanes = lanes;
      plan p;
      const auto g = on_gpu<plus_times<double>>(ctx(), p, a, b, nullptr, opt);
      EXPECT_TRUE(csr_near(g, want, 1e-12));
      // rows of C that both bins 0 could take (random columns: a few collide)
      offset_t between = 0;
      for (index_t i = 0; i < want.rows; ++i) {
        const offset_t n = want.rpt[i + 1] - want.rpt[i];
        between += n > r4 && n <= r8;
      }
      ASSERT_GT(between, want.rows / 2);
      const auto& rows = p.stats().numeric_bin_rows;
      if (lanes == 0 && a_row < 3.5)
        EXPECT_LE(rows[0], want.rows - between) << "4 lanes: those rows leave bin 0";
      else
        EXPECT_GE(rows[0], between) << "8 lanes: bin 0 holds them";
    }
  }
}

// A wide C (2^20 columns: dozens of windows a row): the long rows below the dense fraction take
// the dense accumulator's bin, the dense ones the windows' bin after it; with a larger
// sparse_row_max_windows both take the windows, in one bin. Same C either way.
TEST_F(Gpu, LongSparseRowsOfAWideProductLeaveTheWindows) {
  const index_t cols = 1 << 20;
  const auto num = numeric_config(ctx().device(), sizeof(double));
  const int sparse_long = static_cast<int>(num.bins[num.bins.size() - 2].range) * 2;
  const auto a = rows_of_sizes({5, sparse_long, 3, cols / 2, sparse_long + 7}, cols, 21);
  const auto b = band(cols, 2);
  const auto want = cpu::spgemm<plus_times<double>>(a, b);
  for (int max_windows : {8, 1 << 20}) {
    SCOPED_TRACE("sparse_row_max_windows " + std::to_string(max_windows));
    spgemm_options opt;
    opt.tuning.sparse_row_max_windows = max_windows;
    plan p;
    const auto g = on_gpu<plus_times<double>>(ctx(), p, a, b, nullptr, opt);
    EXPECT_TRUE(csr_near(g, want, 1e-12));
    const auto& rows = p.stats().numeric_bin_rows;
    if (max_windows == 8) {
      ASSERT_EQ(rows.size(), num.bins.size() + 1);
      EXPECT_EQ(rows[rows.size() - 2], 2) << "the two sparse long rows: dense accumulator";
      EXPECT_EQ(rows.back(), 1) << "the dense row: windows";
    } else {
      ASSERT_EQ(rows.size(), num.bins.size());
      EXPECT_EQ(rows.back(), 3) << "all three long rows in windows";
    }
  }
}

TEST_F(Gpu, PowerLawGraph) {
  const auto a = rmat(15, 16, 99);
  EXPECT_TRUE((same<plus_times<double>>(ctx(), a, a)));
}

TEST_F(Gpu, SharedMatricesSquared) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string dir = opsparse::test::datasets_dir() + "/matrices";
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".mtx") continue;
    const auto a = io::read_matrix_market<double>(e.path().string());
    if (a.rows != a.cols) continue;
    EXPECT_TRUE((same<plus_times<double>>(ctx(), a, a))) << e.path();
    ++n;
  }
  EXPECT_GE(n, 10);
}

// Every instantiated (value type, semiring, mask) combination on the real matrices.
TEST_F(Gpu, SemiringsAndMasksOnSharedMatrices) {
  OPSPARSE_REQUIRE_DATASETS();
  using i64 = long long;
  int n = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(opsparse::test::datasets_dir() + "/matrices")) {
    if (e.path().extension() != ".mtx") continue;
    const auto a = io::read_matrix_market<double>(e.path().string());
    if (a.rows != a.cols) continue;
    SCOPED_TRACE(e.path().filename().string());
    const auto p = convert<pattern>(a);
    host_csr<pattern> l(a.rows, a.cols);
    for (index_t i = 0; i < a.rows; ++i) {
      for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k)
        if (a.col[k] < i) l.col.push_back(a.col[k]);
      l.rpt[i + 1] = static_cast<offset_t>(l.col.size());
    }
    EXPECT_TRUE((same<plus_pair<i64>, pattern, pattern, structural_mask>(ctx(), l, l, &l)));
    EXPECT_TRUE((same<plus_pair<i64>, pattern, pattern>(ctx(), p, p)));
    EXPECT_TRUE((same<any_pair, pattern, pattern, complement_mask>(ctx(), p, p, &p)));
    EXPECT_TRUE((same<any_pair, pattern, pattern>(ctx(), p, p)));
    EXPECT_TRUE((same<plus_times<double>, double, double, structural_mask>(ctx(), a, a, &p)));
    EXPECT_TRUE((same<min_plus<double>, double, double>(ctx(), a, a)));
    EXPECT_TRUE((
        same<or_and<int>, int, int, complement_mask>(ctx(), convert<int>(p), convert<int>(p), &p)));
    EXPECT_TRUE((same<plus_times<float>, float, float>(ctx(), convert<float>(a), convert<float>(a),
                                                       nullptr, 1e-5)));
    EXPECT_TRUE((same<plus_times<long long>, long long, long long>(
        ctx(), convert<long long>(p), convert<long long>(p), nullptr, 0.0)));
    EXPECT_TRUE(
        (same<plus_times<int>, int, int>(ctx(), convert<int>(p), convert<int>(p), nullptr, 0.0)));
    ++n;
  }
  EXPECT_GE(n, 10);
}

TEST_F(Gpu, MoreThan1e8Products) {
  // 2^21 rows, 7 random entries per row: about 2^21 * 49 = 1.03e8 products.
  const index_t n = 1 << 21;
  host_csr<double> a(n, n);
  std::mt19937_64 rng(7);
  a.col.reserve(static_cast<std::size_t>(n) * 7);
  for (index_t i = 0; i < n; ++i) {
    index_t c[7];
    for (auto& x : c) x = static_cast<index_t>(rng() % n);
    std::sort(c, c + 7);
    const auto end = std::unique(c, c + 7);
    for (auto* x = c; x != end; ++x) {
      a.col.push_back(*x);
      a.val.push_back(1.0 + (*x % 5));
    }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  plan p;
  const auto g = on_gpu<plus_times<double>>(ctx(), p, a, a);
  EXPECT_GT(p.stats().products, 100000000);
  EXPECT_TRUE(csr_near(g, cpu::spgemm<plus_times<double>>(a, a), 1e-12));
}

// One plan and one C for 20 products of changing sizes: the second pass over the same sizes
// allocates nothing at all (metadata, pools, C).
TEST_F(Gpu, PlanReuseAllocatesOnlyWhenSizesGrow) {
  plan p;
  device_csr<double> dc;
  std::vector<host_csr<double>> mats;
  for (int i = 0; i < 10; ++i)
    mats.push_back(
        random_csr<double>(200 + 150 * (i % 5), 200 + 150 * (i % 5), 3.0 + (i % 3) * 20, 100 + i));
  mats.push_back(rows_of_sizes({5, 30000, 12000}, 1 << 16, 3));  // global paths too
  std::mt19937 rng(1);
  std::vector<int> order;
  for (int i = 0; i < 10; ++i) order.push_back(i);
  order.push_back(10);
  std::vector<int> second = order;
  std::shuffle(second.begin(), second.end(), rng);
  auto run = [&](int i) {
    const auto& a = mats[i];
    const auto b = a.rows == a.cols ? a : band(a.cols, 2);
    auto da = device_csr<double>::upload(a, ctx().stream());
    auto db = device_csr<double>::upload(b, ctx().stream());
    const auto before_plan = p.metadata_allocations();
    const auto before_all = device_allocation_count();
    spgemm<plus_times<double>>(ctx(), p, da.view(), db.view(), dc);
    ctx().synchronize();
    EXPECT_TRUE(
        csr_near(dc.download(ctx().stream()), cpu::spgemm<plus_times<double>>(a, b), 1e-12));
    return std::make_pair(p.metadata_allocations() - before_plan,
                          device_allocation_count() - before_all - (db.nnz_capacity() > 0 ? 0 : 0));
  };
  for (int i : order) run(i);
  std::int64_t meta = 0;
  for (int i : second) {
    auto da_allocs_before = device_allocation_count();
    (void)da_allocs_before;
    meta += run(i).first;
  }
  EXPECT_EQ(meta, 0) << "the plan allocated metadata again for sizes it had already seen";
  // C itself: the largest product came first time round, so a repeat allocates nothing for C.
  const auto a = mats[0];
  auto da = device_csr<double>::upload(a, ctx().stream());
  const auto before = device_allocation_count();
  spgemm<plus_times<double>>(ctx(), p, da.view(), da.view(), dc);
  ctx().synchronize();
  EXPECT_EQ(device_allocation_count() - before, 0);
}

// Out of memory: the error names what was asked for and what the device has; a pooled request
// that fails leaves the context usable. OPSPARSE_DEVICE_ALLOCATION_LIMIT makes any larger
// request fail as the device would.
TEST_F(Gpu, OutOfMemoryIsADeviceMemoryErrorNamingTheBytes) {
  opsparse::test::env_scope limit("OPSPARSE_DEVICE_ALLOCATION_LIMIT", std::string("1000000"));
  device_buffer<int> small, big;
  small.reserve(1000, ctx().memory());  // 4 kB: under the limit
  try {
    big.reserve(1000000, ctx().memory());  // 4 MB
    ADD_FAILURE() << "no error past the limit";
  } catch (const device_memory_error& e) {
    EXPECT_EQ(e.requested(), 4000000u);
    EXPECT_GT(e.total_bytes(), 0u);
    EXPECT_LE(e.free_bytes(), e.total_bytes());
    EXPECT_NE(std::string(e.what()).find("out of GPU memory: 4.00 MB asked for"), std::string::npos)
        << e.what();
  }
  const auto a = random_csr<double>(50, 50, 4.0, 9);
  plan p;
  auto on = device_csr<double>::upload(a, ctx().stream());
  device_csr<double> c;
  {
    opsparse::test::env_scope tight("OPSPARSE_DEVICE_ALLOCATION_LIMIT", std::string("100"));
    EXPECT_THROW((spgemm<plus_times<double>>(ctx(), p, on.view(), on.view(), c)),
                 device_memory_error)
        << "C's 408-byte row offsets pass a 100-byte limit";
  }
  ::unsetenv("OPSPARSE_DEVICE_ALLOCATION_LIMIT");
  plan fresh;
  spgemm<plus_times<double>>(ctx(), fresh, on.view(), on.view(), c);
  ctx().synchronize();
  EXPECT_TRUE(csr_near(c.download(ctx().stream()), cpu::spgemm<plus_times<double>>(a, a), 1e-12));
  EXPECT_EQ(format_bytes(999), "999 B");
  EXPECT_EQ(format_bytes(1234567), "1.23 MB");
}

TEST_F(Gpu, PooledMemoryIsReusedAndOutlivesItsContext) {
  const auto a = random_csr<double>(3000, 3000, 12.0, 41);
  const auto want = cpu::spgemm<plus_times<double>>(a, a);
  plan p;  // declared before the context: outlives it, as do C and the pool's blocks
  device_csr<double> dc;
  {
    context own;
    auto da = device_csr<double>::upload(a, own.stream());
    spgemm<plus_times<double>>(own, p, da.view(), da.view(), dc);
    own.synchronize();
    EXPECT_TRUE(csr_near(dc.download(own.stream()), want, 1e-12));
    // a fresh plan and C of the same sizes: allocated from the pool (counted), same result
    const auto before = device_allocation_count();
    {
      plan q;
      device_csr<double> dq;
      spgemm<plus_times<double>>(own, q, da.view(), da.view(), dq);
      own.synchronize();
      EXPECT_TRUE(csr_near(dq.download(own.stream()), want, 1e-12));
    }
    EXPECT_EQ(device_allocation_count() - before, 3)
        << "C.rpt, C's entries and the plan's metadata";
    own.release_cached_memory();
  }
  // the context is gone; the plan and C still hold pool memory, freed on its live stream
  EXPECT_EQ(dc.nnz(), want.nnz());
  const auto frees = device_free_count();
  dc = device_csr<double>();
  p = plan();
  EXPECT_EQ(device_free_count() - frees, 3);
}

TEST_F(Gpu, NumericOnlyReuseWithNewValues) {
  auto a = random_csr<double>(3000, 3000, 12.0, 21);
  auto da = device_csr<double>::upload(a, ctx().stream());
  plan p;
  device_csr<double> dc;
  spgemm_symbolic<plus_times<double>>(ctx(), p, da.view(), da.view(), dc);
  spgemm_numeric<plus_times<double>>(ctx(), p, da.view(), da.view(), dc);
  ctx().synchronize();
  EXPECT_TRUE(csr_near(dc.download(ctx().stream()), cpu::spgemm<plus_times<double>>(a, a), 1e-12));
  for (auto& v : a.val) v = v * 3 - 1;
  da.assign(a, ctx().stream());
  spgemm_numeric<plus_times<double>>(ctx(), p, da.view(), da.view(), dc);
  ctx().synchronize();
  EXPECT_TRUE(csr_near(dc.download(ctx().stream()), cpu::spgemm<plus_times<double>>(a, a), 1e-12));
  const auto other = random_csr<double>(3000, 3000, 5.0, 22);
  auto dother = device_csr<double>::upload(other, ctx().stream());
  EXPECT_THROW((spgemm_numeric<plus_times<double>>(ctx(), p, dother.view(), dother.view(), dc)),
               std::invalid_argument);
  plan fresh;
  EXPECT_THROW((spgemm_numeric<plus_times<double>>(ctx(), fresh, da.view(), da.view(), dc)),
               std::invalid_argument);
}

TEST_F(Gpu, SemiringsAndMasks) {
  const auto g = rmat(12, 8, 5);
  // undirected simple graph and its strict lower triangle, as triangle counting uses them
  host_csr<double> sym = io::symmetrize_max(g);
  host_csr<pattern> l(sym.rows, sym.cols);
  for (index_t i = 0; i < sym.rows; ++i) {
    for (offset_t k = sym.rpt[i]; k < sym.rpt[i + 1]; ++k)
      if (sym.col[k] < i) l.col.push_back(sym.col[k]);
    l.rpt[i + 1] = static_cast<offset_t>(l.col.size());
  }
  const auto p = convert<pattern>(sym);
  using i64 = long long;
  EXPECT_TRUE((same<plus_pair<i64>, pattern, pattern, structural_mask>(ctx(), l, l, &l)));
  EXPECT_TRUE((same<plus_pair<i64>, pattern, pattern>(ctx(), p, p)));
  EXPECT_TRUE((same<any_pair, pattern, pattern, complement_mask>(ctx(), p, p, &p)));
  EXPECT_TRUE((same<any_pair, pattern, pattern>(ctx(), p, p)));
  EXPECT_TRUE((same<plus_times<double>, double, double, structural_mask>(ctx(), g, g, &p)));
  EXPECT_TRUE((same<min_plus<double>, double, double>(ctx(), g, g)));
  const auto gi = convert<int>(g);
  EXPECT_TRUE((same<or_and<int>, int, int, complement_mask>(ctx(), gi, gi, &p)));
  const auto gf = convert<float>(g);
  EXPECT_TRUE((same<plus_times<float>, float, float>(ctx(), gf, gf, nullptr, 1e-5)));
}

TEST_F(Gpu, IntegerValueTypes) {
  const auto g = rmat(12, 8, 6);
  host_csr<int> gi = convert<int>(g);
  for (std::size_t k = 0; k < gi.val.size(); ++k) gi.val[k] = static_cast<int>(k % 7) - 3;
  EXPECT_TRUE((same<plus_times<int>, int, int>(ctx(), gi, gi, nullptr, 0.0)));
  host_csr<long long> gl = convert<long long>(g);
  for (std::size_t k = 0; k < gl.val.size(); ++k)
    gl.val[k] = (1LL << 33) + static_cast<long long>(k % 11);
  EXPECT_TRUE((same<plus_times<long long>, long long, long long>(ctx(), gl, gl, nullptr, 0.0)));
}

TEST_F(Gpu, IntegerSemiringsSaturateAsOnTheCpu) {
  // Products and sums beyond the range clamp to it (semiring.hpp) in both engines; every value
  // here is positive, so the saturated sums do not depend on the order of the atomics.
  const auto g = rmat(12, 8, 6);
  host_csr<int> gi = convert<int>(g);
  for (std::size_t k = 0; k < gi.val.size(); ++k)
    gi.val[k] = (1 << 20) + static_cast<int>(k % 5000);
  EXPECT_TRUE((same<plus_times<int>, int, int>(ctx(), gi, gi, nullptr, 0.0)));
  plan p;
  const auto c = on_gpu<plus_times<int>, int, int>(ctx(), p, gi, gi);
  ASSERT_GT(c.nnz(), 0);
  for (int v : c.val) ASSERT_EQ(v, std::numeric_limits<int>::max());  // 2^40 and more, clamped
  host_csr<long long> gl = convert<long long>(g);
  for (std::size_t k = 0; k < gl.val.size(); ++k)
    gl.val[k] = (1LL << 31) + static_cast<long long>(k % 11);
  EXPECT_TRUE((same<plus_times<long long>, long long, long long>(ctx(), gl, gl, nullptr, 0.0)));
  // Negative products saturate at the minimum.
  host_csr<long long> neg = gl;
  for (auto& v : neg.val) v = -v;
  EXPECT_TRUE((same<plus_times<long long>, long long, long long>(ctx(), neg, gl, nullptr, 0.0)));
}

/// A product with `cols` columns whose row i covers about density[i] of them: row i of A picks
/// its own 8 rows of B, each about cols * density * 1.2 / 8 long (random columns, sorted);
/// a 100% row's first B row holds every column.
struct dense_case {
  host_csr<double> a, b;
};
dense_case dense_rows_case(const std::vector<double>& density, index_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int per_row = 8;
  const index_t brows = static_cast<index_t>(density.size()) * per_row;
  std::vector<int> sizes;
  for (double d : density)
    for (int k = 0; k < per_row; ++k)  // a 100% row has one B row with every column
      sizes.push_back(d >= 1.0 && k == 0 ? static_cast<int>(cols)
                                         : static_cast<int>(std::min<double>(
                                               cols, std::max(1.0, cols * d * 1.2 / per_row))));
  dense_case dc{host_csr<double>(static_cast<index_t>(density.size()), brows),
                rows_of_sizes(sizes, cols, seed)};
  for (std::size_t i = 0; i < density.size(); ++i) {
    for (int k = 0; k < per_row; ++k) {
      dc.a.col.push_back(static_cast<index_t>(i * per_row + k));
      dc.a.val.push_back(0.25 + (rng() % 100) / 100.0);
    }
    dc.a.rpt[i + 1] = static_cast<offset_t>(dc.a.col.size());
  }
  return dc;
}

/// B's rows in a shuffled order: the window kernel then walks every B row in each window.
template <class V>
host_csr<V> shuffled_rows(host_csr<V> b, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (index_t i = 0; i < b.rows; ++i) {
    std::vector<std::size_t> perm(static_cast<std::size_t>(b.rpt[i + 1] - b.rpt[i]));
    for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<std::size_t>(b.rpt[i]) + k;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<index_t> c;
    std::vector<V> v;
    for (std::size_t k : perm) {
      c.push_back(b.col[k]);
      if constexpr (has_values_v<V>) v.push_back(b.val[k]);
    }
    std::copy(c.begin(), c.end(), b.col.begin() + b.rpt[i]);
    if constexpr (has_values_v<V>) std::copy(v.begin(), v.end(), b.val.begin() + b.rpt[i]);
  }
  return b;
}

// Rows whose columns lie close together (meshes) come out of the numeric phase ordered by a
// bitmap of their span, not sorted (spgemm_tuning::span_bitmap_order), in every bin: A's rows
// of each bin's sizes, 3 times as wide as they are long, B a band of 3 (and the same B with its
// rows shuffled). On and off, every semiring kind, masks and patterns, against the CPU engine.
TEST_F(Gpu, NarrowRowsComeOutOrderedByBitmaps) {
  const auto sym = symbolic_config(ctx().device());
  const auto num = numeric_config(ctx().device(), sizeof(double));
  std::vector<int> sizes = {0, 1, 2, 40};
  for (const phase_config* cfg : {&sym, &num})
    for (std::size_t i = 0; i + 1 < cfg->bins.size(); ++i) {
      const int r = static_cast<int>(std::min<offset_t>(cfg->bins[i].range, 60000));
      // a bin's rows of the most and of the fewest products: B's band of 3 triples them
      sizes.push_back(std::max(1, r / 3));
      sizes.push_back(std::max(1, r / 5));
    }
  const index_t cols = 1 << 18;
  const auto a = narrow_rows(sizes, cols, 3, 9);
  const auto b = band(cols, 3);
  const auto shuffled = shuffled_rows(b, 4);
  const host_csr<pattern> m = convert<pattern>(narrow_rows(sizes, cols, 4, 5));
  const auto ap = convert<pattern>(a), bp = convert<pattern>(b);
  for (bool bitmap : {true, false}) {
    spgemm_options o;
    o.tuning.span_bitmap_order = bitmap;
    o.tuning.bucket_order = bitmap;  // off: the sorts (WideRowsComeOutOrderedByBuckets has buckets)
    SCOPED_TRACE(bitmap ? "ordered by bitmaps" : "sorted");
    EXPECT_TRUE((same<plus_times<double>>(ctx(), a, b, nullptr, 1e-12, o)));
    EXPECT_TRUE((same<plus_times<double>>(ctx(), a, shuffled, nullptr, 1e-12, o)));
    EXPECT_TRUE((same<plus_times<float>, float, float>(ctx(), convert<float>(a), convert<float>(b),
                                                       nullptr, 1e-5, o)));
    EXPECT_TRUE((same<min_plus<double>, double, double>(ctx(), a, b, nullptr, 0.0, o)));
    EXPECT_TRUE(
        (same<plus_times<double>, double, double, structural_mask>(ctx(), a, b, &m, 1e-12, o)));
    EXPECT_TRUE(
        (same<plus_pair<long long>, pattern, pattern, structural_mask>(ctx(), ap, bp, &m, 0.0, o)));
    EXPECT_TRUE((same<any_pair, pattern, pattern, complement_mask>(ctx(), ap, bp, &m, 0.0, o)));
    EXPECT_TRUE(
        (same<any_pair, pattern, pattern>(ctx(), ap, convert<pattern>(shuffled), nullptr, 0.0, o)));
  }
}

/// Rows of `sizes[i]` distinct columns of [0, cols): all at random (`clustered` false), or four
/// in five consecutive from a random start and the rest at random.
host_csr<double> wide_rows(const std::vector<int>& sizes, index_t cols, bool clustered,
                           std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto rows = static_cast<index_t>(sizes.size());
  host_csr<double> a(rows, cols);
  for (index_t i = 0; i < rows; ++i) {
    std::set<index_t> pick;
    const int near = clustered ? sizes[i] * 4 / 5 : 0;
    const index_t start = static_cast<index_t>(rng() % static_cast<std::uint64_t>(cols - near));
    for (int k = 0; k < near; ++k) pick.insert(start + k);
    while (static_cast<int>(pick.size()) < sizes[i])
      pick.insert(static_cast<index_t>(rng() % static_cast<std::uint64_t>(cols)));
    for (index_t c : pick) {
      a.col.push_back(c);
      a.val.push_back(0.5 + (rng() % 1000) / 1000.0);
    }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

// Rows whose columns spread over a wide range (web graphs) come out of the numeric phase in
// column order by bucketing (spgemm_tuning::bucket_order), in every bin: A's rows of each bin's
// sizes with columns at random among 2^20, B a band of 3 (rows of C too wide for the bitmap of
// their span). Rows whose columns cluster (four in five consecutive) fill a few buckets past
// their limit and are sorted instead. On (from 128 entries) and off, every semiring kind, masks
// (A's own pattern and its complement) and patterns, against the CPU engine.
TEST_F(Gpu, WideRowsComeOutOrderedByBuckets) {
  const auto num = numeric_config(ctx().device(), sizeof(double));
  std::vector<int> sizes = {0, 1, 2, 40, 43, 50, 100};
  for (std::size_t i = 0; i + 1 < num.bins.size(); ++i) {
    const int r = static_cast<int>(std::min<offset_t>(num.bins[i].range, 60000));
    // a bin's rows of the most and of the fewest entries: B's band of 3 triples them
    sizes.push_back(std::max(1, r / 3));
    sizes.push_back(std::max(1, r / 5));
  }
  const index_t cols = 1 << 20;
  const auto b = band(cols, 3);
  const auto bp = convert<pattern>(b);
  for (bool clustered : {false, true}) {
    const auto a = wide_rows(sizes, cols, clustered, clustered ? 21 : 22);
    const auto ap = convert<pattern>(a);
    const host_csr<pattern>& m = ap;
    for (bool buckets : {true, false}) {
      spgemm_options o;
      o.tuning.bucket_order = buckets;
      SCOPED_TRACE(std::string(clustered ? "clustered, " : "spread, ") +
                   (buckets ? "bucketed" : "sorted"));
      EXPECT_TRUE((same<plus_times<double>>(ctx(), a, b, nullptr, 1e-12, o)));
      EXPECT_TRUE((same<plus_times<float>, float, float>(ctx(), convert<float>(a),
                                                         convert<float>(b), nullptr, 1e-5, o)));
      EXPECT_TRUE((same<min_plus<double>, double, double>(ctx(), a, b, nullptr, 0.0, o)));
      EXPECT_TRUE(
          (same<plus_times<double>, double, double, structural_mask>(ctx(), a, b, &m, 1e-12, o)));
      EXPECT_TRUE((same<plus_pair<long long>, pattern, pattern, structural_mask>(ctx(), ap, bp, &m,
                                                                                 0.0, o)));
      EXPECT_TRUE((same<any_pair, pattern, pattern, complement_mask>(ctx(), ap, bp, &m, 0.0, o)));
      EXPECT_TRUE((same<any_pair, pattern, pattern>(ctx(), ap, bp, nullptr, 0.0, o)));
    }
  }
}

/// A mesh's matrix with `dofs` unknowns a node: node i couples with nodes i-hw..i+hw (clipped),
/// every unknown with every other, so the `dofs` rows of a node are identical (FEM: cant,
/// shipsec1, pwtk). `shift` > 0 moves every other row's columns by one (rows alike but not equal).
/// `poke`: node i couples with every other node, i-2hw, ..., i+2hw, and the second row of each
/// node takes node i+1's columns in place of its own: the same length, first and last column as
/// its node's other rows (where i is inside its list), but other columns between.
host_csr<double> node_blocks(index_t nodes, int dofs, int hw, std::uint64_t seed, int shift = 0,
                             bool poke = false) {
  std::mt19937_64 rng(seed);
  const index_t n = nodes * dofs;
  const index_t step = poke ? 2 : 1;
  host_csr<double> a(n, n);
  for (index_t r = 0; r < n; ++r) {
    const index_t i = r / dofs;
    std::vector<index_t> cols;
    for (index_t d = -hw; d <= hw; ++d) {
      index_t j = i + step * d;
      if (j < 0 || j >= nodes) continue;
      if (poke && d == 0 && r % dofs == 1 && i + 1 < nodes) j = i + 1;
      for (int e = 0; e < dofs; ++e) cols.push_back(j * dofs + e);
    }
    if (shift > 0 && r % 2 == 1)
      for (index_t& c : cols) c = std::min<index_t>(n - 1, c + shift);
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (index_t c : cols) {
      a.col.push_back(c);
      a.val.push_back(0.5 + (rng() % 1000) / 1000.0);
    }
    a.rpt[r + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

/// Node blocks of random sizes, `lo` to `hi` unknowns (pdb1HYS's residues): node i couples with
/// nodes i-hw..i+hw, every unknown with every other.
host_csr<double> mixed_node_blocks(index_t nodes, int lo, int hi, int hw, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<index_t> first(static_cast<std::size_t>(nodes) + 1, 0);
  for (index_t i = 0; i < nodes; ++i)
    first[i + 1] = first[i] + lo + static_cast<index_t>(rng() % static_cast<unsigned>(hi - lo + 1));
  const index_t n = first[nodes];
  host_csr<double> a(n, n);
  index_t i = 0;
  for (index_t r = 0; r < n; ++r) {
    while (first[i + 1] <= r) ++i;
    for (index_t j = std::max<index_t>(0, i - hw); j <= std::min<index_t>(nodes - 1, i + hw); ++j)
      for (index_t c = first[j]; c < first[j + 1]; ++c) {
        a.col.push_back(c);
        a.val.push_back(0.5 + (rng() % 1000) / 1000.0);
      }
    a.rpt[r + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

// Pairs, triples and runs of A's nonzeros hashed as one where their B rows share a column at the
// same position (spgemm_tuning::merge_equal_rows) still count every product once: node blocks
// of 1 to 6 unknowns (identical rows, rows of odd length), of mixed sizes, rows alike but
// shifted, rows whose runs look equal by length and ends but differ between (poke); rows of 3
// to 363 entries (several bins of each phase); pairs, triples, runs, off and automatic, against
// the CPU engine; plus_pair counts each entry's products exactly.
TEST_F(Gpu, MergedEqualRowsTakeEveryProductOnce) {
  struct shape {
    int hw, dofs, shift;
    bool poke = false;
    int mixed_hi = 0;  // > 0: node blocks of dofs to mixed_hi unknowns
  };
  for (const shape& sh : std::vector<shape>{{1, 3, 0},
                                            {2, 1, 0},
                                            {4, 3, 0},
                                            {12, 3, 0},
                                            {30, 3, 0},
                                            {9, 6, 0},
                                            {5, 5, 0},
                                            {6, 2, 1},
                                            {10, 3, 2},
                                            {4, 5, 0, true},
                                            {3, 6, 0, true},
                                            {2, 3, 0, false, 7},
                                            {6, 1, 0, false, 9}}) {
    SCOPED_TRACE("half-width " + std::to_string(sh.hw) + ", unknowns " + std::to_string(sh.dofs) +
                 (sh.mixed_hi ? " to " + std::to_string(sh.mixed_hi) : std::string()) + ", shift " +
                 std::to_string(sh.shift) + (sh.poke ? ", poked" : ""));
    const auto a = sh.mixed_hi
                       ? mixed_node_blocks(300, sh.dofs, sh.mixed_hi, sh.hw, 23)
                       : node_blocks(300, sh.dofs, sh.hw, 17 + static_cast<std::uint64_t>(sh.hw),
                                     sh.shift, sh.poke);
    const auto ap = convert<pattern>(a);
    const host_csr<pattern> m = convert<pattern>(narrow_rows(
        std::vector<int>(static_cast<std::size_t>(a.rows), 2 * sh.hw + 1), a.cols, 3, 5));
    for (row_merging merge : {row_merging::pairs, row_merging::triples, row_merging::runs,
                              row_merging::never, row_merging::automatic}) {
      spgemm_options o;
      o.tuning.merge_equal_rows = merge;
      SCOPED_TRACE(merge == row_merging::pairs     ? "pairs"
                   : merge == row_merging::triples ? "triples"
                   : merge == row_merging::runs    ? "runs"
                   : merge == row_merging::never   ? "one product at a time"
                                                   : "automatic");
      EXPECT_TRUE((same<plus_times<double>>(ctx(), a, a, nullptr, 1e-12, o)));
      EXPECT_TRUE((same<plus_times<float>, float, float>(ctx(), convert<float>(a),
                                                         convert<float>(a), nullptr, 1e-5, o)));
      EXPECT_TRUE((same<min_plus<double>, double, double>(ctx(), a, a, nullptr, 0.0, o)));
      EXPECT_TRUE((same<plus_pair<long long>, pattern, pattern>(ctx(), ap, ap, nullptr, 0.0, o)));
      EXPECT_TRUE((same<plus_pair<long long>, pattern, pattern, structural_mask>(ctx(), ap, ap, &m,
                                                                                 0.0, o)));
      EXPECT_TRUE(
          (same<plus_times<double>, double, double, structural_mask>(ctx(), a, a, &m, 1e-12, o)));
      EXPECT_TRUE((same<any_pair, pattern, pattern, complement_mask>(ctx(), ap, ap, &m, 0.0, o)));
    }
  }
}

// merge_equal_rows = automatic: the symbolic phase takes every row in triples (pairs with
// merge_triples off), as many rows as `triples` (`pairs`) does; the numeric phase decides row by
// row (rows of 32 entries or more, as all here) from the B rows of the row's first 32
// neighbouring nonzeros (merge_vote). Node blocks of 3 unknowns (every triple equal, 2/3 of the
// pairs, 21 of 31 neighbours continuing a run) take triples, which save a little more than runs;
// blocks of 6 pairs (every pair equal, where runs do not replace them; pairs win over triples as
// these must save 1.5 times the pairs', numeric_triples); blocks of 5 runs
// (25 against 13 of 16 pairs), also with the numeric share raised to 0.9 (every nonzero in a
// run; pairs and triples then fall short); random rows none, `never` nowhere. merge_runs off:
// blocks of 6 and 5 pairs, 5 at 0.9 none; merge_triples off too: blocks of 3 none (11 of 16
// pairs is below 0.75). Rows counted through time_phases; results against the CPU engine
// throughout.
TEST_F(Gpu, MergingFollowsTheShareOfEqualRows) {
  struct shape {
    host_csr<double> a;
    const char* name;
    int numeric, numeric_no_runs, numeric_pairs_only;  // width automatic takes: 0, 2, 3, 4 (runs)
    double numeric_share;
  };
  std::vector<int> sizes(4000);
  for (std::size_t i = 0; i < sizes.size(); ++i) sizes[i] = 40 + static_cast<int>(i % 40);
  const std::vector<shape> shapes = {
      {node_blocks(800, 6, 6, 3), "6 unknowns a node", 2, 2, 2, 0.75},
      {node_blocks(1500, 3, 12, 4), "3 unknowns a node", 3, 3, 0, 0.75},
      {node_blocks(1000, 5, 6, 5), "5 unknowns a node", 4, 2, 2, 0.75},
      {node_blocks(1000, 5, 6, 5), "5 unknowns a node, numeric share 0.9", 4, 0, 0, 0.9},
      {rows_of_sizes(sizes, 4000, 5), "random rows", 0, 0, 0, 0.75}};
  enum mode { pairs, triples, runs, automatic, no_runs, pairs_only, never };
  for (const shape& sh : shapes) {
    SCOPED_TRACE(sh.name);
    offset_t forced[5][2] = {};  // [width][phase]: rows `pairs`, `triples` and `runs` merge
    for (const mode md : {pairs, triples, runs, automatic, no_runs, pairs_only, never}) {
      SCOPED_TRACE(md == pairs        ? "pairs"
                   : md == triples    ? "triples"
                   : md == runs       ? "runs"
                   : md == automatic  ? "automatic"
                   : md == no_runs    ? "automatic, merge_runs off"
                   : md == pairs_only ? "automatic, merge_triples and merge_runs off"
                                      : "never");
      spgemm_options o;
      o.tuning.merge_equal_rows = md == pairs     ? row_merging::pairs
                                  : md == triples ? row_merging::triples
                                  : md == runs    ? row_merging::runs
                                  : md == never   ? row_merging::never
                                                  : row_merging::automatic;
      o.tuning.merge_triples = md != pairs_only;
      o.tuning.merge_runs = md != pairs_only && md != no_runs;
      o.tuning.merge_numeric_share = sh.numeric_share;
      o.time_phases = true;
      plan p;
      const auto g = on_gpu<plus_times<double>>(ctx(), p, sh.a, sh.a, nullptr, o);
      EXPECT_TRUE(csr_near(g, cpu::spgemm<plus_times<double>>(sh.a, sh.a), 1e-12));
      const spgemm_stats& st = p.stats();
      const offset_t rows[5][2] = {{0, 0},
                                   {0, 0},
                                   {st.pair_rows_symbolic, st.pair_rows_numeric},
                                   {st.triple_rows_symbolic, st.triple_rows_numeric},
                                   {st.run_rows_symbolic, st.run_rows_numeric}};
      if (md == pairs || md == triples || md == runs) {
        const int w = md == pairs ? 2 : md == triples ? 3 : 4;
        for (int ph = 0; ph < 2; ++ph) {
          forced[w][ph] = rows[w][ph];
          EXPECT_GT(rows[w][ph], 0) << "no row reached the block kernels of phase " << ph;
          for (int o2 = 2; o2 <= 4; ++o2)
            if (o2 != w) EXPECT_EQ(rows[o2][ph], 0) << "phase " << ph << ", width " << o2;
        }
      } else {
        const int want[2] = {md == never        ? 0
                             : md == pairs_only ? 2
                                                : 3,
                             md == never        ? 0
                             : md == pairs_only ? sh.numeric_pairs_only
                             : md == no_runs    ? sh.numeric_no_runs
                                                : sh.numeric};
        for (int ph = 0; ph < 2; ++ph)
          for (int w = 2; w <= 4; ++w)
            EXPECT_EQ(rows[w][ph], want[ph] == w ? forced[w][ph] : 0)
                << "phase " << ph << ", width " << w;
      }
    }
  }
}

// The numeric block kernels come without the merged loops where no row of A reaches the vote's
// 32 nonzeros (numeric_block_bin's `merge`): node blocks of 6 unknowns with rows of 30 nonzeros
// (every pair equal, but too short to vote) take those, the same blocks with rows of 42 the
// kernels with the loops, and merge in pairs. Which kernel ran is not observable here: the test
// checks the setup kernel's longest row of A (spgemm_stats) against the host's, the rows merged
// (time_phases) and the results against the CPU engine.
TEST_F(Gpu, ShortRowsTakeTheKernelsWithoutMergedLoops) {
  for (int hw : {2, 3}) {  // 5 and 7 nodes of 6 unknowns a row: 30 and 42 nonzeros
    SCOPED_TRACE("rows of " + std::to_string(6 * (2 * hw + 1)));
    const auto a = node_blocks(1200, 6, hw, 7);
    offset_t longest = 0;
    for (index_t r = 0; r < a.rows; ++r) longest = std::max(longest, a.rpt[r + 1] - a.rpt[r]);
    spgemm_options o;
    o.time_phases = true;
    plan p;
    const auto g = on_gpu<plus_times<double>>(ctx(), p, a, a, nullptr, o);
    EXPECT_TRUE(csr_near(g, cpu::spgemm<plus_times<double>>(a, a), 1e-12));
    const spgemm_stats& st = p.stats();
    EXPECT_EQ(st.max_a_row_nnz, longest);
    const offset_t merged = st.pair_rows_numeric + st.triple_rows_numeric + st.run_rows_numeric;
    if (longest < 32)
      EXPECT_EQ(merged, 0);
    else
      EXPECT_GT(merged, 0);
  }
  // a product whose A is not B: A's rows, not B's, decide
  const auto a = node_blocks(600, 6, 3, 8);  // rows of 42
  const auto b = node_blocks(600, 6, 1, 9);  // rows of 18
  plan p;
  spgemm_options o;
  const auto g = on_gpu<plus_times<double>>(ctx(), p, a, b, nullptr, o);
  EXPECT_TRUE(csr_near(g, cpu::spgemm<plus_times<double>>(a, b), 1e-12));
  EXPECT_EQ(p.stats().max_a_row_nnz, 42);
  const auto g2 = on_gpu<plus_times<double>>(ctx(), p, b, a, nullptr, o);
  EXPECT_TRUE(csr_near(g2, cpu::spgemm<plus_times<double>>(b, a), 1e-12));
  EXPECT_EQ(p.stats().max_a_row_nnz, 18);
}

TEST_F(Gpu, DenseRowsInSharedMemoryWindows) {
  // Rows 5%, 50% and 100% dense (and sparse ones beside them), forced into the dense path;
  // 3,000 columns fit one window, 70,000 doubles need three (about 28,000 a window on an H100).
  spgemm_options every_row_dense;
  every_row_dense.tuning.dense_row_fraction = 0.01;
  every_row_dense.tuning.dense_row_min_entries = 1;
  const std::vector<double> density = {0.05, 0.5, 1.0, 0.001, 1.0, 0.5, 0.05, 0.2};
  for (const index_t cols : {3000, 70000}) {
    SCOPED_TRACE("columns " + std::to_string(cols));
    const dense_case dc = dense_rows_case(density, cols, 11 + static_cast<std::uint64_t>(cols));
    for (const spgemm_options& opt : {spgemm_options{}, every_row_dense}) {
      EXPECT_TRUE(
          (same<plus_times<double>, double, double>(ctx(), dc.a, dc.b, nullptr, 1e-12, opt)));
      const auto af = convert<float>(dc.a), bf = convert<float>(dc.b);
      EXPECT_TRUE((same<plus_times<float>, float, float>(ctx(), af, bf, nullptr, 1e-5, opt)));
      // MCL's product: float cells, double sums.
      EXPECT_TRUE((same<plus_times<double>, float, float>(ctx(), af, bf, nullptr, 1e-12, opt)));
      EXPECT_TRUE((same<min_plus<double>, double, double>(ctx(), dc.a, dc.b, nullptr, 0.0, opt)));
      // Unsorted rows of B: the same result, every window walking the whole rows.
      EXPECT_TRUE((same<plus_times<double>, double, double>(ctx(), dc.a, shuffled_rows(dc.b, 3),
                                                            nullptr, 1e-12, opt)));
      // Masks, integer values and patterns.
      const host_csr<pattern> m = convert<pattern>(
          rows_of_sizes(std::vector<int>(density.size(), static_cast<int>(cols / 3)), cols, 5));
      EXPECT_TRUE((same<plus_times<double>, double, double, structural_mask>(ctx(), dc.a, dc.b, &m,
                                                                             1e-12, opt)));
      const auto ai = convert<int>(dc.a), bi = convert<int>(dc.b);
      EXPECT_TRUE((same<or_and<int>, int, int, complement_mask>(ctx(), ai, bi, &m, 0.0, opt)));
      const auto ap = convert<pattern>(dc.a), bp = convert<pattern>(dc.b);
      EXPECT_TRUE((same<any_pair, pattern, pattern>(ctx(), ap, bp, nullptr, 0.0, opt)));
      EXPECT_TRUE((same<plus_pair<long long>, pattern, pattern, structural_mask>(ctx(), ap, bp, &m,
                                                                                 0.0, opt)));
    }
  }
}

TEST_F(Gpu, DenseRowsRectangularAndUnsortedOutputRequest) {
  // Wide C (A 5 x 40, B 40 x 45,000) whose rows come out sorted even when the caller does
  // not ask for sorting; the global-array path (dense_windows off) gives the same.
  const dense_case dc = dense_rows_case({1.0, 0.7, 0.3, 0.9, 1.0}, 45000, 21);
  spgemm_options unsorted;
  unsorted.sorted = false;
  EXPECT_TRUE(
      (same<plus_times<double>, double, double>(ctx(), dc.a, dc.b, nullptr, 1e-12, unsorted)));
  spgemm_options global;
  global.tuning.dense_windows = false;
  EXPECT_TRUE(
      (same<plus_times<double>, double, double>(ctx(), dc.a, dc.b, nullptr, 1e-12, global)));
  plan p;
  const auto c =
      on_gpu<plus_times<double>, double, double>(ctx(), p, dc.a, dc.b, nullptr, unsorted);
  ASSERT_EQ(c.rows, 5);
  EXPECT_EQ(c.rpt[1] - c.rpt[0], 45000);  // the 100% row: every column
  EXPECT_EQ(check(c), "");
}

// The dense paths' reach (spgemm_dense_rows_fit, which MCL reads to fuse wide dense expansions):
// open to the 45,000 columns above, closed where the bitmap alone fills the opt-in shared memory.
TEST_F(Gpu, DenseRowsFitFollowsTheDevicesSharedMemory) {
  const std::size_t smem = ctx().device().smem_per_block_optin;
  ASSERT_GT(smem, 45000u / 8);
  EXPECT_TRUE(spgemm_dense_rows_fit(ctx(), 45000));
  EXPECT_FALSE(spgemm_dense_rows_fit(ctx(), static_cast<index_t>(smem * 8)));
  EXPECT_TRUE(spgemm_dense_rows_fit(ctx(), static_cast<index_t>(smem * 8 / 2)));
}

TEST_F(Gpu, UserDefinedSemiring) {
  const auto g = rmat(12, 8, 8);
  EXPECT_TRUE((same<opsparse::test::max_times, double, double>(ctx(), g, g)));
  const auto e = rows_of_sizes({3, 20000}, 1 << 15, 9);  // a long row: the global table too
  const auto b = band(1 << 15, 2);
  for (bool dense : {true, false}) {
    spgemm_options opt;
    opt.tuning.dense_long_rows = dense;
    EXPECT_TRUE(
        (same<opsparse::test::max_times, double, double>(ctx(), e, b, nullptr, 1e-12, opt)));
  }
}

// Long rows with every instantiated semiring and mask, through both long-row paths.
TEST_F(Gpu, LongRowsWithSemiringsAndMasks) {
  const auto a = rows_of_sizes({2, 15000, 40, 30000}, 1 << 16, 12);
  const auto b = band(1 << 16, 3);
  const auto pa = convert<pattern>(a), pb = convert<pattern>(b);
  // a mask with about half the columns of each row of C
  auto full = cpu::spgemm<plus_times<double>>(a, b);
  host_csr<pattern> m(full.rows, full.cols);
  for (index_t i = 0; i < full.rows; ++i) {
    for (offset_t k = full.rpt[i]; k < full.rpt[i + 1]; ++k)
      if (full.col[k] % 2 == 0) m.col.push_back(full.col[k]);
    m.rpt[i + 1] = static_cast<offset_t>(m.col.size());
  }
  using i64 = long long;
  // B rows of 20: a warp's products flattened across its lanes (rows of 3 above use groups).
  const auto b20 = band(1 << 16, 20);
  for (bool flat : {true, false}) {
    spgemm_options o;
    o.tuning.flatten_products = flat;
    SCOPED_TRACE(flat ? "flattened" : "groups");
    EXPECT_TRUE((same<plus_times<double>>(ctx(), a, b20, nullptr, 1e-12, o)));
    EXPECT_TRUE((same<plus_pair<i64>, pattern, pattern, structural_mask>(
        ctx(), pa, convert<pattern>(b20), &m, 0.0, o)));
    o.tuning.dense_long_rows = false;
    EXPECT_TRUE((same<plus_times<double>>(ctx(), a, b20, nullptr, 1e-12, o)));
  }
  for (bool dense : {true, false}) {
    SCOPED_TRACE(dense ? "dense" : "hash");
    spgemm_options o;
    o.tuning.dense_long_rows = dense;
    EXPECT_TRUE(
        (same<plus_pair<i64>, pattern, pattern, structural_mask>(ctx(), pa, pb, &m, 0.0, o)));
    EXPECT_TRUE((same<any_pair, pattern, pattern, complement_mask>(ctx(), pa, pb, &m, 0.0, o)));
    EXPECT_TRUE((same<any_pair, pattern, pattern>(ctx(), pa, pb, nullptr, 0.0, o)));
    EXPECT_TRUE((same<min_plus<double>, double, double>(ctx(), a, b, nullptr, 1e-12, o)));
    EXPECT_TRUE(
        (same<plus_times<double>, double, double, structural_mask>(ctx(), a, b, &m, 1e-12, o)));
    EXPECT_TRUE((same<plus_times<float>, float, float>(ctx(), convert<float>(a), convert<float>(b),
                                                       nullptr, 1e-5, o)));
  }
}

TEST_F(Gpu, EveryAblationGivesTheSameResult) {
  const auto a = rmat(13, 12, 17);
  std::vector<spgemm_options> opts(14);
  opts[13].tuning.row_sized_tables = false;
  opts[10].tuning.paper_hash = true;
  opts[11].tuning.pooled_memory = false;
  opts[12].tuning.radix_sort_rows = false;
  opts[12].tuning.bucket_order = false;
  opts[8].tuning.dense_long_rows = false;
  opts[9].tuning.flatten_products = false;
  opts[0].tuning.shared_binning = false;
  opts[1].tuning.single_access_hash = false;
  opts[2].tuning.symbolic_range = 1.0;
  opts[3].tuning.symbolic_range = 1.5;
  opts[4].tuning.numeric_range = 1.0;
  opts[5].tuning.numeric_range = 3.0;
  opts[6].tuning.overlap_allocation = false;
  opts[7].tuning.large_rows_first = false;
  opts[7].time_phases = true;
  for (std::size_t i = 0; i < opts.size(); ++i)
    EXPECT_TRUE((same<plus_times<double>>(ctx(), a, a, nullptr, 1e-12, opts[i])))
        << "option set " << i;
  opts[1].tuning.numeric_range = 1.5;
  EXPECT_TRUE((same<plus_times<double>>(ctx(), a, a, nullptr, 1e-12, opts[1])));
  // the paper's hash with the global-table path and multi-access probing
  opts[10].tuning.dense_long_rows = false;
  opts[10].tuning.single_access_hash = false;
  EXPECT_TRUE((same<plus_times<double>>(ctx(), a, a, nullptr, 1e-12, opts[10])));
}

TEST_F(Gpu, UnsortedOutputHasTheSameEntries) {
  const auto a = rmat(13, 10, 4);
  spgemm_options opt;
  opt.sorted = false;
  plan p;
  auto g = on_gpu<plus_times<double>>(ctx(), p, a, a, nullptr, opt);
  for (index_t i = 0; i < g.rows; ++i) {
    std::vector<std::pair<index_t, double>> row;
    for (offset_t k = g.rpt[i]; k < g.rpt[i + 1]; ++k) row.emplace_back(g.col[k], g.val[k]);
    std::sort(row.begin(), row.end());
    for (std::size_t k = 0; k < row.size(); ++k) {
      g.col[g.rpt[i] + k] = row[k].first;
      g.val[g.rpt[i] + k] = row[k].second;
    }
  }
  EXPECT_TRUE(csr_near(g, cpu::spgemm<plus_times<double>>(a, a), 1e-12));
}

TEST_F(Gpu, MisuseThrowsAndThePlanStaysUsable) {
  const auto a = random_csr<double>(10, 20, 3.0, 1);
  const auto b = random_csr<double>(30, 10, 3.0, 2);
  auto da = device_csr<double>::upload(a, ctx().stream());
  auto db = device_csr<double>::upload(b, ctx().stream());
  plan p;
  device_csr<double> dc;
  EXPECT_THROW((spgemm<plus_times<double>>(ctx(), p, da.view(), db.view(), dc)),
               std::invalid_argument);
  auto dm = device_csr<pattern>::upload(convert<pattern>(random_csr<double>(5, 5, 1.0, 3)),
                                        ctx().stream());
  EXPECT_THROW((spgemm<plus_times<double>>(ctx(), p, da.view(), da.view() /*20x?*/, dc,
                                           device_mask<structural_mask>(dm))),
               std::invalid_argument);
  spgemm_options bad;
  bad.tuning.numeric_range = 0.5;
  const auto sq = random_csr<double>(20, 20, 3.0, 4);
  auto dsq = device_csr<double>::upload(sq, ctx().stream());
  EXPECT_THROW((spgemm<plus_times<double>>(ctx(), p, dsq.view(), dsq.view(), dc, no_mask{}, bad)),
               std::invalid_argument);
  bad.tuning.numeric_range = 2.0;
  bad.tuning.symbolic_range = 0.9;
  EXPECT_THROW((spgemm<plus_times<double>>(ctx(), p, dsq.view(), dsq.view(), dc, no_mask{}, bad)),
               std::invalid_argument);
  bad.tuning.symbolic_range = 1.2;
  bad.tuning.numeric_row_lanes = 16;  // bin 0 is compiled for 2, 4 and 8
  EXPECT_THROW((spgemm<plus_times<double>>(ctx(), p, dsq.view(), dsq.view(), dc, no_mask{}, bad)),
               std::invalid_argument);
  spgemm<plus_times<double>>(ctx(), p, dsq.view(), dsq.view(), dc);
  ctx().synchronize();
  EXPECT_TRUE(
      csr_near(dc.download(ctx().stream()), cpu::spgemm<plus_times<double>>(sq, sq), 1e-12));
}

// The fused reduction (triangle counting's sum(C<L> = L·L)) through each of its paths: the
// warp's table, the block's table, the global bitmap and long rows of A with short mask rows.
TEST_F(Gpu, MaskedReduceEveryPath) {
  using i64 = long long;
  plan p;
  // Rows: warp path (A 2, 100: mask rows as bits of a narrow range or hashed over a wide one),
  // block table (A 600 and 3000: mask rows of hundreds to thousands), a mask row past the
  // block's hash set (A 20000, as bits of its range), a long A row (2500) with a 10-entry mask
  // row, and an empty mask row; below, one past the table's bits too.
  const auto a = rows_of_sizes({2, 100, 600, 3000, 20000, 2500, 50}, 1 << 16, 21);
  const auto b = band(1 << 16, 3);
  const auto full = cpu::spgemm<plus_times<double>>(a, b);
  host_csr<pattern> m(full.rows, full.cols);
  for (index_t i = 0; i < full.rows; ++i) {
    int kept = 0;
    for (offset_t k = full.rpt[i]; k < full.rpt[i + 1]; ++k) {
      if (i == 6) break;
      if (i == 5 && kept == 10) break;
      if (full.col[k] % 2 == 0 || i == 5) {
        m.col.push_back(full.col[k]);
        ++kept;
      }
    }
    m.rpt[i + 1] = static_cast<offset_t>(m.col.size());
  }
  EXPECT_GT(m.rpt[5] - m.rpt[4], 16384);  // past the hash set
  EXPECT_TRUE((reduce_matches<plus_times<double>>(ctx(), p, a, b, m, 1e-12)));
  EXPECT_TRUE(
      (reduce_matches<plus_pair<i64>>(ctx(), p, convert<pattern>(a), convert<pattern>(b), m, 0.0)));
  // B's rows (here 40 entries, longer than a warp) walked between a mask row's least and
  // greatest column (both ends cut: the first and last sixteenth of each row's range dropped),
  // and whole where B is unsorted.
  const auto wide = band(1 << 16, 40);
  host_csr<pattern> inner(m.rows, m.cols);
  for (index_t i = 0; i < m.rows; ++i) {
    if (m.rpt[i + 1] > m.rpt[i]) {
      const index_t lo = m.col[m.rpt[i]], span = m.col[m.rpt[i + 1] - 1] - lo;
      for (offset_t k = m.rpt[i]; k < m.rpt[i + 1]; ++k)
        if (m.col[k] - lo >= span / 16 && lo + span - m.col[k] >= span / 16)
          inner.col.push_back(m.col[k]);
    }
    inner.rpt[i + 1] = static_cast<offset_t>(inner.col.size());
  }
  EXPECT_GT(inner.rpt[5] - inner.rpt[4], 16384);  // still past the hash set
  EXPECT_TRUE((reduce_matches<plus_times<double>>(ctx(), p, a, wide, inner, 1e-12)));
  EXPECT_TRUE(
      (reduce_matches<plus_times<double>>(ctx(), p, a, shuffled_rows(wide, 5), inner, 1e-12)));
  EXPECT_TRUE((reduce_matches<plus_pair<i64>>(ctx(), p, convert<pattern>(a),
                                              convert<pattern>(shuffled_rows(wide, 6)), m, 0.0)));
  // A mask row longer than half the block's table whose columns span more than its bits (2^20
  // at most): the bitmap in global memory.
  {
    const auto a1 = rows_of_sizes({5000}, 1 << 16, 31);
    const auto b1 = rows_of_sizes(std::vector<int>(1 << 16, 4), 1 << 22, 32);
    const auto c1 = cpu::spgemm<plus_times<double>>(a1, b1);
    const host_csr<pattern> m1 = convert<pattern>(c1);
    ASSERT_GT(m1.nnz(), 16384);
    ASSERT_GT(m1.col.back() - m1.col.front(), 1 << 20);
    EXPECT_TRUE((reduce_matches<plus_times<double>>(ctx(), p, a1, b1, m1, 1e-12)));
  }
  // Empty operands and a reused plan: nothing allocated on a repeat of the same sizes.
  host_csr<pattern> empty(5, 5);
  EXPECT_TRUE((reduce_matches<plus_pair<i64>>(ctx(), p, empty, empty, empty, 0.0)));
  const auto before = p.metadata_allocations();
  EXPECT_TRUE((reduce_matches<plus_times<double>>(ctx(), p, a, b, m, 1e-12)));
  EXPECT_EQ(p.metadata_allocations(), before);
}

// The same on graphs: triangle counting and valued masked products.
TEST_F(Gpu, MaskedReduceOnGraphsAndSharedMatrices) {
  using i64 = long long;
  plan p;
  // Triangle counting on a power-law graph: sum(C<L> = L·L), and Burkhardt's C<A> = A·A.
  const auto sym = cpu::undirected_simple(rmat(14, 16, 5));
  const auto l = strictly_lower(sym);
  EXPECT_TRUE((reduce_matches<plus_pair<i64>>(ctx(), p, l, l, l, 0.0)));
  EXPECT_TRUE((reduce_matches<plus_pair<i64>>(ctx(), p, sym, sym, sym, 0.0)));
  // One large enough for B's rows to be walked within each mask row's columns.
  const auto big = strictly_lower(cpu::undirected_simple(rmat(17, 16, 9)));
  ASSERT_GE(big.nnz(), spgemm_reduce_range_min_entries);
  EXPECT_TRUE((reduce_matches<plus_pair<i64>>(ctx(), p, big, big, big, 0.0)));
  // Every shared matrix, as triangle counting and as a valued masked product.
  if (!opsparse::test::datasets_dir().empty() &&
      std::filesystem::is_directory(opsparse::test::datasets_dir() + "/matrices")) {
    for (const auto& e :
         std::filesystem::directory_iterator(opsparse::test::datasets_dir() + "/matrices")) {
      if (e.path().extension() != ".mtx") continue;
      const auto am = io::read_matrix_market<double>(e.path().string());
      if (am.rows != am.cols) continue;
      SCOPED_TRACE(e.path().filename().string());
      const auto pm = convert<pattern>(am);
      const auto lm = strictly_lower(pm);
      EXPECT_TRUE((reduce_matches<plus_pair<i64>>(ctx(), p, lm, lm, lm, 0.0)));
      EXPECT_TRUE((reduce_matches<plus_times<double>>(ctx(), p, am, am, pm, 1e-12)));
    }
  }
  const auto before = p.metadata_allocations();
  EXPECT_TRUE((reduce_matches<plus_pair<i64>>(ctx(), p, l, l, l, 0.0)));
  EXPECT_EQ(p.metadata_allocations(), before);
}
