// opsparse-gen: writes the deterministic generators' matrices and graphs to files, and prints the
// paper stand-ins' achieved statistics next to the real matrices'.
#include <boost/program_options.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/messages.hpp"
#include "opsparse/io.hpp"
#include "opsparse/output_file.hpp"
#include "opsparse_datasets/generators.hpp"

namespace ds = opsparse::datasets;
namespace po = boost::program_options;
using opsparse::host_csr;
using opsparse::index_t;
using opsparse::offset_t;

namespace {

/// A mistake in the command line: exit status 2, like a bad argument to a generator.
struct usage_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

constexpr const char* k_intro =
    "usage: opsparse-gen COMMAND [options]\n"
    "\n"
    "Deterministic sparse matrix and graph generators (same arguments -> same file, anywhere).\n"
    "\n"
    "commands:\n";

/// A subcommand: its synopsis, what it does, and the options it accepts (nothing else).
struct command {
  std::string name;
  std::string synopsis;     ///< after "opsparse-gen "
  std::string description;  ///< indented paragraph under the synopsis
  std::size_t positional;   ///< words it takes besides options (exactly this many)
  std::string positional_name;
  po::options_description options;
};

// Boost would show the default 0.57 as 0.56999999999999995; --help shows what a user would type.
template <class T>
po::typed_value<T>* value_with_default(T v) {
  std::ostringstream os;
  os << v;
  return po::value<T>()->default_value(v, os.str());
}

void add_seed(po::options_description& d) {
  d.add_options()("seed", value_with_default<long long>(1)->value_name("N"), "random seed, >= 0");
}
void add_ones(po::options_description& d) {
  d.add_options()("ones", "store 1 for every value (default: pseudo-random in (0,1])");
}
void add_output(po::options_description& d, const char* what) {
  d.add_options()("output,o", po::value<std::string>()->value_name("FILE"), what);
}
void add_help(po::options_description& d) { d.add_options()("help,h", "show this help and exit"); }

void add_scale(po::options_description& d, const char* what) {
  d.add_options()("scale", value_with_default(1.0)->value_name("s"), what);
}

std::vector<command> make_commands() {
  std::vector<command> cs;
  // A command with its options "NAME options", which the caller fills in; --help, last, is added
  // to every command at the end.
  const auto add = [&cs](const char* name, const char* synopsis, const char* description,
                         std::size_t positional = 0,
                         const char* positional_name = "") -> po::options_description& {
    cs.push_back(command{name, synopsis, description, positional, positional_name,
                         po::options_description(std::string(name) + " options")});
    return cs.back().options;
  };
  {
    po::options_description& o =
        add("rmat",
            "rmat --scale S --edge-factor E [--a A --b B --c C] [--seed N] [--symmetric]\n"
            "       [--drop-loops] [--no-permute] [--ones] -o OUT.mtx",
            "Graph500-style R-MAT: 2^S vertices, E*2^S edges before duplicates merge.");
    o.add_options()("scale", po::value<long long>()->value_name("S"),
                    "log2 of the vertex count, in [1, 30] (required)")(
        "edge-factor", po::value<double>()->value_name("E"),
        "generated edges per vertex, >= 0 (required)")(
        "a", value_with_default(0.57)->value_name("A"), "probability of the top-left quadrant")(
        "b", value_with_default(0.19)->value_name("B"), "probability of the top-right quadrant")(
        "c", value_with_default(0.19)->value_name("C"),
        "probability of the bottom-left quadrant (a, b, c >= 0 and a + b + c <= 1; the "
        "bottom-right gets the rest)");
    add_seed(o);
    o.add_options()("symmetric", "also store (v,u) for every generated (u,v)")(
        "drop-loops", "discard generated loops (u,u)")(
        "no-permute", "keep the generator's vertex numbers (default: shuffled, as Graph500)");
    add_ones(o);
    add_output(o, "Matrix Market output file (required)");
  }
  {
    const ds::protein_params def;
    po::options_description& o =
        add("protein",
            "protein --nodes N --edges M [--seed N] [--min-cluster 5] [--max-cluster 50]\n"
            "       [--mixing 0.15] [--ones] [--truth CLUSTERS.txt] -o OUT.abc|OUT.mtx",
            "Protein-interaction-like network with planted complexes, about M undirected edges.\n"
            ".abc output: one line per undirected edge, 'P000123<TAB>P000456<TAB>weight'.");
    o.add_options()("nodes", po::value<long long>()->value_name("N"),
                    "proteins, in [2, 2e9] (required)")("edges",
                                                        po::value<long long>()->value_name("M"),
                                                        "undirected edges wanted, >= 1 (required)");
    add_seed(o);
    o.add_options()("min-cluster", value_with_default<long long>(def.min_cluster)->value_name("n"),
                    "smallest planted complex, >= 2")(
        "max-cluster", value_with_default<long long>(def.max_cluster)->value_name("n"),
        "largest planted complex, >= --min-cluster")(
        "mixing", value_with_default(def.mixing)->value_name("f"),
        "fraction of the edges between complexes, in [0, 1]");
    add_ones(o);
    o.add_options()(
        "truth", po::value<std::string>()->value_name("FILE"),
        "also write the planted complexes, one per line (tab-separated labels, or 1-based "
        "vertex numbers for .mtx output), largest first");
    add_output(o, "output file, .abc or .mtx (required)");
  }
  {
    po::options_description& o =
        add("paper", "paper NAME [--scale s] [--seed N] [--ones] -o OUT.mtx",
            "Stand-in for one of the OpSparse paper's 26 matrices; 0 < s <= 1 shrinks the rows.", 1,
            "NAME");
    add_scale(o, "fraction of the real matrix's rows, in (0, 1]");
    add_seed(o);
    add_ones(o);
    add_output(o, "Matrix Market output file (required)");
  }
  add("list", "list", "The paper's matrices with their real statistics and the stand-in recipes.");
  {
    po::options_description& o =
        add("stats", "stats NAME|all [--scale s] [--seed N]",
            "Generates the stand-in(s) and prints achieved rows, nnz/row, max row, products and\n"
            "compression ratio of A*A next to the real matrix's.",
            1, "NAME or 'all'");
    add_scale(o, "fraction of the real matrices' rows, in (0, 1]");
    add_seed(o);
  }
  add("measure", "measure FILE.mtx",
      "The same statistics for a square Matrix Market file (e.g. a real matrix fetched by\n"
      "datasets/fetch.sh, to check the targets).",
      1, "FILE.mtx");
  for (command& c : cs) add_help(c.options);
  return cs;
}

std::string indented(const std::string& text, const std::string& indent) {
  std::string out = indent;
  for (char ch : text) {
    out += ch;
    if (ch == '\n') out += indent;
  }
  return out + "\n";
}

void print_usage(std::ostream& os, const std::vector<command>& cs) {
  os << k_intro;
  for (const auto& c : cs) os << "  " << c.synopsis << "\n" << indented(c.description, "      ");
  os << "\n'opsparse-gen --help' (or -h, or help) shows this text, 'opsparse-gen COMMAND --help'\n"
        "one command's options.\n";
  for (const auto& c : cs)
    if (c.options.options().size() > 1) os << "\n" << c.options;
}

void print_command_usage(std::ostream& os, const command& c) {
  os << "usage: opsparse-gen " << c.synopsis << "\n\n" << c.description << "\n\n" << c.options;
}

/// The parsed options of one command and its positional words.
struct args {
  po::variables_map vm;
  std::vector<std::string> positional;

