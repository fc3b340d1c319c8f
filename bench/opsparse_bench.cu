// opsparse-bench: the paper's evaluation (§6) on today's GPU, against cuSPARSE in the same run.
// For each matrix: C = A² (or A·B), one warm-up then N timed runs end to end as the paper counts
// them (plan and C allocated and freed inside the timer), GFLOPS = 2·products / time, mean and
// median; the steady state of an iterative app (one persistent plan, C reused); the per-phase
// breakdown; cuSPARSE's SpGEMM timed the same way with its result checked against ours; and, with
// --ablation, each of the paper's optimisations switched off in turn.
#include <cuda_runtime.h>

#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/messages.hpp"
#include "cusparse_spgemm.hpp"
#include "report.hpp"
#if OPSPARSE_BENCH_HAS_GEN
#include "opsparse_datasets/generators.hpp"
#endif
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/io.hpp"
#include "opsparse/output_file.hpp"
#include "opsparse/spgemm.hpp"

using namespace opsparse;
namespace po = boost::program_options;

namespace {

struct args {
  bool help = false;
  std::vector<std::string> files;
  std::string b_file;
  bool use_float = false;
  bool ablation = false;
  std::string variants;  ///< comma-separated ablation variants to run (empty: all)
  bool cusparse = true;
  bool cusparse_pool = false;  ///< also time cuSPARSE with a warm pool (cusparse_spgemm's pooled)
  int runs = 10;
  std::string csv, json;
};

/// A command-line mistake: reported with a hint to --help, exit status 2.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An ablation variant: the default options with one of the paper's optimisations off.
struct variant {
  std::string name;
  spgemm_options o;
};

std::vector<variant> ablation_variants() {
  std::vector<variant> vs;
  auto add = [&](const std::string& n, auto f) {
    spgemm_options x;
    f(x);
    vs.push_back({n, x});
  };
  add("global-atomic-binning", [](spgemm_options& x) { x.tuning.shared_binning = false; });
  add("multi-access-hash", [](spgemm_options& x) { x.tuning.single_access_hash = false; });
  add("paper-hash", [](spgemm_options& x) { x.tuning.paper_hash = true; });
  add("sym-range-1.0", [](spgemm_options& x) { x.tuning.symbolic_range = 1.0; });
  add("sym-range-1.5", [](spgemm_options& x) { x.tuning.symbolic_range = 1.5; });
  add("num-range-1.0", [](spgemm_options& x) { x.tuning.numeric_range = 1.0; });
  add("num-range-1.5", [](spgemm_options& x) { x.tuning.numeric_range = 1.5; });
  add("num-range-3.0", [](spgemm_options& x) { x.tuning.numeric_range = 3.0; });
  add("natural-launch-order", [](spgemm_options& x) { x.tuning.large_rows_first = false; });
  add("no-alloc-overlap", [](spgemm_options& x) { x.tuning.overlap_allocation = false; });
  add("no-memory-pool", [](spgemm_options& x) { x.tuning.pooled_memory = false; });
  add("bitonic-sort", [](spgemm_options& x) { x.tuning.radix_sort_rows = false; });
  add("full-tables", [](spgemm_options& x) { x.tuning.row_sized_tables = false; });
  add("unsorted", [](spgemm_options& x) { x.sorted = false; });
  add("paper-global-hash", [](spgemm_options& x) { x.tuning.dense_long_rows = false; });
  add("no-dense-windows", [](spgemm_options& x) { x.tuning.dense_windows = false; });
  add("no-product-flattening", [](spgemm_options& x) { x.tuning.flatten_products = false; });
  add("no-span-order", [](spgemm_options& x) { x.tuning.span_bitmap_order = false; });
  add("no-bucket-order", [](spgemm_options& x) { x.tuning.bucket_order = false; });
  add("no-row-merging", [](spgemm_options& x) { x.tuning.merge_equal_rows = row_merging::never; });
  add("merge-equal-rows",
      [](spgemm_options& x) { x.tuning.merge_equal_rows = row_merging::pairs; });
  add("merge-triples", [](spgemm_options& x) { x.tuning.merge_equal_rows = row_merging::triples; });
  add("no-merge-triples", [](spgemm_options& x) { x.tuning.merge_triples = false; });
  add("merge-runs", [](spgemm_options& x) { x.tuning.merge_equal_rows = row_merging::runs; });
  add("no-merge-runs", [](spgemm_options& x) { x.tuning.merge_runs = false; });
  // bin 0's lanes a row in each phase (the default: 4, and 4 or 8 by A's rows)
  for (int s : {2, 4, 8})
    for (int n : {2, 4, 8}) {
      add("lanes-" + std::to_string(s) + "-" + std::to_string(n), [&](spgemm_options& x) {
        x.tuning.symbolic_row_lanes = s;
        x.tuning.numeric_row_lanes = n;
      });
    }
  return vs;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string w; std::getline(ss, w, ',');)
    if (!w.empty()) out.push_back(w);
  return out;
}

