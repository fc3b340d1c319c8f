// apps/mcl on the GPU backend: the same clusters as the CPU backend on the hand-written graphs,
// generated graphs and the ppi files; blocked expansion equals the whole one, and some rows
// expanded (a distributed rank's) equal the CPU backend's; late iterations
// allocate no device memory. Skips without a usable GPU, fails instead when
// OPSPARSE_REQUIRE_GPU=1.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/mcl.hpp"
#include "mcl_gpu_test_util.hpp"
#include "mcl_test_util.hpp"
#include "opsparse/context.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse;
using namespace opsparse::mcl;
using namespace opsparse::mcl::test;

struct gpu_files {
  static constexpr const char* name = "gpu";
};
class MclGpu : public files_suite<gpu_files> {};

// Small enough for compute-sanitizer racecheck (scripts/gpu-check): one hand-written graph,
// every GPU stage (expansion, pruning with selection, inflation) in float cells.
TEST_F(MclGpu, SanitizerSmoke) {
  REQUIRE_GPU();
  const hand_case h = hand_cases().back();  // a copy: hand_cases() returns a temporary
  const fs::path p = file("smoke_" + h.name + ".abc", h.abc);
  params prm;
  prm.select = 3;  // selection and recovery on a small graph
  prm.recover = 4;
  const labelled_result g = cluster_file(p.string(), prm, true, precision::float32);
  const labelled_result c = cluster_file(p.string(), prm, false, precision::float32);
  EXPECT_EQ(g.text, c.text);
  EXPECT_EQ(g.run.iterations, c.run.iterations);
  // Pruning with a thread block a row (the path of long expanded rows), on the same small graph.
  const host_csr<float> start = convert<float>(start_matrix(io::read_graph(p.string()).adj, prm));
  gpu_backend_options by_blocks;
  by_blocks.block_pruned_rows = 1;
  by_blocks.fused = fused_expansion::never;
  auto gpu = make_gpu_backend<float>(-1, by_blocks);
  auto cpu = make_cpu_backend<float>(0);
  const host_csr<float> want = run(*cpu, start, prm).limit;
  EXPECT_TRUE(opsparse::test::csr_near(run(*gpu, start, prm).limit, want, 1e-6));
  // The fused expansion and pruning, in windows of 32 columns (several a row).
  gpu_backend_options fused;
  fused.fused = fused_expansion::always;
  fused.fused_max_window = 32;
  auto gpu_fused = make_gpu_backend<float>(-1, fused);
  EXPECT_TRUE(opsparse::test::csr_near(run(*gpu_fused, start, prm).limit, want, 1e-6));
  // Each lane walking its own cursors, and the warps walking them together.
  for (bool lanes : {false, true}) {
    fused.fused_lane_walk = lanes;
    auto walked = make_gpu_backend<float>(-1, fused);
    EXPECT_TRUE(opsparse::test::csr_near(run(*walked, start, prm).limit, want, 1e-6)) << lanes;
  }
}

TEST_F(MclGpu, HandWrittenGraphsMatchMclAndTheCpu) {
  REQUIRE_GPU();
  for (const hand_case& h : hand_cases()) {
    const fs::path p = file(h.name + ".abc", h.abc);
    for (precision prec : {precision::float64, precision::float32}) {
      const labelled_result g = cluster_file(p.string(), params{}, true, prec);
      const labelled_result c = cluster_file(p.string(), params{}, false, prec);
      EXPECT_EQ(g.text, c.text) << h.name;
      EXPECT_EQ(g.text, h.expected) << h.name;
      EXPECT_EQ(g.run.iterations, c.run.iterations) << h.name;
    }
  }
  params p;
  p.discard_loops = false;
  const fs::path garbage = file("garbage.abc", "a\tb\t0\nc\td\t0\ne\tf\n");
  EXPECT_EQ(cluster_file(garbage.string(), p, true, precision::float64).text, "a\tb\tc\td\ne\nf\n");
}

