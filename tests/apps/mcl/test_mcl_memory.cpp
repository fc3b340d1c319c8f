// apps/mcl's memory plan, memory budget and checkpoints on the CPU backend: the plan's bounds
// and refusals, -how-much-ram against Debian's mcl, a budget that splits the expansion into row
// blocks without changing the iterates, and a run stopped after an iteration and resumed from
// its checkpoint, which ends exactly as the uninterrupted run.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "core/mcl.hpp"
#include "core/mcl_checkpoint.hpp"
#include "core/mcl_memory_plan.hpp"
#include "mcl_test_util.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse;
using namespace opsparse::mcl;
using namespace opsparse::mcl::test;

struct memory_files {
  static constexpr const char* name = "memory";
};
class MclMemory : public files_suite<memory_files> {
 protected:
  /// A planted-partition graph's start matrix (dense enough that S and R prune).
  static host_csr<double> planted_start(const params& p, std::uint64_t seed = 51) {
    const fs::path f =
        file("planted" + std::to_string(seed) + ".abc", planted_abc(8, 60, 0.5, 0.03, true, seed));
    return start_matrix(io::read_graph(f.string()).adj, p);
  }
};

TEST_F(MclMemory, PlanBoundsTheIterateByTheKeptEntriesOfAColumn) {
  params p;  // S 1100, R 1400: K = 1400
  host_csr<double> start(100000, 100000);
  const memory_plan big = plan_memory(start, p, sizeof(float), {}, 0, 0);
  EXPECT_EQ(big.kept_per_row, 1400);
  EXPECT_EQ(big.iterate_bound, 100000ull * 1400 * 8 + 100001 * 8);
  EXPECT_EQ(big.placement, planned_placement::host);
  // Without a selection the cutoff bounds a column: entries >= 0.99999/P sum to at most 1
  // (10,000 of them; one more for the rounding of their sum).
  params no_select = p;
  no_select.select = 0;
  no_select.recover = 0;
  EXPECT_EQ(plan_memory(start, no_select, sizeof(float), {}, 0, 0).kept_per_row, 10001);
  // A small graph: a column holds at most every node.
  host_csr<double> small(50, 50);
  EXPECT_EQ(plan_memory(small, p, sizeof(double), {}, 0, 0).kept_per_row, 50);
  // The first expansion's products cap the estimate row by row.
  const std::vector<offset_t> products(100000, 10);
  EXPECT_EQ(plan_memory(start, p, sizeof(float), products, 0, 0).iterate_estimate,
            100000ull * 10 * 8 + 100001 * 8);
}

TEST_F(MclMemory, PlanChoosesDeviceThenStreamedThenRefuses) {
  params p;
  host_csr<double> start(1000000, 1000000);  // a bound of 11.2 GB an iterate (float cells)
  const std::size_t gb = 1000000000ull;
  EXPECT_EQ(plan_memory(start, p, 4, {}, 80 * gb, 0).placement, planned_placement::device);
  const memory_plan streamed = plan_memory(start, p, 4, {}, 20 * gb, 0);
  EXPECT_EQ(streamed.placement, planned_placement::streamed);
  EXPECT_TRUE(streamed.bound_fits);
  const memory_plan refused = plan_memory(start, p, 4, {}, 5 * gb, 0);
  EXPECT_EQ(refused.placement, planned_placement::refused);
  EXPECT_NE(refused.reason.find("--memory-budget"), std::string::npos) << refused.reason;
  EXPECT_NE(refused.reason.find("5.0 GB"), std::string::npos) << refused.reason;
  // The host must hold the streamed iterate too.
  const memory_plan no_host = plan_memory(start, p, 4, {}, 20 * gb, 4 * gb);
  EXPECT_EQ(no_host.placement, planned_placement::refused);
  EXPECT_NE(no_host.reason.find("host memory"), std::string::npos) << no_host.reason;
  // The CPU backend: two iterates in host memory.
  EXPECT_EQ(plan_memory(start, p, 4, {}, 0, 1 * gb).placement, planned_placement::refused);
  for (const std::string& line : describe(streamed)) EXPECT_FALSE(line.empty());
}

