// opsparse-triangle's GPU backend against the CPU backend (the oracle): small graphs, every
// method and ordering, per-vertex counts, the shared real data sets and the command line.
// Skips with the reason where no GPU is usable; fails instead when OPSPARSE_REQUIRE_GPU=1.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <sstream>

#include "opsparse/context.hpp"
#include "opsparse/io.hpp"
#include "test_support.hpp"
#include "triangle/triangle.hpp"
#include "triangle/triangle_cli.hpp"
#include "triangle_test_util.hpp"

namespace {

namespace tri = opsparse::triangle;
using namespace triangle_test;

class TriangleGpu : public app_test::gpu_test {};

/// GPU and CPU agree on the count and per-vertex counts of `a` for every method and ordering,
/// on one GPU backend (one context, one plan) reused throughout.
void check_same(tri::backend& gpu, const host_csr<pattern>& a, bool all_orders = true) {
  for (tri::method m : all_methods)
    for (tri::presort p : {tri::presort::none, tri::presort::ascending, tri::presort::descending,
                           tri::presort::automatic}) {
      if (!all_orders && p != tri::presort::automatic) continue;
      SCOPED_TRACE(std::string(tri::to_string(m)) + " presort " + tri::to_string(p));
      tri::options opt;
      opt.how = m;
      opt.sort = p;
      opt.per_vertex = true;
      auto cpu = tri::make_cpu_backend();
      const auto want = tri::count_triangles(*cpu, a, opt);
      const auto got = tri::count_triangles(gpu, a, opt);
      EXPECT_EQ(got.triangles, want.triangles);
      EXPECT_EQ(got.per_vertex, want.per_vertex);
      EXPECT_EQ(got.sorted, want.sorted);
      opt.per_vertex = false;
      EXPECT_EQ(tri::count_triangles(gpu, a, opt).triangles, want.triangles);
    }
}

// Small enough for compute-sanitizer racecheck (scripts/gpu-check): every method once, with
// the device presort (a 40-clique in a 1200-cycle) and without.
TEST_F(TriangleGpu, SanitizerSmoke) {
  auto gpu = tri::make_gpu_backend();
  std::vector<std::pair<index_t, index_t>> e;
  for (index_t i = 0; i < 1200; ++i) e.emplace_back(i, (i + 1) % 1200);
  for (index_t i = 0; i < 40; ++i)
    for (index_t j = i + 1; j < 40; ++j) e.emplace_back(i * 30, j * 30);
  check_same(*gpu, tri::simple_undirected(adjacency(1200, e)), false);
  check_same(*gpu, tri::simple_undirected(complete_graph(12)), false);
}

TEST_F(TriangleGpu, SmallGraphs) {
  auto gpu = tri::make_gpu_backend();
  std::vector<std::pair<index_t, index_t>> star;
  for (index_t i = 1; i < 8; ++i) star.emplace_back(0, i);
  check_same(*gpu, tri::simple_undirected(host_csr<double>(0, 0)));
  check_same(*gpu, tri::simple_undirected(host_csr<double>(5, 5)));
  check_same(*gpu, tri::simple_undirected(adjacency(3, {{0, 1}, {1, 2}, {2, 0}})));
  check_same(*gpu, tri::simple_undirected(complete_graph(4)));
  check_same(*gpu, tri::simple_undirected(complete_graph(5)));
  check_same(*gpu, tri::simple_undirected(complete_graph(40)));
  check_same(*gpu, tri::simple_undirected(adjacency(8, star)));
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const index_t n = static_cast<index_t>(50 + 300 * seed);
    check_same(*gpu,
               tri::simple_undirected(opsparse::test::random_csr<double>(n, n, 2.0 * seed, seed)));
  }
}

TEST_F(TriangleGpu, SkewedGraphIsPresortedOnTheDevice) {
  // A 300-clique in a 3000-cycle: LAGraph's rule sorts it (descending for ul, the default);
  // check_same's ascending orders give sandia-ll hub mask rows of 301 entries.
  std::vector<std::pair<index_t, index_t>> e;
  for (index_t i = 0; i < 3000; ++i) e.emplace_back(i, (i + 1) % 3000);
  for (index_t i = 0; i < 300; ++i)
    for (index_t j = i + 1; j < 300; ++j) e.emplace_back(i * 10, j * 10);
  const auto a = tri::simple_undirected(adjacency(3000, e));
  auto gpu = tri::make_gpu_backend();
  tri::options opt;
  opt.per_vertex = true;
  const auto r = tri::count_triangles(*gpu, a, opt);
  EXPECT_EQ(r.sorted, tri::presort::descending);
  EXPECT_EQ(r.triangles, 300LL * 299 * 298 / 6 + 0);
  EXPECT_EQ(r.per_vertex, brute_force_per_vertex(a));
  check_same(*gpu, a);
}