TEST_F(MclGpu, PrunedIteratesEqualTheCpus) {
  REQUIRE_GPU();
  // Tight resources so that selection, both recoveries and (with R = 0) emergency loops happen.
  const fs::path f = file("planted.abc", planted_abc(8, 25, 0.35, 0.02, true, 21));
  io::labelled_graph g = io::read_graph(f.string());
  std::vector<params> variants(3);
  variants[1].prune = 300;
  variants[1].select = 6;
  variants[1].recover = 9;
  variants[1].pct = 95;
  variants[2].prune = 40;
  variants[2].select = 4;
  variants[2].recover = 0;
  for (params& p : variants) {
    p.max_iter = 3;
    const host_csr<double> start = start_matrix(g.adj, p);
    auto cpu = make_cpu_backend<double>(0);
    auto gpu = make_gpu_backend<double>();
    const run_result<double> rc = run(*cpu, start, p);
    const run_result<double> rg = run(*gpu, start, p);
    // Same structure after pruning; values agree to rounding (the engines sum in other orders).
    EXPECT_TRUE(opsparse::test::csr_near(rg.limit, rc.limit, 1e-9))
        << "double -P " << p.prune << " -S " << p.select << " -R " << p.recover;
    auto cpu_f = make_cpu_backend<float>(0);
    auto gpu_f = make_gpu_backend<float>();
    const host_csr<float> start_f = convert<float>(start);
    const run_result<float> rcf = run(*cpu_f, start_f, p);
    const run_result<float> rgf = run(*gpu_f, start_f, p);
    EXPECT_TRUE(opsparse::test::csr_near(rgf.limit, rcf.limit, 1e-6))
        << "float -P " << p.prune << " -S " << p.select << " -R " << p.recover;
  }
}

TEST_F(MclGpu, LongExpandedRowsPrunedByBlocksEqualTheCpus) {
  REQUIRE_GPU();
  // A random graph of mean degree 150 on 5,000 nodes: its first expansion's rows hold about
  // 4,900 entries, above the 4,096 from which the GPU prunes each row with a whole block and
  // ranks only the entries at or above the cutoff. Each variant reaches another case of
  // mcl_prune.hpp on long rows: selection with recovery at rank R (defaults), selection alone,
  // recovery to rank R of the whole row, and keeping the whole row.
  const fs::path f = file("long_rows.abc", planted_abc(1, 5000, 0.03, 0.0, true, 51));
  io::labelled_graph g = io::read_graph(f.string());
  std::vector<params> variants(4);
  variants[1].select = 2000;
  variants[1].recover = 0;
  variants[2].prune = 1000;
  variants[3].prune = 1000;
  variants[3].recover = 10000;
  for (params& p : variants) {
    p.max_iter = 1;  // one expansion and its pruning (a second one is 10^10 products on the CPU)
    const std::string what = "-P " + std::to_string(p.prune) + " -S " + std::to_string(p.select) +
                             " -R " + std::to_string(p.recover);
    const host_csr<double> start = start_matrix(g.adj, p);
    long long first_expansion = 0;
    auto cpu = make_cpu_backend<double>(0);
    gpu_backend_options unfused;
    unfused.fused = fused_expansion::never;  // the expansion stored, then pruned by blocks
    auto gpu = make_gpu_backend<double>(-1, unfused);
    const run_result<double> rc = run(*cpu, start, p);
    const run_result<double> rg = run(*gpu, start, p, [&](const iteration_info& it) {
      if (it.iteration == 1) first_expansion = it.expanded_nnz;
    });
    ASSERT_GE(first_expansion / start.rows, 4096) << "the rows are not long enough to test this";
    EXPECT_TRUE(opsparse::test::csr_near(rg.limit, rc.limit, 1e-9)) << "double " << what;
    // Fused, in windows of 256 columns: long rows raise the candidates' bar many times.
    gpu_backend_options fused;
    fused.fused = fused_expansion::always;
    fused.fused_max_window = 256;
    long long fused_expansion_nnz = 0;
    auto gpu_fused = make_gpu_backend<double>(-1, fused);
    const run_result<double> rfused = run(*gpu_fused, start, p, [&](const iteration_info& it) {
      if (it.iteration == 1) fused_expansion_nnz = it.expanded_nnz;
    });
    EXPECT_EQ(fused_expansion_nnz, first_expansion) << "fused " << what;
    EXPECT_TRUE(opsparse::test::csr_near(rfused.limit, rc.limit, 1e-9)) << "fused double " << what;
    auto cpu_f = make_cpu_backend<float>(0);
    auto gpu_f = make_gpu_backend<float>(-1, unfused);
    const host_csr<float> start_f = convert<float>(start);
    const host_csr<float> want_f = run(*cpu_f, start_f, p).limit;
    EXPECT_TRUE(opsparse::test::csr_near(run(*gpu_f, start_f, p).limit, want_f, 1e-6))
        << "float " << what;
    auto gpu_ff = make_gpu_backend<float>(-1, fused);
    EXPECT_TRUE(opsparse::test::csr_near(run(*gpu_ff, start_f, p).limit, want_f, 1e-6))
        << "fused float " << what;
  }
}

