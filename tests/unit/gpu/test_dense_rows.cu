// opsparse::visit_dense_rows: the windows an epilogue sees, put back together, are the rows of
// A·B that the CPU engine computes; with several windows a row, B's rows sorted or not, masks,
// rectangular shapes, empty rows and rows 5%, 50% and 100% dense.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/dense_rows.cuh"
#include "opsparse/device_csr.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse;

/// Writes each visited row densely (values and presence) and counts its entries and windows.
/// Fixed > 0: the visit sums in fixed point of Fixed fraction bits (no presence bits: the
/// products are positive, a column is present when its sum is not 0).
template <int Fixed = 0>
struct dense_copy {
  static constexpr bool presence_bits = Fixed == 0;
  static constexpr int fixed_point_bits = Fixed;
  double* out;         // rows x cols
  unsigned char* has;  // rows x cols
  long long* nnz;      // per row
  int* windows;        // per row
  index_t cols;
  struct shared_storage {
    unsigned long long count;
    int windows;
    index_t next_w0;
    int order_ok;
  };
  __device__ void begin_row(shared_storage& s, index_t) const {
    if (threadIdx.x == 0) {
      s.count = 0;
      s.windows = 0;
      s.next_w0 = 0;
      s.order_ok = 1;
    }
  }
  __device__ void window(shared_storage& s, index_t row, index_t w0, int width, const double* vals,
                         const unsigned* bits) const {
    for (int x = threadIdx.x; x < width; x += blockDim.x) {
      const bool present = presence_bits ? ((bits[x >> 5] >> (x & 31)) & 1u) != 0 : vals[x] != 0.0;
      const long long at = static_cast<long long>(row) * cols + w0 + x;
      has[at] = present;
      out[at] = present ? vals[x] : 0.0;
      if (present) atomicAdd(&s.count, 1ull);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      s.order_ok &= w0 == s.next_w0;  // windows come in order and tile the columns
      s.next_w0 = w0 + width;
      ++s.windows;
    }
  }
  __device__ void end_row(shared_storage& s, index_t row) const {
    if (threadIdx.x == 0) {
      nnz[row] = s.count;
      windows[row] = s.order_ok && s.next_w0 == cols ? s.windows : -1;
    }
  }
};

/// Rows of A with the given numbers of entries (distinct random columns of `k`).
host_csr<double> rows_with(const std::vector<int>& sizes, index_t k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(0.5, 2.0);
  host_csr<double> a(static_cast<index_t>(sizes.size()), k);
  std::vector<index_t> all(static_cast<std::size_t>(k));
  std::iota(all.begin(), all.end(), 0);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<index_t> cols(all.begin(), all.begin() + std::min<index_t>(sizes[i], k));
    std::sort(cols.begin(), cols.end());
    for (index_t c : cols) {
      a.col.push_back(c);
      a.val.push_back(val(rng));
    }
    a.rpt[i + 1] = static_cast<offset_t>(a.col.size());
  }
  return a;
}