  bool has(const std::string& k) const { return vm.count(k) != 0; }
  template <class T>
  T get(const std::string& k) const {
    return vm[k].as<T>();
  }
  std::uint64_t seed() const {
    const long long s = get<long long>("seed");
    if (s < 0) throw usage_error("--seed must be >= 0, not " + std::to_string(s));
    return static_cast<std::uint64_t>(s);
  }
};

args parse(const command& c, const std::vector<std::string>& words) {
  po::options_description hidden;
  hidden.add_options()("positional", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(c.options).add(hidden);
  po::positional_options_description pos;
  pos.add("positional", -1);
  namespace st = po::command_line_style;
  // No abbreviations: a prefix unique today stops being so when an option is added, and the
  // scripts that used it would break.
  const int style = st::default_style & ~st::allow_guessing;
  args a;
  try {
    po::store(po::command_line_parser(words).options(all).positional(pos).style(style).run(), a.vm);
    po::notify(a.vm);
  } catch (const po::error& e) {
    throw usage_error(c.name + ": " + e.what());
  }
  if (a.has("positional")) a.positional = a.get<std::vector<std::string>>("positional");
  return a;
}

void check_positional(const command& c, const args& a) {
  if (a.positional.size() == c.positional) return;
  if (c.positional == 0)
    throw usage_error(c.name + " takes no positional argument, got '" + a.positional[0] + "'");
  throw usage_error(c.name + " needs exactly one " + c.positional_name + ", got " +
                    std::to_string(a.positional.size()));
}

ds::value_kind values_of(const args& a) {
  return a.has("ones") ? ds::value_kind::ones : ds::value_kind::random;
}

std::string output_of(const args& a) {
  if (!a.has("output")) throw usage_error("missing -o OUTPUT");
  return a.get<std::string>("output");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
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
  // Through a temporary file: a failed or interrupted run leaves an existing file as it was.
  opsparse::io::output_file out(path);
  std::ostream& os = out.stream();
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
  out.commit();
}

int cmd_rmat(const args& a) {
  if (!a.has("scale") || !a.has("edge-factor"))
    throw usage_error("rmat needs --scale and --edge-factor");
  const long long scale = a.get<long long>("scale");
  if (scale < 1 || scale > 30) throw usage_error("--scale must be in [1, 30]");
  const double edge_factor = a.get<double>("edge-factor");
  if (!(edge_factor >= 0 && std::isfinite(edge_factor)))
    throw usage_error("--edge-factor must be a finite number >= 0");
  const double pa = a.get<double>("a"), pb = a.get<double>("b"), pc = a.get<double>("c");
  for (const auto& [name, v] : {std::pair{"--a", pa}, std::pair{"--b", pb}, std::pair{"--c", pc}})
    if (!(v >= 0 && v <= 1)) throw usage_error(std::string(name) + " must be in [0, 1]");
  if (!(pa + pb + pc <= 1)) throw usage_error("--a + --b + --c must be <= 1");
  ds::rmat_options o;
  o.symmetric = a.has("symmetric");
  o.drop_loops = a.has("drop-loops");
  o.permute = !a.has("no-permute");
  o.values = values_of(a);
  const std::string out = output_of(a);
  const auto t0 = std::chrono::steady_clock::now();
  const host_csr<double> m =
      ds::rmat(static_cast<int>(scale), edge_factor, pa, pb, pc, a.seed(), o);
  const double gen = seconds_since(t0);
  write_mtx(out, m);
  std::cerr << "rmat: " << m.rows << " vertices, " << m.nnz() << " entries, generated in " << gen
            << " s, written to " << out << "\n";
  return 0;
}

int cmd_protein(const args& a) {
  if (!a.has("nodes") || !a.has("edges")) throw usage_error("protein needs --nodes and --edges");
  ds::protein_params p;
  const long long nodes = a.get<long long>("nodes"), edges = a.get<long long>("edges");
  if (nodes < 2 || nodes > 2000000000LL) throw usage_error("--nodes must be in [2, 2e9]");
  if (edges < 1) throw usage_error("--edges must be >= 1");
  const long long min_cluster = a.get<long long>("min-cluster");
  const long long max_cluster = a.get<long long>("max-cluster");
  if (min_cluster < 2 || min_cluster > 2000000000LL)
    throw usage_error("--min-cluster must be in [2, 2e9]");
  if (max_cluster < min_cluster || max_cluster > 2000000000LL)
    throw usage_error("--max-cluster must be in [--min-cluster, 2e9]");
  p.nodes = static_cast<index_t>(nodes);
  p.avg_degree = 2.0 * static_cast<double>(edges) / static_cast<double>(nodes);
  p.min_cluster = static_cast<index_t>(min_cluster);
  p.max_cluster = static_cast<index_t>(max_cluster);
  p.mixing = a.get<double>("mixing");
  if (!(p.mixing >= 0 && p.mixing <= 1)) throw usage_error("--mixing must be in [0, 1]");
  p.values = values_of(a);
  p.seed = a.seed();
  const std::string out = output_of(a);
  const bool abc = ends_with(out, ".abc");
  if (!abc && !ends_with(out, ".mtx")) throw usage_error("protein: -o must end in .abc or .mtx");
  ds::protein_info info;
  const auto t0 = std::chrono::steady_clock::now();
  const host_csr<double> m = ds::protein_network(p, &info);
  const double gen = seconds_since(t0);
  if (abc)
    write_abc(out, m);
  else
    write_mtx(out, m);
  if (a.has("truth")) {
    const std::string truth = a.get<std::string>("truth");
    std::vector<std::vector<index_t>> groups(static_cast<std::size_t>(info.clusters));
    for (index_t i = 0; i < m.rows; ++i) groups[info.cluster_of[i]].push_back(i);
    std::stable_sort(groups.begin(), groups.end(),
                     [](const auto& x, const auto& y) { return x.size() > y.size(); });
    std::vector<std::string> labels(static_cast<std::size_t>(m.rows));
    for (index_t i = 0; i < m.rows; ++i) labels[i] = abc ? protein_label(i) : std::to_string(i + 1);
    opsparse::io::output_file os(truth);
    opsparse::io::write_labelled_groups(os.stream(), groups, labels);
    os.commit();
  }
  std::cerr << "protein: " << m.rows << " proteins, " << m.nnz() / 2 << " undirected edges ("
            << info.internal_edges << " inside " << info.clusters << " complexes, "
            << info.external_edges << " between; mean in-complex density " << info.p_in
            << "), generated in " << gen << " s, written to " << out << "\n";
  return 0;
}

double parse_scale(const args& a) {
  const double s = a.get<double>("scale");
  if (!(s > 0 && s <= 1)) throw usage_error("--scale must be in (0, 1]");
  return s;
}

int cmd_paper(const args& a) {
  const std::string out = output_of(a);
  const auto t0 = std::chrono::steady_clock::now();
  const host_csr<double> m =
      ds::paper_standin(a.positional[0], parse_scale(a), a.seed(), values_of(a));
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
  const double scale = parse_scale(a);
  std::vector<std::string> names;
  if (a.positional[0] == "all")
    for (const auto& p : ds::paper_matrices()) names.push_back(p.name);
  else
    names.push_back(ds::find_paper_matrix(a.positional[0]).name);
  std::printf("scale %g, seed %llu; 'real' rows are the paper's (stand-in rows scale with s)\n",
              scale, static_cast<unsigned long long>(a.seed()));
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
    const std::vector<command> commands = make_commands();
    if (argc < 2) {
      print_usage(std::cerr, commands);
      return 2;
    }
    const std::string cmd = argv[1];
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
      print_usage(std::cout, commands);
      return 0;
    }
    const auto c = std::find_if(commands.begin(), commands.end(),
                                [&](const command& x) { return x.name == cmd; });
    if (c == commands.end()) throw usage_error("unknown command '" + cmd + "'");
    const args a = parse(*c, std::vector<std::string>(argv + 2, argv + argc));
    if (a.has("help")) {
      print_command_usage(std::cout, *c);
      return 0;
    }
    check_positional(*c, a);
    if (cmd == "rmat") return cmd_rmat(a);
    if (cmd == "protein") return cmd_protein(a);
    if (cmd == "paper") return cmd_paper(a);
    if (cmd == "list") return cmd_list();
    if (cmd == "stats") return cmd_stats(a);
    return cmd_measure(a);
  } catch (const std::invalid_argument& e) {
    // A usage_error, or the generators' own checks (an unknown paper matrix, say): a bad
    // argument all the same.
    opsparse::apps::report_usage_error(std::cerr, "opsparse-gen", e.what());
    return 2;
  } catch (const std::exception& e) {
    opsparse::apps::report_error(std::cerr, "opsparse-gen", e.what());
    return 1;
  }
}
