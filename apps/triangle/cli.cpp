// opsparse-triangle's command line: reading, backend choice, output files, messages.
#include <boost/program_options.hpp>

#include <chrono>
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
#include "opsparse/error.hpp"
#include "opsparse/io.hpp"
#include "opsparse/output_file.hpp"
#include "triangle/triangle.hpp"

namespace po = boost::program_options;

namespace opsparse::triangle {

namespace {

constexpr const char* program = "opsparse-triangle";

io::file_format parse_format(const std::string& s) {
  if (s == "auto") return io::file_format::automatic;
  if (s == "mtx" || s == "matrix-market") return io::file_format::matrix_market;
  if (s == "edges" || s == "edge-list") return io::file_format::edge_list;
  if (s == "abc") return io::file_format::abc;
  throw std::invalid_argument("--format must be auto, mtx, edges or abc; not '" + s + "'");
}


using opsparse::apps::usage_error;  // apps/common/cli.hpp

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  std::string graph_path, method_s, presort_s, format_s, backend_s, per_vertex_path, lcc_path;
  int threads = 0;
  bool verbose = false, materialize = false, quiet = false;

  po::options_description visible(
      std::string("Usage: ") + program + " [options] GRAPH\n"
      "Counts the triangles of the undirected simple graph on GRAPH's structure as a masked\n"
      "sparse product over the plus_pair semiring, the LAGraph way. Prints the count on stdout.\n"
      "The graph is ALWAYS made undirected (there is no --directed): a line 'u v' (an entry\n"
      "A(u,v)) is the edge {u,v} whichever way it is written, 'u v' and 'v u' are one edge,\n"
      "self-loops and repeated edges are dropped and weights ignored; a triangle is three\n"
      "vertices joined pairwise, counted once. (opsparse-mcl symmetrises too; opsparse-msbfs is\n"
      "directed unless given -u.)\n"
      "GRAPH: Matrix Market (.mtx), ABC (.abc) or a SNAP edge list (anything else).\n\nOptions");
  visible.add_options()
      ("help,h", "show this help and exit")
      ("version", "show the version and exit")
      ("method,m", po::value(&method_s)->default_value("sandia-ll"),
       "sandia-ll (C<L>=L·L), sandia-uu (C<U>=U·U), sandia-lut (C<L>=L·U'), sandia-ult "
       "(C<U>=U·L'), cohen (C<A>=L·U, sum/2), burkhardt (C<A>=A·A, sum/6)")
      ("presort", po::value(&presort_s)->default_value("auto"),
       "degree ordering: auto (LAGraph's rule: Sandia methods, n > 1000, mean degree >= 10 and "
       "> 4 x median), none, ascending, descending")
      ("per-vertex", po::value(&per_vertex_path)->value_name("FILE"),
       "write 'vertex<TAB>triangles through it' per vertex (written under a temporary name "
       "and renamed at the end: a failed run leaves an existing FILE as it was)")
      ("clustering", po::value(&lcc_path)->value_name("FILE"),
       "write 'vertex<TAB>local clustering coefficient' per vertex")
      ("format", po::value(&format_s)->default_value("auto"), "auto, mtx, edges or abc")
      ("backend", po::value(&backend_s)->default_value("auto"), "gpu, cpu or auto")
      ("threads", po::value(&threads)->default_value(0),
       "CPU engine threads (0: OpenMP default; at most the processors available)")
      ("materialize", po::bool_switch(&materialize),
       "form C and then sum it, even when only the count is asked (by default the GPU fuses "
       "the sum into the product and never stores C)")
      ("quiet,q", po::bool_switch(&quiet), "no backend line on stderr")
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
      opt.how = parse_method(method_s);
      opt.sort = parse_presort(presort_s);
      format = parse_format(format_s);
      if (threads < 0) throw usage_error("--threads must be >= 0, not " + std::to_string(threads));
      // An empty file name would silently write nothing.
      if (vm.count("per-vertex") && per_vertex_path.empty())
        throw usage_error("--per-vertex needs a FILE");
      if (vm.count("clustering") && lcc_path.empty()) throw usage_error("--clustering needs a FILE");
      for (const std::string* o : {&per_vertex_path, &lcc_path})
        if (!o->empty() && (*o == graph_path || io::same_file(*o, graph_path)))
          throw usage_error("the output file '" + *o + "' is the input file");
      if (!per_vertex_path.empty() && per_vertex_path == lcc_path)
        throw usage_error("--per-vertex and --clustering name the same file");
      if (verbose && quiet) throw usage_error("-V and -q contradict each other");
      threads = apps::cap_threads(program, "--threads", threads, err);
      which = apps::resolve_backend(backend_s, &why_cpu);
    } catch (const po::error& e) {
      throw usage_error(e.what());
    } catch (const std::invalid_argument& e) {
      throw usage_error(e.what());
    }
    opt.per_vertex = !per_vertex_path.empty() || !lcc_path.empty();
    // The outputs' temporary files first: the count must not end on an unwritable folder.
    std::optional<io::output_file> per_vertex_file, lcc_file;
    if (!per_vertex_path.empty()) per_vertex_file.emplace(per_vertex_path);
    if (!lcc_path.empty()) lcc_file.emplace(lcc_path);
    opt.materialize = materialize;