po::options_description visible_options() {
  std::string names;
  for (const variant& v : ablation_variants())
    names += std::string(names.empty() ? "" : ", ") + v.name;
  po::options_description d(
      "usage: opsparse-bench [options] MATRIX [MATRIX ...]\n"
      "C = A*A for each MATRIX A (or C = A*B with --b), in double precision unless --float.\n"
      "MATRIX: a Matrix Market file, gen:NAME[:SCALE], a generated stand-in of the paper's\n"
      "matrix NAME (opsparse-gen list) with SCALE in (0, 1] of its rows (default 1), or\n"
      "graph:FILE, a graph (SNAP edge list, ABC, ...) made undirected, its adjacency squared.\n"
      "Progress goes to stderr, the table to stdout. Exit status: 0 when every result matches\n"
      "the reference, 2 on a usage error or a result that differs, 1 on other errors.\n\nOptions");
  // clang-format off
  d.add_options()
    ("help,h", "show this help and exit")
    ("suite", po::value<std::vector<std::string>>()->value_name("FILE"),
     "read matrices from FILE, one per line ('#' comments): a .mtx path (relative to FILE), "
     "`graph PATH` (a graph file, relative to FILE, made undirected) or `paper NAME SCALE` (a "
     "generated stand-in); may be given more than once, the matrices then run in command-line "
     "order")
    ("b", po::value<std::string>()->value_name("FILE"),
     "multiply every A by this B instead of squaring it (default: C = A*A)")
    ("float", "single precision (default: double)")
    ("runs", po::value<int>()->default_value(10)->value_name("N"),
     "timed runs after one warm-up, >= 1 (the paper's 10)")
    ("ablation", "also time each optimisation switched off (paper Figs. 8-12)")
    ("variants", po::value<std::string>()->value_name("V,W"),
     ("only these ablation variants, comma-separated (implies --ablation, which runs all): " +
      names).c_str())
    ("no-cusparse", "skip the cuSPARSE peer (results are then checked against the CPU engine)")
    ("cusparse-pool",
     "also time cuSPARSE with its buffers and C from a warm stream-ordered pool, the allocator "
     "our timed runs get, beside the default (cudaMalloc, as NVIDIA's sample): columns "
     "cusparse_pool_ms_median and speedup_pool")
    ("csv", po::value<std::string>()->value_name("FILE"),
     "write one row per matrix (and per ablation variant), RFC 4180 quoting")
    ("json", po::value<std::string>()->value_name("FILE"),
     "write the same with the GPU, CUDA version and git commit (NaN and inf as null)");
  // clang-format on
  return d;
}