TEST_F(MclGpu, FusedExpansionEqualsTheCpuInEveryPruningCase) {
  REQUIRE_GPU();
  // 3,000 nodes in two dense groups (mean degree ~500): the first expansion's rows cover
  // nearly every column. Windows of 64 columns (47 a row) and small S and R make the fused
  // expansion raise its candidates' bar many times a row; each variant reaches other cases of
  // mcl_prune.hpp: the defaults, selection and recovery, no selection (the cutoff bounds the
  // candidates), emergency loops (R = 0), keep-all (R above the row length), and no pruning at
  // all, where the candidates overflow and the block is expanded unfused.
  const fs::path f = file("fused.abc", planted_abc(2, 1500, 0.3, 0.02, true, 61));
  io::labelled_graph g = io::read_graph(f.string());
  struct variant {
    long long prune, select, recover;
  };
  const std::vector<variant> variants = {{10000, 1100, 1400}, {1000, 50, 80},      {300, 0, 100},
                                         {40, 20, 0},         {10000, 1100, 5000}, {0, 0, 0}};
  gpu_backend_options fused;
  fused.fused = fused_expansion::always;
  fused.fused_max_window = 64;
  for (const variant& v : variants) {
    params p;
    p.prune = v.prune;
    p.select = v.select;
    p.recover = v.recover;
    p.max_iter = 1;  // the dense expansion (a second one is 10^9-10^10 products on the CPU)
    const std::string what = "-P " + std::to_string(p.prune) + " -S " + std::to_string(p.select) +
                             " -R " + std::to_string(p.recover);
    const host_csr<double> start = start_matrix(g.adj, p);
    auto cpu = make_cpu_backend<double>(0);
    const run_result<double> rc = run(*cpu, start, p);
    std::vector<iteration_info> its;
    auto gpu = make_gpu_backend<double>(-1, fused);
    const run_result<double> rg =
        run(*gpu, start, p, [&](const iteration_info& it) { its.push_back(it); });
    EXPECT_TRUE(opsparse::test::csr_near(rg.limit, rc.limit, 1e-9)) << "double " << what;
    ASSERT_FALSE(its.empty());
    EXPECT_GT(its[0].expanded_nnz / start.rows, 2000) << "the rows are not dense enough: " << what;
    const host_csr<float> start_f = convert<float>(start);
    auto cpu_f = make_cpu_backend<float>(0);
    auto gpu_f = make_gpu_backend<float>(-1, fused);
    EXPECT_TRUE(opsparse::test::csr_near(run(*gpu_f, start_f, p).limit,
                                         run(*cpu_f, start_f, p).limit, 1e-6))
        << "float " << what;
  }
}

