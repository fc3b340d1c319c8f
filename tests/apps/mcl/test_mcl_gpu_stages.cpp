// The GPU backend's face for a distributed rank with the iterate spread over the ranks
// (device_iterate; opsparse-mcl-mpi's rows layout): two or three backends on one GPU stand for
// the ranks, each holding only its rows, and what NCCL gathers between them is copied here. The
// iterates their column stages give (one or several stages, windows of 64 columns or as many as
// fit) keep the single backend's entries, iteration after iteration, with its values (to the
// last bits of the renormalisation), and so do those of the unfused expansion multiplying by
// the gathered rows of X. Skips without a usable GPU.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/mcl.hpp"
#include "mcl_gpu_test_util.hpp"
#include "mcl_test_util.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse;
using namespace opsparse::mcl;
using namespace opsparse::mcl::test;

struct stages_files {
  static constexpr const char* name = "gpu_stages";
};
class MclGpuStages : public files_suite<stages_files> {};

using arrays = device_iterate<float>::arrays;

void copy(void* to, const void* from, std::size_t bytes) {
  if (bytes > 0) ASSERT_EQ(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
}

/// Ranks emulated on one GPU: rank r owns rows split[r] to split[r + 1].
struct ranks {
  std::vector<std::unique_ptr<backend<float>>> b;
  std::vector<index_t> split;
  index_t n = 0;
  device_iterate<float>& dev(int r) { return *b[r]->on_device(); }
  int size() const { return static_cast<int>(b.size()); }
  void sync() {
    for (int r = 0; r < size(); ++r) ASSERT_EQ(cudaStreamSynchronize(dev(r).stream()), cudaSuccess);
  }

  /// Every rank's part (rows split[q].., `part(q)` gives its entries and `ends(q, before)` its
  /// shifted row ends) gathered into every rank's right buffer, as NCCL's allgather does.
  template <class Part, class Ends>
  std::vector<arrays> gather(Part part, Ends ends, bool with_entries) {
    std::vector<arrays> parts;
    std::vector<offset_t> before;
    offset_t total = 0;
    for (int q = 0; q < size(); ++q) {
      parts.push_back(part(q));
      before.push_back(total);
      total += parts.back().nnz;
    }
    std::vector<arrays> out;
    for (int t = 0; t < size(); ++t) out.push_back(dev(t).right_buffer(with_entries ? total : 0));
    sync();
    for (int q = 0; q < size(); ++q) {
      const offset_t* e = ends(q, before[q]);
      sync();
      const auto rows = static_cast<std::size_t>(split[q + 1] - split[q]);
      for (int t = 0; t < size(); ++t) {
        copy(out[t].rpt + 1 + split[q], e, rows * sizeof(offset_t));
        if (!with_entries) continue;
        copy(out[t].col + before[q], parts[q].col, parts[q].nnz * sizeof(index_t));
        copy(out[t].val + before[q], parts[q].val, parts[q].nnz * sizeof(float));
      }
    }
    for (int t = 0; t < size(); ++t) out[t].nnz = with_entries ? total : 0;
    return out;
  }

  std::vector<arrays> gather_rows(bool with_entries) {
    return gather([&](int q) { return dev(q).current(); },
                  [&](int q, offset_t before) {
                    return dev(q).shifted_row_pointers(split[q], split[q + 1], before);
                  },
                  with_entries);
  }

  /// One iteration of every rank, as opsparse-mcl-mpi's spread rows do it (mcl_dist_devices.cpp).
  void step(const params& p, int stages) {
    std::vector<arrays> shape = gather_rows(false);
    offset_t total = 0;
    for (int r = 0; r < size(); ++r) {
      dev(r).multiply_by(&shape[r], true);
      total += dev(r).products();
    }
    std::vector<std::vector<index_t>> blocks;
    for (int r = 0; r < size(); ++r) {
      dev(r).decide_as(total, 0, false);
      blocks.push_back(b[r]->expansion_blocks(0));
      ASSERT_EQ(dev(r).fused(), dev(0).fused());
    }
    if (dev(0).fused()) {
      for (int s = 0; s < stages; ++s) {
        const auto c0 = static_cast<index_t>(static_cast<long long>(n) * s / stages);
        const auto c1 = static_cast<index_t>(static_cast<long long>(n) * (s + 1) / stages);
        std::vector<arrays> piece =
            gather([&](int q) { return dev(q).column_piece(split[q], split[q + 1], c0, c1); },
                   [&](int q, offset_t before) { return dev(q).piece_row_ends(before); }, true);
        for (int r = 0; r < size(); ++r)
          dev(r).expand_stage(split[r], split[r + 1], p.rule(), piece[r], c0, c1, s == 0,
                              s + 1 == stages);
      }
      for (int r = 0; r < size(); ++r) b[r]->finish_expansion();
    } else {
      std::vector<arrays> x = gather_rows(true);
      for (int r = 0; r < size(); ++r) {
        dev(r).multiply_by(&x[r], true);
        b[r]->expand(split[r], split[r + 1]);
        b[r]->prune_normalise(p.rule());
        b[r]->finish_expansion();
      }
    }
    for (int r = 0; r < size(); ++r) {
      dev(r).multiply_by(nullptr, true);
      dev(r).release_right_buffer();
      b[r]->inflate_normalise(p.inflation);
    }
  }

  /// The rows split anew at `next`, as opsparse-mcl-mpi moves them (mcl_dist_devices.cpp,
  /// resplit()): X's row pointers gathered as the right operand, each rank's spare rows laid out
  /// with the entries it keeps, the others copied in from their holders, as NCCL sends them.
  void resplit(const std::vector<index_t>& next) {
    std::vector<arrays> shape = gather_rows(false);
    for (int r = 0; r < size(); ++r) dev(r).multiply_by(&shape[r], true);
    std::vector<index_t> rows(static_cast<std::size_t>(n) + 1);
    for (index_t i = 0; i <= n; ++i) rows[i] = i;
    const std::vector<offset_t> x = dev(size() - 1).right_row_pointers(rows);
    std::vector<arrays> mine, into;
    for (int r = 0; r < size(); ++r) mine.push_back(dev(r).current());
    for (int r = 0; r < size(); ++r) {
      const index_t k0 = std::max(split[r], next[r]);
      const index_t k1 = std::max(k0, std::min(split[r + 1], next[r + 1]));
      into.push_back(k0 < k1 ? dev(r).spare_rows(next[r], next[r + 1], x[k0] - x[split[r]],
                                                 x[k1] - x[split[r]], x[k0] - x[next[r]])
                             : dev(r).spare_rows(next[r], next[r + 1], 0, 0, 0));
      ASSERT_EQ(into.back().nnz, x[next[r + 1]] - x[next[r]]);
    }
    sync();
    for (int r = 0; r < size(); ++r)
      for (int q = 0; q < size(); ++q) {
        const index_t r0 = std::max(split[q], next[r]), r1 = std::min(split[q + 1], next[r + 1]);
        if (q == r || r0 >= r1) continue;
        const auto e = static_cast<std::size_t>(x[r1] - x[r0]);
        copy(into[r].col + (x[r0] - x[next[r]]), mine[q].col + (x[r0] - x[split[q]]),
             e * sizeof(index_t));
        copy(into[r].val + (x[r0] - x[next[r]]), mine[q].val + (x[r0] - x[split[q]]),
             e * sizeof(float));
      }
    for (int r = 0; r < size(); ++r) {
      dev(r).use_spare();
      dev(r).multiply_by(nullptr, true);
      dev(r).release_right_buffer();
    }
    split = next;
  }

  /// The ranks' rows together.
  host_csr<float> whole() {
    host_csr<float> all(n, n);
    std::vector<host_csr<float>> mine;
    for (int r = 0; r < size(); ++r) mine.push_back(b[r]->download());
    for (index_t i = 0; i < n; ++i) {
      int r = 0;
      while (i >= split[r + 1]) ++r;
      const host_csr<float>& m = mine[r];
      for (offset_t k = m.rpt[i]; k < m.rpt[i + 1]; ++k) {
        all.col.push_back(m.col[k]);
        all.val.push_back(m.val[k]);
      }
      all.rpt[i + 1] = static_cast<offset_t>(all.col.size());
    }
    return all;
  }
};

/// Rows [first, last) of m, the others empty.
host_csr<float> own_rows(const host_csr<float>& m, index_t first, index_t last) {
  host_csr<float> x(m.rows, m.cols);
  for (index_t i = 0; i < m.rows; ++i) {
    if (i >= first && i < last)
      for (offset_t k = m.rpt[i]; k < m.rpt[i + 1]; ++k) {
        x.col.push_back(m.col[k]);
        x.val.push_back(m.val[k]);
      }
    x.rpt[i + 1] = static_cast<offset_t>(x.col.size());
  }
  return x;
}

/// A split of n rows over `ranks` for iteration `it`: skewed one way or the other, or with the
/// first rank's rows empty.
std::vector<index_t> uneven_split(index_t n, int ranks, int it) {
  std::vector<index_t> s(static_cast<std::size_t>(ranks) + 1, n);
  s[0] = 0;
  for (int r = 1; r < ranks; ++r) {
    const long long q = static_cast<long long>(r) * r, all = static_cast<long long>(ranks) * ranks;
    s[r] = it % 3 == 0 ? static_cast<index_t>(n * q / all)
           : it % 3 == 1
               ? static_cast<index_t>(n - n * static_cast<long long>(ranks - r) * (ranks - r) / all)
               : (r == 1 ? 0 : static_cast<index_t>(static_cast<long long>(n) * r / ranks));
  }
  return s;
}

void expect_spread_equals_whole(const host_csr<float>& start, const params& p, fused_expansion mode,
                                int nranks, int stages, int window, const std::string& what,
                                bool resplit = false) {
  gpu_backend_options o;
  o.fused = mode;
  o.fused_max_window = window;
  auto single = make_gpu_backend<float>(-1, o);
  single->load(start);
  ranks rk;
  rk.n = start.rows;
  for (int r = 0; r <= nranks; ++r)
    rk.split.push_back(static_cast<index_t>(static_cast<long long>(start.rows) * r / nranks));
  for (int r = 0; r < nranks; ++r) {
    rk.b.push_back(make_gpu_backend<float>(-1, o));
    rk.b[r]->load(own_rows(start, rk.split[r], rk.split[r + 1]));
  }
  for (int it = 1; it <= 4; ++it) {
    single->expansion_blocks(0);
    single->expand(0, start.rows);
    single->prune_normalise(p.rule());
    single->finish_expansion();
    single->inflate_normalise(p.inflation);
    if (resplit && it > 1) rk.resplit(uneven_split(start.rows, nranks, it));
    if (::testing::Test::HasFatalFailure()) return;
    rk.step(p, stages);
    if (::testing::Test::HasFatalFailure()) return;
    const host_csr<float> want = single->download(), got = rk.whole();
    ASSERT_EQ(got.rpt, want.rpt) << what << ", iteration " << it;
    ASSERT_EQ(got.col, want.col) << what << ", iteration " << it;
    // The kept values' sum (renormalisation) runs over the candidates in another order: the
    // last bits may differ.
    ASSERT_TRUE(opsparse::test::csr_near(got, want, 1e-6)) << what << ", iteration " << it;
  }
}

// Small enough for compute-sanitizer racecheck (scripts/gpu-check): two ranks, rows parked
// between two column stages of several windows each, rows moved between the ranks.
TEST_F(MclGpuStages, SanitizerSmokeTwoRanksTwoStages) {
  REQUIRE_GPU();
  const fs::path f = file("smoke.abc", planted_abc(3, 12, 0.7, 0.1, true, 5));
  const host_csr<float> start =
      convert<float>(start_matrix(io::read_graph(f.string()).adj, params{}));
  params p;
  p.select = 5;
  p.recover = 6;
  expect_spread_equals_whole(start, p, fused_expansion::always, 2, 2, 32, "smoke", true);
}

TEST_F(MclGpuStages, SpreadIterationsEqualTheSingleBackends) {
  REQUIRE_GPU();
  // Dense enough for the fused expansion's own choice (products a row reach the columns).
  const fs::path f = file("stages.abc", planted_abc(5, 40, 0.6, 0.05, true, 31));
  const host_csr<float> start =
      convert<float>(start_matrix(io::read_graph(f.string()).adj, params{}));
  params p;
  p.select = 12;  // selection and recovery bite on rows of ~30
  p.recover = 16;
  for (int nranks : {1, 2, 3})
    for (int stages : {1, 2, 5}) {
      for (int window : {0, 64}) {
        const std::string what = std::to_string(nranks) + " ranks, " + std::to_string(stages) +
                                 " stages, window " + std::to_string(window);
        expect_spread_equals_whole(start, p, fused_expansion::always, nranks, stages, window, what);
      }
    }
  expect_spread_equals_whole(start, p, fused_expansion::never, 3, 1, 0, "unfused, 3 ranks");
  // Rows moved between the ranks before iterations 2-4 (skewed splits, a rank with none).
  for (int nranks : {2, 3})
    expect_spread_equals_whole(start, p, fused_expansion::always, nranks, 2, 64,
                               std::to_string(nranks) + " ranks split anew", true);
  expect_spread_equals_whole(start, p, fused_expansion::never, 3, 1, 0, "unfused, split anew",
                             true);
  expect_spread_equals_whole(start, params{}, fused_expansion::automatic, 2, 3, 0,
                             "mcl's defaults, 2 ranks, 3 stages");
}

}  // namespace