/// The matrices of a suite file, in its order.
std::vector<std::string> read_suite(const std::string& f) {
  std::ifstream in(f);
  if (!in) throw usage_error("--suite: cannot read suite file " + f);
  const auto base = std::filesystem::path(f).parent_path();
  std::vector<std::string> files;
  std::string line;
  while (std::getline(in, line)) {
    line.erase(0, line.find_first_not_of(" \t"));
    if (line.empty() || line[0] == '#') continue;
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.rfind("paper ", 0) == 0) {
      std::istringstream ls(line.substr(6));
      std::string nm, sc = "1";
      ls >> nm >> sc;
      files.push_back("gen:" + nm + ":" + sc);
      continue;
    }
    const bool graph = line.rfind("graph ", 0) == 0;
    if (graph) line.erase(0, line.find_first_not_of(" \t", 6));
    std::filesystem::path p(line);
    files.push_back((graph ? "graph:" : "") + (p.is_absolute() ? p : base / p).string());
  }
  return files;
}

args parse(int argc, char** argv) {
  po::options_description visible = visible_options();
  po::options_description hidden;
  hidden.add_options()("matrix", po::value<std::vector<std::string>>(), "matrix");
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add("matrix", -1);
  namespace st = po::command_line_style;
  // No abbreviations: a prefix unique today stops being so when an option is added, and the
  // scripts that used it would break.
  const int style = st::default_style & ~st::allow_guessing;
  po::variables_map vm;
  po::parsed_options parsed(nullptr);
  try {
    parsed = po::command_line_parser(argc, argv).options(all).positional(pos).style(style).run();
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw usage_error(e.what());
  }
  args a;
  if (vm.count("help")) {
    a.help = true;
    return a;
  }
  // Suites and single matrices keep the order in which they were given.
  for (const po::option& o : parsed.options) {
    if (o.string_key == "suite") {
      for (const auto& f : read_suite(o.value.at(0))) a.files.push_back(f);
    } else if (o.string_key == "matrix") {
      a.files.push_back(o.value.at(0));
    }
  }
  if (vm.count("b")) a.b_file = vm["b"].as<std::string>();
  a.use_float = vm.count("float") != 0;
  a.ablation = vm.count("ablation") != 0;
  if (vm.count("variants")) {
    a.ablation = true;
    a.variants = vm["variants"].as<std::string>();
    const std::vector<std::string> wanted = split_commas(a.variants);
    if (wanted.empty()) throw usage_error("--variants needs at least one variant name");
    const std::vector<variant> known = ablation_variants();
    for (const auto& w : wanted)
      if (std::none_of(known.begin(), known.end(), [&](const variant& v) { return w == v.name; }))
        throw usage_error("--variants: unknown variant '" + w + "' (see --help)");
  }
  a.cusparse = vm.count("no-cusparse") == 0;
  a.cusparse_pool = vm.count("cusparse-pool") > 0;
  if (a.cusparse_pool && !a.cusparse) throw usage_error("--cusparse-pool needs the cuSPARSE peer");
  a.runs = vm["runs"].as<int>();
  if (a.runs < 1) throw usage_error("--runs must be at least 1");
  if (vm.count("csv")) a.csv = vm["csv"].as<std::string>();
  if (vm.count("json")) a.json = vm["json"].as<std::string>();
  if (a.files.empty()) throw usage_error("no matrix given");
  return a;
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}
float mean(const std::vector<float>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0f) / static_cast<float>(v.size());
}

struct timer {
  cudaEvent_t e0, e1;
  timer() {
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
  }
  ~timer() {
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }
};

/// One product end to end: plan and C built, computed, freed, inside the events.
template <class T>
float end_to_end(context& ctx, timer& t, const device_csr<T>& a, const device_csr<T>& b,
                 const spgemm_options& o, spgemm_stats* stats = nullptr) {
  OPSPARSE_CUDA_TRY(cudaEventRecord(t.e0, ctx.stream()));
  {
    plan p;
    device_csr<T> c;
    spgemm<plus_times<T>>(ctx, p, a.view(), b.view(), c, no_mask{}, o);
    if (stats) {
      ctx.synchronize();
      *stats = p.stats();
    }
  }
  OPSPARSE_CUDA_TRY(cudaEventRecord(t.e1, ctx.stream()));
  OPSPARSE_CUDA_TRY(cudaEventSynchronize(t.e1));
  float ms = 0;
  OPSPARSE_CUDA_TRY(cudaEventElapsedTime(&ms, t.e0, t.e1));
  return ms;
}