/// Visits A·B (optionally masked) on the GPU and compares each row with the CPU engine's (to
/// rounding: `tol` relative). Fixed > 0: in fixed point (dense_copy), visited twice, and the
/// two visits must agree to the bit (fixed-point sums do not depend on the order).
template <class Mask = no_mask, int Fixed = 0>
::testing::AssertionResult visit_matches(const host_csr<double>& a, const host_csr<double>& b,
                                         int max_window, int expect_windows,
                                         const host_csr<pattern>* m = nullptr, double tol = 1e-12,
                                         bool lane_walk = false) {
  context ctx;
  const auto da = device_csr<double>::upload(a, ctx.stream());
  const auto db = device_csr<double>::upload(b, ctx.stream());
  device_csr<pattern> dm;
  Mask mask{};
  if constexpr (Mask::kind != mask_kind::none) {
    dm = device_csr<pattern>::upload(*m, ctx.stream());
    mask = device_mask<Mask>(dm);
  }
  const std::size_t cells = static_cast<std::size_t>(a.rows) * b.cols;
  device_buffer<double> out(std::max<std::size_t>(1, cells));
  device_buffer<unsigned char> has(std::max<std::size_t>(1, cells));
  device_buffer<long long> nnz(std::max<index_t>(1, a.rows));
  device_buffer<int> windows(std::max<index_t>(1, a.rows));
  dense_rows_options opt;
  opt.max_window = max_window;
  opt.lane_walk = lane_walk;
  const dense_copy<Fixed> epi{out.data(), has.data(), nnz.data(), windows.data(), b.cols};
  visit_dense_rows<plus_times<double>>(ctx, da.view(), db.view(), epi, mask, opt);
  ctx.synchronize();  // the visit ran on the context's stream, which cudaMemcpy does not wait for
  std::vector<double> h_out(cells), again(cells);
  if (Fixed > 0 && cells) {
    OPSPARSE_CUDA_TRY(
        cudaMemcpy(again.data(), out.data(), cells * sizeof(double), cudaMemcpyDeviceToHost));
    visit_dense_rows<plus_times<double>>(ctx, da.view(), db.view(), epi, mask, opt);
    ctx.synchronize();
  }
  std::vector<unsigned char> h_has(cells);
  std::vector<long long> h_nnz(static_cast<std::size_t>(a.rows));
  std::vector<int> h_win(static_cast<std::size_t>(a.rows));
  if (cells) {
    OPSPARSE_CUDA_TRY(
        cudaMemcpy(h_out.data(), out.data(), cells * sizeof(double), cudaMemcpyDeviceToHost));
    OPSPARSE_CUDA_TRY(cudaMemcpy(h_has.data(), has.data(), cells, cudaMemcpyDeviceToHost));
  }
  if (a.rows) {
    OPSPARSE_CUDA_TRY(cudaMemcpy(h_nnz.data(), nnz.data(), h_nnz.size() * sizeof(long long),
                                 cudaMemcpyDeviceToHost));
    OPSPARSE_CUDA_TRY(cudaMemcpy(h_win.data(), windows.data(), h_win.size() * sizeof(int),
                                 cudaMemcpyDeviceToHost));
  }
  if (Fixed > 0 && std::memcmp(again.data(), h_out.data(), cells * sizeof(double)) != 0)
    return ::testing::AssertionFailure() << "two fixed-point visits differ";
  host_csr<double> c;
  if constexpr (Mask::kind == mask_kind::none)
    c = cpu::spgemm<plus_times<double>>(a, b);
  else
    c = cpu::spgemm<plus_times<double>>(a, b, cpu::host_mask<Mask>(*m));
  for (index_t i = 0; i < a.rows; ++i) {
    if (h_win[i] != expect_windows)
      return ::testing::AssertionFailure()
             << "row " << i << ": " << h_win[i] << " windows (or out of order), expected "
             << expect_windows;
    if (h_nnz[i] != c.rpt[i + 1] - c.rpt[i])
      return ::testing::AssertionFailure()
             << "row " << i << ": " << h_nnz[i] << " entries, CPU " << c.rpt[i + 1] - c.rpt[i];
    std::vector<char> seen(static_cast<std::size_t>(b.cols), 0);
    for (offset_t k = c.rpt[i]; k < c.rpt[i + 1]; ++k) {
      const std::size_t at = static_cast<std::size_t>(i) * b.cols + c.col[k];
      seen[c.col[k]] = 1;
      if (!h_has[at])
        return ::testing::AssertionFailure() << "row " << i << " col " << c.col[k] << " missing";
      if (std::abs(h_out[at] - c.val[k]) > tol * std::max(1.0, std::abs(c.val[k])))
        return ::testing::AssertionFailure()
               << "row " << i << " col " << c.col[k] << ": " << h_out[at] << " vs " << c.val[k];
    }
    for (index_t j = 0; j < b.cols; ++j)
      if (!seen[j] && h_has[static_cast<std::size_t>(i) * b.cols + j])
        return ::testing::AssertionFailure()
               << "row " << i << " col " << j << " present on the GPU only";
  }
  return ::testing::AssertionSuccess();
}

TEST(DenseRows, WindowsPutTogetherAreTheProductsRows) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  // B: 120 x 1000; rows of A reach 5%, 50% and 100% of B's columns, and none (empty rows).
  const host_csr<double> b = rows_with(std::vector<int>(120, 60), 1000, 3);
  const host_csr<double> a = rows_with({0, 1, 2, 30, 119, 120, 0, 60}, 120, 4);
  EXPECT_TRUE(visit_matches(a, b, 0, 1));    // one window holds all 1,000 columns
  EXPECT_TRUE(visit_matches(a, b, 256, 4));  // 256 + 256 + 256 + 232
  EXPECT_TRUE(visit_matches(a, b, 32, 32));  // 31 windows of 32 and one of 8
  // B's rows in a shuffled order: every window walks them whole.
  host_csr<double> u = b;
  std::mt19937_64 rng(5);
  for (index_t i = 0; i < u.rows; ++i) {
    std::vector<std::pair<index_t, double>> row;
    for (offset_t k = u.rpt[i]; k < u.rpt[i + 1]; ++k) row.emplace_back(u.col[k], u.val[k]);
    std::shuffle(row.begin(), row.end(), rng);
    for (std::size_t k = 0; k < row.size(); ++k) {
      u.col[u.rpt[i] + k] = row[k].first;
      u.val[u.rpt[i] + k] = row[k].second;
    }
  }
  EXPECT_TRUE(visit_matches(a, u, 256, 4));
}

