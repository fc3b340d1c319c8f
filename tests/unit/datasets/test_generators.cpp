// Data-set generators: determinism (seed, thread count), validity, exact structure of the
// stencils, mc2depi and the QCD matrix, R-MAT and protein-network properties, the paper
// stand-ins' statistics at small scales, the opsparse-gen CLI and fetch.sh's offline path.
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "opsparse/io.hpp"
#include "opsparse_datasets/generators.hpp"
#include "test_support.hpp"

namespace ds = opsparse::datasets;
using opsparse::check;
using opsparse::host_csr;
using opsparse::index_t;
using opsparse::offset_t;

namespace {

::testing::AssertionResult identical(const host_csr<double>& x, const host_csr<double>& y) {
  if (x.rows != y.rows || x.cols != y.cols) return ::testing::AssertionFailure() << "shape differs";
  if (x.rpt != y.rpt) return ::testing::AssertionFailure() << "row pointers differ";
  if (x.col != y.col) return ::testing::AssertionFailure() << "columns differ";
  if (x.val != y.val) return ::testing::AssertionFailure() << "values differ";
  return ::testing::AssertionSuccess();
}

bool same_pattern(const host_csr<double>& x, const host_csr<double>& y) {
  return x.rows == y.rows && x.rpt == y.rpt && x.col == y.col;
}

bool has_diagonal_entry(const host_csr<double>& m) {
  for (index_t i = 0; i < m.rows; ++i)
    if (std::binary_search(m.col.begin() + m.rpt[i], m.col.begin() + m.rpt[i + 1], i)) return true;
  return false;
}

// Scratch folder under the system temp dir, removed at the end of the test.
struct scratch_dir {
  std::filesystem::path path;
  scratch_dir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = std::filesystem::temp_directory_path() /
           ("opsparse_datasets_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~scratch_dir() { std::filesystem::remove_all(path); }
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

struct run_result {
  int status;
  std::string out;
};

// Runs a shell command, capturing stdout and stderr together.
run_result run(const std::string& cmd) {
  run_result r{-1, {}};
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

// Exact statistics of a stencil with offsets S on a non-periodic grid, from counting: an offset
// o fits at sum_d (n_d - |o_d|) places; a two-step path o1 then o2 fits at
// prod_d (n_d - span_d), span = max(0, o1, o1+o2) - min(0, o1, o1+o2).
struct stencil_counts {
  offset_t nnz = 0, products = 0, nnz_c = 0;
};
stencil_counts stencil_formula(const std::vector<index_t>& dims,
                               const std::vector<std::vector<int>>& s) {
  stencil_counts c;
  const std::size_t d = dims.size();
  auto fits = [&](const std::vector<int>& o) {
    offset_t k = 1;
    for (std::size_t j = 0; j < d; ++j) k *= std::max<offset_t>(0, dims[j] - std::abs(o[j]));
    return k;
  };
  std::set<std::vector<int>> sums;
  for (const auto& o : s) c.nnz += fits(o);
  for (const auto& a : s)
    for (const auto& b : s) {
      offset_t k = 1;
      std::vector<int> ab(d);
      for (std::size_t j = 0; j < d; ++j) {
        ab[j] = a[j] + b[j];
        const int hi = std::max({0, a[j], ab[j]}), lo = std::min({0, a[j], ab[j]});
        k *= std::max<offset_t>(0, dims[j] - (hi - lo));
      }
      c.products += k;
      sums.insert(ab);
    }
  for (const auto& o : sums) c.nnz_c += fits(o);
  return c;
}

// nnz(A*A) of a stencil by brute force: for every node, the distinct ends of two-step paths
// that stay inside the grid (the counting formula over-counts targets without such a path).
offset_t stencil_nnz_c_brute(const std::vector<index_t>& dims,
                             const std::vector<std::vector<int>>& s) {
  const std::size_t d = dims.size();
  index_t nodes = 1;
  for (index_t n : dims) nodes *= n;
  auto inside = [&](const std::vector<int>& x) {
    for (std::size_t j = 0; j < d; ++j)
      if (x[j] < 0 || x[j] >= dims[j]) return false;
    return true;
  };
  offset_t total = 0;
  std::vector<int> x(d), y(d), z(d);
  for (index_t id = 0; id < nodes; ++id) {
    index_t rest = id;
    for (std::size_t j = d; j-- > 0;) {
      x[j] = rest % dims[j];
      rest /= dims[j];
    }
    std::set<std::vector<int>> ends;
    for (const auto& a : s) {
      for (std::size_t j = 0; j < d; ++j) y[j] = x[j] + a[j];
      if (!inside(y)) continue;
      for (const auto& b : s) {
        for (std::size_t j = 0; j < d; ++j) z[j] = y[j] + b[j];
        if (inside(z)) ends.insert(z);
      }
    }
    total += static_cast<offset_t>(ends.size());
  }
  return total;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Determinism

TEST(datasets_determinism, SameSeedSameMatrixDifferentSeedDifferent) {
  EXPECT_TRUE(
      identical(ds::rmat(12, 8, 0.57, 0.19, 0.19, 7), ds::rmat(12, 8, 0.57, 0.19, 0.19, 7)));
  EXPECT_FALSE(
      same_pattern(ds::rmat(12, 8, 0.57, 0.19, 0.19, 7), ds::rmat(12, 8, 0.57, 0.19, 0.19, 8)));

  ds::protein_params p;
  p.nodes = 3000;
  p.avg_degree = 8;
  p.seed = 11;
  const host_csr<double> a = ds::protein_network(p);
  EXPECT_TRUE(identical(a, ds::protein_network(p)));
  p.seed = 12;
  EXPECT_FALSE(same_pattern(a, ds::protein_network(p)));

  for (const char* name : {"scircuit", "cage12", "poisson3Da", "webbase-1M", "pdb1HYS"}) {
    SCOPED_TRACE(name);
    const host_csr<double> x = ds::paper_standin(name, 0.02, 3);
    EXPECT_TRUE(identical(x, ds::paper_standin(name, 0.02, 3)));
    EXPECT_FALSE(identical(x, ds::paper_standin(name, 0.02, 4)));
  }
  EXPECT_TRUE(identical(ds::banded_random(5000, 9, 20, 5), ds::banded_random(5000, 9, 20, 5)));
  EXPECT_TRUE(
      identical(ds::random_geometric_3d(4000, 12, 5), ds::random_geometric_3d(4000, 12, 5)));
}

TEST(datasets_determinism, IndependentOfThreadCount) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const host_csr<double> r1 = ds::rmat(14, 4, 0.57, 0.19, 0.19, 3, true, true);
  const host_csr<double> g1 = ds::paper_standin("filter3D", 0.05, 3);
  const host_csr<double> w1 = ds::paper_standin("patents_main", 0.05, 3);
  omp_set_num_threads(3);
  const host_csr<double> r3 = ds::rmat(14, 4, 0.57, 0.19, 0.19, 3, true, true);
  const host_csr<double> g3 = ds::paper_standin("filter3D", 0.05, 3);
  const host_csr<double> w3 = ds::paper_standin("patents_main", 0.05, 3);
  omp_set_num_threads(saved);
  EXPECT_TRUE(identical(r1, r3));
  EXPECT_TRUE(identical(g1, g3));
  EXPECT_TRUE(identical(w1, w3));
}

// Golden digests, recorded on x86-64 Linux (GCC 12): a mismatch means that files generated
// earlier, or benchmark inputs named by seed, would no longer be the same. Update them only for an
// intended change of a generator, and say so in the commit.
TEST(datasets_determinism, GoldenChecksums) {
  // FNV-1a over the row pointers, columns and the values' bit patterns.
  auto digest = [](const host_csr<double>& m) {
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](std::uint64_t x) { h = (h ^ x) * 1099511628211ULL; };
    for (offset_t p : m.rpt) mix(static_cast<std::uint64_t>(p));
    for (index_t c : m.col) mix(static_cast<std::uint32_t>(c));
    for (double v : m.val) {
      std::uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      mix(bits);
    }
    return h;
  };
  const host_csr<double> r = ds::rmat(10, 4, 0.57, 0.19, 0.19, 1);
  EXPECT_EQ(r.nnz(), 3636);
  EXPECT_EQ(digest(r), 2936223414988695087ULL);
  ds::protein_params p;
  p.nodes = 2000;
  p.seed = 9;
  EXPECT_EQ(digest(ds::protein_network(p)), 9826155543414954197ULL);
  EXPECT_EQ(digest(ds::paper_standin("poisson3Da", 0.2, 5)), 3744348978728344131ULL);
  EXPECT_EQ(digest(ds::paper_standin("webbase-1M", 0.01, 5)), 11911180813758919105ULL);
  EXPECT_EQ(digest(ds::paper_standin("pdb1HYS", 0.05, 5)), 9675572921945088135ULL);
}

// ---------------------------------------------------------------------------------------------
// Validity and values

TEST(datasets_values, RandomValuesInUnitIntervalAndSymmetric) {
  const host_csr<double> a = ds::rmat(12, 8, 0.57, 0.19, 0.19, 1, /*symmetric=*/true);
  ASSERT_EQ(check(a), "");
  for (double v : a.val) {
    EXPECT_GT(v, 0.0);
    EXPECT_LE(v, 1.0);
  }
  const host_csr<double> t = opsparse::transpose(a);
  EXPECT_TRUE(identical(a, t)) << "symmetric R-MAT must be numerically symmetric";
  const host_csr<double> ones = ds::rmat(12, 8, 0.57, 0.19, 0.19, 1,
                                         ds::rmat_options{true, false, true, ds::value_kind::ones});
  EXPECT_TRUE(same_pattern(a, ones));
  for (double v : ones.val) EXPECT_EQ(v, 1.0);
}

TEST(datasets_values, BadArgumentsThrow) {
  EXPECT_THROW(ds::paper_standin("no-such-matrix"), std::invalid_argument);
  EXPECT_THROW(ds::paper_standin("cage12", 0.0), std::invalid_argument);
  EXPECT_THROW(ds::paper_standin("cage12", 1.5), std::invalid_argument);
  EXPECT_THROW(ds::rmat(0, 8, 0.57, 0.19, 0.19, 1), std::invalid_argument);
  EXPECT_THROW(ds::rmat(10, 8, 0.7, 0.2, 0.2, 1), std::invalid_argument);
  ds::protein_params p;
  p.nodes = 1;
  EXPECT_THROW(ds::protein_network(p), std::invalid_argument);
  EXPECT_THROW(ds::stencil_offsets("8pt"), std::invalid_argument);
  EXPECT_THROW(ds::grid_stencil({4, 4}, {{0, 0, 0}}), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Exact structures

TEST(datasets_exact, Mario002IsThe5PointStencilFormula) {
  for (double scale : {1.0, 0.01}) {
    SCOPED_TRACE(scale);
    const host_csr<double> a = ds::paper_standin("mario002", scale);
    ASSERT_EQ(check(a), "");
    // grid_dims: the side nearest sqrt(rows), the other side rounding rows / side.
    const auto side = static_cast<index_t>(std::llround(std::sqrt(389874.0 * scale)));
    const auto other = static_cast<index_t>(std::llround(389874.0 * scale / side));
    ASSERT_EQ(a.rows, side * other);
    const offset_t nx = side, ny = other;
    EXPECT_EQ(a.nnz(), 5 * nx * ny - 2 * nx - 2 * ny);
    const stencil_counts f = stencil_formula({side, other}, ds::stencil_offsets("5pt"));
    const ds::square_stats s = ds::compute_square_stats(a);
    EXPECT_EQ(s.nnz, f.nnz);
    EXPECT_EQ(s.products, f.products);
    EXPECT_EQ(s.max_row, 5);
    // Every sum of two 5-point offsets has a fitting path wherever its target fits, so the
    // counting formula is exact for nnz(A*A) too.
    EXPECT_EQ(s.nnz_c, f.nnz_c);
    if (scale == 1.0) {
      EXPECT_EQ(a.rows, 390000);
      EXPECT_NEAR(s.compression, 1.92, 0.005);
    }
  }
}

TEST(datasets_exact, StencilsMatchCountingFormulas) {
  // Products and nnz follow from counting in any dimension; nnz(A*A) against brute force.
  struct c {
    std::vector<index_t> dims;
    const char* stencil;
  };
  for (const c& k : std::vector<c>{{{7, 9}, "9pt"},
                                   {{5, 6, 7}, "7pt"},
                                   {{6, 5, 4}, "15pt"},
                                   {{4, 5, 6}, "19pt"},
                                   {{5, 5, 5}, "27pt"}}) {
    SCOPED_TRACE(k.stencil);
    const auto s = ds::stencil_offsets(k.stencil);
    const host_csr<double> a = ds::grid_stencil(k.dims, s);
    ASSERT_EQ(check(a), "");
    const stencil_counts f = stencil_formula(k.dims, s);
    const ds::square_stats st = ds::compute_square_stats(a);
    EXPECT_EQ(st.nnz, f.nnz);
    EXPECT_EQ(st.products, f.products);
    EXPECT_EQ(st.max_row, static_cast<offset_t>(s.size()));
    EXPECT_EQ(st.nnz_c, stencil_nnz_c_brute(k.dims, s));
  }
  // Dense blocks: b x b per node multiplies nnz by b^2 and products by b^3.
  const auto s9 = ds::stencil_offsets("9pt");
  const ds::square_stats plain = ds::compute_square_stats(ds::grid_stencil({6, 7}, s9));
  const ds::square_stats block = ds::compute_square_stats(ds::grid_stencil({6, 7}, s9, false, 3));
  EXPECT_EQ(block.rows, 3 * plain.rows);
  EXPECT_EQ(block.nnz, 9 * plain.nnz);
  EXPECT_EQ(block.products, 27 * plain.products);
  EXPECT_EQ(block.nnz_c, 9 * plain.nnz_c);
  // Periodic: every row has the full stencil.
  const host_csr<double> per = ds::grid_stencil({5, 6, 7}, ds::stencil_offsets("27pt"), true);
  for (index_t i = 0; i < per.rows; ++i) ASSERT_EQ(per.rpt[i + 1] - per.rpt[i], 27);
}

TEST(datasets_exact, StencilStandinsFollowTheFormulas) {
  // majorbasis (11-point) and offshore (17-point): products from the counting formula.
  for (const char* name : {"majorbasis", "offshore"}) {
    SCOPED_TRACE(name);
    const host_csr<double> a = ds::paper_standin(name, 0.05);
    ASSERT_EQ(check(a), "");
    const ds::square_stats s = ds::compute_square_stats(a);
    std::vector<std::vector<int>> st;
    std::vector<index_t> dims;
    if (std::string(name) == "majorbasis") {
      st = ds::stencil_offsets("5pt");
      for (auto o :
           std::vector<std::vector<int>>{{3, 0}, {-3, 0}, {0, 3}, {0, -3}, {1, 1}, {-1, -1}})
        st.push_back(o);
      const auto side = static_cast<index_t>(std::llround(std::sqrt(160000 * 0.05)));
      dims = {side, static_cast<index_t>(std::llround(160000 * 0.05 / side))};
    } else {
      st = ds::stencil_offsets("15pt");
      st.push_back({0, 0, 2});
      st.push_back({0, 0, -2});
      const auto side = static_cast<index_t>(std::llround(std::cbrt(259789 * 0.05)));
      dims = {side, side, static_cast<index_t>(std::llround(259789 * 0.05 / side / side))};
    }
    const stencil_counts f = stencil_formula(dims, st);
    EXPECT_EQ(s.nnz, f.nnz);
    EXPECT_EQ(s.products, f.products);
  }
}

TEST(datasets_exact, Mc2depiMatchesTheRealMatrix) {
  const host_csr<double> a = ds::paper_standin("mc2depi");
  ASSERT_EQ(check(a), "");
  const ds::square_stats s = ds::compute_square_stats(a);
  EXPECT_EQ(s.rows, 525825);
  EXPECT_EQ(s.nnz, 2100225);  // the real matrix's nnz
  EXPECT_EQ(s.max_row, 4);
  EXPECT_EQ(s.products, 8391681);  // the paper: 8.39M
  EXPECT_EQ(s.nnz_c, 5245953);
  EXPECT_NEAR(s.compression, 1.60, 0.005);
  // Small scales keep the triangle: side (side+1)/2 states, 4 side - 1 boundary losses.
  const host_csr<double> small = ds::triangle_markov_chain(30);
  EXPECT_EQ(small.rows, 30 * 31 / 2);
  EXPECT_EQ(small.nnz(), 4 * small.rows - 3 * 30);
}

TEST(datasets_exact, Conf5IsTheWilsonDiracHoppingMatrix) {
  const host_csr<double> a = ds::paper_standin("conf5_4-8x8-05");
  ASSERT_EQ(check(a), "");
  const ds::square_stats s = ds::compute_square_stats(a);
  EXPECT_EQ(s.rows, 49152);
  EXPECT_EQ(s.nnz, 1916928);  // the real matrix: 39 per row
  for (index_t i = 0; i < a.rows; ++i) ASSERT_EQ(a.rpt[i + 1] - a.rpt[i], 39);
  EXPECT_EQ(s.products, 74760192);  // the paper: 74.8M
  EXPECT_EQ(s.nnz_c, 222 * 49152);  // CR 6.85
}

TEST(datasets_exact, TriangulatedGridIsPlanarTriangulation) {
  const host_csr<double> a = ds::random_triangulated_grid(40, 50, 9);
  ASSERT_EQ(check(a), "");
  EXPECT_TRUE(same_pattern(a, opsparse::transpose(a)));
  EXPECT_FALSE(has_diagonal_entry(a));
  // A triangulated grid has (nx-1) ny + nx (ny-1) + (nx-1)(ny-1) edges, whatever the diagonals.
  EXPECT_EQ(a.nnz() / 2, 39 * 50 + 40 * 49 + 39 * 49);
  offset_t max_row = 0;
  for (index_t i = 0; i < a.rows; ++i) max_row = std::max(max_row, a.rpt[i + 1] - a.rpt[i]);
  EXPECT_LE(max_row, 8);
}

// ---------------------------------------------------------------------------------------------
// R-MAT

TEST(datasets_rmat, EdgeCountLoopsAndSymmetry) {
  const int scale = 14;
  const double ef = 8;
  const offset_t edges = static_cast<offset_t>(ef * (1 << scale));
  const host_csr<double> a = ds::rmat(scale, ef, 0.57, 0.19, 0.19, 2);
  ASSERT_EQ(check(a), "");
  EXPECT_EQ(a.rows, 1 << scale);
  EXPECT_LE(a.nnz(), edges);        // duplicates merge
  EXPECT_GE(a.nnz(), edges * 0.8);  // but not many at this density
  EXPECT_TRUE(has_diagonal_entry(a));

  const host_csr<double> nl = ds::rmat(scale, ef, 0.57, 0.19, 0.19, 2, false, /*drop_loops=*/true);
  EXPECT_FALSE(has_diagonal_entry(nl));
  EXPECT_LT(nl.nnz(), a.nnz());

  const host_csr<double> sym = ds::rmat(scale, ef, 0.57, 0.19, 0.19, 2, /*symmetric=*/true, true);
  ASSERT_EQ(check(sym), "");
  EXPECT_TRUE(identical(sym, opsparse::transpose(sym)));
  EXPECT_FALSE(has_diagonal_entry(sym));
  EXPECT_LE(sym.nnz(), 2 * edges);
  EXPECT_GT(sym.nnz(), nl.nnz());

  // Skew: without the relabelling, vertex 0 (all bits 0, probability a + b per level) has the
  // longest row; a, b, c = 1/4 gives no skew at all.
  ds::rmat_options keep;
  keep.permute = false;
  const host_csr<double> raw = ds::rmat(scale, ef, 0.57, 0.19, 0.19, 2, keep);
  offset_t best = 0;
  index_t arg = -1;
  for (index_t i = 0; i < raw.rows; ++i)
    if (raw.rpt[i + 1] - raw.rpt[i] > best) best = raw.rpt[i + 1] - raw.rpt[i], arg = i;
  EXPECT_EQ(arg, 0);
  const ds::square_stats flat = ds::compute_product_count(ds::rmat(scale, ef, 0.25, 0.25, 0.25, 2));
  EXPECT_LT(flat.max_row, 30);
  EXPECT_GT(ds::compute_product_count(a).max_row, 200);
}

TEST(datasets_rmat, TenMillionNonzeros) {
  // The benchmark's big graph input: scale 20, edge factor 8 (8.4M edges, ~8.2M distinct);
  // symmetric doubles it. Measured ~1 s (directed) on the 2-core development machine; the time is
  // recorded, not asserted (it depends on the machine's load; `opsparse-gen rmat` prints it).
  const auto t0 = std::chrono::steady_clock::now();
  const host_csr<double> a = ds::rmat(20, 8, 0.57, 0.19, 0.19, 1);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(a.nnz(), 8000000);
  RecordProperty("rmat_20_8_seconds", std::to_string(s));
}

// ---------------------------------------------------------------------------------------------
// Protein networks

TEST(datasets_protein, SizeSymmetryAndPlantedComplexes) {
  ds::protein_params p;
  p.nodes = 20000;
  p.avg_degree = 10;  // 100,000 undirected edges
  p.seed = 42;
  ds::protein_info info;
  const host_csr<double> a = ds::protein_network(p, &info);
  ASSERT_EQ(check(a), "");
  EXPECT_EQ(a.rows, p.nodes);
  EXPECT_TRUE(identical(a, opsparse::transpose(a)));
  EXPECT_FALSE(has_diagonal_entry(a));
  const double edges = a.nnz() / 2.0;
  EXPECT_NEAR(edges, 100000, 5000);
  EXPECT_EQ(info.internal_edges + info.external_edges, a.nnz() / 2);
  EXPECT_GE(static_cast<double>(info.internal_edges) / edges, 0.75)
      << "edges must be mostly inside complexes";
  // Complex sizes within [min, max + min) (the last one absorbs a short tail).
  ASSERT_EQ(info.cluster_of.size(), static_cast<std::size_t>(p.nodes));
  std::vector<index_t> size(static_cast<std::size_t>(info.clusters), 0);
  for (index_t c : info.cluster_of) ++size.at(c);
  for (index_t s : size) {
    EXPECT_GE(s, p.min_cluster);
    EXPECT_LT(s, p.max_cluster + p.min_cluster);
  }
  // Degree heterogeneity: hubs well above the mean.
  offset_t max_deg = 0;
  for (index_t i = 0; i < a.rows; ++i) max_deg = std::max(max_deg, a.rpt[i + 1] - a.rpt[i]);
  EXPECT_GE(max_deg, 30);
}

TEST(datasets_protein, BenchmarkSizeHasAMillionEdges) {
  ds::protein_params p;  // defaults: 200,000 proteins, mean degree 10
  ds::protein_info info;
  const host_csr<double> a = ds::protein_network(p, &info);
  EXPECT_EQ(a.rows, 200000);
  EXPECT_NEAR(a.nnz() / 2.0, 1000000, 20000);
  EXPECT_GE(static_cast<double>(info.internal_edges) / (a.nnz() / 2.0), 0.8);
}

TEST(datasets_protein, MclRecoversThePlantedComplexes) {
  if (std::system("command -v mcl >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "mcl (apt-get install mcl) not installed";
  scratch_dir dir;
  const std::string gen = opsparse::test::program_path("opsparse-gen", OPSPARSE_GEN_EXE);
  const run_result g = run(quote(gen) + " protein --nodes 3000 --edges 15000 --seed 5 -o " +
                           quote(dir / "p.abc") + " --truth " + quote(dir / "truth.txt"));
  ASSERT_EQ(g.status, 0) << g.out;
  const run_result m =
      run("mcl " + quote(dir / "p.abc") + " --abc -I 2.0 -o " + quote(dir / "mcl.txt"));
  ASSERT_EQ(m.status, 0) << m.out;
  auto load = [](const std::string& f) {
    std::map<std::string, int> of;
    std::ifstream is(f);
    std::string line;
    int k = 0;
    while (std::getline(is, line)) {
      std::istringstream ls(line);
      std::string w;
      while (ls >> w) of[w] = k;
      ++k;
    }
    return of;
  };
  const auto truth = load(dir / "truth.txt"), found = load(dir / "mcl.txt");
  ASSERT_EQ(truth.size(), 3000u);
  // Pair counting: of the pairs MCL puts together, how many are planted together (precision),
  // and of the planted pairs, how many MCL finds (recall).
  std::map<std::pair<int, int>, long> both;
  std::map<int, long> t_size, f_size;
  for (const auto& [label, t] : truth) {
    const int f = found.count(label) ? found.at(label) : -1;
    ++both[{t, f}];
    ++t_size[t];
    ++f_size[f];
  }
  auto pairs = [](long n) { return n * (n - 1) / 2; };
  long tp = 0, tpairs = 0, fpairs = 0;
  for (const auto& kv : both) tp += pairs(kv.second);
  for (const auto& kv : t_size) tpairs += pairs(kv.second);
  for (const auto& kv : f_size) fpairs += pairs(kv.second);
  const double precision = static_cast<double>(tp) / fpairs,
               recall = static_cast<double>(tp) / tpairs;
  RecordProperty("mcl_pair_precision", std::to_string(precision));
  RecordProperty("mcl_pair_recall", std::to_string(recall));
  EXPECT_GE(precision, 0.8);
  EXPECT_GE(recall, 0.75);
}

// ---------------------------------------------------------------------------------------------
// Paper stand-ins

TEST(datasets_paper, TableHasTheTwentySixMatrices) {
  const auto& t = ds::paper_matrices();
  ASSERT_EQ(t.size(), 26u);
  std::set<std::string> names;
  for (const auto& p : t) {
    names.insert(p.name);
    EXPECT_NEAR(p.nnz_per_row, static_cast<double>(p.nnz) / p.rows, 0.01) << p.name;
    EXPECT_GT(p.compression, 1.0) << p.name;
    EXPECT_EQ(&ds::find_paper_matrix(p.name), &p);
  }
  EXPECT_EQ(names.size(), 26u);
}

// Every stand-in at a small scale: valid, rows proportional, nnz/row within 15% and the
// compression ratio of A*A within 25% of the real matrix. Scales are the smallest at which the
// statistics hold (R-MAT-based ones drift with size; see datasets/README.md); the full-scale
// figures are in the README.
TEST(datasets_paper, StandinsMatchNnzPerRowAndCompressionAtSmallScale) {
  const std::map<std::string, double> scale = {{"m133-b3", 0.05},       {"mac_econ_fwd500", 0.05},
                                               {"patents_main", 0.05},  {"webbase-1M", 0.2},
                                               {"mc2depi", 0.05},       {"scircuit", 0.05},
                                               {"mario002", 0.05},      {"cage12", 0.05},
                                               {"majorbasis", 0.05},    {"offshore", 0.05},
                                               {"2cubes_sphere", 0.05}, {"poisson3Da", 0.2},
                                               {"filter3D", 0.05},      {"mono_500Hz", 0.05},
                                               {"conf5_4-8x8-05", 1.0}, {"cant", 0.1},
                                               {"consph", 0.1},         {"shipsec1", 0.05},
                                               {"rma10", 0.1},          {"pdb1HYS", 0.2},
                                               {"delaunay_n24", 0.002}, {"cage15", 0.005},
                                               {"wb-edu", 0.25},        {"cop20k_A", 0.05},
                                               {"hood", 0.05},          {"pwtk", 0.05}};
  for (const auto& p : ds::paper_matrices()) {
    SCOPED_TRACE(p.name);
    ASSERT_TRUE(scale.count(p.name)) << "no test scale for " << p.name;
    const double s = scale.at(p.name);
    const host_csr<double> a = ds::paper_standin(p.name, s, 1, ds::value_kind::ones);
    ASSERT_EQ(check(a), "");
    const ds::square_stats st = ds::compute_square_stats(a);
    EXPECT_NEAR(st.rows, p.rows * s, 0.06 * p.rows * s + 64) << "rows";
    EXPECT_NEAR(st.nnz_per_row / p.nnz_per_row, 1.0, 0.15)
        << "nnz/row " << st.nnz_per_row << " vs " << p.nnz_per_row;
    EXPECT_NEAR(st.compression / p.compression, 1.0, 0.25)
        << "CR " << st.compression << " vs " << p.compression;
    RecordProperty(p.name + "_cr", std::to_string(st.compression));
  }
}

// ---------------------------------------------------------------------------------------------
// opsparse-gen

TEST(datasets_cli, ListStatsPaperRmatProtein) {
  const std::string gen = quote(opsparse::test::program_path("opsparse-gen", OPSPARSE_GEN_EXE));
  scratch_dir dir;
  run_result r = run(gen + " --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("usage: opsparse-gen"), std::string::npos);

  r = run(gen + " list");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const auto& p : ds::paper_matrices())
    EXPECT_NE(r.out.find(p.name), std::string::npos) << p.name;

  r = run(gen + " stats mc2depi --scale 0.01");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("stand-in"), std::string::npos);
  EXPECT_NE(r.out.find("real"), std::string::npos);

  r = run(gen + " paper mc2depi --scale 0.01 --seed 4 -o " + quote(dir / "m.mtx"));
  ASSERT_EQ(r.status, 0) << r.out;
  const host_csr<double> back = opsparse::io::read_matrix_market<double>(dir / "m.mtx");
  EXPECT_TRUE(opsparse::test::csr_near(back, ds::paper_standin("mc2depi", 0.01, 4), 1e-15));
  r = run(gen + " measure " + quote(dir / "m.mtx"));
  ASSERT_EQ(r.status, 0) << r.out;
  const ds::square_stats ms = ds::compute_square_stats(back);
  EXPECT_NE(r.out.find("products " + std::to_string(ms.products)), std::string::npos) << r.out;

  r = run(gen + " rmat --scale 8 --edge-factor 4 --symmetric --drop-loops --seed 3 -o " +
          quote(dir / "r.mtx"));
  ASSERT_EQ(r.status, 0) << r.out;
  const host_csr<double> rm = opsparse::io::read_matrix_market<double>(dir / "r.mtx");
  EXPECT_TRUE(opsparse::test::csr_near(rm, ds::rmat(8, 4, 0.57, 0.19, 0.19, 3, true, true), 1e-15));

  r = run(gen + " protein --nodes 600 --edges 3000 --seed 2 -o " + quote(dir / "p.abc") +
          " --truth " + quote(dir / "t.txt"));
  ASSERT_EQ(r.status, 0) << r.out;
  const opsparse::io::labelled_graph g = opsparse::io::read_abc(dir / "p.abc");
  EXPECT_EQ(g.labels.size(), 600u);
  EXPECT_EQ(g.labels[0].size(), 7u);  // P000123
  EXPECT_EQ(g.labels[0][0], 'P');
  ds::protein_params p;
  p.nodes = 600;
  p.avg_degree = 10;
  p.seed = 2;
  const host_csr<double> direct = ds::protein_network(p);
  EXPECT_EQ(g.adj.nnz(), direct.nnz() / 2) << "ABC lists every undirected edge once";
  std::ifstream truth(dir / "t.txt");
  std::string line;
  std::size_t members = 0;
  while (std::getline(truth, line)) members += std::count(line.begin(), line.end(), '\t') + 1;
  EXPECT_EQ(members, 600u);

  r = run(gen + " protein --nodes 600 --edges 3000 -o " + quote(dir / "p.mtx"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(opsparse::io::read_matrix_market<double>(dir / "p.mtx").rows, 600);

  // Usage errors exit with 2 and say what was wrong.
  for (const std::string bad :
       {" frobnicate", " rmat --scale 8 -o x.mtx", " paper nosuch -o x.mtx",
        " paper cage12 --scale 2 -o x.mtx", " rmat --scale x --edge-factor 2 -o y.mtx",
        " protein --nodes 10 --edges 5 -o out.txt", " list --bogus"}) {
    r = run(gen + bad);
    EXPECT_NE(r.status, 0) << bad;
    EXPECT_NE(r.out.find("opsparse-gen:"), std::string::npos) << bad << ": " << r.out;
  }
}

// Boost.Program_options front end: every mistake exits 2 with a message that names the option,
// --help exits 0 and lists every option with its default, and --key=value still works.
TEST(datasets_cli, UsageErrorsExitTwoAndNameTheOption) {
  const std::string gen = quote(opsparse::test::program_path("opsparse-gen", OPSPARSE_GEN_EXE));
  scratch_dir dir;
  const std::string out_mtx = " -o " + quote(dir / "x.mtx");
  const std::string out_abc = " -o " + quote(dir / "x.abc");
  const std::vector<std::pair<std::string, std::string>> cases = {
      // unknown options, including one that belongs to another command and an abbreviation
      {" rmat --scale 8 --edge-factor 2 --bogus 1" + out_mtx, "'--bogus'"},
      {" list --seed 3", "'--seed'"},
      {" rmat --scale 8 --edge-fac 2" + out_mtx, "'--edge-fac'"},
      // a missing value
      {" rmat --edge-factor 2" + out_mtx + " --scale", "'--scale'"},
      {" protein --nodes 600 --edges 3000" + out_abc + " --truth", "'--truth'"},
      {" rmat --scale 8 --edge-factor 2", "-o"},
      // numbers that are not numbers, or not integers
      {" rmat --scale eight --edge-factor 2" + out_mtx, "'--scale'"},
      {" rmat --scale 8 --edge-factor 2x" + out_mtx, "'--edge-factor'"},
      {" protein --nodes 6e2 --edges 3000" + out_abc, "'--nodes'"},
      {" paper cage12 --seed 1.5" + out_mtx, "'--seed'"},
      // values out of range
      {" paper cage12 --scale 0" + out_mtx, "--scale"},
      {" stats mc2depi --scale nan", "--scale"},
      {" rmat --scale 31 --edge-factor 2" + out_mtx, "--scale"},
      {" rmat --scale 8 --edge-factor 2 --a 0.9" + out_mtx, "--a"},
      {" rmat --scale 8 --edge-factor -1" + out_mtx, "--edge-factor"},
      {" protein --nodes 600 --edges 3000 --mixing 1.5" + out_abc, "--mixing"},
      {" protein --nodes 600 --edges 3000 --min-cluster 1" + out_abc, "--min-cluster"},
      {" protein --nodes 600 --edges 3000 --min-cluster 9 --max-cluster 8" + out_abc,
       "--max-cluster"},
      {" stats mc2depi --seed -1", "--seed"},
      // given twice
      {" rmat --scale 8 --edge-factor 2 --seed 1 --seed 2" + out_mtx, "'--seed'"},
  };
  for (const auto& [args, option] : cases) {
    const run_result r = run(gen + args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find("opsparse-gen: "), std::string::npos) << args << ": " << r.out;
    EXPECT_NE(r.out.find(option), std::string::npos)
        << args << " should name " << option << ": " << r.out;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path / "x.mtx"));
  EXPECT_FALSE(std::filesystem::exists(dir.path / "x.abc"));

  // No command at all, and words a command does not take.
  EXPECT_EQ(run(gen).status, 2);
  EXPECT_EQ(run(gen + " paper" + out_mtx).status, 2);
  EXPECT_EQ(run(gen + " paper cage12 cant" + out_mtx).status, 2);
  EXPECT_EQ(run(gen + " list extra").status, 2);
}

TEST(datasets_cli, HelpListsEveryOptionWithItsDefault) {
  const std::string gen = quote(opsparse::test::program_path("opsparse-gen", OPSPARSE_GEN_EXE));
  const run_result all = run(gen + " --help");
  ASSERT_EQ(all.status, 0) << all.out;
  EXPECT_EQ(run(gen + " -h").status, 0);
  EXPECT_EQ(run(gen + " help").status, 0);
  const std::map<std::string, std::vector<std::string>> options = {
      {"rmat",
       {"--scale", "--edge-factor", "--a A (=0.57)", "--b B (=0.19)", "--c C (=0.19)",
        "--seed N (=1)", "--symmetric", "--drop-loops", "--no-permute", "--ones", "--output",
        "--help"}},
      {"protein",
       {"--nodes", "--edges", "--seed N (=1)", "--min-cluster n (=5)", "--max-cluster n (=50)",
        "--mixing f (=0.15)", "--ones", "--truth", "--output", "--help"}},
      {"paper", {"--scale s (=1)", "--seed N (=1)", "--ones", "--output", "--help"}},
      {"stats", {"--scale s (=1)", "--seed N (=1)", "--help"}},
      {"list", {"--help"}},
      {"measure", {"--help"}}};
  for (const auto& [cmd, opts] : options) {
    const run_result one = run(gen + " " + cmd + " --help");
    ASSERT_EQ(one.status, 0) << cmd << ": " << one.out;
    EXPECT_NE(one.out.find("usage: opsparse-gen " + cmd), std::string::npos) << one.out;
    for (const auto& o : opts) {
      EXPECT_NE(one.out.find(o), std::string::npos) << cmd << " --help lacks " << o;
      EXPECT_NE(all.out.find(o), std::string::npos) << "--help lacks " << o;
    }
  }
}

TEST(datasets_cli, KeyEqualsValueStillWorks) {
  const std::string gen = quote(opsparse::test::program_path("opsparse-gen", OPSPARSE_GEN_EXE));
  scratch_dir dir;
  const run_result r =
      run(gen + " paper mc2depi --scale=0.01 --seed=4 --output=" + quote(dir / "m.mtx"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(opsparse::test::csr_near(opsparse::io::read_matrix_market<double>(dir / "m.mtx"),
                                       ds::paper_standin("mc2depi", 0.01, 4), 1e-15));
}

// ---------------------------------------------------------------------------------------------
// fetch.sh (offline path) and the manifest

TEST(datasets_fetch, FromDirExtractsChecksAndReportsChecksums) {
  if (std::system("command -v bash >/dev/null && command -v tar >/dev/null && command -v gzip "
                  ">/dev/null") != 0)
    GTEST_SKIP() << "needs bash, tar and gzip";
  scratch_dir dir;
  std::filesystem::create_directories(dir.path / "src" / "tiny");
  std::filesystem::create_directories(dir.path / "in");
  {
    std::ofstream m(dir / "src/tiny/tiny.mtx");
    m << "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1.5\n2 3 2\n3 1 -1\n";
    std::ofstream extra(dir / "src/tiny/tiny_b.mtx");  // SuiteSparse archives may hold more
    extra << "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n";
    std::ofstream e(dir / "src/g.txt");
    e << "# edges\n1 2\n2 3\n";
  }
  ASSERT_EQ(std::system(("tar -czf " + quote(dir / "in/tiny.tar.gz") + " -C " + quote(dir / "src") +
                         " tiny")
                            .c_str()),
            0);
  ASSERT_EQ(
      std::system(
          ("gzip -c " + quote(dir / "src/g.txt") + " > " + quote(dir / "in/g.txt.gz")).c_str()),
      0);
  auto write_manifest = [&](const std::string& tiny_sha) {
    std::ofstream m(dir / "manifest.tsv");
    m << "# test manifest\nname\tsource\tgroup\turl\trows\tnnz\tsha256\n"
      << "tiny\tsuitesparse\tT\thttps://invalid.example/tiny.tar.gz\t3\t3\t" << tiny_sha << "\n"
      << "g\tsnap\tSNAP\thttps://invalid.example/g.txt.gz\t3\t2\t-\n";
  };
  write_manifest("-");
  const std::string fetch =
      "bash " + quote(opsparse::test::source_path("datasets/fetch.sh", OPSPARSE_FETCH_SCRIPT)) +
      " --manifest " + quote(dir / "manifest.tsv") + " --from-dir " + quote(dir / "in") +
      " --dest " + quote(dir / "out");
  run_result r = run(fetch);
  ASSERT_EQ(r.status, 0) << r.out;
  const host_csr<double> tiny = opsparse::io::read_matrix_market<double>(dir / "out/tiny.mtx");
  EXPECT_EQ(tiny.rows, 3);
  EXPECT_EQ(tiny.nnz(), 3);
  EXPECT_EQ(opsparse::io::read_edge_list(dir / "out/g.txt").adj.nnz(), 2);
  // Unrecorded checksums are printed: take the archive's from the output.
  const auto at = r.out.find("tiny: sha256 ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string sha = r.out.substr(at + 13, 64);
  ASSERT_EQ(sha.find_first_not_of("0123456789abcdef"), std::string::npos) << sha;

  // Present files are kept; --force fetches again and checks the recorded checksum.
  r = run(fetch + " tiny");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("already present"), std::string::npos) << r.out;
  write_manifest(sha);
  r = run(fetch + " --force tiny");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("sha256 ok"), std::string::npos) << r.out;
  write_manifest(std::string(64, '0'));
  r = run(fetch + " --force tiny");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("mismatch"), std::string::npos) << r.out;

  // Unknown names and missing files fail; bad options are usage errors.
  EXPECT_EQ(run(fetch + " nosuch").status, 1);
  std::filesystem::remove(dir.path / "in" / "g.txt.gz");
  EXPECT_EQ(run(fetch + " --force g").status, 1);
  EXPECT_EQ(run(fetch + " --bogus").status, 2);
}

TEST(datasets_fetch, ManifestListsThePaperMatricesAndSnapGraphs) {
  const std::string manifest =
      opsparse::test::source_path("datasets/manifest.tsv", OPSPARSE_MANIFEST);
  std::ifstream is(manifest);
  ASSERT_TRUE(is) << manifest;
  std::string line;
  std::map<std::string, std::vector<std::string>> rows;
  while (std::getline(is, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = opsparse::test::split_fields(line);
    ASSERT_EQ(f.size(), 7u) << line;
    if (f[0] != "name") rows[f[0]] = f;
  }
  for (const auto& p : ds::paper_matrices()) {
    ASSERT_TRUE(rows.count(p.name)) << p.name;
    const auto& f = rows[p.name];
    EXPECT_EQ(f[1], "suitesparse");
    EXPECT_EQ(f[2], p.group);
    EXPECT_EQ(f[3], "https://suitesparse-collection-website.herokuapp.com/MM/" + p.group + "/" +
                        p.name + ".tar.gz");
    EXPECT_EQ(std::stoll(f[4]), p.rows);
    EXPECT_EQ(std::stoll(f[5]), p.nnz);
  }
  for (const char* g : {"ca-GrQc", "ca-HepTh", "email-Eu-core", "facebook_combined",
                        "oregon1_010331", "p2p-Gnutella31", "wiki-Vote"}) {
    ASSERT_TRUE(rows.count(g)) << g;
    EXPECT_EQ(rows[g][3], std::string("https://snap.stanford.edu/data/") + g + ".txt.gz");
  }
  EXPECT_EQ(rows.size(), 33u);
}