template <class T>
std::vector<float> timed(context& ctx, timer& t, const device_csr<T>& a, const device_csr<T>& b,
                         const spgemm_options& o, int runs) {
  end_to_end(ctx, t, a, b, o);  // warm-up
  std::vector<float> ms;
  for (int i = 0; i < runs; ++i) ms.push_back(end_to_end(ctx, t, a, b, o));
  return ms;
}

using row = bench::result_row;

/// The device's copy bandwidth (bytes read plus written per second): the best of five 1 GiB
/// device-to-device copies after a warm-up, the rate the traffic bounds are divided by.
double copy_bandwidth(context& ctx, timer& t) {
  const std::size_t bytes = std::size_t(1) << 30;
  void *src = nullptr, *dst = nullptr;
  OPSPARSE_CUDA_TRY(cudaMalloc(&src, bytes));
  OPSPARSE_CUDA_TRY(cudaMalloc(&dst, bytes));
  OPSPARSE_CUDA_TRY(cudaMemsetAsync(src, 1, bytes, ctx.stream()));
  float best = 0;
  for (int i = 0; i < 6; ++i) {
    OPSPARSE_CUDA_TRY(cudaEventRecord(t.e0, ctx.stream()));
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, ctx.stream()));
    OPSPARSE_CUDA_TRY(cudaEventRecord(t.e1, ctx.stream()));
    OPSPARSE_CUDA_TRY(cudaEventSynchronize(t.e1));
    float ms = 0;
    OPSPARSE_CUDA_TRY(cudaEventElapsedTime(&ms, t.e0, t.e1));
    if (i > 0 && (best == 0 || ms < best)) best = ms;  // the first is the warm-up
  }
  OPSPARSE_CUDA_TRY(cudaFree(src));
  OPSPARSE_CUDA_TRY(cudaFree(dst));
  return 2.0 * static_cast<double>(bytes) / (best * 1e-3);
}

/// The row's lower bounds from the bytes the product moves (bench::product_traffic).
template <class T>
void set_bounds(row& r, const host_csr<T>& a, const host_csr<T>& b, double bandwidth) {
  const bench::traffic tr = bench::product_traffic(a.rows, a.nnz(), b.rows, b.nnz(), r.products,
                                                   a.rows, r.nnz_c, static_cast<int>(sizeof(T)));
  r.bound_ms = tr.reuse / bandwidth * 1e3;
  r.bound_ms_no_reuse = tr.no_reuse / bandwidth * 1e3;
  r.of_bound = r.ms_median > 0 ? r.bound_ms / r.ms_median : 0;
}

/// One more product with phase events (they add synchronisations): its phases go into `r`, its
/// statistics are returned.
template <class T>
spgemm_stats time_phases(context& ctx, timer& t, const device_csr<T>& a, const device_csr<T>& b,
                         const spgemm_options& o, row& r) {
  spgemm_options ph = o;
  ph.time_phases = true;
  spgemm_stats st;
  end_to_end(ctx, t, a, b, ph, &st);
  r.ph_setup = st.ms_setup;
  r.ph_symbin = st.ms_symbolic_binning;
  r.ph_sym = st.ms_symbolic;
  r.ph_numbin = st.ms_numeric_binning;
  r.ph_num = st.ms_numeric;
  r.sym_bin_rows.assign(st.symbolic_bin_rows.begin(), st.symbolic_bin_rows.end());
  r.num_bin_rows.assign(st.numeric_bin_rows.begin(), st.numeric_bin_rows.end());
  r.sym_bin_end = st.symbolic_bin_end_ms;
  r.num_bin_end = st.numeric_bin_end_ms;
  return st;
}

