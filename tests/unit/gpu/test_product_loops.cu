// The engine's product loop (detail/block/product_loops.cuh, for_each_product) on its own: every
// product A(row, j)·B(k, p) of a row is visited exactly once, whatever the threads a row, the
// lanes a nonzero of A (groups and the flattened loop), the clip of B's rows to a mask row's
// columns, a functor that may stop, and each search of the flattened loop (32-bit, 64-bit, and
// B rows one at a time where a round's products pass NARROW).
// Each visit adds a hash of (j, p) to its row: a product lost or visited twice changes the sum.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "opsparse/context.hpp"
#include "opsparse/detail/block/product_loops.cuh"
#include "opsparse/device_csr.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse;
using detail::dev_csr;
using u64 = unsigned long long;

__host__ __device__ inline u64 visit_hash(offset_t j, offset_t p) {
  u64 h =
      static_cast<u64>(j) * 0x9E3779B97F4A7C15ull ^ (static_cast<u64>(p) + 0x632BE59BD9B4E019ull);
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}

/// The columns [lo, hi] of each row's clip, or hi < 0 for whole rows.
struct row_clip {
  const index_t* lo;
  const index_t* hi;
};

/// One block a row: counts and hashes the products its threads visit. A's values are their entry
/// indices, so that a visit names its nonzero j.
template <offset_t NARROW, bool STOPS>
__global__ void visit_kernel(dev_csr<double> a, dev_csr<double> b, int glog, row_clip clip,
                             u64* count, u64* sum) {
  const index_t row = blockIdx.x;
  u64 n = 0, h = 0;
  auto visit = [&](double av, offset_t p) {
    ++n;
    h += visit_hash(static_cast<offset_t>(av), p);
  };
  const auto run = [&](auto&& c) {
    if constexpr (STOPS) {
      detail::for_each_product<false, NARROW>(
          a, b, row, threadIdx.x, blockDim.x, glog,
          [&](double av, offset_t p) {
            visit(av, p);
            return false;
          },
          c);
    } else {
      detail::for_each_product<false, NARROW>(a, b, row, threadIdx.x, blockDim.x, glog, visit, c);
    }
  };
  if (clip.hi[row] < 0)
    run(detail::whole_rows{});
  else
    run(detail::column_range{b.col, clip.lo[row], clip.hi[row]});
  atomicAdd(count + row, n);
  atomicAdd(sum + row, h);
}

/// Rows of the given lengths, distinct sorted random columns of `cols`, values their indices.
host_csr<double> rows_of(const std::vector<int>& lengths, index_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  host_csr<double> m(static_cast<index_t>(lengths.size()), cols);
  std::vector<index_t> all(static_cast<std::size_t>(cols));
  std::iota(all.begin(), all.end(), 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<index_t> r(all.begin(), all.begin() + lengths[i]);
    std::sort(r.begin(), r.end());
    m.col.insert(m.col.end(), r.begin(), r.end());
    m.rpt[i + 1] = static_cast<offset_t>(m.col.size());
  }
  m.val.resize(m.col.size());
  std::iota(m.val.begin(), m.val.end(), 0.0);
  return m;
}

struct visits {
  std::vector<u64> count, sum;
};

/// What the loop must visit: every product, B's rows of at least column_range::min_entries
/// entries cut to [lo, hi] where the row has a clip.
visits expected(const host_csr<double>& a, const host_csr<double>& b,
                const std::vector<index_t>& lo, const std::vector<index_t>& hi) {
  visits v{std::vector<u64>(a.rows), std::vector<u64>(a.rows)};
  for (index_t i = 0; i < a.rows; ++i)
    for (offset_t j = a.rpt[i]; j < a.rpt[i + 1]; ++j) {
      const index_t k = a.col[j];
      const bool cut = hi[i] >= 0 && b.rpt[k + 1] - b.rpt[k] >= detail::column_range::min_entries;
      for (offset_t p = b.rpt[k]; p < b.rpt[k + 1]; ++p) {
        if (cut && (b.col[p] < lo[i] || b.col[p] > hi[i])) continue;
        ++v.count[i];
        v.sum[i] += visit_hash(j, p);
      }
    }
  return v;
}

