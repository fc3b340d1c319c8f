// opsparse-graphblas-peer: the SuiteSparse:GraphBLAS side of scripts/bench-graphs.
//
//   opsparse-graphblas-peer tc  GRAPH [--runs N] [--warm-ups W] [--presort auto|none|ascending]
//                               [--threads T]
//       Triangle counting as LAGraph's Sandia_LL: C<L> = L*L over GxB_PLUS_PAIR_INT64 with a
//       structural mask, count = reduce(C, PLUS). The graph is prepared exactly as
//       opsparse-triangle prepares it (symmetrised, loops and repeats dropped; the same automatic
//       degree presort rule). After W warm-ups (default 1), N runs are timed; each run times the
//       extraction L = tril(A,-1) and, separately, the product plus the reduction. Medians are
//       printed.
//   opsparse-graphblas-peer bfs GRAPH (--sources IDS|FILE | --random K [--seed S]) [--undirected]
//                               [--summary FILE] [--semiring any-pair|lor-land] [--threads T]
//       One push BFS per source, one source after another: v<q> = level, then
//       q<!v,struct,replace> = q*A (GrB_vxm, GrB_DESC_RSC) until q is empty. The graph and the
//       sources are opsparse-msbfs's (same graph_pattern, same random_sources), and --summary
//       writes the same file as opsparse-msbfs --summary.
//
// GRAPH is a file (Matrix Market, ABC or SNAP edge list, as the apps read it) or
// rmat:SCALE:EDGE_FACTOR:SEED, generated in-process by opsparse::datasets::rmat with the Graph500
// parameters (a, b, c = .57, .19, .19) and opsparse-gen's defaults (directed, loops kept,
// permuted), labelled 1..n as if `opsparse-gen rmat ... -o X.mtx` had been read back.
extern "C" {
#include <GraphBLAS.h>
}

#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/messages.hpp"
#include "msbfs/msbfs.hpp"
#include "opsparse/csr.hpp"
#include "opsparse/io.hpp"
#include "opsparse_datasets/generators.hpp"
#include "triangle/triangle.hpp"

namespace {

namespace po = boost::program_options;
using opsparse::host_csr;
using opsparse::index_t;
using opsparse::offset_t;
using opsparse::pattern;
using clk = std::chrono::steady_clock;

constexpr const char* program = "opsparse-graphblas-peer";

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS && info != GrB_NO_VALUE)
    throw std::runtime_error(std::string("GraphBLAS: ") + what + " failed (GrB_Info " +
                             std::to_string(static_cast<int>(info)) + ")");
}
#define PEER_GRB(call) check((call), #call)