/// The matrix a suite entry names: "gen:NAME[:SCALE]" (the paper's stand-ins), "graph:FILE" (the
/// undirected graph, mirrored with weights max, as the graph programs read it) or a Matrix Market
/// file. `name` gets its name for the tables.
std::string operand_name(const std::string& f) {
  if (f.rfind("gen:", 0) == 0) return f.substr(4);
  return std::filesystem::path(f.rfind("graph:", 0) == 0 ? f.substr(6) : f).stem().string();
}

template <class T>
host_csr<T> load_operand(const std::string& f, std::string& name) {
  const bool generated = f.rfind("gen:", 0) == 0, graph = f.rfind("graph:", 0) == 0;
  name = operand_name(f);
  if (generated) {
#if OPSPARSE_BENCH_HAS_GEN
    const auto colon = name.find(':');
    const std::string nm = name.substr(0, colon);
    const double scale = colon == std::string::npos ? 1.0 : std::stod(name.substr(colon + 1));
    if (scale == 1.0) name = nm;
    return convert<T>(datasets::paper_standin(nm, scale));
#else
    throw std::runtime_error("built without the data-set generators");
#endif
  }
  if (graph) {
    io::read_options ro;
    ro.symmetrize = true;
    return convert<T>(io::read_graph(f.substr(6), io::file_format::automatic, ro).adj);
  }
  return io::read_matrix_market<T>(f);
}

/// "ok vs WHO", or what differs: the structure, or a value beyond `tol` relative to its row's
/// largest magnitude (cancelling entries keep that row's error).
template <class T>
std::string compare_with(const host_csr<double>& ref, const host_csr<T>& ours, const char* who) {
  const double tol = std::is_same_v<T, double> ? 1e-9 : 1e-4;
  if (ref.rpt != ours.rpt || ref.col != ours.col)
    return std::string("STRUCTURE DIFFERS from ") + who;
  for (index_t i = 0; i < ref.rows; ++i) {
    double scale = 1e-300;
    for (offset_t k = ref.rpt[i]; k < ref.rpt[i + 1]; ++k)
      scale = std::max(scale, std::fabs(ref.val[k]));
    for (offset_t k = ref.rpt[i]; k < ref.rpt[i + 1]; ++k)
      if (!(std::fabs(static_cast<double>(ours.val[k]) - ref.val[k]) <= tol * scale))
        return std::string("VALUES DIFFER from ") + who;
  }
  return std::string("ok vs ") + who;
}

/// The steady state (one persistent plan and C, as an iterative app runs) into r; returns C.
template <class T>
host_csr<T> time_steady(context& ctx, timer& t, const device_csr<T>& da, const device_csr<T>& db,
                        int runs, row& r) {
  plan p;
  device_csr<T> c;
  spgemm<plus_times<T>>(ctx, p, da.view(), db.view(), c);
  std::vector<float> s;
  for (int i = 0; i < runs; ++i) {
    OPSPARSE_CUDA_TRY(cudaEventRecord(t.e0, ctx.stream()));
    spgemm<plus_times<T>>(ctx, p, da.view(), db.view(), c);
    OPSPARSE_CUDA_TRY(cudaEventRecord(t.e1, ctx.stream()));
    OPSPARSE_CUDA_TRY(cudaEventSynchronize(t.e1));
    float x = 0;
    OPSPARSE_CUDA_TRY(cudaEventElapsedTime(&x, t.e0, t.e1));
    s.push_back(x);
  }
  r.steady_ms = median(s);
  r.steady_gflops = 2.0 * r.products / (r.steady_ms * 1e6);
  return c.download(ctx.stream());
}

