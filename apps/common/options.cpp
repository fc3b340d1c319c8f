#include "common/options.hpp"

#include <ostream>
#include <vector>

#include "opsparse/output_file.hpp"

namespace opsparse::apps {

void add_help_options(po::options_description& d) {
  d.add_options()("help,h", "show this help and exit")("version", "show the version and exit");
}

void add_backend_option(po::options_description& d, common_options& o, const char* help) {
  d.add_options()("backend",
                  po::value(&o.backend)->default_value("auto")->value_name("gpu|cpu|auto"), help);
}

void add_threads_option(po::options_description& d, common_options& o, bool te_alias) {
  d.add_options()("threads", po::value(&o.threads)->default_value(0)->value_name("n"),
                  "CPU engine threads (0: OpenMP default; at most the processors available)");
  if (te_alias)
    d.add_options()("te", po::value<int>()->value_name("n"),
                    "the same as --threads (mcl's spelling)");
}

void add_report_options(po::options_description& d, common_options& o, const char* quiet_help) {
  d.add_options()("quiet,q", po::bool_switch(&o.quiet), quiet_help)(
      "verbose,V", po::bool_switch(&o.verbose), "stage timings and sizes on stderr");
}

bool store_or_answer(const program& p, po::parsed_options parsed,
                     const po::options_description& visible, po::variables_map& vm,
                     std::ostream& out, const char* help_tail) {
  as_usage_error([&] {
    po::store(parsed, vm);
    return 0;
  });
  if (vm.count("help")) {
    out << visible << "\n" << help_tail;
    return false;
  }
  if (vm.count("version")) {
    out << version_line(p.name) << "\n";
    return false;
  }
  as_usage_error([&] {
    po::notify(vm);
    return 0;
  });
  return true;
}

bool parse_graph_command_line(const program& p, int argc, const char* const* argv,
                              const po::options_description& visible, std::string& graph_path,
                              po::variables_map& vm, std::ostream& out) {
  po::options_description all;
  all.add(visible).add_options()("graph", po::value(&graph_path));
  po::positional_options_description pos;
  pos.add("graph", 1);
  po::parsed_options parsed = as_usage_error(
      [&] { return po::command_line_parser(argc, argv).options(all).positional(pos).run(); });
  if (!store_or_answer(p, std::move(parsed), visible, vm, out)) return false;
  if (graph_path.empty()) throw usage_error("no GRAPH file given");
  return true;
}

void check_backend_choice(const std::string& choice) {
  if (choice != "gpu" && choice != "cpu" && choice != "auto")
    throw usage_error("--backend must be gpu, cpu or auto, not '" + choice + "'");
}

int checked_threads(const program& p, const po::variables_map& vm, int threads, std::ostream& err) {
  const bool te = vm.count("te") > 0;
  if (te && vm.count("threads") && !vm["threads"].defaulted())
    throw usage_error("give either -te or --threads, not both");
  if (te) threads = vm["te"].as<int>();
  const char* option = te ? "-te" : "--threads";
  if (threads < 0)
    throw usage_error(std::string(option) + " must be >= 0, not " + std::to_string(threads));
  return cap_threads(p.name, option, threads, err);
}

engine_choice choose_engine(const program& p, const po::variables_map& vm, const common_options& o,
                            std::ostream& err) {
  engine_choice e;
  e.threads = checked_threads(p, vm, o.threads, err);
  e.which = as_usage_error([&] { return resolve_backend(o.backend, &e.why_cpu); });
  return e;
}

void report_engine(const program& p, const engine_choice& e, bool quiet, std::ostream& err) {
  if (!quiet)
    report_backend(p.name, e.which, e.which == backend::gpu ? gpu_device_name() : e.why_cpu, err);
}

void check_outputs(const po::variables_map& vm, const std::string& input,
                   std::initializer_list<output_option> outputs) {
  // An empty file name would silently write nothing.
  for (const auto& [option, path] : outputs)
    if (vm.count(option) && path->empty())
      throw usage_error(std::string("--") + option + " needs a FILE");
  for (const auto& [option, path] : outputs)
    if (!path->empty() && (*path == input || io::same_file(*path, input)))
      throw usage_error("the output file '" + *path + "' is the input file");
  const std::vector<output_option> all(outputs);
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = i + 1; j < all.size(); ++j)
      if (!all[i].second->empty() && *all[i].second == *all[j].second)
        throw usage_error(std::string("--") + all[i].first + " and --" + all[j].first +
                          " name the same file");
}

io::file_format parse_format(const std::string& s) {
  if (s == "auto") return io::file_format::automatic;
  if (s == "mtx" || s == "matrix-market") return io::file_format::matrix_market;
  if (s == "edges" || s == "edge-list") return io::file_format::edge_list;
  if (s == "abc") return io::file_format::abc;
  throw std::invalid_argument("--format must be auto, mtx, edges or abc; not '" + s + "'");
}

io::labelled_graph read_square_graph(const std::string& path, io::file_format format) {
  io::labelled_graph g = io::read_graph(path, format);
  if (g.adj.rows != g.adj.cols)
    throw std::runtime_error(path + ": the matrix is " + std::to_string(g.adj.rows) + " x " +
                             std::to_string(g.adj.cols) +
                             "; a graph needs a square adjacency matrix");
  return g;
}

}  // namespace opsparse::apps