double ms_between(clk::time_point a, clk::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

/// The graph as the apps read it, or an in-process R-MAT for "rmat:SCALE:EF:SEED".
opsparse::io::labelled_graph load_graph(const std::string& spec) {
  if (spec.rfind("rmat:", 0) == 0) {
    std::vector<std::string> parts;
    std::stringstream ss(spec.substr(5));
    for (std::string p; std::getline(ss, p, ':');) parts.push_back(p);
    if (parts.size() != 3)
      throw usage_error("rmat graphs are rmat:SCALE:EDGE_FACTOR:SEED, not " + spec);
    int scale = 0;
    double ef = 0;
    unsigned long long seed = 0;
    try {
      scale = std::stoi(parts[0]);
      ef = std::stod(parts[1]);
      seed = std::stoull(parts[2]);
    } catch (const std::exception&) {
      throw usage_error("bad number in " + spec);
    }
    if (scale < 1 || scale > 30 || !(ef > 0))
      throw usage_error("rmat needs SCALE in [1,30], EF > 0");
    opsparse::io::labelled_graph g;
    g.adj = opsparse::datasets::rmat(scale, ef, 0.57, 0.19, 0.19, seed);  // opsparse-gen defaults
    g.labels.resize(static_cast<std::size_t>(g.adj.rows));
    for (index_t i = 0; i < g.adj.rows; ++i) g.labels[i] = std::to_string(i + 1);  // as .mtx
    return g;
  }
  opsparse::io::labelled_graph g = opsparse::io::read_graph(spec);
  if (g.adj.rows != g.adj.cols)
    throw std::runtime_error(spec + ": the matrix is " + std::to_string(g.adj.rows) + " x " +
                             std::to_string(g.adj.cols) + "; a graph needs a square matrix");
  return g;
}

/// A boolean, iso-valued GraphBLAS matrix with the pattern of `a` (by rows).
GrB_Matrix to_graphblas(const host_csr<pattern>& a) {
  const std::size_t n = static_cast<std::size_t>(a.rows), nnz = a.col.size();
  auto* ap = static_cast<GrB_Index*>(std::malloc((n + 1) * sizeof(GrB_Index)));
  auto* aj =
      static_cast<GrB_Index*>(std::malloc(std::max<std::size_t>(nnz, 1) * sizeof(GrB_Index)));
  auto* ax = static_cast<bool*>(std::malloc(sizeof(bool)));
  if (!ap || !aj || !ax) throw std::bad_alloc();
  for (std::size_t i = 0; i <= n; ++i) ap[i] = static_cast<GrB_Index>(a.rpt[i]);
  for (std::size_t p = 0; p < nnz; ++p) aj[p] = static_cast<GrB_Index>(a.col[p]);
  ax[0] = true;
  GrB_Matrix m = nullptr;
  GrB_Index* app = ap;
  GrB_Index* ajp = aj;
  void* axp = ax;
  PEER_GRB(GxB_Matrix_import_CSR(&m, GrB_BOOL, n, n, &app, &ajp, &axp, (n + 1) * sizeof(GrB_Index),
                                 std::max<std::size_t>(nnz, 1) * sizeof(GrB_Index), sizeof(bool),
                                 /*iso=*/true, /*jumbled=*/false, nullptr));
  return m;
}

int graphblas_threads() {
  int t = 0;
  PEER_GRB(GxB_Global_Option_get(GxB_GLOBAL_NTHREADS, &t));
  return t;
}

// ---------------------------------------------------------------------------------------------
// Triangle counting

int run_tc(const std::string& spec, int runs, int warm_ups, const std::string& presort_s) {
  const auto t0 = clk::now();
  opsparse::io::labelled_graph g = load_graph(spec);
  const host_csr<pattern> a = opsparse::triangle::simple_undirected(g.adj);
  g = opsparse::io::labelled_graph();
  const auto t1 = clk::now();
  const index_t n = a.rows;

  namespace tri = opsparse::triangle;
  tri::presort sort = tri::parse_presort(presort_s);
  // LAGraph's own rule: sandia-ll sorted ascending when the degrees are skewed.
  if (sort == tri::presort::automatic)
    sort = tri::degrees_skewed(a) ? tri::presort::ascending : tri::presort::none;
  if (sort == tri::presort::descending)
    throw usage_error("sandia-ll presorts ascending; --presort must be auto, none or ascending");

  GrB_Matrix A = to_graphblas(a);
  const auto t2 = clk::now();
  double ms_presort = 0;
  if (sort == tri::presort::ascending) {
    // LAGraph's way: A = A(P,P) with P the vertices by ascending degree (ties by number, as
    // opsparse-triangle's sort_by_degree).
    const auto s0 = clk::now();
    std::vector<GrB_Index> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), GrB_Index{0});
    std::stable_sort(perm.begin(), perm.end(), [&](GrB_Index x, GrB_Index y) {
      return a.rpt[x + 1] - a.rpt[x] < a.rpt[y + 1] - a.rpt[y];
    });
    GrB_Matrix B = nullptr;
    PEER_GRB(GrB_Matrix_new(&B, GrB_BOOL, n, n));
    PEER_GRB(GrB_Matrix_extract(B, nullptr, nullptr, A, perm.data(), n, perm.data(), n, nullptr));
    PEER_GRB(GrB_Matrix_wait(B, GrB_MATERIALIZE));
    GrB_Matrix_free(&A);
    A = B;
    ms_presort = ms_between(s0, clk::now());
  }

  std::vector<double> ms_product, ms_extract;
  std::int64_t triangles = -1;
  for (int r = -warm_ups; r < runs; ++r) {  // r < 0: warm-ups
    const auto e0 = clk::now();
    GrB_Matrix L = nullptr;
    PEER_GRB(GrB_Matrix_new(&L, GrB_BOOL, n, n));
    PEER_GRB(GrB_Matrix_select_INT64(L, nullptr, nullptr, GrB_TRIL, A, std::int64_t{-1}, nullptr));
    PEER_GRB(GrB_Matrix_wait(L, GrB_MATERIALIZE));
    const auto e1 = clk::now();
    GrB_Matrix C = nullptr;
    PEER_GRB(GrB_Matrix_new(&C, GrB_INT64, n, n));
    PEER_GRB(GrB_mxm(C, L, nullptr, GxB_PLUS_PAIR_INT64, L, L, GrB_DESC_S));
    std::int64_t count = 0;
    PEER_GRB(GrB_Matrix_reduce_INT64(&count, nullptr, GrB_PLUS_MONOID_INT64, C, nullptr));
    const auto e2 = clk::now();
    GrB_Matrix_free(&C);
    GrB_Matrix_free(&L);
    if (triangles >= 0 && count != triangles)
      throw std::runtime_error("run " + std::to_string(r) + " counted " + std::to_string(count) +
                               " triangles, the run before " + std::to_string(triangles));
    triangles = count;
    if (r >= 0) {
      ms_extract.push_back(ms_between(e0, e1));
      ms_product.push_back(ms_between(e1, e2));
    }
  }
  GrB_Matrix_free(&A);

  std::cout << std::fixed << std::setprecision(3) << "graphblas_tc vertices=" << n
            << " edges=" << a.nnz() / 2 << " triangles=" << triangles
            << " ms_median=" << median(ms_product)
            << " ms_min=" << *std::min_element(ms_product.begin(), ms_product.end())
            << " ms_extract_median=" << median(ms_extract) << " ms_presort=" << ms_presort
            << " presort=" << tri::to_string(sort) << " runs=" << runs << " warm_ups=" << warm_ups
            << " threads=" << graphblas_threads() << " ms_read=" << ms_between(t0, t1)
            << " ms_import=" << ms_between(t1, t2) << "\n";
  return 0;
}

