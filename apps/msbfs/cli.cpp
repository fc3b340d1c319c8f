// opsparse-msbfs's command line: reading, sources, backend choice, output files, progress.
#include <boost/program_options.hpp>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/cli.hpp"
#include "msbfs/msbfs.hpp"
#include "opsparse/error.hpp"
#include "opsparse/io.hpp"
#include "opsparse/output_file.hpp"

namespace po = boost::program_options;

namespace opsparse::msbfs {

namespace {

constexpr const char* program = "opsparse-msbfs";

io::file_format parse_format(const std::string& s) {
  if (s == "auto") return io::file_format::automatic;
  if (s == "mtx" || s == "matrix-market") return io::file_format::matrix_market;
  if (s == "edges" || s == "edge-list") return io::file_format::edge_list;
  if (s == "abc") return io::file_format::abc;
  throw std::invalid_argument("--format must be auto, mtx, edges or abc; not '" + s + "'");
}


using opsparse::apps::usage_error;  // apps/common/cli.hpp

/// --seed's value: boost reads "-1" into an unsigned as 2^64 - 1, so the digits are checked here.
std::uint64_t parse_seed(const std::string& s) {
  const bool digits = !s.empty() && s.size() <= 20 &&
                      s.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long v = digits ? std::strtoull(s.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE)
    throw usage_error("--seed must be an integer from 0 to 2^64 - 1, not '" + s + "'");
  return v;
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  std::string graph_path, sources_arg, format_s, backend_s, levels_path, summary_path;
  std::string direction_s = "auto", seed_s = "1";
  long long random_k = -1, batch = 0, max_depth = -1;
  int threads = 0;
  bool undirected = false, quiet = false, verbose = false;

  po::options_description visible(
      std::string("Usage: ") + program + " [options] GRAPH (--sources IDS | --random K)\n"
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
      "per batch on stderr.\n\nOptions");
  visible.add_options()
      ("help,h", "show this help and exit")
      ("version", "show the version and exit")
      ("sources,s", po::value(&sources_arg)->value_name("FILE|IDS"),
       "a file with one id per line, or a comma-separated list of ids (duplicates allowed)")
      ("random", po::value(&random_k)->value_name("K"), "K distinct random sources")
      ("seed", po::value(&seed_s)->default_value("1"), "seed of --random")
      ("undirected,u", po::bool_switch(&undirected),
       "follow edges both ways (symmetrise A); default: directed, u -> v only")
      ("batch,b", po::value(&batch)->default_value(0),
       "sources per batch (0: from the graph size: about 2^24 visited entries per batch on the "
       "CPU, 2^32 bits of bitmap on the GPU; at most 1024)")
      ("direction", po::value(&direction_s)->default_value("auto"),
       "auto (push while the frontier is small, pull through the transpose with bitmaps of 64 "
       "sources per word when it is large: the GPU once for the rest of a batch, the CPU level "
       "by level), push or pull; the results are the same")
      ("max-depth", po::value(&max_depth)->default_value(-1),
       "stop after this level (-1: none); the summaries count only the levels searched")
      ("levels", po::value(&levels_path)->value_name("FILE"),
       "write 'source<TAB>vertex<TAB>level' for every vertex reached (FILE is written under a "
       "temporary name and renamed at the end: a failed run leaves an existing FILE as it was)")
      ("summary", po::value(&summary_path)->value_name("FILE"),
       "write 'source<TAB>reached<TAB>sum_of_levels<TAB>eccentricity<TAB>closeness' per source "
       "(as defined above)")
      ("format", po::value(&format_s)->default_value("auto"), "auto, mtx, edges or abc")
      ("backend", po::value(&backend_s)->default_value("auto"), "gpu, cpu or auto")
      ("threads", po::value(&threads)->default_value(0),
       "CPU engine threads (0: OpenMP default; at most the processors available)")
      ("quiet,q", po::bool_switch(&quiet), "no progress and no backend line on stderr")
      ("verbose,V", po::bool_switch(&verbose), "stage timings and sizes on stderr");
  po::options_description hidden;
  hidden.add_options()("graph", po::value(&graph_path));
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("graph", 1);

  try {
    options opt;
    io::file_format format = io::file_format::automatic;
    std::string why_cpu;
    apps::backend which = apps::backend::cpu;
    bool have_sources = false;
    std::vector<std::string> source_ids;
    std::uint64_t seed = 1;
    try {
      po::variables_map vm;
      po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
      if (vm.count("help")) {
        out << visible << "\n";
        return 0;
      }
      if (vm.count("version")) {
        out << apps::version_line(program) << "\n";
        return 0;
      }
      po::notify(vm);
      if (graph_path.empty()) throw usage_error("no GRAPH file given");
      have_sources = vm.count("sources") != 0;
      if (have_sources == (vm.count("random") != 0))
        throw usage_error("give exactly one of --sources and --random");
      if (vm.count("random") && random_k < 1)
        throw usage_error("--random needs K >= 1, not " + std::to_string(random_k));
      seed = parse_seed(seed_s);
      if (batch < 0 || batch > 1 << 30)
        throw usage_error("--batch must be between 0 and 2^30, not " + std::to_string(batch));
      if (max_depth < -1 || max_depth > 1 << 30)
        throw usage_error("--max-depth must be between -1 and 2^30, not " +
                          std::to_string(max_depth));
      if (threads < 0) throw usage_error("--threads must be >= 0, not " + std::to_string(threads));
      // An empty file name would silently write nothing.
      if (vm.count("levels") && levels_path.empty()) throw usage_error("--levels needs a FILE");
      if (vm.count("summary") && summary_path.empty()) throw usage_error("--summary needs a FILE");
      for (const std::string* o : {&levels_path, &summary_path})
        if (!o->empty() && (*o == graph_path || io::same_file(*o, graph_path)))
          throw usage_error("the output file '" + *o + "' is the input file");
      if (!levels_path.empty() && levels_path == summary_path)
        throw usage_error("--levels and --summary name the same file");
      threads = apps::cap_threads(program, "--threads", threads, err);
      format = parse_format(format_s);
      opt.dir = parse_direction(direction_s);
      which = apps::resolve_backend(backend_s, &why_cpu);
      // Before the graph is read: a malformed list is a usage error (an unreadable or empty
      // sources file is an input error, exit 1).
      if (have_sources) source_ids = parse_sources_argument(sources_arg);
    } catch (const po::error& e) {
      throw usage_error(e.what());
    } catch (const std::invalid_argument& e) {
      throw usage_error(e.what());
    }
    // The outputs' temporary files first: a long search must not end on an unwritable folder.
    std::optional<io::output_file> levels_file, summary_file;
    if (!levels_path.empty()) levels_file.emplace(levels_path);
    if (!summary_path.empty()) summary_file.emplace(summary_path);
    opt.batch = static_cast<index_t>(batch);
    opt.max_depth = static_cast<level_t>(max_depth);
    opt.keep_levels = !levels_path.empty();
    opt.symmetric = undirected;

    auto clock = std::chrono::steady_clock::now();
    const io::labelled_graph g = io::read_graph(graph_path, format);
    if (g.adj.rows != g.adj.cols)
      throw std::runtime_error(graph_path + ": the matrix is " + std::to_string(g.adj.rows) +
                               " x " + std::to_string(g.adj.cols) +
                               "; a graph needs a square adjacency matrix");
    const double ms_read = ms_since(clock);
    clock = std::chrono::steady_clock::now();
    const host_csr<pattern> a = graph_pattern(g.adj, undirected);
    const std::vector<index_t> sources =
        have_sources ? resolve_sources(source_ids, g.labels, graph_path)
                     : random_sources(a.rows, static_cast<std::size_t>(random_k), seed);
    const double ms_prepare = ms_since(clock);

    std::unique_ptr<backend> be;
#if OPSPARSE_HAS_GPU_ENGINE
    if (which == apps::backend::gpu) be = make_gpu_backend();
#endif
    if (!be) be = make_cpu_backend(threads);
    if (!quiet)
      apps::report_backend(program, which,
                           which == apps::backend::gpu ? apps::gpu_device_name() : why_cpu, err);
    const index_t batch_size = opt.batch > 0 ? opt.batch
                                             : default_batch(a.rows, sources.size(),
                                                             be->batch_budget());
    opt.batch = batch_size;
    const std::size_t batches = (sources.size() + batch_size - 1) / batch_size;
    if (verbose) {
      err << program << ": " << graph_path << ": " << a.rows << " vertices, " << a.nnz() << " "
          << (undirected ? "directed entries (symmetrised)" : "directed edges") << "\n"
          << program << ": " << sources.size() << " sources in " << batches << " batches of "
          << batch_size << "\n"
          << std::fixed << std::setprecision(3) << program << ": read     " << std::setw(10)
          << ms_read << " ms\n"
          << program << ": prepare  " << std::setw(10) << ms_prepare << " ms\n";
      err.unsetf(std::ios::floatfield);
    }

    if (levels_file) levels_file->stream() << std::setprecision(12);
    if (summary_file)
      summary_file->stream() << std::setprecision(12)
                             << "# source\treached\tsum_of_levels\teccentricity\tcloseness\n";

    offset_t total_reached = 0;
    std::int64_t total_levels = 0;
    level_t deepest = 0;
    double closeness_sum = 0;
    std::size_t batch_no = 0;
    clock = std::chrono::steady_clock::now();
    run_batches(*be, a, sources, opt, [&](const batch_result& r) {
      ++batch_no;
      offset_t reached = 0;
      for (const source_summary& s : r.summary) {
        reached += s.reached;
        total_levels += s.level_sum;
        deepest = std::max(deepest, s.eccentricity);
        closeness_sum += s.closeness();
        if (summary_file)
          summary_file->stream() << g.labels[s.source] << '\t' << s.reached << '\t' << s.level_sum << '\t'
                       << s.eccentricity << '\t' << s.closeness() << '\n';
      }
      total_reached += reached;
      if (levels_file) {
        std::ostream& lf = levels_file->stream();
        for (index_t row = 0; row < r.levels.rows; ++row) {
          const std::string& src = g.labels[r.summary[row].source];
          for (offset_t p = r.levels.rpt[row]; p < r.levels.rpt[row + 1]; ++p)
            lf << src << '\t' << g.labels[r.levels.col[p]] << '\t' << r.levels.val[p] << '\n';
        }
        if (!lf) throw std::runtime_error("error while writing " + levels_path);
      }
      if (!quiet)
        err << program << ": batch " << batch_no << "/" << batches << ": sources "
            << r.first + 1 << "-" << r.first + r.summary.size() << ", " << r.depth
            << " levels" << (r.note.empty() ? "" : " (" + r.note + ")") << ", " << reached
            << " reached, " << std::fixed << std::setprecision(1) << r.ms << " ms"
            << std::defaultfloat << "\n";
    });
    const double ms_search = ms_since(clock);
    if (levels_file) levels_file->commit();
    if (summary_file) summary_file->commit();

    out << "sources\t" << sources.size() << "\n"
        << "reached\t" << total_reached << "\n"
        << "sum_of_levels\t" << total_levels << "\n"
        << "max_eccentricity\t" << deepest << "\n"
        << "mean_closeness\t" << std::setprecision(12)
        << (sources.empty() ? 0.0 : closeness_sum / static_cast<double>(sources.size())) << "\n";
    if (verbose)
      err << program << ": search   " << std::fixed << std::setprecision(3) << std::setw(10)
          << ms_search << " ms, " << be->edges_traversed() << " edges traversed, "
          << be->products() << " products" << std::defaultfloat << "\n";
    return 0;
  } catch (const usage_error& e) {
    err << program << ": " << e.what() << "\n" << "Try '" << program << " --help'.\n";
    return 2;
  } catch (const parse_error& e) {
    err << program << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    err << program << ": error: " << e.what() << "\n";
    return 1;
  } catch (...) {
    err << program << ": unknown error\n";
    return 1;
  }
}

}  // namespace opsparse::msbfs
