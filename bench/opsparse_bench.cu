// opsparse-bench: the paper's evaluation (§6) on today's GPU, against cuSPARSE in the same run.
// For each matrix: C = A² (or A·B), one warm-up then N timed runs end to end as the paper counts
// them (plan and C allocated and freed inside the timer), GFLOPS = 2·products / time, mean and
// median; the steady state of an iterative app (one persistent plan, C reused); the per-phase
// breakdown; cuSPARSE's SpGEMM timed the same way with its result checked against ours; and, with
// --ablation, each of the paper's optimisations switched off in turn.
#include <cuda_runtime.h>

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
#include <string>
#include <vector>

#include "cusparse_spgemm.hpp"
#if OPSPARSE_BENCH_HAS_GEN
#include "opsparse_datasets/generators.hpp"
#endif
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/io.hpp"
#include "opsparse/spgemm.hpp"

using namespace opsparse;

namespace {

struct args {
  std::vector<std::string> files;
  std::string b_file;
  bool use_float = false;
  bool ablation = false;
  std::string variants;  ///< comma-separated ablation variants to run (empty: all)
  bool cusparse = true;
  int runs = 10;
  std::string csv, json;
};

void usage() {
  std::cout <<
      "usage: opsparse-bench [options] A.mtx [A2.mtx ...]\n"
      "  C = A*A for each Matrix Market file (or C = A*B with --b B.mtx), double precision.\n"
      "  --suite FILE   read matrices from FILE, one per line ('#' comments): a .mtx path\n"
      "                 (relative to FILE) or `paper NAME SCALE` (a generated stand-in)\n"
      "  gen:NAME[:SCALE]  a generated stand-in of the paper's matrix NAME (opsparse-gen list)\n"
      "  --b FILE       multiply every A by this B instead of squaring\n"
      "  --float        single precision\n"
      "  --runs N       timed runs after one warm-up (default 10, as the paper)\n"
      "  --ablation     also time each optimisation switched off (paper Figs. 8-12)\n"
      "  --variants V,W only these ablation variants (implies --ablation), e.g.\n"
      "                 no-product-flattening,paper-global-hash\n"
      "  --no-cusparse  skip the cuSPARSE peer\n"
      "  --csv FILE     write one row per matrix (and per ablation variant)\n"
      "  --json FILE    write the same with the GPU, CUDA version and git commit\n"
      "  -h, --help     this text\n"
      "Progress goes to stderr, the table to stdout.\n";
}

args parse(int argc, char** argv) {
  args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(s + " needs a value");
      return argv[++i];
    };
    if (s == "-h" || s == "--help") {
      usage();
      std::exit(0);
    } else if (s == "--suite") {
      const std::string f = next();
      std::ifstream in(f);
      if (!in) throw std::invalid_argument("cannot read suite file " + f);
      const auto base = std::filesystem::path(f).parent_path();
      std::string line;
      while (std::getline(in, line)) {
        line.erase(0, line.find_first_not_of(" \t"));
        if (line.empty() || line[0] == '#') continue;
        line.erase(line.find_last_not_of(" \t\r") + 1);
        if (line.rfind("paper ", 0) == 0) {
          std::istringstream ls(line.substr(6));
          std::string nm, sc = "1";
          ls >> nm >> sc;
          a.files.push_back("gen:" + nm + ":" + sc);
          continue;
        }
        std::filesystem::path p(line);
        a.files.push_back((p.is_absolute() ? p : base / p).string());
      }
    } else if (s == "--b") {
      a.b_file = next();
    } else if (s == "--float") {
      a.use_float = true;
    } else if (s == "--ablation") {
      a.ablation = true;
    } else if (s == "--variants") {
      a.ablation = true;
      a.variants = next();
    } else if (s == "--no-cusparse") {
      a.cusparse = false;
    } else if (s == "--runs") {
      a.runs = std::stoi(next());
      if (a.runs < 1) throw std::invalid_argument("--runs must be at least 1");
    } else if (s == "--csv") {
      a.csv = next();
    } else if (s == "--json") {
      a.json = next();
    } else if (!s.empty() && s[0] == '-') {
      throw std::invalid_argument("unknown option " + s + " (see --help)");
    } else {
      a.files.push_back(s);
    }
  }
  if (a.files.empty()) throw std::invalid_argument("no matrix given (see --help)");
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

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

struct row {
  std::string matrix, variant;
  long long rows = 0, nnz_a = 0, products = 0, nnz_c = 0;
  double ms_mean = 0, ms_median = 0, gflops = 0, steady_ms = 0, steady_gflops = 0;
  double ph_setup = 0, ph_symbin = 0, ph_sym = 0, ph_numbin = 0, ph_num = 0;
  std::string cus_alg;
  double cus_ms_median = 0, cus_gflops = 0, speedup = 0;
  std::string check;
};