/// cuSPARSE on the same product, timed as ours (and with a warm pool when asked), into r; the
/// check of C against its result.
template <class T>
void run_cusparse(context& ctx, const host_csr<T>& ha, const host_csr<T>& hb,
                  const host_csr<T>& ours, const args& ar, row& r) {
  std::cerr << ", cuSPARSE" << std::flush;
  ctx.release_cached_memory();  // cuSPARSE's cudaMalloc gets the whole device
  auto cr = bench::cusparse_spgemm(ha, hb, ar.runs);
  if (!cr.ok) {
    r.cus_alg = "failed";
    std::cerr << " (cuSPARSE failed: " << cr.error << ")";
    return;
  }
  r.cus_alg = cr.algorithm;
  r.cus_ms_median = median(cr.ms);
  r.cus_gflops = 2.0 * r.products / (r.cus_ms_median * 1e6);
  r.speedup = r.cus_ms_median / r.ms_median;
  r.check = compare_with(cr.c, ours, "cuSPARSE");
  if (!ar.cusparse_pool) return;
  std::cerr << ", cuSPARSE pooled" << std::flush;
  const auto cp = bench::cusparse_spgemm(ha, hb, ar.runs, true);
  if (cp.ok && cp.algorithm == cr.algorithm) {
    r.cus_pool_ms_median = median(cp.ms);
    r.speedup_pool = r.cus_pool_ms_median / r.ms_median;
  } else {
    std::cerr << " (failed or another algorithm: " << cp.algorithm << " " << cp.error << ")";
  }
}

/// One matrix: ours end to end, its phases and steady state, the check (against cuSPARSE when it
/// runs, else against the CPU engine).
template <class T>
row measure(context& ctx, timer& t, const host_csr<T>& ha, const host_csr<T>& hb,
            const device_csr<T>& da, const device_csr<T>& db, const std::string& name,
            const args& ar, double bandwidth) {
  row r;
  r.matrix = name;
  r.variant = "opsparse";
  r.rows = ha.rows;
  r.nnz_a = ha.nnz();
  std::cerr << ", timing" << std::flush;
  spgemm_options o;
  const auto ms = timed(ctx, t, da, db, o, ar.runs);
  r.ms_mean = mean(ms);
  r.ms_median = median(ms);
  // phases (one extra run with phase events; they add synchronisations)
  const spgemm_stats st = time_phases(ctx, t, da, db, o, r);
  r.products = st.products;
  r.nnz_c = st.nnz;
  r.gflops = 2.0 * r.products / (r.ms_median * 1e6);
  set_bounds(r, ha, hb, bandwidth);
  const host_csr<T> ours = time_steady(ctx, t, da, db, ar.runs, r);
  if (ar.cusparse) run_cusparse(ctx, ha, hb, ours, ar, r);
  if (r.check.empty())
    r.check = compare_with(convert<double>(cpu::spgemm<plus_times<T>>(ha, hb)), ours, "CPU engine");
  return r;
}

/// --ablation: the row `r` again with each chosen optimisation off (speedup > 1: it did not pay).
template <class T>
void run_ablation(context& ctx, timer& t, const host_csr<T>& ha, const host_csr<T>& hb,
                  const device_csr<T>& da, const device_csr<T>& db, const row& r, const args& ar,
                  double bandwidth, std::vector<row>& rows) {
  std::vector<variant> vs = ablation_variants();
  if (!ar.variants.empty())
    vs.erase(
        std::remove_if(vs.begin(), vs.end(),
                       [&](const variant& v) {
                         return ("," + ar.variants + ",").find("," + std::string(v.name) + ",") ==
                                std::string::npos;
                       }),
        vs.end());
  for (auto& v : vs) {
    row a = r;
    a.variant = v.name;
    const auto vms = timed(ctx, t, da, db, v.o, ar.runs);
    a.ms_mean = mean(vms);
    a.ms_median = median(vms);
    a.gflops = 2.0 * a.products / (a.ms_median * 1e6);
    set_bounds(a, ha, hb, bandwidth);
    time_phases(ctx, t, da, db, v.o, a);
    a.steady_ms = a.steady_gflops = 0;
    a.cus_alg.clear();
    a.cus_ms_median = a.cus_gflops = a.cus_pool_ms_median = a.speedup_pool = 0;
    a.speedup = r.ms_median / a.ms_median;
    a.check.clear();
    rows.push_back(a);
  }
}