    const auto t0 = std::chrono::steady_clock::now();
    io::labelled_graph g = io::read_graph(graph_path, format);
    if (g.adj.rows != g.adj.cols)
      throw std::runtime_error(graph_path + ": the matrix is " + std::to_string(g.adj.rows) +
                               " x " + std::to_string(g.adj.cols) +
                               "; a graph needs a square adjacency matrix");
    const auto t1 = std::chrono::steady_clock::now();
    const host_csr<pattern> a = simple_undirected(g.adj);
    g.adj = host_csr<double>();  // the weights are not needed any more
    const auto t2 = std::chrono::steady_clock::now();

    std::unique_ptr<backend> be;
#if OPSPARSE_HAS_GPU_ENGINE
    if (which == apps::backend::gpu) be = make_gpu_backend();
#endif
    if (!be) be = make_cpu_backend(threads);
    if (!quiet)
      apps::report_backend(program, which,
                           which == apps::backend::gpu ? apps::gpu_device_name() : why_cpu, err);
    if (verbose)
      err << program << ": " << graph_path << ": " << a.rows << " vertices, " << a.nnz() / 2
          << " undirected edges, method " << to_string(opt.how) << "\n";

    const result r = count_triangles(*be, a, opt);

    const auto t3 = std::chrono::steady_clock::now();
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
    const auto t4 = std::chrono::steady_clock::now();

    out << r.triangles << "\n";
    if (verbose) {
      auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
      err << std::fixed << std::setprecision(3);
      err << program << ": read           " << std::setw(10) << ms(t1 - t0) << " ms\n";
      err << program << ": symmetrise     " << std::setw(10) << ms(t2 - t1) << " ms\n";
      for (const stage_time& s : r.stages) {
        err << program << ": " << std::left << std::setw(15) << s.stage << std::right
            << std::setw(10) << s.ms << " ms";
        if (!s.note.empty()) err << "  " << s.note;
        err << "\n";
      }
      if (opt.per_vertex) err << program << ": write          " << std::setw(10) << ms(t4 - t3) << " ms\n";
      err << program << ": presort " << to_string(r.sorted) << ", " << r.triangles
          << " triangles\n";
      err.unsetf(std::ios::floatfield);
    }
    return 0;
  } catch (const usage_error& e) {
    err << program << ": " << e.what() << "\n" << "Try '" << program << " --help'.\n";
    return 2;
  } catch (const parse_error& e) {
    // what() already names the file and the line.
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

}  // namespace opsparse::triangle