TEST_F(MclGpu, GeneratedGraphsMatchTheCpu) {
  REQUIRE_GPU();
  for (std::uint64_t seed : {31u, 32u, 33u}) {
    const fs::path f = file("pp" + std::to_string(seed) + ".abc",
                            planted_abc(10, 30, 0.3, 0.02, seed != 32, seed));
    for (double inflation : {1.4, 2.0, 4.0}) {
      params p;
      p.inflation = inflation;
      const labelled_result g = cluster_file(f.string(), p, true, precision::float64);
      const labelled_result c = cluster_file(f.string(), p, false, precision::float64);
      EXPECT_EQ(g.text, c.text) << "seed " << seed << " -I " << inflation;
    }
  }
}

TEST_F(MclGpu, IterandHooksSeeTheCpusIterandsAndChangeNothing) {
  REQUIRE_GPU();
  // mcl's -dump and --write-limit look at every iterand through run_options' hooks: on the GPU
  // they copy the iterate as it is held (rows unsorted), without sorting it in place, so that
  // the run goes on as it would without them.
  const fs::path f = file("hooks.abc", planted_abc(8, 25, 0.35, 0.02, true, 23));
  const host_csr<double> start = start_matrix(io::read_graph(f.string()).adj, params{});
  struct seen {
    std::vector<host_csr<double>> iterands;
    host_csr<double> limit;
  };
  auto run_with_hooks = [&](bool gpu, seen& s) {
    run_options o;
    o.wants_iterand = [](int, bool) { return true; };
    o.on_iterand = [&s](int it, bool inflated, const host_csr<double>& x) {
      EXPECT_EQ(s.iterands.size(), static_cast<std::size_t>(2 * (it - 1) + (inflated ? 1 : 0)));
      for (index_t i = 0; i < x.rows; ++i)
        EXPECT_TRUE(std::is_sorted(x.col.begin() + x.rpt[i], x.col.begin() + x.rpt[i + 1]));
      s.iterands.push_back(x);
    };
    o.on_limit = [&s](const host_csr<double>& l) { s.limit = l; };
    return cluster(start, params{}, gpu, precision::float32, {}, o);
  };
  seen on_gpu, on_cpu;
  const cluster_result g = run_with_hooks(true, on_gpu);
  const cluster_result c = run_with_hooks(false, on_cpu);
  // Without the iterands seen: the same limit to the bit.
  run_options limit_only;
  host_csr<double> plain_limit;
  limit_only.on_limit = [&plain_limit](const host_csr<double>& l) { plain_limit = l; };
  const cluster_result plain = cluster(start, params{}, true, precision::float32, {}, limit_only);
  EXPECT_EQ(g.result.clusters, plain.result.clusters);
  EXPECT_EQ(g.iterations, plain.iterations);
  EXPECT_TRUE(opsparse::test::csr_near(on_gpu.limit, plain_limit, 0.0));
  EXPECT_EQ(g.result.clusters, c.result.clusters);
  ASSERT_EQ(on_gpu.iterands.size(), static_cast<std::size_t>(2 * g.iterations));
  ASSERT_EQ(on_gpu.iterands.size(), on_cpu.iterands.size());
  for (std::size_t k = 0; k < on_gpu.iterands.size(); ++k)
    EXPECT_TRUE(opsparse::test::csr_near(on_gpu.iterands[k], on_cpu.iterands[k], 1e-5)) << k;
  EXPECT_TRUE(opsparse::test::csr_near(on_gpu.limit, on_gpu.iterands.back(), 0.0));
}

