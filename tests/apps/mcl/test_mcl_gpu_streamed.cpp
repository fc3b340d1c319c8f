// apps/mcl's GPU backend with the next iterate streamed through pinned host memory
// (mcl_next_iterate.cuh): the same iterates as with both iterates on the device, for the fused
// and the stored expansion, in one block or many; under small memory budgets a run either
// streams and finds the CPU backend's clusters or is refused by its plan before iterating.
// Skips without a usable GPU, fails instead when OPSPARSE_REQUIRE_GPU=1.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/mcl.hpp"
#include "core/mcl_checkpoint.hpp"
#include "mcl_gpu_test_util.hpp"
#include "mcl_test_util.hpp"
#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse;
using namespace opsparse::mcl;
using namespace opsparse::mcl::test;

struct streamed_files {
  static constexpr const char* name = "gpu_streamed";
};
class MclGpuStreamed : public files_suite<streamed_files> {};

TEST_F(MclGpuStreamed, StreamedIteratesEqualTheDevicePlacement) {
  REQUIRE_GPU();
  const fs::path f = file("streamed.abc", planted_abc(6, 40, 0.4, 0.03, true, 61));
  params p;
  p.max_iter = 5;
  const host_csr<double> start = start_matrix(io::read_graph(f.string()).adj, p);
  for (fused_expansion fused : {fused_expansion::always, fused_expansion::never}) {
    for (long long block_products : {0ll, 3000ll}) {
      params q = p;
      q.block_products = block_products;
      gpu_backend_options on_device, streamed;
      on_device.fused = streamed.fused = fused;
      on_device.placement = iterate_placement::device;
      streamed.placement = iterate_placement::streamed;
      auto a = make_gpu_backend<float>(-1, on_device);
      auto b = make_gpu_backend<float>(-1, streamed);
      int blocks = 0;
      bool all_streamed = true;
      std::size_t pinned = 0;
      const run_result<float> ra = run(*a, convert<float>(start), q);
      const run_result<float> rb = run(*b, convert<float>(start), q, [&](const iteration_info& it) {
        blocks = std::max(blocks, it.blocks);
        all_streamed = all_streamed && it.stats.streamed;
        pinned = it.stats.pinned_host_bytes;
      });
      const std::string what = std::string(fused == fused_expansion::always ? "fused" : "stored") +
                               ", block products " + std::to_string(block_products);
      EXPECT_TRUE(all_streamed) << what;
      EXPECT_GT(pinned, 0u) << what;
      if (block_products > 0) EXPECT_GT(blocks, 2) << what;
      EXPECT_EQ(ra.iterations, rb.iterations) << what;
      EXPECT_TRUE(opsparse::test::csr_near(ra.limit, rb.limit, 0.0)) << what;
    }
  }
}

TEST_F(MclGpuStreamed, StreamedClusteringEqualsTheCpus) {
  REQUIRE_GPU();
  for (std::uint64_t seed : {62u, 63u}) {
    const fs::path f =
        file("sc" + std::to_string(seed) + ".abc", planted_abc(10, 50, 0.35, 0.02, true, seed));
    io::labelled_graph g = io::read_graph(f.string());
    const params p;
    const host_csr<double> start = start_matrix(g.adj, p);
    gpu_backend_options o;
    o.placement = iterate_placement::streamed;
    auto b = make_gpu_backend<float>(-1, o);
    const run_result<float> r = run(*b, convert<float>(start), p);
    const clustering gpu = interpret(r.limit, p.overlap);
    const cluster_result cpu = cluster(start, p, false, precision::float32);
    EXPECT_EQ(gpu.clusters, cpu.result.clusters) << "seed " << seed;
  }
}

// Budgets from roomy to far too small: each run either takes its clusters from the same
// iterates as the CPU backend (streaming its next iterates where they do not fit beside the
// current one) or is refused by the plan before its first iteration; none fails midway.
TEST_F(MclGpuStreamed, SmallBudgetsStreamOrAreRefusedBeforeIterating) {
  REQUIRE_GPU();
  const fs::path f = file("budget.abc", planted_abc(25, 60, 0.4, 0.01, true, 64));
  const params p;
  const host_csr<double> start = start_matrix(io::read_graph(f.string()).adj, p);
  const cluster_result cpu = cluster(start, p, false, precision::float32);
  int streamed_runs = 0, device_runs = 0, refused = 0;
  for (std::size_t mib : {1024, 256, 96, 64, 48, 40, 32, 24, 16, 8, 1}) {
    run_options o;
    o.memory_budget = mib << 20;
    bool streamed = false, iterated = false;
    try {
      const cluster_result g = cluster(
          start, p, true, precision::float32,
          [&](const iteration_info& it) {
            iterated = true;
            streamed = streamed || it.stats.streamed;
          },
          o);
      EXPECT_EQ(g.result.clusters, cpu.result.clusters) << mib << " MiB";
      ++(streamed ? streamed_runs : device_runs);
    } catch (const std::runtime_error& e) {
      EXPECT_FALSE(iterated) << mib << " MiB: failed after iterating: " << e.what();
      EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
      ++refused;
    }
  }
  EXPECT_GT(device_runs, 0);
  EXPECT_GT(streamed_runs, 0);
  EXPECT_GT(refused, 0);
}

// A GPU run stopped after an iteration and resumed from its checkpoint (rows as the backend
// held them: the sparse expansions leave them unsorted) ends with the uninterrupted run's
// clusters and iteration count.
TEST_F(MclGpuStreamed, ResumedRunEndsAsTheUninterruptedOne) {
  REQUIRE_GPU();
  const fs::path f = file("resume.abc", planted_abc(12, 50, 0.3, 0.02, true, 65));
  params p;
  p.inflation = 1.6;
  const host_csr<double> start = start_matrix(io::read_graph(f.string()).adj, p);
  const std::uint64_t fp = checkpoint::fingerprint(start, p, precision::float32);
  const cluster_result whole = cluster(start, p, true, precision::float32);
  ASSERT_GT(whole.iterations, 4);
  for (int stop_at : {1, 3}) {
    const fs::path dir = dir_ / ("ck" + std::to_string(stop_at));
    std::atomic<bool> stop{false};
    run_options o;
    o.checkpoint_dir = dir.string();
    o.checkpoint_seconds = 1e9;
    o.fingerprint = fp;
    o.stop = &stop;
    EXPECT_THROW(cluster(
                     start, p, true, precision::float32,
                     [&](const iteration_info& it) { stop = it.iteration == stop_at; }, o),
                 run_interrupted);
    run_options r;
    r.resume_dir = dir.string();
    r.fingerprint = fp;
    const cluster_result resumed = cluster(start, p, true, precision::float32, {}, r);
    EXPECT_EQ(resumed.iterations, whole.iterations) << "stopped after " << stop_at;
    EXPECT_EQ(resumed.result.clusters, whole.result.clusters) << "stopped after " << stop_at;
  }
}

}  // namespace