// ---------------------------------------------------------------------------------------------
// BFS, one source after another

/// One search's summary: the vertices it reached, their levels' sum and the largest level.
struct bfs_row {
  index_t source;
  offset_t reached;
  std::int64_t level_sum;
  std::int32_t eccentricity;
};

/// The summary in the format of opsparse-msbfs --summary, byte for byte.
void write_bfs_summary(const std::string& path, const std::vector<bfs_row>& rows,
                       const std::vector<std::string>& labels) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << std::setprecision(12);
  f << "# source\treached\tsum_of_levels\teccentricity\tcloseness\n";
  for (const bfs_row& r : rows) {
    const double closeness =
        r.level_sum > 0 ? static_cast<double>(r.reached - 1) / static_cast<double>(r.level_sum)
                        : 0.0;
    f << labels[r.source] << '\t' << r.reached << '\t' << r.level_sum << '\t' << r.eccentricity
      << '\t' << closeness << '\n';
  }
  f.close();
  if (!f) throw std::runtime_error("error while writing " + path);
}

int run_bfs(const std::string& spec, const std::string& sources_arg, long long random_k,
            unsigned long long seed, bool undirected, const std::string& summary_path,
            const std::string& semiring_s) {
  namespace bfs = opsparse::msbfs;
  GrB_Semiring semiring = nullptr;
  if (semiring_s == "any-pair")
    semiring = GxB_ANY_PAIR_BOOL;
  else if (semiring_s == "lor-land")
    semiring = GrB_LOR_LAND_SEMIRING_BOOL;
  else
    throw usage_error("--semiring must be any-pair or lor-land");

  const auto t0 = clk::now();
  const opsparse::io::labelled_graph g = load_graph(spec);
  const host_csr<pattern> a = bfs::graph_pattern(g.adj, undirected);
  const std::vector<index_t> sources =
      sources_arg.empty()
          ? bfs::random_sources(a.rows, static_cast<std::size_t>(random_k), seed)
          : bfs::resolve_sources(bfs::parse_sources_argument(sources_arg), g.labels, spec);
  const auto t1 = clk::now();
  const GrB_Index n = static_cast<GrB_Index>(a.rows);
  GrB_Matrix A = to_graphblas(a);
  PEER_GRB(GrB_Matrix_wait(A, GrB_MATERIALIZE));

  GrB_Vector q = nullptr, v = nullptr;
  PEER_GRB(GrB_Vector_new(&q, GrB_BOOL, n));
  PEER_GRB(GrB_Vector_new(&v, GrB_INT32, n));

  // One BFS from s; returns the number of levels expanded.
  auto search = [&](index_t s) {
    PEER_GRB(GrB_Vector_clear(v));
    PEER_GRB(GrB_Vector_clear(q));
    PEER_GRB(GrB_Vector_setElement_BOOL(q, true, static_cast<GrB_Index>(s)));
    std::int32_t level = 0;
    for (;;) {
      PEER_GRB(
          GrB_Vector_assign_INT32(v, q, nullptr, level, GrB_ALL, n, GrB_DESC_S));  // v<q> = level
      PEER_GRB(GrB_vxm(q, v, nullptr, semiring, q, A, GrB_DESC_RSC));              // q<!v> = q*A
      GrB_Index nq = 0;
      PEER_GRB(GrB_Vector_nvals(&nq, q));
      if (nq == 0) break;
      ++level;
    }
    PEER_GRB(GrB_Vector_wait(v, GrB_MATERIALIZE));
    return level;
  };

  if (!sources.empty()) search(sources[0]);  // warm-up, untimed

  std::vector<bfs_row> rows;
  rows.reserve(sources.size());
  std::vector<GrB_Index> idx(static_cast<std::size_t>(n));
  std::vector<std::int32_t> lev(static_cast<std::size_t>(n));
  double ms_search = 0;
  offset_t edges_scanned = 0, total_reached = 0;
  std::int64_t total_levels = 0;
  for (const index_t s : sources) {
    const auto s0 = clk::now();
    search(s);
    ms_search += ms_between(s0, clk::now());
    // Untimed: the summary and the edges the search scanned (out-degrees of the reached).
    GrB_Index nv = n;
    PEER_GRB(GrB_Vector_extractTuples_INT32(idx.data(), lev.data(), &nv, v));
    bfs_row r{s, static_cast<offset_t>(nv), 0, 0};
    for (GrB_Index p = 0; p < nv; ++p) {
      r.level_sum += lev[p];
      r.eccentricity = std::max(r.eccentricity, lev[p]);
      edges_scanned += a.rpt[idx[p] + 1] - a.rpt[idx[p]];
    }
    total_reached += r.reached;
    total_levels += r.level_sum;
    rows.push_back(r);
  }
  GrB_Vector_free(&q);
  GrB_Vector_free(&v);
  GrB_Matrix_free(&A);

  if (!summary_path.empty()) write_bfs_summary(summary_path, rows, g.labels);

  const double teps = ms_search > 0 ? static_cast<double>(edges_scanned) / (ms_search / 1e3) : 0;
  std::cout << std::fixed << std::setprecision(3) << "graphblas_bfs sources=" << sources.size()
            << " ms_total=" << ms_search << " teps=" << std::setprecision(0) << teps
            << std::setprecision(3) << " edges_scanned=" << edges_scanned
            << " reached=" << total_reached << " sum_of_levels=" << total_levels
            << " vertices=" << a.rows << " entries=" << a.nnz() << " semiring=" << semiring_s
            << " threads=" << graphblas_threads() << " ms_read=" << ms_between(t0, t1) << "\n";
  return 0;
}