TEST_F(MclGpu, BlockedExpansionEqualsTheWholeOne) {
  REQUIRE_GPU();
  const fs::path f = file("blocks.abc", planted_abc(6, 40, 0.3, 0.02, true, 41));
  io::labelled_graph g = io::read_graph(f.string());
  params whole;
  const host_csr<double> start = start_matrix(g.adj, whole);
  params blocked = whole;
  blocked.block_products = 2000;
  whole.max_iter = blocked.max_iter = 4;
  int blocks = 0;
  auto b1 = make_gpu_backend<double>();
  auto b2 = make_gpu_backend<double>();
  const run_result<double> r1 = run(*b1, start, whole);
  const run_result<double> r2 = run(
      *b2, start, blocked, [&](const iteration_info& it) { blocks = std::max(blocks, it.blocks); });
  EXPECT_GT(blocks, 3);
  EXPECT_TRUE(opsparse::test::csr_near(r1.limit, r2.limit, 1e-12));
}

// A distributed rank (mcl_dist.cpp's rows layout) expands only some rows: blocks in order with
// rows skipped before, between and after them. The expanded rows equal the CPU backend's given
// the same blocks, the skipped ones are empty, the chaos is that of the expanded rows; fused and
// unfused; blocks out of order are refused.
TEST_F(MclGpu, SomeRowsExpandedEqualTheCpus) {
  REQUIRE_GPU();
  const fs::path f = file("some_rows.abc", planted_abc(8, 60, 0.3, 0.02, true, 17));
  io::labelled_graph g = io::read_graph(f.string());
  params p;
  p.select = 30;  // selection and recovery in the expanded rows
  p.recover = 40;
  const host_csr<double> start = start_matrix(g.adj, p);
  const index_t n = start.rows;
  const std::vector<std::pair<index_t, index_t>> blocks = {{n / 8, n / 3}, {n / 2, n / 2 + 37}};
  auto expand_some = [&](backend<double>& b, double& chaos) {
    b.load(start);
    b.expansion_blocks(0);
    for (const auto& [r0, r1] : blocks) {
      b.expand(r0, r1);
      b.prune_normalise(p.rule());
    }
    b.finish_expansion();
    chaos = b.chaos();
    b.inflate_normalise(p.inflation);
    return b.download();
  };
  double chaos_cpu = 0;
  auto cpu = make_cpu_backend<double>(0);
  const host_csr<double> want = expand_some(*cpu, chaos_cpu);
  for (fused_expansion mode : {fused_expansion::never, fused_expansion::always}) {
    const char* what = mode == fused_expansion::never ? "unfused" : "fused";
    gpu_backend_options o;
    o.fused = mode;
    auto gpu = make_gpu_backend<double>(-1, o);
    double chaos_gpu = 0;
    const host_csr<double> got = expand_some(*gpu, chaos_gpu);
    EXPECT_TRUE(opsparse::test::csr_near(got, want, 1e-9)) << what;
    EXPECT_NEAR(chaos_gpu, chaos_cpu, 1e-9 * std::max(1.0, chaos_cpu)) << what;
    ASSERT_EQ(got.rows, n);
    index_t nonempty = 0;
    for (index_t i = 0; i < n; ++i) {
      const bool mine = std::any_of(blocks.begin(), blocks.end(),
                                    [&](const auto& b) { return b.first <= i && i < b.second; });
      const bool empty = got.rpt[i + 1] == got.rpt[i];
      if (!mine) EXPECT_TRUE(empty) << what << ": row " << i << " was not expanded";
      nonempty += !empty;
    }
    EXPECT_EQ(nonempty, (n / 3 - n / 8) + 37) << what << ": an expanded row is empty";
    gpu->load(start);
    gpu->expansion_blocks(0);
    gpu->expand(n / 2, n / 2 + 1);
    gpu->prune_normalise(p.rule());
    EXPECT_THROW(gpu->expand(n / 4, n / 4 + 1), std::invalid_argument) << what;
  }
}

