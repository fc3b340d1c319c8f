// opsparse-msbfs's command line: reading, sources, backend choice, output files, progress.
// The options and error reports every program shares are apps/common/options.hpp's.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/cli.hpp"
#include "common/options.hpp"
#include "msbfs/msbfs.hpp"
#include "msbfs/msbfs_cli.hpp"
#include "opsparse/io.hpp"
#include "opsparse/output_file.hpp"

namespace opsparse::msbfs {

namespace {

namespace po = boost::program_options;
using apps::usage_error;

constexpr const char* program = "opsparse-msbfs";
const apps::program cli{program};

constexpr const char* usage =
    "Usage: opsparse-msbfs [options] GRAPH (--sources IDS | --random K)\n"
    "Breadth-first search from many sources at once, one level per sparse product:\n"
    "F <- (F*A)<!V> over (any, pair), V <- V + F, a row of F and V per source.\n"
    "GRAPH: Matrix Market (.mtx, ids are 1-based row numbers), ABC (.abc) or a SNAP edge\n"
    "list (anything else); ids are the vertex names as written in the file.\n"
    "The graph is DIRECTED by default: a line 'u v' (an entry A(u,v)) is followed from u to v\n"
    "only. -u/--undirected follows every edge both ways (A + A'), as opsparse-triangle and\n"
    "opsparse-mcl always do. Self-loops are dropped and repeated edges count once; weights\n"
    "are ignored.\n"
    "Per source: reached = vertices reached, the source included; sum of levels (a vertex's\n"
    "level is its distance in edges from the source); eccentricity = the largest level;\n"
    "closeness = (reached - 1) / sum of levels, the inverse of the mean distance to the\n"
    "vertices it reaches (not scaled by the graph's n - 1; 0 when it reaches nothing else).\n"
    "Prints totals on stdout (sources, reached and sum_of_levels summed over the sources,\n"
    "max_eccentricity, mean_closeness = the mean of the closeness of the sources), progress\n"
    "per batch on stderr.\n\nOptions";

/// The command line as given and as checked.
struct settings {
  apps::common_options common;
  std::string graph_path, sources_arg, format_s, levels_path, summary_path;
  std::string direction_s = "auto", seed_s = "1";
  long long random_k = -1, batch = 0, max_depth = -1;
  bool undirected = false;