/// The tables on stdout: times and rates with the geometric means over cuSPARSE, the phases,
/// and the bins' rows and end times.
void print_tables(const std::vector<row>& rows) {
  std::printf("\n%-26s %-22s %9s %11s %11s %9s %9s %9s %9s %8s %8s %7s %6s  %s\n", "matrix",
              "variant", "rows", "products", "nnz(C)", "ms(med)", "GFLOPS", "steadyGF", "cusGF",
              "speedup", "bound", "%bound", "alg", "check");
  double log_sum = 0, log_pool = 0;
  int n_speed = 0, n_pool = 0;
  for (const auto& r : rows) {
    std::printf(
        "%-26s %-22s %9lld %11lld %11lld %9.3f %9.2f %9.2f %9.2f %8.2f %8.3f %6.1f%% %6s  %s\n",
        r.matrix.substr(0, 26).c_str(), r.variant.c_str(), r.rows, r.products, r.nnz_c, r.ms_median,
        r.gflops, r.steady_gflops, r.cus_gflops, r.speedup, r.bound_ms, 100.0 * r.of_bound,
        r.cus_alg.c_str(), r.check.c_str());
    if (r.variant == "opsparse" && r.speedup > 0) {
      log_sum += std::log(r.speedup);
      ++n_speed;
    }
    if (r.variant == "opsparse" && r.speedup_pool > 0) {
      log_pool += std::log(r.speedup_pool);
      ++n_pool;
    }
  }
  if (n_speed)
    std::printf("geometric mean speedup over cuSPARSE (end to end): %.2fx over %d matrices\n",
                std::exp(log_sum / n_speed), n_speed);
  if (n_pool)
    std::printf(
        "geometric mean speedup over cuSPARSE with a warm pool (--cusparse-pool): %.2fx "
        "over %d matrices\n",
        std::exp(log_pool / n_pool), n_pool);
  std::printf(
      "\nphase breakdown (ms, one run with phase events):\n%-26s %-22s %8s %8s %8s %8s %8s %8s\n",
      "matrix", "variant", "setup", "symbin", "symbolic", "numbin", "numeric", "bin%");
  for (const auto& r : rows) {
    const double tot = r.ph_setup + r.ph_symbin + r.ph_sym + r.ph_numbin + r.ph_num;
    std::printf("%-26s %-22s %8.3f %8.3f %8.3f %8.3f %8.3f %7.1f%%\n",
                r.matrix.substr(0, 26).c_str(), r.variant.c_str(), r.ph_setup, r.ph_symbin,
                r.ph_sym, r.ph_numbin, r.ph_num,
                tot > 0 ? 100.0 * (r.ph_symbin + r.ph_numbin) / tot : 0.0);
  }
  // Where a phase's time goes: the bins run side by side on their streams; each one's end.
  std::printf(
      "\nbins (rows@ms: a bin's rows and when its kernels ended, from its phase's start):\n");
  for (const auto& r : rows) {
    auto line = [](const char* what, const std::vector<long long>& n, const std::vector<float>& e) {
      std::printf("  %-9s", what);
      for (std::size_t i = 0; i < n.size(); ++i)
        std::printf(" b%zu %lld@%.3f", i, n[i], i < e.size() ? e[i] : 0.0f);
      std::printf("\n");
    };
    std::printf("%s %s\n", r.matrix.c_str(), r.variant.c_str());
    line("symbolic", r.sym_bin_rows, r.sym_bin_end);
    line("numeric", r.num_bin_rows, r.num_bin_end);
  }
}

