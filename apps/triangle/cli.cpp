// opsparse-triangle's command line: reading, backend choice, output files, messages.
// The options and error reports every program shares are apps/common/options.hpp's.
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/cli.hpp"
#include "common/options.hpp"
#include "opsparse/io.hpp"
#include "opsparse/output_file.hpp"
#include "triangle/triangle.hpp"
#include "triangle/triangle_cli.hpp"

namespace opsparse::triangle {

namespace {

namespace po = boost::program_options;
using apps::usage_error;

constexpr const char* program = "opsparse-triangle";
const apps::program cli{program};

constexpr const char* usage =
    "Usage: opsparse-triangle [options] GRAPH\n"
    "Counts the triangles of the undirected simple graph on GRAPH's structure as a masked\n"
    "sparse product over the plus_pair semiring, the LAGraph way. Prints the count on stdout.\n"
    "The graph is ALWAYS made undirected (there is no --directed): a line 'u v' (an entry\n"
    "A(u,v)) is the edge {u,v} whichever way it is written, 'u v' and 'v u' are one edge,\n"
    "self-loops and repeated edges are dropped and weights ignored; a triangle is three\n"
    "vertices joined pairwise, counted once. (opsparse-mcl symmetrises too; opsparse-msbfs is\n"
    "directed unless given -u.)\n"
    "GRAPH: Matrix Market (.mtx), ABC (.abc) or a SNAP edge list (anything else).\n\nOptions";

/// The command line as given and as checked.
struct settings {
  apps::common_options common;
  std::string graph_path, method_s, presort_s, format_s, per_vertex_path, lcc_path;
  bool materialize = false;