  bool have_sources = false;
  std::vector<std::string> source_ids;
  std::uint64_t seed = 1;
  io::file_format format = io::file_format::automatic;
  options opt;
  apps::engine_choice engine;
};

po::options_description visible_options(settings& s) {
  po::options_description d(usage);
  apps::add_help_options(d);
  d.add_options()(
      "sources,s", po::value(&s.sources_arg)->value_name("FILE|IDS"),
      "a file with one id per line, or a comma-separated list of ids (duplicates allowed)")(
      "random", po::value(&s.random_k)->value_name("K"), "K distinct random sources")(
      "seed", po::value(&s.seed_s)->default_value("1"), "seed of --random")(
      "undirected,u", po::bool_switch(&s.undirected),
      "follow edges both ways (symmetrise A); default: directed, u -> v only")(
      "batch,b", po::value(&s.batch)->default_value(0),
      "sources per batch (0: from the graph size: about 2^24 visited entries per batch on the "
      "CPU; on the GPU, three bitmaps of n x batch bits within a quarter of the free memory; "
      "at most 1024)")(
      "direction", po::value(&s.direction_s)->default_value("auto"),
      "auto (push while the frontier is small, pull through the transpose with bitmaps of 64 "
      "sources per word when it is large: the GPU once for the rest of a batch, the CPU level "
      "by level), push or pull; the results are the same")(
      "max-depth", po::value(&s.max_depth)->default_value(-1),
      "stop after this level (-1: none); the summaries count only the levels searched")(
      "levels", po::value(&s.levels_path)->value_name("FILE"),
      "write 'source<TAB>vertex<TAB>level' for every vertex reached (FILE is written under a "
      "temporary name and renamed at the end: a failed run leaves an existing FILE as it was)")(
      "summary", po::value(&s.summary_path)->value_name("FILE"),
      "write 'source<TAB>reached<TAB>sum_of_levels<TAB>eccentricity<TAB>closeness' per source "
      "(as defined above)")("format", po::value(&s.format_s)->default_value("auto"),
                            "auto, mtx, edges or abc");
  apps::add_backend_option(d, s.common);
  apps::add_threads_option(d, s.common);
  apps::add_report_options(d, s.common, "no progress and no backend line on stderr");
  return d;
}

/// --seed's value: boost reads "-1" into an unsigned as 2^64 - 1, so the digits are checked here.
std::uint64_t parse_seed(const std::string& s) {
  const bool digits =
      !s.empty() && s.size() <= 20 && s.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long v = digits ? std::strtoull(s.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE)
    throw usage_error("--seed must be an integer from 0 to 2^64 - 1, not '" + s + "'");
  return v;
}

/// The values' checks; every mistake is a usage error.
void check(settings& s, const po::variables_map& vm, std::ostream& err) {
  s.have_sources = vm.count("sources") != 0;
  if (s.have_sources == (vm.count("random") != 0))
    throw usage_error("give exactly one of --sources and --random");
  if (vm.count("random") && s.random_k < 1)
    throw usage_error("--random needs K >= 1, not " + std::to_string(s.random_k));
  s.seed = parse_seed(s.seed_s);
  if (s.batch < 0 || s.batch > 1 << 30)
    throw usage_error("--batch must be between 0 and 2^30, not " + std::to_string(s.batch));
  if (s.max_depth < -1 || s.max_depth > 1 << 30)
    throw usage_error("--max-depth must be between -1 and 2^30, not " +
                      std::to_string(s.max_depth));
  apps::check_outputs(vm, s.graph_path, {{"levels", &s.levels_path}, {"summary", &s.summary_path}});
  s.engine = apps::choose_engine(cli, vm, s.common, err);
  apps::as_usage_error([&] {
    s.format = apps::parse_format(s.format_s);
    s.opt.dir = parse_direction(s.direction_s);
    // Before the graph is read: a malformed list is a usage error (an unreadable or empty
    // sources file is an input error, exit 1).
    if (s.have_sources) s.source_ids = parse_sources_argument(s.sources_arg);
  });
  s.opt.batch = static_cast<index_t>(s.batch);
  s.opt.max_depth = static_cast<level_t>(s.max_depth);
  s.opt.keep_levels = !s.levels_path.empty();
  s.opt.symmetric = s.undirected;
}

/// Parses and checks argv into `s`; false when --help or --version was answered.
bool parse(settings& s, int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  po::variables_map vm;
  if (!apps::parse_graph_command_line(cli, argc, argv, visible_options(s), s.graph_path, vm, out))
    return false;
  check(s, vm, err);
  return true;
}

/// The run's outputs: the totals, the optional files, the progress lines.
class reporter {
 public:
  /// Makes the outputs' temporary files, before the graph is read: a long search must not end
  /// on an unwritable folder.
  reporter(const settings& s, std::ostream& err) : s_(s), err_(err) {
    if (!s.levels_path.empty()) levels_.emplace(s.levels_path);
    if (!s.summary_path.empty()) summary_.emplace(s.summary_path);
    if (levels_) levels_->stream() << std::setprecision(12);
    if (summary_)
      summary_->stream() << std::setprecision(12)
                         << "# source\treached\tsum_of_levels\teccentricity\tcloseness\n";
  }

  /// The graph's vertex names and the number of batches, once known.
  void start(const std::vector<std::string>& labels, std::size_t batches) {
    labels_ = &labels;
    batches_ = batches;
  }

  void operator()(const batch_result& r) {
    ++batch_no_;
    offset_t reached = 0;
    for (const source_summary& s : r.summary) {
      reached += s.reached;
      total_levels_ += s.level_sum;
      deepest_ = std::max(deepest_, s.eccentricity);
      closeness_sum_ += s.closeness();
      if (summary_)
        summary_->stream() << (*labels_)[s.source] << '\t' << s.reached << '\t' << s.level_sum
                           << '\t' << s.eccentricity << '\t' << s.closeness() << '\n';
    }
    total_reached_ += reached;
    if (levels_) write_levels(r);
    if (!s_.common.quiet)
      err_ << program << ": batch " << batch_no_ << "/" << batches_ << ": sources " << r.first + 1
           << "-" << r.first + r.summary.size() << ", " << r.depth << " levels"
           << (r.note.empty() ? "" : " (" + r.note + ")") << ", " << reached << " reached, "
           << std::fixed << std::setprecision(1) << r.ms << " ms" << std::defaultfloat << "\n";
    if (s_.common.verbose)
      for (std::size_t l = 0; l < r.level_stats.size(); ++l) {
        const batch_result::level_stat& ls = r.level_stats[l];
        err_ << program << ":   level " << l + 1 << (*ls.how ? " " : "") << ls.how << ": "
             << std::fixed << std::setprecision(2) << ls.ms << " ms" << std::defaultfloat
             << ", frontier " << ls.frontier << "\n";
      }
  }