/// --csv and --json (with the run's device, runtime, commit and precision).
template <class T>
void write_reports(const args& ar, const std::vector<row>& rows, const device_info& d, int rt) {
  if (!ar.csv.empty()) {
    opsparse::io::output_file o(ar.csv);
    bench::write_csv(o.stream(), rows);
    o.commit();
  }
  if (!ar.json.empty()) {
    bench::run_info info;
    info.gpu = d.name;
    info.compute_capability = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
    info.sm_count = d.sm_count;
    info.cuda_runtime = std::to_string(rt / 1000) + "." + std::to_string((rt % 1000) / 10);
    info.git_commit = OPSPARSE_GIT_COMMIT;
    info.precision = std::is_same_v<T, double> ? "double" : "float";
    info.runs = ar.runs;
    opsparse::io::output_file o(ar.json);
    bench::write_json(o.stream(), info, rows);
    o.commit();
  }
}

template <class T>
int run(const args& ar) {
  context ctx;
  const auto& d = ctx.device();
  int rt = 0;
  cudaRuntimeGetVersion(&rt);
  std::cerr << "opsparse-bench: " << d.name << " (sm_" << d.cc_major << d.cc_minor << ", "
            << d.sm_count << " SMs), CUDA runtime " << rt / 1000 << "." << (rt % 1000) / 10
            << ", commit " << OPSPARSE_GIT_COMMIT << ", "
            << (std::is_same_v<T, double> ? "double" : "float") << "\n";
  timer t;
  const double bandwidth = copy_bandwidth(ctx, t);
  std::cerr << "opsparse-bench: copy bandwidth " << bandwidth / 1e9 << " GB/s (read + written)\n";
  std::vector<row> rows;
  host_csr<T> hb_fixed;
  if (!ar.b_file.empty()) hb_fixed = io::read_matrix_market<T>(ar.b_file);
  std::size_t k = 0;
  for (const auto& f : ar.files) {
    ++k;
    std::string name;
    host_csr<T> ha;
    std::cerr << "[" << k << "/" << ar.files.size() << "] " << operand_name(f)
              << (f.rfind("gen:", 0) == 0 ? ": generating" : ": reading") << std::flush;
    try {
      ha = load_operand<T>(f, name);
    } catch (const std::exception& e) {
      std::cerr << "\n  skipped: " << e.what() << "\n";
      continue;
    }
    const host_csr<T>& hb = ar.b_file.empty() ? ha : hb_fixed;
    if (ha.cols != hb.rows) {
      std::cerr << "\n  skipped: A is " << ha.rows << "x" << ha.cols << ", B has " << hb.rows
                << " rows\n";
      continue;
    }
    auto da = device_csr<T>::upload(ha, ctx.stream());
    auto db = device_csr<T>::upload(hb, ctx.stream());
    const row r = measure(ctx, t, ha, hb, da, db, name, ar, bandwidth);
    std::cerr << ", " << r.check << "\n";
    rows.push_back(r);
    if (ar.ablation) run_ablation(ctx, t, ha, hb, da, db, r, ar, bandwidth, rows);
  }
  print_tables(rows);
  write_reports<T>(ar, rows, d, rt);
  for (const auto& r : rows)
    if (r.variant == "opsparse" && r.check.rfind("ok", 0) != 0) return 2;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const args a = parse(argc, argv);
    if (a.help) {
      std::cout << visible_options() << "\n";
      return 0;
    }
    std::string why;
    if (!gpu_available(&why)) {
      opsparse::apps::report_error(std::cerr, "opsparse-bench", "needs a GPU: " + why);
      return 1;
    }
    return a.use_float ? run<float>(a) : run<double>(a);
  } catch (const usage_error& e) {
    opsparse::apps::report_usage_error(std::cerr, "opsparse-bench", e.what());
    return 2;
  } catch (const std::exception& e) {
    opsparse::apps::report_error(std::cerr, "opsparse-bench", e.what());
    return 1;
  }
}