TEST_F(TriangleGpu, DatasetsMatchCpuAndGraphFacts) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string root = opsparse::test::datasets_dir();
  std::map<std::string, std::vector<std::string>> files;
  for (const auto& r : tsv_rows(root + "/reference/graph-facts.tsv")) files.emplace(r[0], r);
  ASSERT_FALSE(files.empty());
  auto gpu = tri::make_gpu_backend();  // one context and plan over every file
  int matched = 0;
  for (const auto& [file, r] : files) {
    SCOPED_TRACE(file);
    const auto a = tri::simple_undirected(opsparse::io::read_graph(root + "/" + file).adj);
    const std::int64_t expected = std::stoll(r[3]);
    bool ok = true;
    for (tri::method m : all_methods) {
      tri::options opt;
      opt.how = m;
      for (bool materialize : {false, true}) {  // the fused sum and sum(C) of a formed C
        opt.materialize = materialize;
        const auto got = tri::count_triangles(*gpu, a, opt);
        EXPECT_EQ(got.triangles, expected)
            << tri::to_string(m) << (materialize ? " C formed" : " fused");
        ok = ok && got.triangles == expected;
      }
    }
    for (int parts : {2, 5}) {  // in tiles: the host prepares, the device counts tile by tile
      tri::options opt;
      opt.parts = parts;
      const auto got = tri::count_triangles(*gpu, a, opt);
      EXPECT_EQ(got.triangles, expected) << parts << " parts";
      ok = ok && got.triangles == expected;
    }
    tri::options opt;
    opt.per_vertex = true;
    opt.sort = tri::presort::ascending;
    const auto got = tri::count_triangles(*gpu, a, opt);
    auto cpu = tri::make_cpu_backend();
    const auto want = tri::count_triangles(*cpu, a, opt);
    EXPECT_EQ(got.per_vertex, want.per_vertex);
    ok = ok && got.per_vertex == want.per_vertex;
    matched += ok;
  }
  std::cout << "[ matched  ] " << matched << " of " << files.size()
            << " files of reference/graph-facts.tsv on the GPU\n";
}

TEST_F(TriangleGpu, CommandLineGpuBackend) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string file = opsparse::test::datasets_dir() + "/graphs/wiki-Vote.txt";
  for (const char* backend : {"gpu", "cpu"}) {
    const char* argv[] = {"opsparse-triangle", "--backend", backend, file.c_str()};
    std::ostringstream out, err;
    EXPECT_EQ(tri::run_cli(4, argv, out, err), 0) << err.str();
    EXPECT_EQ(out.str(), "608389\n") << backend;
  }
  // A graph the device cannot hold: an error naming the memory and the options, no crash.
  opsparse::test::env_scope limit("OPSPARSE_DEVICE_ALLOCATION_LIMIT", std::string("50000"));
  const char* argv[] = {"opsparse-triangle", "-q", "--backend", "gpu", file.c_str()};
  std::ostringstream out, err;
  EXPECT_EQ(tri::run_cli(5, argv, out, err), 1);
  EXPECT_EQ(out.str(), "");
  for (const char* says : {"opsparse-triangle: error: out of GPU memory: ", " asked for, ",
                           "the GPU backend keeps the graph (", "--parts N", "--backend cpu"})
    EXPECT_NE(err.str().find(says), std::string::npos) << says << "\n" << err.str();
}

// What the message names works: A's columns (2 x 100,762 edges x 4 bytes, 806 kB) cannot be
// allocated under a 200 kB limit, a tile of an 8 x 8 split can (L's rows of one part: ~50 kB).
TEST_F(TriangleGpu, PartsCountAGraphTheDeviceCannotHoldWhole) {
  OPSPARSE_REQUIRE_DATASETS();
  const std::string file = opsparse::test::datasets_dir() + "/graphs/wiki-Vote.txt";
  opsparse::test::env_scope limit("OPSPARSE_DEVICE_ALLOCATION_LIMIT", std::string("200000"));
  {
    const char* argv[] = {"opsparse-triangle", "-q", "--backend", "gpu", file.c_str()};
    std::ostringstream out, err;
    EXPECT_EQ(tri::run_cli(5, argv, out, err), 1);
    EXPECT_NE(err.str().find("--parts N"), std::string::npos) << err.str();
  }
  const char* argv[] = {"opsparse-triangle", "-q", "--backend", "gpu",
                        "--parts",           "8",  file.c_str()};
  std::ostringstream out, err;
  EXPECT_EQ(tri::run_cli(7, argv, out, err), 0) << err.str();
  EXPECT_EQ(out.str(), "608389\n");
}

}  // namespace