template <class T>
device_buffer<T> upload(const std::vector<T>& h) {
  device_buffer<T> d(h.size());
  OPSPARSE_CUDA_TRY(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
std::vector<T> download(const device_buffer<T>& d, std::size_t n) {
  std::vector<T> h(n);
  OPSPARSE_CUDA_TRY(cudaMemcpy(h.data(), d.data(), n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

template <offset_t NARROW, bool STOPS>
visits run(const device_csr<double>& a, const device_csr<double>& b, int glog, int threads,
           const device_buffer<index_t>& lo, const device_buffer<index_t>& hi) {
  const auto rows = static_cast<std::size_t>(a.rows());
  device_buffer<u64> count(rows), sum(rows);
  OPSPARSE_CUDA_TRY(cudaMemset(count.data(), 0, rows * sizeof(u64)));
  OPSPARSE_CUDA_TRY(cudaMemset(sum.data(), 0, rows * sizeof(u64)));
  visit_kernel<NARROW, STOPS>
      <<<a.rows(), threads>>>({a.rpt(), a.col(), a.val()}, {b.rpt(), b.col(), b.val()}, glog,
                              {lo.data(), hi.data()}, count.data(), sum.data());
  OPSPARSE_CUDA_TRY(cudaGetLastError());
  OPSPARSE_CUDA_TRY(cudaDeviceSynchronize());
  return {download(count, rows), download(sum, rows)};
}

TEST(ProductLoops, EveryProductOnceInEveryLoop) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  // A's rows: empty, single, under a warp, one and many rounds of 32 nonzeros; B's rows from 0
  // to 3,000 entries (a few far longer than the rest, as in power-law graphs).
  const index_t k = 4000, cols = 6000;
  const host_csr<double> a = rows_of({0, 1, 2, 5, 31, 32, 33, 64, 100, 300, 1000, 7, 3}, k, 1);
  std::vector<int> lengths(static_cast<std::size_t>(k));
  std::mt19937_64 rng(2);
  for (int& n : lengths) n = static_cast<int>(rng() % 60);
  for (int i = 0; i < k; i += 97) lengths[i] = 3000;
  for (int i = 5; i < k; i += 13) lengths[i] = 0;
  const host_csr<double> b = rows_of(lengths, cols, 3);
  // Clips: none, a narrow window, one wider than the columns, an empty one.
  const std::vector<std::pair<index_t, index_t>> windows = {
      {0, -1}, {1000, 1400}, {-5, cols + 5}, {2000, 1999}};
  const device_csr<double> da = device_csr<double>::upload(a), db = device_csr<double>::upload(b);
  for (const auto& [wlo, whi] : windows) {
    std::vector<index_t> lo(a.rows, wlo), hi(a.rows, whi);
    hi[0] = hi[3] = -1;  // some rows whole in every case
    const visits want = expected(a, b, lo, hi);
    const device_buffer<index_t> dlo = upload(lo), dhi = upload(hi);
    for (int threads : {32, 256, 512}) {
      for (int glog : {0, 2, 5, detail::flat_glog}) {
        const std::string where = "window [" + std::to_string(wlo) + ", " + std::to_string(whi) +
                                  "], " + std::to_string(threads) + " threads, glog " +
                                  std::to_string(glog);
        const visits narrow = run<detail::narrow_total, false>(da, db, glog, threads, dlo, dhi);
        EXPECT_EQ(narrow.count, want.count) << where;
        EXPECT_EQ(narrow.sum, want.sum) << where;
        const visits stops = run<detail::narrow_total, true>(da, db, glog, threads, dlo, dhi);
        EXPECT_EQ(stops.sum, want.sum) << where << ", a functor that may stop";
        if (glog != detail::flat_glog) continue;
        // Rounds of more than 40 products (most) a B row at a time, and the 64-bit search.
        for (const visits& other : {run<40, false>(da, db, glog, threads, dlo, dhi),
                                    run<40, true>(da, db, glog, threads, dlo, dhi),
                                    run<0, false>(da, db, glog, threads, dlo, dhi),
                                    run<0, true>(da, db, glog, threads, dlo, dhi)}) {
          EXPECT_EQ(other.count, want.count) << where << ", NARROW 40 or 0";
          EXPECT_EQ(other.sum, want.sum) << where << ", NARROW 40 or 0";
        }
      }
    }
  }
}

}  // namespace