template <class T>
int run(const args& ar) {
  context ctx;
  const auto& d = ctx.device();
  int rt = 0;
  cudaRuntimeGetVersion(&rt);
  std::cerr << "opsparse-bench: " << d.name << " (sm_" << d.cc_major << d.cc_minor << ", " << d.sm_count
            << " SMs), CUDA runtime " << rt / 1000 << "." << (rt % 1000) / 10 << ", commit "
            << OPSPARSE_GIT_COMMIT << ", " << (std::is_same_v<T, double> ? "double" : "float") << "\n";
  timer t;
  std::vector<row> rows;
  host_csr<T> hb_fixed;
  if (!ar.b_file.empty()) hb_fixed = io::read_matrix_market<T>(ar.b_file);
  std::size_t k = 0;
  for (const auto& f : ar.files) {
    ++k;
    const bool generated = f.rfind("gen:", 0) == 0;
    std::string name = generated ? f.substr(4) : std::filesystem::path(f).stem().string();
    std::cerr << "[" << k << "/" << ar.files.size() << "] " << name << (generated ? ": generating" : ": reading") << std::flush;
    host_csr<T> ha;
    try {
      if (generated) {
#if OPSPARSE_BENCH_HAS_GEN
        const auto colon = name.find(':');
        const std::string nm = name.substr(0, colon);
        const double scale = colon == std::string::npos ? 1.0 : std::stod(name.substr(colon + 1));
        if (scale == 1.0) name = nm;
        ha = convert<T>(datasets::paper_standin(nm, scale));
#else
        throw std::runtime_error("built without the data-set generators");
#endif
      } else {
        ha = io::read_matrix_market<T>(f);
      }
    } catch (const std::exception& e) {
      std::cerr << "\n  skipped: " << e.what() << "\n";
      continue;
    }
    const host_csr<T>& hb = ar.b_file.empty() ? ha : hb_fixed;
    if (ha.cols != hb.rows) {
      std::cerr << "\n  skipped: A is " << ha.rows << "x" << ha.cols << ", B has " << hb.rows << " rows\n";
      continue;
    }
    auto da = device_csr<T>::upload(ha, ctx.stream());
    auto db = device_csr<T>::upload(hb, ctx.stream());
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
    spgemm_options ph = o;
    ph.time_phases = true;
    spgemm_stats st;
    end_to_end(ctx, t, da, db, ph, &st);
    r.products = st.products;
    r.nnz_c = st.nnz;
    r.ph_setup = st.ms_setup;
    r.ph_symbin = st.ms_symbolic_binning;
    r.ph_sym = st.ms_symbolic;
    r.ph_numbin = st.ms_numeric_binning;
    r.ph_num = st.ms_numeric;
    r.gflops = 2.0 * r.products / (r.ms_median * 1e6);
    // steady state: one persistent plan and C
    {
      plan p;
      device_csr<T> c;
      spgemm<plus_times<T>>(ctx, p, da.view(), db.view(), c);
      std::vector<float> s;
      for (int i = 0; i < ar.runs; ++i) {
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
      // the check: against cuSPARSE when it runs, else against the CPU engine
      const host_csr<T> ours = c.download(ctx.stream());
      const double tol = std::is_same_v<T, double> ? 1e-9 : 1e-4;
      auto compare = [&](const host_csr<double>& ref, const char* who) {
        if (ref.rpt != ours.rpt || ref.col != ours.col) return std::string("STRUCTURE DIFFERS from ") + who;
        // relative to each row's largest magnitude (cancelling entries keep that row's error)
        for (index_t i = 0; i < ref.rows; ++i) {
          double scale = 1e-300;
          for (offset_t k = ref.rpt[i]; k < ref.rpt[i + 1]; ++k) scale = std::max(scale, std::fabs(ref.val[k]));
          for (offset_t k = ref.rpt[i]; k < ref.rpt[i + 1]; ++k)
            if (!(std::fabs(static_cast<double>(ours.val[k]) - ref.val[k]) <= tol * scale))
              return std::string("VALUES DIFFER from ") + who;
        }
        return std::string("ok vs ") + who;
      };
      if (ar.cusparse) {
        std::cerr << ", cuSPARSE" << std::flush;
        ctx.release_cached_memory();  // cuSPARSE's cudaMalloc gets the whole device
        auto cr = bench::cusparse_spgemm(ha, hb, ar.runs);
        if (cr.ok) {
          r.cus_alg = cr.algorithm;
          r.cus_ms_median = median(cr.ms);
          r.cus_gflops = 2.0 * r.products / (r.cus_ms_median * 1e6);
          r.speedup = r.cus_ms_median / r.ms_median;
          r.check = compare(cr.c, "cuSPARSE");
        } else {
          r.cus_alg = "failed";
          std::cerr << " (cuSPARSE failed: " << cr.error << ")";
        }
      }
      if (r.check.empty()) r.check = compare(convert<double>(cpu::spgemm<plus_times<T>>(ha, hb)), "CPU engine");
    }
    std::cerr << ", " << r.check << "\n";
    rows.push_back(r);
    if (ar.ablation) {
      struct variant {
        const char* name;
        spgemm_options o;
      };
      std::vector<variant> vs;
      auto add = [&](const char* n, auto f) {
        spgemm_options x;
        f(x);
        vs.push_back({n, x});
      };
      add("global-atomic-binning", [](spgemm_options& x) { x.shared_binning = false; });
      add("multi-access-hash", [](spgemm_options& x) { x.single_access_hash = false; });
      add("paper-hash", [](spgemm_options& x) { x.paper_hash = true; });
      add("sym-range-1.0", [](spgemm_options& x) { x.symbolic_range = 1.0; });
      add("sym-range-1.5", [](spgemm_options& x) { x.symbolic_range = 1.5; });
      add("num-range-1.0", [](spgemm_options& x) { x.numeric_range = 1.0; });
      add("num-range-1.5", [](spgemm_options& x) { x.numeric_range = 1.5; });
      add("num-range-3.0", [](spgemm_options& x) { x.numeric_range = 3.0; });
      add("natural-launch-order", [](spgemm_options& x) { x.large_rows_first = false; });
      add("no-alloc-overlap", [](spgemm_options& x) { x.overlap_allocation = false; });
      add("no-memory-pool", [](spgemm_options& x) { x.pooled_memory = false; });
      add("bitonic-sort", [](spgemm_options& x) { x.radix_sort_rows = false; });
      add("full-tables", [](spgemm_options& x) { x.row_sized_tables = false; });
      add("unsorted", [](spgemm_options& x) { x.sorted = false; });
      add("paper-global-hash", [](spgemm_options& x) { x.dense_long_rows = false; });
      add("no-product-flattening", [](spgemm_options& x) { x.flatten_products = false; });
      if (!ar.variants.empty())
        vs.erase(std::remove_if(vs.begin(), vs.end(), [&](const variant& v) {
                   return ("," + ar.variants + ",").find("," + std::string(v.name) + ",") ==
                          std::string::npos;
                 }), vs.end());
      for (auto& v : vs) {
        row a = r;
        a.variant = v.name;
        const auto vms = timed(ctx, t, da, db, v.o, ar.runs);
        a.ms_mean = mean(vms);
        a.ms_median = median(vms);
        a.gflops = 2.0 * a.products / (a.ms_median * 1e6);
        spgemm_options vp = v.o;
        vp.time_phases = true;
        spgemm_stats vs_st;
        end_to_end(ctx, t, da, db, vp, &vs_st);
        a.ph_setup = vs_st.ms_setup;
        a.ph_symbin = vs_st.ms_symbolic_binning;
        a.ph_sym = vs_st.ms_symbolic;
        a.ph_numbin = vs_st.ms_numeric_binning;
        a.ph_num = vs_st.ms_numeric;
        a.steady_ms = a.steady_gflops = 0;
        a.cus_alg.clear();
        a.cus_ms_median = a.cus_gflops = 0;
        a.speedup = r.ms_median / a.ms_median;  // >1: the optimisation did not pay here
        a.check.clear();
        rows.push_back(a);
      }
    }
  }

  // table
  std::printf("\n%-26s %-22s %9s %11s %11s %9s %9s %9s %9s %8s %6s  %s\n", "matrix", "variant", "rows",
              "products", "nnz(C)", "ms(med)", "GFLOPS", "steadyGF", "cusGF", "speedup", "alg", "check");
  double log_sum = 0;
  int n_speed = 0;
  for (const auto& r : rows) {
    std::printf("%-26s %-22s %9lld %11lld %11lld %9.3f %9.2f %9.2f %9.2f %8.2f %6s  %s\n",
                r.matrix.substr(0, 26).c_str(), r.variant.c_str(), r.rows, r.products, r.nnz_c,
                r.ms_median, r.gflops, r.steady_gflops, r.cus_gflops, r.speedup, r.cus_alg.c_str(),
                r.check.c_str());
    if (r.variant == "opsparse" && r.speedup > 0) {
      log_sum += std::log(r.speedup);
      ++n_speed;
    }
  }
  if (n_speed)
    std::printf("geometric mean speedup over cuSPARSE (end to end): %.2fx over %d matrices\n",
                std::exp(log_sum / n_speed), n_speed);
  std::printf("\nphase breakdown (ms, one run with phase events):\n%-26s %-22s %8s %8s %8s %8s %8s %8s\n",
              "matrix", "variant", "setup", "symbin", "symbolic", "numbin", "numeric", "bin%");
  for (const auto& r : rows) {
    const double tot = r.ph_setup + r.ph_symbin + r.ph_sym + r.ph_numbin + r.ph_num;
    std::printf("%-26s %-22s %8.3f %8.3f %8.3f %8.3f %8.3f %7.1f%%\n", r.matrix.substr(0, 26).c_str(),
                r.variant.c_str(), r.ph_setup, r.ph_symbin, r.ph_sym, r.ph_numbin, r.ph_num,
                tot > 0 ? 100.0 * (r.ph_symbin + r.ph_numbin) / tot : 0.0);
  }
  const char* header =
      "matrix,variant,rows,nnz_a,products,nnz_c,ms_mean,ms_median,gflops,steady_ms,steady_gflops,"
      "ms_setup,ms_symbolic_binning,ms_symbolic,ms_numeric_binning,ms_numeric,cusparse_alg,"
      "cusparse_ms_median,cusparse_gflops,speedup,check";
  auto csv_line = [](const row& r) {
    std::ostringstream o;
    o << r.matrix << "," << r.variant << "," << r.rows << "," << r.nnz_a << "," << r.products << ","
      << r.nnz_c << "," << r.ms_mean << "," << r.ms_median << "," << r.gflops << "," << r.steady_ms
      << "," << r.steady_gflops << "," << r.ph_setup << "," << r.ph_symbin << "," << r.ph_sym << ","
      << r.ph_numbin << "," << r.ph_num << "," << r.cus_alg << "," << r.cus_ms_median << ","
      << r.cus_gflops << "," << r.speedup << "," << r.check;
    return o.str();
  };
  if (!ar.csv.empty()) {
    std::ofstream o(ar.csv);
    o << header << "\n";
    for (const auto& r : rows) o << csv_line(r) << "\n";
  }
  if (!ar.json.empty()) {
    std::ofstream o(ar.json);
    o << "{\n  \"gpu\": \"" << json_escape(d.name) << "\",\n  \"compute_capability\": \"" << d.cc_major
      << "." << d.cc_minor << "\",\n  \"sm_count\": " << d.sm_count << ",\n  \"cuda_runtime\": \""
      << rt / 1000 << "." << (rt % 1000) / 10 << "\",\n  \"git_commit\": \"" << OPSPARSE_GIT_COMMIT
      << "\",\n  \"precision\": \"" << (std::is_same_v<T, double> ? "double" : "float")
      << "\",\n  \"runs\": " << ar.runs << ",\n  \"results\": [\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      o << "    {\"matrix\": \"" << json_escape(r.matrix) << "\", \"variant\": \"" << r.variant
        << "\", \"rows\": " << r.rows << ", \"nnz_a\": " << r.nnz_a << ", \"products\": " << r.products
        << ", \"nnz_c\": " << r.nnz_c << ", \"ms_mean\": " << r.ms_mean << ", \"ms_median\": "
        << r.ms_median << ", \"gflops\": " << r.gflops << ", \"steady_ms\": " << r.steady_ms
        << ", \"steady_gflops\": " << r.steady_gflops << ", \"phases_ms\": [" << r.ph_setup << ", "
        << r.ph_symbin << ", " << r.ph_sym << ", " << r.ph_numbin << ", " << r.ph_num
        << "], \"cusparse_alg\": \"" << r.cus_alg << "\", \"cusparse_ms_median\": " << r.cus_ms_median
        << ", \"cusparse_gflops\": " << r.cus_gflops << ", \"speedup\": " << r.speedup
        << ", \"check\": \"" << json_escape(r.check) << "\"}" << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    o << "  ]\n}\n";
  }
  for (const auto& r : rows)
    if (r.variant == "opsparse" && r.check.rfind("ok", 0) != 0) return 2;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const args a = parse(argc, argv);
    std::string why;
    if (!gpu_available(&why)) {
      std::cerr << "opsparse-bench: needs a GPU: " << why << "\n";
      return 1;
    }
    return a.use_float ? run<float>(a) : run<double>(a);
  } catch (const std::exception& e) {
    std::cerr << "opsparse-bench: " << e.what() << "\n";
    return 1;
  }
}