  /// Renames the files into place and prints the totals.
  void finish(std::size_t sources, std::ostream& out) {
    if (levels_) levels_->commit();
    if (summary_) summary_->commit();
    out << "sources\t" << sources << "\n"
        << "reached\t" << total_reached_ << "\n"
        << "sum_of_levels\t" << total_levels_ << "\n"
        << "max_eccentricity\t" << deepest_ << "\n"
        << "mean_closeness\t" << std::setprecision(12)
        << (sources == 0 ? 0.0 : closeness_sum_ / static_cast<double>(sources)) << "\n";
  }

 private:
  void write_levels(const batch_result& r) {
    std::ostream& lf = levels_->stream();
    for (index_t row = 0; row < r.levels.rows; ++row) {
      const std::string& src = (*labels_)[r.summary[row].source];
      for (offset_t p = r.levels.rpt[row]; p < r.levels.rpt[row + 1]; ++p)
        lf << src << '\t' << (*labels_)[r.levels.col[p]] << '\t' << r.levels.val[p] << '\n';
    }
    if (!lf) throw std::runtime_error("error while writing " + s_.levels_path);
  }

  const settings& s_;
  const std::vector<std::string>* labels_ = nullptr;
  std::size_t batches_ = 0;
  std::ostream& err_;
  std::optional<io::output_file> levels_, summary_;
  offset_t total_reached_ = 0;
  std::int64_t total_levels_ = 0;
  level_t deepest_ = 0;
  double closeness_sum_ = 0;
  std::size_t batch_no_ = 0;
};

std::unique_ptr<backend> make_backend(const apps::engine_choice& e) {
#if OPSPARSE_HAS_GPU_ENGINE
  if (e.which == apps::backend::gpu) return make_gpu_backend();
#endif
  return make_cpu_backend(e.threads);
}

int run(settings& s, std::ostream& out, std::ostream& err) {
  reporter report(s, err);
  std::optional<apps::background_warm_up> warm;
#if OPSPARSE_HAS_GPU_ENGINE
  if (s.engine.which == apps::backend::gpu) warm.emplace([] { warm_up(*make_gpu_backend()); });
#endif
  apps::stopwatch clock;
  const io::labelled_graph g = apps::read_square_graph(s.graph_path, s.format);
  const double ms_read = clock.lap_ms();
  const host_csr<pattern> a = graph_pattern(g.adj, s.undirected);
  const std::vector<index_t> sources =
      s.have_sources ? resolve_sources(s.source_ids, g.labels, s.graph_path)
                     : random_sources(a.rows, static_cast<std::size_t>(s.random_k), s.seed);
  const double ms_prepare = clock.lap_ms();

  if (warm) warm->wait();
  const std::unique_ptr<backend> be = make_backend(s.engine);
  apps::report_engine(cli, s.engine, s.common.quiet, err);
  if (s.opt.batch == 0) s.opt.batch = default_batch(a.rows, sources.size(), be->batch_budget());
  const std::size_t batches = (sources.size() + s.opt.batch - 1) / s.opt.batch;
  if (s.common.verbose) {
    err << program << ": " << s.graph_path << ": " << a.rows << " vertices, " << a.nnz() << " "
        << (s.undirected ? "directed entries (symmetrised)" : "directed edges") << "\n"
        << program << ": " << sources.size() << " sources in " << batches << " batches of "
        << s.opt.batch << "\n";
    apps::print_stage_ms(err, program, "read", 9, ms_read);
    err << "\n";
    apps::print_stage_ms(err, program, "prepare", 9, ms_prepare);
    err << "\n";
  }

  report.start(g.labels, batches);
  clock.lap_ms();
  apps::advise_on_device_memory(
      [&] { run_batches(*be, a, sources, s.opt, [&](const batch_result& r) { report(r); }); },
      [&] {
        const double n = static_cast<double>(a.rows), b = static_cast<double>(s.opt.batch);
        const double words = std::ceil(b / 64);
        return "the GPU backend keeps the graph (" +
               format_bytes(8.0 * (n + 1) + 4.0 * static_cast<double>(a.nnz())) +
               ") and, for a batch of " + std::to_string(s.opt.batch) +
               " sources, three bitmaps "
               "of n x ceil(batch/64) words (" +
               format_bytes(3 * n * words * 8) +
               "); a smaller "
               "--batch processes the sources in more parts (e.g. --batch " +
               std::to_string(std::max<index_t>(1, s.opt.batch / 4)) +
               "), --backend cpu "
               "searches in host memory";
      });
  const double ms_search = clock.lap_ms();
  report.finish(sources.size(), out);
  if (s.common.verbose) {
    apps::print_stage_ms(err, program, "search", 9, ms_search);
    err << ", " << be->edges_traversed() << " edges traversed, " << be->products() << " products\n";
  }
  return 0;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  return apps::run_settings<settings>(cli, argc, argv, out, err, parse, run);
}

}  // namespace opsparse::msbfs