constexpr const char* usage_intro =
    "Usage: opsparse-graphblas-peer tc  GRAPH [--runs N] [--warm-ups W]\n"
    "                                        [--presort auto|none|ascending] [--threads T]\n"
    "       opsparse-graphblas-peer bfs GRAPH (--sources IDS|FILE | --random K [--seed S])\n"
    "                                        [--undirected] [--summary FILE]\n"
    "                                        [--semiring any-pair|lor-land] [--threads T]\n"
    "GRAPH: a file as opsparse-triangle/opsparse-msbfs read it, or rmat:SCALE:EDGE_FACTOR:SEED.\n"
    "tc prints the median time of C<L> = L*L plus the reduction; bfs one BFS per source.\n";

po::options_description tc_options() {
  po::options_description d("tc options");
  // clang-format off
  d.add_options()
    ("runs", po::value<int>()->default_value(5)->value_name("N"),
     "timed runs after the warm-ups, >= 1")
    ("warm-ups", po::value<int>()->default_value(1)->value_name("W"),
     "untimed runs first, >= 0 (0 where one run takes minutes: a warm-up changes little there)")
    ("presort", po::value<std::string>()->default_value("auto")->value_name("auto|none|ascending"),
     "relabel the vertices by ascending degree first (auto: opsparse-triangle's rule for "
     "Sandia-LL)")
    ("threads", po::value<int>()->default_value(0)->value_name("T"),
     "GraphBLAS threads (0: GraphBLAS's default, all cores or OMP_NUM_THREADS)")
    ("help,h", "show this help and exit");
  // clang-format on
  return d;
}