  io::file_format format = io::file_format::automatic;
  options opt;
  apps::engine_choice engine;
};

po::options_description visible_options(settings& s) {
  po::options_description d(usage);
  apps::add_help_options(d);
  d.add_options()(
      "method,m", po::value(&s.method_s)->default_value("ul"),
      "ul (C<L>=U·L, the fewest products on skewed graphs), sandia-ll (C<L>=L·L), sandia-uu "
      "(C<U>=U·U), sandia-lut (C<L>=L·U'), sandia-ult (C<U>=U·L'), cohen (C<A>=L·U, sum/2), "
      "burkhardt (C<A>=A·A, sum/6)")(
      "presort", po::value(&s.presort_s)->default_value("auto"),
      "degree ordering: auto (when LAGraph's rule sorts: ul and Sandia methods, n > 1000, mean "
      "degree >= 10 and > 4 x median; descending for ul, sandia-ll and sandia-lut, ascending "
      "for sandia-uu and sandia-ult), none, ascending, descending")(
      "per-vertex", po::value(&s.per_vertex_path)->value_name("FILE"),
      "write 'vertex<TAB>triangles through it' per vertex (written under a temporary name "
      "and renamed at the end: a failed run leaves an existing FILE as it was)")(
      "clustering", po::value(&s.lcc_path)->value_name("FILE"),
      "write 'vertex<TAB>local clustering coefficient' per vertex")(
      "format", po::value(&s.format_s)->default_value("auto"), "auto, mtx, edges or abc")(
      "parts", po::value(&s.opt.parts)->default_value(1)->value_name("N"),
      "count in N x N tiles, one after another: the host relabels and extracts L/U, the "
      "backend holds one tile's rows of the operands at a time (about 2/N of L on the GPU "
      "instead of A, its sorted copy and L); for graphs that do not fit the device. The count "
      "only: not with --per-vertex, --clustering or --materialize")(
      "materialize", po::bool_switch(&s.materialize),
      "form C and then sum it, even when only the count is asked (by default the GPU fuses "
      "the sum into the product and never stores C)");
  apps::add_backend_option(d, s.common);
  apps::add_threads_option(d, s.common);
  apps::add_report_options(d, s.common, "no backend line on stderr");
  return d;
}

/// Parses and checks argv into `s`; false when --help or --version was answered.
bool parse(settings& s, int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  po::variables_map vm;
  if (!apps::parse_graph_command_line(cli, argc, argv, visible_options(s), s.graph_path, vm, out))
    return false;
  apps::as_usage_error([&] {
    s.opt.how = parse_method(s.method_s);
    s.opt.sort = parse_presort(s.presort_s);
    s.format = apps::parse_format(s.format_s);
  });
  apps::check_outputs(vm, s.graph_path,
                      {{"per-vertex", &s.per_vertex_path}, {"clustering", &s.lcc_path}});
  if (s.common.verbose && s.common.quiet) throw usage_error("-V and -q contradict each other");
  if (s.opt.parts < 1)
    throw usage_error("--parts must be at least 1, not " + std::to_string(s.opt.parts));
  if (s.opt.parts > 1 && (!s.per_vertex_path.empty() || !s.lcc_path.empty() || s.materialize))
    throw usage_error(
        "--parts counts the total only: not with --per-vertex, --clustering or "
        "--materialize");
  s.engine = apps::choose_engine(cli, vm, s.common, err);
  s.opt.per_vertex = !s.per_vertex_path.empty() || !s.lcc_path.empty();
  s.opt.materialize = s.materialize;
  s.opt.host_threads = s.engine.threads;
  return true;
}

std::unique_ptr<backend> make_backend(const apps::engine_choice& e) {
#if OPSPARSE_HAS_GPU_ENGINE
  if (e.which == apps::backend::gpu) return make_gpu_backend();
#endif
  return make_cpu_backend(e.threads);
}

/// -V's lines after the count: the stages' milliseconds and the ordering used.
void print_stages(const result& r, const options& opt, double ms_read, double ms_symmetrise,
                  double ms_write, std::ostream& err) {
  auto stage = [&](const std::string& label, double ms, const std::string& note = "") {
    apps::print_stage_ms(err, program, label, 15, ms);
    if (!note.empty()) err << "  " << note;
    err << "\n";
  };
  stage("read", ms_read);
  stage("symmetrise", ms_symmetrise);
  for (const stage_time& s : r.stages) stage(s.stage, s.ms, s.note);
  if (opt.per_vertex) stage("write", ms_write);
  err << program << ": presort " << to_string(r.sorted) << ", " << r.triangles << " triangles\n";
}

int run(const settings& s, std::ostream& out, std::ostream& err) {
  // The outputs' temporary files first: the count must not end on an unwritable folder.
  std::optional<io::output_file> per_vertex_file, lcc_file;
  if (!s.per_vertex_path.empty()) per_vertex_file.emplace(s.per_vertex_path);
  if (!s.lcc_path.empty()) lcc_file.emplace(s.lcc_path);

  std::optional<apps::background_warm_up> warm;
#if OPSPARSE_HAS_GPU_ENGINE
  if (s.engine.which == apps::backend::gpu)
    warm.emplace([&s] { warm_up(*make_gpu_backend(), s.opt); });
#endif
  apps::stopwatch clock;
  io::labelled_graph g = apps::read_square_graph(s.graph_path, s.format);
  const double ms_read = clock.lap_ms();
  const host_csr<pattern> a = simple_undirected(g.adj);
  g.adj = host_csr<double>();  // the weights are not needed any more
  const double ms_symmetrise = clock.lap_ms();

  if (warm) warm->wait();
  const std::unique_ptr<backend> be = make_backend(s.engine);
  apps::report_engine(cli, s.engine, s.common.quiet, err);
  if (s.common.verbose)
    err << program << ": " << s.graph_path << ": " << a.rows << " vertices, " << a.nnz() / 2
        << " undirected edges, method " << to_string(s.opt.how) << "\n";

  const result r = apps::advise_on_device_memory(
      [&] { return count_triangles(*be, a, s.opt); },
      [&] {
        const double graph = 8.0 * (a.rows + 1) + 4.0 * static_cast<double>(a.nnz());
        if (s.opt.parts > 1)
          return "with --parts " + std::to_string(s.opt.parts) +
                 " the GPU backend keeps one tile's "
                 "operands (about " +
                 format_bytes(graph / s.opt.parts) +
                 ") and the product's "
                 "tables; a larger --parts makes smaller tiles, --backend cpu counts in host "
                 "memory";
        return "the GPU backend keeps the graph (" + format_bytes(graph) +
               "), a degree-ordered copy "
               "while it sorts (as much again, and the sort's scratch) and L (" +
               format_bytes(graph / 2) +
               "); --parts N counts in N x N tiles holding about 2/N of "
               "L at a time (e.g. --parts 4), --presort none skips the copy, --backend cpu counts "
               "in host memory";
      });

  clock.lap_ms();
  if (per_vertex_file) {
    std::ostream& f = per_vertex_file->stream();
    for (std::size_t v = 0; v < r.per_vertex.size(); ++v)
      f << g.labels[v] << '\t' << r.per_vertex[v] << '\n';
    per_vertex_file->commit();
  }
  if (lcc_file) {
    const std::vector<double> c = clustering_coefficients(a, r.per_vertex);
    std::ostream& f = lcc_file->stream();
    f << std::setprecision(12);
    for (std::size_t v = 0; v < c.size(); ++v) f << g.labels[v] << '\t' << c[v] << '\n';
    lcc_file->commit();
  }
  const double ms_write = clock.lap_ms();

  out << r.triangles << "\n";
  if (s.common.verbose) print_stages(r, s.opt, ms_read, ms_symmetrise, ms_write, err);
  return 0;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  return apps::run_settings<settings>(cli, argc, argv, out, err, parse, run);
}

}  // namespace opsparse::triangle
