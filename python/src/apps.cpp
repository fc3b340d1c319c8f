// The three apps as functions: the same cores the programs run (opsparse_<app>_core), the
// backend chosen as the programs choose it (--backend auto|cpu|gpu).
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>

#include "common.hpp"
#include "common/backend.hpp"
#include "mcl/core/mcl.hpp"
#include "msbfs/msbfs.hpp"
#include "triangle/triangle.hpp"

namespace opsparse::python {
namespace {

bool use_gpu(const std::string& choice) {
  return apps::resolve_backend(choice) == apps::backend::gpu;
}

/// Runs `work` without the GIL; a Ctrl-C seen by a progress hook becomes KeyboardInterrupt.
template <class F>
auto without_gil(F&& work) {
  try {
    nb::gil_scoped_release nogil;
    return work();
  } catch (const interrupted&) {
    throw nb::python_error();  // the KeyboardInterrupt that PyErr_CheckSignals set
  }
}

mcl::overlap_mode parse_overlap(const std::string& s) {
  if (s == "cut") return mcl::overlap_mode::cut;
  if (s == "keep") return mcl::overlap_mode::keep;
  if (s == "split") return mcl::overlap_mode::split;
  throw std::invalid_argument("overlap must be 'cut', 'keep' or 'split', not '" + s + "'");
}

nb::tuple run_mcl(nb::tuple adjacency, double inflation, int scheme, std::optional<long long> prune,
                  std::optional<long long> select, std::optional<long long> recover,
                  std::optional<int> pct, int max_iter, double chaos_limit, bool discard_loops,
                  double loop_scale, double pre_inflation, const std::string& overlap, int threads,
                  const std::string& precision, const std::string& backend, nb::object progress,
                  std::optional<std::vector<std::string>> labels) {
  mcl::params p;
  if (scheme != 0) mcl::apply_scheme(p, scheme);
  p.inflation = inflation;
  if (prune) p.prune = *prune;
  if (select) p.select = *select;
  if (recover) p.recover = *recover;
  if (pct) p.pct = *pct;
  p.max_iter = max_iter;
  p.chaos_limit = chaos_limit;
  p.discard_loops = discard_loops;
  p.loop_scale = loop_scale;
  p.pre_inflation = pre_inflation;
  p.overlap = parse_overlap(overlap);
  p.threads = threads;
  mcl::validate(p);
  mcl::precision prec;
  if (precision == "float32")
    prec = mcl::precision::float32;
  else if (precision == "float64")
    prec = mcl::precision::float64;
  else
    throw std::invalid_argument("precision must be 'float32' or 'float64', not '" + precision +
                                "'");
  const bool gpu = use_gpu(backend);
  const host_csr<double> adj = to_host<double>(operand_from(adjacency), "graph");
  // Called after every iteration, on this thread: the user's hook, then Python's signals.
  auto hook = [&progress](const mcl::iteration_info& it) {
    nb::gil_scoped_acquire gil;
    if (!progress.is_none()) {
      nb::dict d;
      d["iteration"] = it.iteration;
      d["chaos"] = it.chaos;
      d["nnz"] = it.nnz;
      d["expanded_nnz"] = it.expanded_nnz;
      d["seconds"] = it.seconds;
      try {
        progress(d);
      } catch (nb::python_error& e) {
        e.restore();  // the hook's exception becomes the call's
        throw interrupted{};
      }
    }
    if (PyErr_CheckSignals() != 0) throw interrupted{};
  };
  mcl::cluster_result r = without_gil([&] {
    // The labels named a vertex with a negative weight; the reader refuses those first now
    // (opsparse.mcl reads with nonnegative=True), and start_matrix takes them as mcl does.
    (void)labels;
    const host_csr<double> start = mcl::start_matrix(adj, p);
    return mcl::cluster(start, p, gpu, prec, hook);
  });
  nb::list clusters;
  for (const auto& c : r.result.clusters) {
    std::vector<index_t> members(c.begin(), c.end());
    clusters.append(nb::cast(members));
  }
  return nb::make_tuple(clusters, r.iterations, r.converged, gpu ? "gpu" : "cpu");
}

nb::tuple run_triangles(nb::tuple adjacency, bool per_vertex, const std::string& method,
                        const std::string& presort, const std::string& backend, int threads) {
  triangle::options opt;
  opt.how = triangle::parse_method(method);
  opt.sort = triangle::parse_presort(presort);
  opt.per_vertex = per_vertex;
  const bool gpu = use_gpu(backend);
  const host_csr<double> adj = to_host<double>(operand_from(adjacency), "graph");
  triangle::result r = without_gil([&] {
    const host_csr<pattern> a = triangle::simple_undirected(adj);
    std::unique_ptr<triangle::backend> be;
#if OPSPARSE_HAS_GPU_ENGINE
    if (gpu) be = triangle::make_gpu_backend();
#endif
    if (!be) be = triangle::make_cpu_backend(threads);
    return triangle::count_triangles(*be, a, opt);
  });
  nb::object counts = nb::none();
  if (per_vertex) counts = to_numpy(std::move(r.per_vertex));
  return nb::make_tuple(r.triangles, counts, gpu ? "gpu" : "cpu");
}

nb::tuple run_msbfs(nb::tuple adjacency, const std::vector<index_t>& sources, bool undirected,
                    int max_depth, int batch, const std::string& direction, bool keep_levels,
                    const std::string& backend, int threads, nb::object progress) {
  msbfs::options opt;
  opt.batch = batch;
  opt.max_depth = max_depth;
  opt.keep_levels = keep_levels;
  opt.symmetric = undirected;
  opt.dir = msbfs::parse_direction(direction);
  const bool gpu = use_gpu(backend);
  const host_csr<double> adj = to_host<double>(operand_from(adjacency), "graph");
  for (index_t s : sources)
    if (s < 0 || s >= adj.rows)
      throw std::invalid_argument("source " + std::to_string(s) +
                                  " is not a vertex of a graph of " + std::to_string(adj.rows) +
                                  " vertices");
  struct collected {
    std::vector<msbfs::source_summary> summary;
    host_csr<msbfs::level_t> levels;
  };
  collected out = without_gil([&] {
    const host_csr<pattern> a = msbfs::graph_pattern(adj, undirected);
    std::unique_ptr<msbfs::backend> be;
#if OPSPARSE_HAS_GPU_ENGINE
    if (gpu) be = msbfs::make_gpu_backend();
#endif
    if (!be) be = msbfs::make_cpu_backend(threads);
    collected c;
    c.summary.resize(sources.size());
    c.levels = host_csr<msbfs::level_t>(0, a.cols);
    msbfs::run_batches(*be, a, sources, opt, [&](const msbfs::batch_result& r) {
      std::copy(r.summary.begin(), r.summary.end(), c.summary.begin() + r.first);
      if (keep_levels) {  // batches come in source order: append their rows
        const offset_t base = c.levels.nnz();
        for (index_t i = 0; i < r.levels.rows; ++i)
          c.levels.rpt.push_back(base + r.levels.rpt[i + 1]);
        c.levels.col.insert(c.levels.col.end(), r.levels.col.begin(), r.levels.col.end());
        c.levels.val.insert(c.levels.val.end(), r.levels.val.begin(), r.levels.val.end());
        c.levels.rows += r.levels.rows;
      }
      // After every batch, on this thread: the user's hook, then Python's signals.
      nb::gil_scoped_acquire gil;
      if (!progress.is_none()) {
        nb::dict d;
        d["first"] = r.first;
        d["sources"] = r.summary.size();
        d["depth"] = r.depth;
        try {
          progress(d);
        } catch (nb::python_error& e) {
          e.restore();
          throw interrupted{};
        }
      }
      if (PyErr_CheckSignals() != 0) throw interrupted{};
    });
    return c;
  });
  std::vector<std::int64_t> reached, level_sum;
  std::vector<std::int32_t> ecc;
  for (const auto& s : out.summary) {
    reached.push_back(s.reached);
    level_sum.push_back(s.level_sum);
    ecc.push_back(s.eccentricity);
  }
  nb::object levels = nb::none();
  if (keep_levels) levels = from_host(std::move(out.levels));
  return nb::make_tuple(to_numpy(std::move(reached)), to_numpy(std::move(level_sum)),
                        to_numpy(std::move(ecc)), levels, gpu ? "gpu" : "cpu");
}

}  // namespace

void bind_apps(nb::module_& m) {
  m.def(
      "mcl", &run_mcl, nb::arg("adjacency"), nb::arg("inflation"), nb::arg("scheme"),
      nb::arg("prune").none(), nb::arg("select").none(), nb::arg("recover").none(),
      nb::arg("pct").none(), nb::arg("max_iter"), nb::arg("chaos_limit"), nb::arg("discard_loops"),
      nb::arg("loop_scale"), nb::arg("pre_inflation"), nb::arg("overlap"), nb::arg("threads"),
      nb::arg("precision"), nb::arg("backend"), nb::arg("progress").none(),
      nb::arg("labels").none(),
      "Markov clustering (apps/mcl): (clusters as vertex lists, iterations, converged, backend).");
  m.def("triangles", &run_triangles, nb::arg("adjacency"), nb::arg("per_vertex"), nb::arg("method"),
        nb::arg("presort"), nb::arg("backend"), nb::arg("threads"),
        "Triangle counting (apps/triangle): (count, per-vertex counts or None, backend).");
  m.def("msbfs", &run_msbfs, nb::arg("adjacency"), nb::arg("sources"), nb::arg("undirected"),
        nb::arg("max_depth"), nb::arg("batch"), nb::arg("direction"), nb::arg("keep_levels"),
        nb::arg("backend"), nb::arg("threads"), nb::arg("progress").none(),
        "Multi-source BFS (apps/msbfs): (reached, level sums, eccentricities, levels, backend).");
}

}  // namespace opsparse::python