TEST_F(MclMemory, ClusteringReportsItsPlanBeforeIterating) {
  const params p;
  host_csr<double> start = planted_start(p);
  run_options o;
  bool planned = false;
  o.on_plan = [&](const memory_plan& m) { planned = m.placement == planned_placement::host; };
  EXPECT_NO_THROW(cluster(start, p, false, precision::float32, {}, o));
  EXPECT_TRUE(planned);
}

TEST_F(MclMemory, HowMuchRamAnswersAsMcl) {
  params p;
  EXPECT_EQ(how_much_ram(1000000, p),
            "The current settings require at most <21G> RAM for a graph with <1000000> nodes,\n"
            "assuming the average node degree of the input graph does not exceed <2800>.\n"
            "This estimate will usually but not always be too cautious/high.\n");
  if (!have("mcl")) GTEST_SKIP() << "Debian's mcl is not on PATH (apt-get install mcl)";
  const fs::path out = dir_ / "ram.txt";
  for (const char* opts : {"", "-S 2000", "-R 600 -S 500", "-scheme 1", "-scheme 7"}) {
    for (long long n : {0ll, 3ll, 1500ll, 1000000ll, 50000000ll}) {
      ASSERT_EQ(sh("mcl - -how-much-ram " + std::to_string(n) + " " + opts + " > " + out.string() +
                   " 2>&1"),
                0);
      params q;
      const std::string o = opts;
      if (o.find("-S 2000") != std::string::npos) q.select = 2000;
      if (o.find("-R 600") != std::string::npos) q.recover = 600, q.select = 500;
      if (o.find("-scheme 1") != std::string::npos) apply_scheme(q, 1);
      if (o.find("-scheme 7") != std::string::npos) apply_scheme(q, 7);
      EXPECT_EQ(how_much_ram(n, q), read_text(out)) << "mcl - -how-much-ram " << n << " " << opts;
    }
  }
}

TEST_F(MclMemory, BudgetSplitsTheExpansionIntoBlocksWithTheSameIterates) {
  params p;
  p.max_iter = 6;
  const host_csr<double> start = planted_start(p, 52);
  // The engine's product (the CPU backend's stored expansion) with and without a budget.
  auto whole = make_cpu_backend<double>(2, 0);
  auto bounded = make_cpu_backend<double>(2, 0, 64 * 1024);  // 5,461 products a block
  int blocks = 0;
  const run_result<double> a = run(*whole, start, p);
  const run_result<double> b = run(
      *bounded, start, p, [&](const iteration_info& it) { blocks = std::max(blocks, it.blocks); });
  EXPECT_GT(blocks, 4);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_TRUE(opsparse::test::csr_near(a.limit, b.limit, 0.0));
  // The program's path: the same clusters under a budget as without.
  run_options o;
  o.memory_budget = 64 * 1024;
  const cluster_result c1 = cluster(start, params{}, false, precision::float32);
  const cluster_result c2 = cluster(start, params{}, false, precision::float32, {}, o);
  EXPECT_EQ(c1.result.clusters, c2.result.clusters);
}

/// Runs `start` with a checkpoint folder, stopped after iteration `stop_at` as a signal would
/// stop it; returns the iteration it stopped after.
int run_until_stopped(const host_csr<double>& start, const params& p, precision prec,
                      const fs::path& dir, int stop_at, std::uint64_t fp) {
  std::atomic<bool> stop{false};
  run_options o;
  o.checkpoint_dir = dir.string();
  o.checkpoint_seconds = 1e9;  // only the stop writes one
  o.fingerprint = fp;
  o.stop = &stop;
  try {
    cluster(
        start, p, false, prec,
        [&](const iteration_info& it) {
          if (it.iteration == stop_at) stop = true;
        },
        o);
  } catch (const run_interrupted& e) {
    EXPECT_TRUE(e.checkpointed);
    return e.iteration;
  }
  return 0;
}