// device_iterate, what opsparse-mcl-mpi's rows layout gathers by NCCL: two backends expand the
// two halves of the rows (two ranks), then the halves are copied, as NCCL's broadcasts put them,
// into the first backend's spare arrays, rebased by shifted_row_pointers. The gathered iterate
// equals the CPU backend's whole iteration, and row_products_prefix the host's count.
TEST_F(MclGpu, RowsGatheredOnTheDeviceEqualTheWholeIteration) {
  REQUIRE_GPU();
  const fs::path f = file("gathered.abc", planted_abc(6, 50, 0.3, 0.02, true, 23));
  io::labelled_graph g = io::read_graph(f.string());
  params p;
  const host_csr<double> start = start_matrix(g.adj, p);
  const index_t n = start.rows, half = n / 2 + 3;
  auto cpu = make_cpu_backend<double>(0);
  cpu->load(start);
  cpu->expansion_blocks(0);
  cpu->expand(0, n);
  cpu->prune_normalise(p.rule());
  cpu->finish_expansion();
  cpu->inflate_normalise(p.inflation);
  const host_csr<double> want = cpu->download();
  const std::vector<offset_t> per_row = cpu::row_products(start, start);
  for (fused_expansion mode : {fused_expansion::never, fused_expansion::always}) {
    const char* what = mode == fused_expansion::never ? "unfused" : "fused";
    gpu_backend_options o;
    o.fused = mode;
    auto r0 = make_gpu_backend<double>(-1, o), r1 = make_gpu_backend<double>(-1, o);
    const std::vector<std::pair<index_t, index_t>> rows = {{0, half}, {half, n}};
    backend<double>* ranks[2] = {r0.get(), r1.get()};
    for (int r = 0; r < 2; ++r) {
      ranks[r]->load(start);
      ASSERT_NE(ranks[r]->on_device(), nullptr);
      ranks[r]->expansion_blocks(0);
      const std::vector<offset_t> prefix = ranks[r]->on_device()->row_products_prefix();
      ASSERT_EQ(prefix.size(), per_row.size() + 1);
      for (std::size_t i = 0; i < per_row.size(); ++i)
        ASSERT_EQ(prefix[i + 1] - prefix[i], per_row[i]) << what << ": row " << i;
      ranks[r]->expand(rows[r].first, rows[r].second);
      ranks[r]->prune_normalise(p.rule());
      ranks[r]->finish_expansion();
      ranks[r]->inflate_normalise(p.inflation);
    }
    device_iterate<double>& d0 = *r0->on_device();
    device_iterate<double>& d1 = *r1->on_device();
    const auto m0 = d0.current(), m1 = d1.current();
    const offset_t* p0 = d0.shifted_row_pointers(0, half, 0);
    const offset_t* p1 = d1.shifted_row_pointers(half, n, m0.nnz);
    ASSERT_EQ(cudaStreamSynchronize(d0.stream()), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(d1.stream()), cudaSuccess);
    const auto all = d0.spare(m0.nnz + m1.nnz);
    ASSERT_EQ(cudaStreamSynchronize(d0.stream()), cudaSuccess);
    auto copy = [](void* to, const void* from, std::size_t bytes) {
      ASSERT_EQ(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
    };
    copy(all.rpt + 1, p0, sizeof(offset_t) * half);
    copy(all.rpt + 1 + half, p1, sizeof(offset_t) * (n - half));
    copy(all.col, m0.col, sizeof(index_t) * m0.nnz);
    copy(all.col + m0.nnz, m1.col, sizeof(index_t) * m1.nnz);
    copy(all.val, m0.val, sizeof(double) * m0.nnz);
    copy(all.val + m0.nnz, m1.val, sizeof(double) * m1.nnz);
    d0.use_spare();
    EXPECT_EQ(r0->nnz(), want.nnz()) << what;
    EXPECT_TRUE(opsparse::test::csr_near(r0->download(), want, 1e-9)) << what;
  }
}

TEST_F(MclGpu, PpiFilesMatchTheCpuAndLateIterationsAllocateNothing) {
  REQUIRE_GPU();
  OPSPARSE_REQUIRE_DATASETS();
  const fs::path ppi = fs::path(opsparse::test::datasets_dir()) / "ppi";
  const fs::path ref = fs::path(opsparse::test::datasets_dir()) / "reference" / "mcl";
  if (!fs::is_directory(ppi)) GTEST_SKIP() << "no ppi/ in " << opsparse::test::datasets_dir();
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(ppi))
    if (e.path().extension() == ".abc") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    io::labelled_graph g = io::read_graph(f.string());
    const host_csr<double> start = start_matrix(g.adj, params{});
    // Double precision: the GPU must give the CPU's clusters (and mcl's).
    std::vector<iteration_info> its;
    const cluster_result gd = cluster(start, params{}, true, precision::float64,
                                      [&](const iteration_info& it) { its.push_back(it); });
    const cluster_result cd = cluster(start, params{}, false, precision::float64);
    EXPECT_EQ(gd.result.clusters, cd.result.clusters) << f.filename() << " double";
    std::ostringstream text;
    write_clusters(text, gd.result, g.labels);
    const fs::path want = ref / (f.stem().string() + ".I20.clusters");
    if (fs::exists(want))
      EXPECT_TRUE(parse_partition(text.str()) == parse_partition(read_text(want)))
          << f.filename() << ": GPU clusters differ from mcl's reference";
    // Once the iterates stop growing, an iteration allocates nothing on the device (each
    // path keeps its own workspace: the first iteration after a switch between the fused and
    // the stored expansion may allocate that path's arrays once).
    ASSERT_FALSE(its.empty());
    std::size_t last_growth = 0;
    for (std::size_t i = 1; i < its.size(); ++i)
      if (its[i].expanded_nnz > its[i - 1].expanded_nnz || its[i].nnz > its[i - 1].nnz)
        last_growth = i;
    std::ostringstream trace;
    for (const iteration_info& it : its)
      trace << "\n  ite " << it.iteration << ": allocations " << it.stats.device_allocations
            << ", expanded " << it.expanded_nnz << ", nnz " << it.nnz
            << (it.stats.fused ? ", fused" : "");
    for (std::size_t i = last_growth + 2; i < its.size(); ++i)
      if (its[i].stats.fused == its[i - 1].stats.fused)
        EXPECT_EQ(its[i].stats.device_allocations, its[i - 1].stats.device_allocations)
            << f.filename() << ": iteration " << its[i].iteration << " allocated device memory"
            << trace.str();
    EXPECT_GT(gd.stats.peak_device_bytes, 0u);
    // Float cells with double sums (mcl's arithmetic, the program's default) on both backends:
    // the same clusters, and mcl's.
    const cluster_result gf = cluster(start, params{}, true, precision::float32);
    const cluster_result cf = cluster(start, params{}, false, precision::float32);
    EXPECT_EQ(gf.result.clusters, cf.result.clusters) << f.filename() << " float";
    std::ostringstream tg;
    write_clusters(tg, gf.result, g.labels);
    if (fs::exists(want))
      EXPECT_EQ(tg.str(), read_text(want)) << f.filename() << ": GPU float output is not mcl's";
  }
}

TEST_F(MclGpu, SkipsOrFailsWithoutAGpuAsConfigured) {
  std::string why;
  if (opsparse::gpu_available(&why)) {
    EXPECT_TRUE(why.empty() || !why.empty());  // nothing to check with a device present
    return;
  }
  if (opsparse::test::gpu_required()) FAIL() << "OPSPARSE_REQUIRE_GPU=1 but no usable GPU: " << why;
  EXPECT_FALSE(why.empty()) << "gpu_available() must say why there is no GPU";
  EXPECT_THROW(make_gpu_backend<double>(), std::exception);
  GTEST_SKIP() << "no usable GPU: " << why;
}

}  // namespace
