// opsparse-gen: writes the deterministic generators' matrices and graphs to files, and prints the
// paper stand-ins' achieved statistics next to the real matrices'.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "opsparse/io.hpp"
#include "opsparse_datasets/generators.hpp"

namespace ds = opsparse::datasets;
using opsparse::host_csr;
using opsparse::index_t;
using opsparse::offset_t;

namespace {

const char* k_usage =
    "usage: opsparse-gen COMMAND [options]\n"
    "\n"
    "Deterministic sparse matrix and graph generators (same arguments -> same file, anywhere).\n"
    "\n"
    "commands:\n"
    "  rmat --scale S --edge-factor E [--a A --b B --c C] [--seed N] [--symmetric]\n"
    "       [--drop-loops] [--no-permute] [--ones] -o OUT.mtx\n"
    "      Graph500-style R-MAT: 2^S vertices, E*2^S edges before duplicates merge\n"
    "      (defaults a=0.57 b=0.19 c=0.19, seed 1, vertex labels shuffled).\n"
    "  protein --nodes N --edges M [--seed N] [--min-cluster 5] [--max-cluster 50]\n"
    "       [--mixing 0.15] [--ones] [--truth CLUSTERS.txt] -o OUT.abc|OUT.mtx\n"
    "      Protein-interaction-like network with planted complexes, about M undirected edges.\n"
    "      .abc output: one line per undirected edge, 'P000123<TAB>P000456<TAB>weight'.\n"
    "      --truth writes the planted complexes, one per line (tab-separated labels, or\n"
    "      1-based vertex numbers for .mtx output), largest first.\n"
    "  paper NAME [--scale s] [--seed N] [--ones] -o OUT.mtx\n"
    "      Stand-in for one of the OpSparse paper's 26 matrices; 0 < s <= 1 shrinks the rows.\n"
    "  list\n"
    "      The paper's matrices with their real statistics and the stand-in recipes.\n"
    "  stats NAME|all [--scale s] [--seed N]\n"
    "      Generates the stand-in(s) and prints achieved rows, nnz/row, max row, products and\n"
    "      compression ratio of A*A next to the real matrix's.\n"
    "  measure FILE.mtx\n"
    "      The same statistics for a square Matrix Market file (e.g. a real matrix fetched by\n"
    "      datasets/fetch.sh, to check the targets).\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   output file\n"
    "  --seed N            random seed (default 1)\n"
    "  --ones              store 1 for every value (default: pseudo-random in (0,1])\n"
    "  -h, --help          this text\n";

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Hand-rolled options: --key value, --flag, and positional words.
struct args {
  std::map<std::string, std::string> values;
  std::map<std::string, bool> flags;
  std::vector<std::string> positional;