TEST_F(MclMemory, ResumedRunEndsAsTheUninterruptedOne) {
  for (precision prec : {precision::float32, precision::float64}) {
    params p;
    p.inflation = 1.6;
    const host_csr<double> start = planted_start(p, 53);
    const std::uint64_t fp = checkpoint::fingerprint(start, p, prec);
    const cluster_result whole = cluster(start, p, false, prec);
    ASSERT_GT(whole.iterations, 4);
    const fs::path dir = dir_ / (prec == precision::float32 ? "ck32" : "ck64");
    ASSERT_EQ(run_until_stopped(start, p, prec, dir, 3, fp), 3);
    ASSERT_TRUE(fs::exists(checkpoint::file_in(dir.string())));
    run_options r;
    r.resume_dir = dir.string();
    r.fingerprint = fp;
    int first = 0;
    std::string note;
    r.note = [&](const std::string& s) { note = s; };
    const cluster_result resumed = cluster(
        start, p, false, prec,
        [&](const iteration_info& it) {
          if (!first) first = it.iteration;
        },
        r);
    EXPECT_EQ(first, 4);
    EXPECT_NE(note.find("after iteration 3"), std::string::npos) << note;
    EXPECT_EQ(resumed.iterations, whole.iterations);
    EXPECT_EQ(resumed.result.clusters, whole.result.clusters);
  }
}

TEST_F(MclMemory, CheckpointOfAnotherRunOrDamagedIsRefused) {
  params p;
  const host_csr<double> start = planted_start(p, 54);
  const std::uint64_t fp = checkpoint::fingerprint(start, p, precision::float32);
  const fs::path dir = dir_ / "other";
  ASSERT_EQ(run_until_stopped(start, p, precision::float32, dir, 2, fp), 2);
  // Another inflation, another precision, another graph: refused, saying why.
  params q = p;
  q.inflation = 3;
  EXPECT_NE(checkpoint::fingerprint(start, q, precision::float32), fp);
  EXPECT_NE(checkpoint::fingerprint(start, p, precision::float64), fp);
  host_csr<double> other = start;
  other.val[0] = other.val[0] * 0.5 + 0.25;
  EXPECT_NE(checkpoint::fingerprint(other, p, precision::float32), fp);
  run_options r;
  r.resume_dir = dir.string();
  r.fingerprint = checkpoint::fingerprint(start, q, precision::float32);
  try {
    cluster(start, q, false, precision::float32, {}, r);
    FAIL() << "a checkpoint of other options was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("another input or other options"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(checkpoint::read<double>(dir.string(), fp), std::runtime_error);  // cell type
  // Truncated: refused as such, never read as an iterate.
  const std::string path = checkpoint::file_in(dir.string());
  fs::resize_file(path, fs::file_size(path) - 20);
  try {
    checkpoint::read<float>(dir.string(), fp);
    FAIL() << "a truncated checkpoint was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_THROW(checkpoint::read<float>((dir_ / "missing").string(), fp), std::runtime_error);
}

TEST_F(MclMemory, CheckpointKeepsRowsInTheBackendsOrder) {
  // The GPU keeps some iterates with unsorted rows: read back as written, order and flag.
  checkpoint::state<float> st;
  st.iteration = 7;
  st.rows_sorted = false;
  st.iterate = host_csr<float>(3, 3);
  st.iterate.rpt = {0, 2, 2, 3};
  st.iterate.col = {2, 0, 1};
  st.iterate.val = {0.25f, 0.75f, 1.0f};
  const fs::path dir = dir_ / "unsorted";
  checkpoint::write(dir.string(), 42, st);
  const checkpoint::state<float> back = checkpoint::read<float>(dir.string(), 42);
  EXPECT_EQ(back.iteration, 7);
  EXPECT_FALSE(back.rows_sorted);
  EXPECT_EQ(back.iterate.rpt, st.iterate.rpt);
  EXPECT_EQ(back.iterate.col, st.iterate.col);
  EXPECT_EQ(back.iterate.val, st.iterate.val);
  // A column outside the matrix is damage, never an iterate.
  st.iterate.col[1] = 5;
  checkpoint::write(dir.string(), 42, st);
  EXPECT_THROW(checkpoint::read<float>(dir.string(), 42), std::runtime_error);
}

}  // namespace