po::options_description bfs_options() {
  po::options_description d("bfs options");
  // clang-format off
  d.add_options()
    ("sources,s", po::value<std::string>()->value_name("IDS|FILE"),
     "a file with one id per line, or a comma-separated list of ids (as opsparse-msbfs)")
    ("random", po::value<long long>()->value_name("K"), "K >= 1 distinct random sources")
    ("seed", po::value<unsigned long long>()->default_value(1)->value_name("S"), "seed of --random")
    ("undirected,u", "symmetrise the graph (default: directed)")
    ("summary", po::value<std::string>()->value_name("FILE"),
     "write opsparse-msbfs --summary's file: 'source<TAB>reached<TAB>sum_of_levels<TAB>"
     "eccentricity<TAB>closeness' per source")
    ("semiring", po::value<std::string>()->default_value("any-pair")->value_name("any-pair|lor-land"),
     "semiring of q*A")
    ("threads", po::value<int>()->default_value(0)->value_name("T"),
     "GraphBLAS threads (0: GraphBLAS's default, all cores or OMP_NUM_THREADS)")
    ("help,h", "show this help and exit");
  // clang-format on
  return d;
}

void print_help(std::ostream& os) {
  os << usage_intro << "\n" << tc_options() << "\n" << bfs_options();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) {
      print_help(std::cerr);
      return 2;
    }
    const std::string mode = argv[1];
    if (mode == "-h" || mode == "--help") {
      print_help(std::cout);
      return 0;
    }
    if (mode != "tc" && mode != "bfs")
      throw usage_error("the mode is tc or bfs, not '" + mode + "'");
    const po::options_description visible = mode == "tc" ? tc_options() : bfs_options();
    po::options_description hidden;
    hidden.add_options()("graph", po::value<std::vector<std::string>>());
    po::options_description all;
    all.add(visible).add(hidden);
    po::positional_options_description pos;
    pos.add("graph", -1);
    namespace st = po::command_line_style;
    // No abbreviations: a prefix unique today stops being so when an option is added.
    const int style = st::default_style & ~st::allow_guessing;
    po::variables_map vm;
    try {
      po::store(po::command_line_parser(std::vector<std::string>(argv + 2, argv + argc))
                    .options(all)
                    .positional(pos)
                    .style(style)
                    .run(),
                vm);
      po::notify(vm);
    } catch (const po::error& e) {
      throw usage_error(mode + ": " + e.what());
    }
    if (vm.count("help")) {
      print_help(std::cout);
      return 0;
    }
    if (!vm.count("graph")) throw usage_error("no GRAPH given");
    const auto& graphs = vm["graph"].as<std::vector<std::string>>();
    if (graphs.size() > 1)
      throw usage_error("more than one GRAPH: " + graphs[0] + " and " + graphs[1]);
    const std::string graph = graphs[0];
    const int threads = vm["threads"].as<int>();
    if (threads < 0) throw usage_error("--threads must be >= 0");

    int runs = 0, warm_ups = 0;
    std::string presort, sources_arg, summary_path, semiring;
    long long random_k = -1;
    unsigned long long seed = 1;
    bool undirected = false;
    if (mode == "tc") {
      runs = vm["runs"].as<int>();
      if (runs < 1) throw usage_error("--runs must be >= 1");
      warm_ups = vm["warm-ups"].as<int>();
      if (warm_ups < 0) throw usage_error("--warm-ups must be >= 0");
      presort = vm["presort"].as<std::string>();
      if (presort != "auto" && presort != "none" && presort != "ascending")
        throw usage_error("--presort must be auto, none or ascending, not '" + presort + "'");
    } else {
      if (vm.count("sources")) sources_arg = vm["sources"].as<std::string>();
      if (vm.count("random")) random_k = vm["random"].as<long long>();
      seed = vm["seed"].as<unsigned long long>();
      undirected = vm.count("undirected") != 0;
      if (vm.count("summary")) summary_path = vm["summary"].as<std::string>();
      semiring = vm["semiring"].as<std::string>();
      if (semiring != "any-pair" && semiring != "lor-land")
        throw usage_error("--semiring must be any-pair or lor-land, not '" + semiring + "'");
      if (vm.count("sources") == vm.count("random"))
        throw usage_error("give exactly one of --sources and --random");
      if (vm.count("random") && random_k < 1) throw usage_error("--random needs K >= 1");
    }

    PEER_GRB(GrB_init(GrB_NONBLOCKING));
    if (threads > 0) PEER_GRB(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads));
    const int rc = mode == "tc" ? run_tc(graph, runs, warm_ups, presort)
                                : run_bfs(graph, sources_arg, random_k, seed, undirected,
                                          summary_path, semiring);
    GrB_finalize();
    return rc;
  } catch (const usage_error& e) {
    opsparse::apps::report_usage_error(std::cerr, program, e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    opsparse::apps::report_usage_error(std::cerr, program, e.what());
    return 2;
  } catch (const std::exception& e) {
    opsparse::apps::report_error(std::cerr, program, e.what());
    return 1;
  }
}