TEST(DenseRows, RectangularMaskedAndEmpty) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  const host_csr<double> a = opsparse::test::random_csr<double>(37, 90, 20, 8);
  const host_csr<double> b = opsparse::test::random_csr<double>(90, 333, 40, 9);
  EXPECT_TRUE(visit_matches(a, b, 64, 6));  // 333 columns: 5 windows of 64 and one of 13
  const host_csr<double> md = opsparse::test::random_csr<double>(37, 333, 100, 10);
  host_csr<pattern> m(md.rows, md.cols);
  m.rpt = md.rpt;
  m.col = md.col;
  EXPECT_TRUE(visit_matches<structural_mask>(a, b, 64, 6, &m));
  EXPECT_TRUE(visit_matches<complement_mask>(a, b, 128, 3, &m));
  EXPECT_TRUE(visit_matches(host_csr<double>(0, 90), b, 0, 1));   // no rows
  EXPECT_TRUE(visit_matches(host_csr<double>(5, 90), b, 64, 6));  // rows without entries
}

TEST(DenseRows, LanesAndWarpsWalkingTheCursorsGiveTheProductsRows) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  // Rows of A up to 2,500 nonzeros: past the 2,048 cursors of a block, whose later steps search
  // their parts; B's rows of 5 to 300 entries over 1,000 columns, walked in windows that hold
  // a few of each row's entries (the lanes' case) or most of them (the warps').
  std::vector<int> lengths;
  for (int i = 0; i < 3000; ++i) lengths.push_back(5 + (i * 37) % 296);
  const host_csr<double> b = rows_with(lengths, 1000, 21);
  const host_csr<double> a = rows_with({2500, 10, 0, 3000, 2048, 1}, 3000, 22);
  for (bool lanes : {false, true}) {
    SCOPED_TRACE(lanes ? "lanes walk" : "warps walk");
    EXPECT_TRUE(visit_matches(a, b, 32, 32, nullptr, 1e-12, lanes));
    EXPECT_TRUE(visit_matches(a, b, 256, 4, nullptr, 1e-12, lanes));
    EXPECT_TRUE(visit_matches(a, b, 0, 1, nullptr, 1e-12, lanes));
    EXPECT_TRUE((visit_matches<no_mask, 40>(a, b, 64, 16, nullptr, 1e-11, lanes)));
    const host_csr<double> md = opsparse::test::random_csr<double>(6, 1000, 300, 23);
    host_csr<pattern> m(md.rows, md.cols);
    m.rpt = md.rpt;
    m.col = md.col;
    EXPECT_TRUE(visit_matches<structural_mask>(a, b, 64, 16, &m, 1e-12, lanes));
  }
}

}  // namespace

namespace {

TEST(DenseRows, FixedPointSumsAreTheProductsRowsAndDeterministic) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  // Products of 0.25..4 summed over up to 120 terms (< 2^9): 52 fraction bits leave 11 bits of
  // headroom and round each product to 2^-53 (an error of 120 * 1.1e-16 at most).
  const host_csr<double> b = rows_with(std::vector<int>(120, 60), 1000, 13);
  const host_csr<double> a = rows_with({0, 1, 2, 30, 119, 120, 0, 60}, 120, 14);
  EXPECT_TRUE((visit_matches<no_mask, 52>(a, b, 0, 1, nullptr, 1e-13)));
  EXPECT_TRUE((visit_matches<no_mask, 52>(a, b, 256, 4, nullptr, 1e-13)));  // several windows
  EXPECT_TRUE((visit_matches<no_mask, 52>(a, b, 32, 32, nullptr, 1e-13)));
  const host_csr<double> r = opsparse::test::random_csr<double>(37, 90, 20, 18);
  const host_csr<double> rb = opsparse::test::random_csr<double>(90, 333, 40, 19);
  EXPECT_TRUE((visit_matches<no_mask, 52>(r, rb, 64, 6, nullptr, 1e-13)));  // rectangular
  const host_csr<double> md = opsparse::test::random_csr<double>(37, 333, 100, 20);
  host_csr<pattern> m(md.rows, md.cols);
  m.rpt = md.rpt;
  m.col = md.col;
  EXPECT_TRUE((visit_matches<structural_mask, 52>(r, rb, 64, 6, &m, 1e-13)));
}

}  // namespace