  bool has(const std::string& k) const { return values.count(k) != 0; }
  bool flag(const std::string& k) const { return flags.count(k) != 0; }
  std::string str(const std::string& k, const std::string& def = "") const {
    auto it = values.find(k);
    return it == values.end() ? def : it->second;
  }
  double num(const std::string& k, double def) const {
    auto it = values.find(k);
    if (it == values.end()) return def;
    char* end = nullptr;
    const double v = std::strtod(it->second.c_str(), &end);
    if (end == it->second.c_str() || *end != '\0')
      throw usage_error("--" + k + " expects a number, not '" + it->second + "'");
    return v;
  }
  long long integer(const std::string& k, long long def) const {
    auto it = values.find(k);
    if (it == values.end()) return def;
    char* end = nullptr;
    const long long v = std::strtoll(it->second.c_str(), &end, 10);
    if (end == it->second.c_str() || *end != '\0')
      throw usage_error("--" + k + " expects an integer, not '" + it->second + "'");
    return v;
  }
  std::uint64_t seed() const {
    const long long s = integer("seed", 1);
    if (s < 0) throw usage_error("--seed must be >= 0");
    return static_cast<std::uint64_t>(s);
  }
};

const std::vector<std::string> k_flags = {"symmetric", "drop-loops", "no-permute", "ones", "help"};
const std::vector<std::string> k_valued = {"scale", "edge-factor", "a", "b", "c", "seed", "nodes",
                                           "edges", "min-cluster", "max-cluster", "mixing",
                                           "truth", "output"};

args parse(int argc, char** argv, int first) {
  args a;
  for (int i = first; i < argc; ++i) {
    std::string w = argv[i];
    if (w == "-o") w = "--output";
    if (w == "-h") w = "--help";
    if (w.rfind("--", 0) == 0) {
      std::string key = w.substr(2), value;
      const auto eq = key.find('=');
      const bool inline_value = eq != std::string::npos;
      if (inline_value) {
        value = key.substr(eq + 1);
        key = key.substr(0, eq);
      }
      if (std::find(k_flags.begin(), k_flags.end(), key) != k_flags.end()) {
        if (inline_value) throw usage_error("--" + key + " takes no value");
        a.flags[key] = true;
      } else if (std::find(k_valued.begin(), k_valued.end(), key) != k_valued.end()) {
        if (!inline_value) {
          if (i + 1 >= argc) throw usage_error("--" + key + " needs a value");
          value = argv[++i];
        }
        a.values[key] = value;
      } else {
        throw usage_error("unknown option '" + w + "'");
      }
    } else {
      a.positional.push_back(w);
    }
  }
  return a;
}

ds::value_kind values_of(const args& a) {
  return a.flag("ones") ? ds::value_kind::ones : ds::value_kind::random;
}

std::string output_of(const args& a) {
  if (!a.has("output")) throw usage_error("missing -o OUTPUT");
  return a.str("output");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void write_mtx(const std::string& path, const host_csr<double>& m) {
  opsparse::io::write_matrix_market(path, m);
}

std::string protein_label(index_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "P%06d", static_cast<int>(i));
  return buf;
}

// ABC as mcl --abc reads it: every undirected edge once (mcl mirrors arrows itself).
void write_abc(const std::string& path, const host_csr<double>& m) {
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  if (!os) throw std::runtime_error("cannot open '" + path + "' for writing");
  std::string line;
  char w[40];
  for (index_t i = 0; i < m.rows; ++i)
    for (offset_t k = m.rpt[i]; k < m.rpt[i + 1]; ++k) {
      const index_t j = m.col[k];
      if (j <= i) continue;
      // Shortest text that reads back to the same double.
      const auto end = std::to_chars(w, w + sizeof w, m.val[k]).ptr;
      line = protein_label(i);
      line += '\t';
      line += protein_label(j);
      line += '\t';
      line.append(w, end);
      line += '\n';
      os << line;
    }
  if (!os) throw std::runtime_error("error writing '" + path + "'");
}

int cmd_rmat(const args& a) {
  if (!a.has("scale") || !a.has("edge-factor")) throw usage_error("rmat needs --scale and --edge-factor");
  const long long scale = a.integer("scale", 0);
  if (scale < 1 || scale > 30) throw usage_error("--scale must be in [1, 30]");
  ds::rmat_options o;
  o.symmetric = a.flag("symmetric");
  o.drop_loops = a.flag("drop-loops");
  o.permute = !a.flag("no-permute");
  o.values = values_of(a);
  const std::string out = output_of(a);
  const auto t0 = std::chrono::steady_clock::now();
  const host_csr<double> m = ds::rmat(static_cast<int>(scale), a.num("edge-factor", 16),
                                      a.num("a", 0.57), a.num("b", 0.19), a.num("c", 0.19),
                                      a.seed(), o);
  const double gen = seconds_since(t0);
  write_mtx(out, m);
  std::cerr << "rmat: " << m.rows << " vertices, " << m.nnz() << " entries, generated in " << gen
            << " s, written to " << out << "\n";
  return 0;
}

int cmd_protein(const args& a) {
  if (!a.has("nodes") || !a.has("edges")) throw usage_error("protein needs --nodes and --edges");
  ds::protein_params p;
  const long long nodes = a.integer("nodes", 0), edges = a.integer("edges", 0);
  if (nodes < 2 || nodes > 2000000000LL) throw usage_error("--nodes must be in [2, 2e9]");
  if (edges < 1) throw usage_error("--edges must be >= 1");
  p.nodes = static_cast<index_t>(nodes);
  p.avg_degree = 2.0 * static_cast<double>(edges) / static_cast<double>(nodes);
  p.min_cluster = static_cast<index_t>(a.integer("min-cluster", p.min_cluster));
  p.max_cluster = static_cast<index_t>(a.integer("max-cluster", p.max_cluster));
  p.mixing = a.num("mixing", p.mixing);
  p.values = values_of(a);
  p.seed = a.seed();
  const std::string out = output_of(a);
  const bool abc = ends_with(out, ".abc");
  if (!abc && !ends_with(out, ".mtx")) throw usage_error("protein output must end in .abc or .mtx");
  ds::protein_info info;
  const auto t0 = std::chrono::steady_clock::now();
  const host_csr<double> m = ds::protein_network(p, &info);
  const double gen = seconds_since(t0);
  if (abc)
    write_abc(out, m);
  else
    write_mtx(out, m);
  if (a.has("truth")) {
    std::vector<std::vector<index_t>> groups(static_cast<std::size_t>(info.clusters));
    for (index_t i = 0; i < m.rows; ++i) groups[info.cluster_of[i]].push_back(i);
    std::stable_sort(groups.begin(), groups.end(),
                     [](const auto& x, const auto& y) { return x.size() > y.size(); });
    std::vector<std::string> labels(static_cast<std::size_t>(m.rows));
    for (index_t i = 0; i < m.rows; ++i) labels[i] = abc ? protein_label(i) : std::to_string(i + 1);
    std::ofstream os(a.str("truth"), std::ios::binary | std::ios::trunc);
    if (!os) throw std::runtime_error("cannot open '" + a.str("truth") + "' for writing");
    opsparse::io::write_labelled_groups(os, groups, labels);
  }
  std::cerr << "protein: " << m.rows << " proteins, " << m.nnz() / 2 << " undirected edges ("
            << info.internal_edges << " inside " << info.clusters << " complexes, "
            << info.external_edges << " between; mean in-complex density " << info.p_in
            << "), generated in " << gen << " s, written to " << out << "\n";
  return 0;
}

double parse_scale(const args& a) {
  const double s = a.num("scale", 1.0);
  if (!(s > 0 && s <= 1)) throw usage_error("--scale must be in (0, 1]");
  return s;
}

int cmd_paper(const args& a) {
  if (a.positional.size() != 1) throw usage_error("paper needs exactly one NAME (see 'opsparse-gen list')");
  const std::string out = output_of(a);
  const auto t0 = std::chrono::steady_clock::now();
  const host_csr<double> m = ds::paper_standin(a.positional[0], parse_scale(a), a.seed(), values_of(a));
  const double gen = seconds_since(t0);
  write_mtx(out, m);
  std::cerr << a.positional[0] << " stand-in: " << m.rows << " rows, " << m.nnz()
            << " entries, generated in " << gen << " s, written to " << out << "\n";
  return 0;
}

int cmd_list() {
  std::printf("%-16s %-22s %10s %11s %7s %6s %10s %6s  %s\n", "name", "group", "rows", "nnz",
              "nnz/row", "max", "products", "CR", "stand-in recipe");
  for (const auto& p : ds::paper_matrices())
    std::printf("%-16s %-22s %10d %11lld %7.2f %6d %9.4gM %6.2f  %s\n", p.name.c_str(),
                p.group.c_str(), p.rows, static_cast<long long>(p.nnz), p.nnz_per_row, p.max_row,
                p.products / 1e6, p.compression, p.recipe.c_str());
  return 0;
}

int cmd_stats(const args& a) {
  if (a.positional.size() != 1) throw usage_error("stats needs exactly one NAME or 'all'");
  const double scale = parse_scale(a);
  std::vector<std::string> names;
  if (a.positional[0] == "all")
    for (const auto& p : ds::paper_matrices()) names.push_back(p.name);
  else
    names.push_back(ds::find_paper_matrix(a.positional[0]).name);
  std::printf("scale %g, seed %llu; 'real' rows are the paper's (stand-in rows scale with s)\n", scale,
              static_cast<unsigned long long>(a.seed()));
  std::printf("%-16s %-8s %10s %8s %6s %12s %7s %9s\n", "name", "", "rows", "nnz/row", "max",
              "products", "CR", "seconds");
  for (const auto& name : names) {
    const ds::paper_matrix& p = ds::find_paper_matrix(name);
    const auto t0 = std::chrono::steady_clock::now();
    const host_csr<double> m = ds::paper_standin(name, scale, a.seed(), ds::value_kind::ones);
    const double gen = seconds_since(t0);
    const ds::square_stats s = ds::compute_square_stats(m);
    std::printf("%-16s %-8s %10d %8.2f %6d %12.4g %7.2f\n", name.c_str(), "real", p.rows,
                p.nnz_per_row, p.max_row, p.products, p.compression);
    std::printf("%-16s %-8s %10d %8.2f %6lld %12.4g %7.2f %9.2f\n", "", "stand-in", s.rows,
                s.nnz_per_row, static_cast<long long>(s.max_row), static_cast<double>(s.products),
                s.compression, gen);
    std::printf("%-16s %-8s %10s %+7.1f%% %6s %11s %+6.1f%%\n", "", "diff", "",
                100.0 * (s.nnz_per_row / p.nnz_per_row - 1.0), "", "",
                100.0 * (s.compression / p.compression - 1.0));
    std::fflush(stdout);
  }
  return 0;
}

int cmd_measure(const args& a) {
  if (a.positional.size() != 1) throw usage_error("measure needs exactly one FILE.mtx");
  const host_csr<double> m = opsparse::io::read_matrix_market<double>(a.positional[0]);
  if (m.rows != m.cols) throw std::runtime_error("measure: the matrix is not square");
  const ds::square_stats s = ds::compute_square_stats(m);
  std::printf("%s: rows %d nnz %lld nnz/row %.2f max %lld products %lld nnz(A*A) %lld CR %.3f\n",
              a.positional[0].c_str(), s.rows, static_cast<long long>(s.nnz), s.nnz_per_row,
              static_cast<long long>(s.max_row), static_cast<long long>(s.products),
              static_cast<long long>(s.nnz_c), s.compression);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) {
      std::cerr << k_usage;
      return 2;
    }
    const std::string cmd = argv[1];
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
      std::cout << k_usage;
      return 0;
    }
    const args a = parse(argc, argv, 2);
    if (a.flag("help")) {
      std::cout << k_usage;
      return 0;
    }
    if (cmd == "rmat") return cmd_rmat(a);
    if (cmd == "protein") return cmd_protein(a);
    if (cmd == "paper") return cmd_paper(a);
    if (cmd == "list") return cmd_list();
    if (cmd == "stats") return cmd_stats(a);
    if (cmd == "measure") return cmd_measure(a);
    throw usage_error("unknown command '" + cmd + "'");
  } catch (const usage_error& e) {
    std::cerr << "opsparse-gen: " << e.what() << "\n(run 'opsparse-gen --help' for usage)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "opsparse-gen: " << e.what() << "\n";
    return 1;
  }
}
