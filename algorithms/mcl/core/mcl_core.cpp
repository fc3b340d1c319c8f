// Host parts of apps/mcl: the iteration loop (mcl_iteration.hpp) and the single process's run
// over a backend, the expansion's row blocks, the output of the clusters and the convenience
// functions (backend, run, interpretation). The parameters are in mcl_params.cpp, the input
// transformation in mcl_start.cpp, the interpretation in mcl_interpret.cpp.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <numeric>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <omp.h>

#include "mcl.hpp"
#include "mcl_checkpoint.hpp"
#include "mcl_detail.hpp"
#include "mcl_iteration.hpp"
#include "mcl_memory_plan.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/io.hpp"

namespace opsparse::mcl {

using detail::mcl_float;

// ------------------------------------------------------------------------------------------------
// The iteration (mcl's mclProcess / doIteration)
// ------------------------------------------------------------------------------------------------

namespace detail {

iteration_outcome iterate(const params& p, int first, const iteration_hooks& h) {
  using clock = std::chrono::steady_clock;
  iteration_outcome o;
  o.iterations = first - 1;
  // mcl's initial loop (-l, at -i, no convergence test), then its main loop (-L, at -I).
  const int last = p.initial_loop + p.max_iter;
  for (int it = first; it <= last; ++it) {
    const auto t = clock::now();
    const double inflation = inflation_at(p.initial_inflation, p.initial_loop, p.inflation, it);
    // mcl measures chaos during expansion but tests it after the iteration's inflation, so the
    // limit it interprets has been inflated once more.
    const double chaos = h.step(it, inflation);
    if (it > inflation_bump_after && h.note) {
      char line[160];
      std::snprintf(line, sizeof line,
                    "inflation bumped to %.4f (no convergence after %d iterations: mcl raises it "
                    "by 0.1%% each iteration from the %dth)",
                    inflation, it - 1, inflation_bump_after);
      h.note(line);
    }
    o.iterations = it;
    const double seconds = std::chrono::duration<double>(clock::now() - t).count();
    if (h.done) h.done(it, chaos, seconds);
    if (it > p.initial_loop && chaos < p.chaos_limit) {
      o.converged = true;
      break;
    }
    const bool stop = h.stop && h.stop();
    const bool save = h.save && it < last && (stop || seconds >= h.checkpoint_seconds);
    if (save) h.save(it);
    if (stop) throw run_interrupted(it, save);
  }
  return o;
}

}  // namespace detail

namespace {

/// The iterate after `iteration` written to the run's checkpoint folder.
template <class T>
void save_checkpoint(backend<T>& b, int iteration, const run_options& o) {
  checkpoint::state<T> st;
  st.iteration = iteration;
  st.iterate = b.snapshot(st.rows_sorted);
  checkpoint::write(o.checkpoint_dir, o.fingerprint, st);
  if (o.note)
    o.note("checkpoint after iteration " + std::to_string(iteration) + " written to " +
           checkpoint::file_in(o.checkpoint_dir));
}

/// `m` with its values in double and its rows sorted by column (a backend may hold them in any
/// order).
template <class T>
host_csr<double> sorted_in_double(const host_csr<T>& m) {
  host_csr<double> out(m.rows, m.cols);
  out.rpt = m.rpt;
  out.col = m.col;
  out.val.assign(m.val.begin(), m.val.end());
  std::vector<std::pair<index_t, double>> row;
  for (index_t i = 0; i < out.rows; ++i) {
    const auto first = out.col.begin() + out.rpt[i], last = out.col.begin() + out.rpt[i + 1];
    if (std::is_sorted(first, last)) continue;
    row.clear();
    for (offset_t k = out.rpt[i]; k < out.rpt[i + 1]; ++k) row.emplace_back(out.col[k], out.val[k]);
    std::sort(row.begin(), row.end());
    offset_t k = out.rpt[i];
    for (const auto& [c, v] : row) out.col[k] = c, out.val[k++] = v;
  }
  return out;
}

/// The current iterand to run_options::on_iterand, when wanted.
template <class T>
void show_iterand(backend<T>& b, int it, bool inflated, const run_options& o) {
  if (!o.on_iterand || !(o.wants_iterand && o.wants_iterand(it, inflated))) return;
  bool rows_sorted = true;
  // snapshot(), not download(): the GPU's download sorts its rows in place, which could change
  // the order of the sums that follow.
  o.on_iterand(it, inflated, sorted_in_double(b.snapshot(rows_sorted)));
}

/// run() with the start matrix loaded by `load` (timed with the iterations, as the upload is),
/// or the iterate of a checkpoint (options.resume_dir) restored in its place.
template <class T>
run_result<T> run_loading(backend<T>& b, const std::function<void()>& load, const params& p,
                          const std::function<void(const iteration_info&)>& progress,
                          const run_options& options) {
  validate(p);
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  int first = 1;
  if (!options.resume_dir.empty()) {
    checkpoint::state<T> st = checkpoint::read<T>(options.resume_dir, options.fingerprint);
    b.restore(st.iterate, st.rows_sorted);
    first = st.iteration + 1;
    if (options.note)
      options.note("resumed from " + checkpoint::file_in(options.resume_dir) + " after iteration " +
                   std::to_string(st.iteration));
  } else {
    load();
  }
  const prune_rule rule = p.rule();
  b.set_prune_rule(rule);
  int blocks_run = 0;
  detail::iteration_hooks h;
  h.step = [&](int it, double inflation) {
    const std::vector<index_t> blocks = b.expansion_blocks(p.block_products);
    for (std::size_t k = 0; k + 1 < blocks.size(); ++k) {
      b.expand(blocks[k], blocks[k + 1]);
      b.prune_normalise(rule);
    }
    b.finish_expansion();
    blocks_run = blocks.empty() ? 0 : static_cast<int>(blocks.size() - 1);
    const double chaos = b.chaos();
    show_iterand(b, it, false, options);
    b.inflate_normalise(inflation);
    show_iterand(b, it, true, options);
    return chaos;
  };
  if (progress)
    h.done = [&](int it, double chaos, double seconds) {
      iteration_info info;
      info.iteration = it;
      info.chaos = chaos;
      info.expanded_nnz = b.expanded_nnz();
      info.nnz = b.nnz();
      info.blocks = blocks_run;
      info.seconds = seconds;
      info.stats = b.stats();
      progress(info);
    };
  h.note = options.note;
  if (options.stop) h.stop = [&options] { return options.stop->load(); };
  if (!options.checkpoint_dir.empty()) h.save = [&](int it) { save_checkpoint(b, it, options); };
  h.checkpoint_seconds = options.checkpoint_seconds;
  const detail::iteration_outcome o = detail::iterate(p, first, h);
  run_result<T> r;
  r.iterations = o.iterations;
  r.converged = o.converged;
  r.limit = b.download();
  r.seconds = std::chrono::duration<double>(clock::now() - t0).count();
  r.stats = b.stats();
  return r;
}

/// The start matrix in the cell type T: `start` itself for double (no copy), else a copy in
/// `converted` with its values converted on `threads` threads (convert() took 0.2 s on one
/// thread for 44 million entries).
template <class T>
const host_csr<T>& in_cell_type(const host_csr<double>& start, host_csr<T>& converted,
                                int threads) {
  if constexpr (std::is_same_v<T, double>) {
    return start;
  } else {
    converted.rows = start.rows;
    converted.cols = start.cols;
    converted.rpt = start.rpt;
    converted.col = start.col;
    converted.val.resize(start.val.size());
    const long long nnz = static_cast<long long>(start.val.size());
    if (threads <= 0) threads = omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && nnz >= (1 << 16))
    for (long long k = 0; k < nnz; ++k) converted.val[k] = static_cast<T>(start.val[k]);
    return converted;
  }
}

}  // namespace

template <class T>
run_result<T> run(backend<T>& b, const host_csr<T>& start, const params& p,
                  const std::function<void(const iteration_info&)>& progress,
                  const run_options& options) {
  return run_loading(
      b, [&] { b.load(start); }, p, progress, options);
}

template <class T>
void backend<T>::load_cells(const host_csr<double>& start, int threads) {
  host_csr<T> converted;
  load(in_cell_type<T>(start, converted, threads));
}

template class backend<float>;
template class backend<double>;
template run_result<float> run<float>(backend<float>&, const host_csr<float>&, const params&,
                                      const std::function<void(const iteration_info&)>&,
                                      const run_options&);
template run_result<double> run<double>(backend<double>&, const host_csr<double>&, const params&,
                                        const std::function<void(const iteration_info&)>&,
                                        const run_options&);

void write_clusters(std::ostream& os, const clustering& c, const std::vector<std::string>& labels) {
  io::write_labelled_groups(os, c.clusters, labels);
}

// ------------------------------------------------------------------------------------------------
// Convenience
// ------------------------------------------------------------------------------------------------

#if OPSPARSE_HAS_GPU_ENGINE
gpu_backend_options gpu_options_from_environment() {
  // OPSPARSE_MCL_FUSED=0 or 1 overrides the automatic choice of the fused expansion (for the
  // benchmark's ablation; the results are the same).
  gpu_backend_options o;
  if (const char* f = std::getenv("OPSPARSE_MCL_FUSED")) {
    if (std::string(f) == "0") o.fused = fused_expansion::never;
    if (std::string(f) == "1") o.fused = fused_expansion::always;
  }
  // OPSPARSE_MCL_FUSED_WINDOW=N caps the fused expansion's windows at N columns (a diagnostic:
  // it reproduces a larger network's windows a row on a smaller one).
  if (const char* w = std::getenv("OPSPARSE_MCL_FUSED_WINDOW")) o.fused_max_window = std::atoi(w);
  // OPSPARSE_MCL_LANE_WALK=1: the fused windows' lanes walk their own cursors (the
  // benchmark's A/B for wide networks; the results are the same).
  if (const char* l = std::getenv("OPSPARSE_MCL_LANE_WALK"))
    o.fused_lane_walk = std::string(l) == "1";
  return o;
}
#endif

namespace {

template <class T>
std::unique_ptr<backend<T>> make_backend(const host_csr<double>& start, const params& p, bool gpu,
                                         std::size_t memory_budget) {
  if (gpu) {
    if (has_negative_values(start))
      throw std::invalid_argument(
          "the graph has negative weights, which only the CPU backend clusters as mcl does "
          "(--backend cpu or auto)");
#if OPSPARSE_HAS_GPU_ENGINE
    gpu_backend_options o = gpu_options_from_environment();
    o.memory_budget = memory_budget;
    return make_gpu_backend<T>(-1, o);
#else
    throw std::runtime_error("this build has no GPU engine (configured with -DOPSPARSE_GPU=OFF)");
#endif
  }
  return make_cpu_backend<T>(p.threads, std::size_t(1) << 30, memory_budget);
}

/// The memory plan for `b` (passed to options.on_plan); a plan that fits nothing throws.
template <class T>
void check_memory_plan(const backend<T>& b, const host_csr<double>& start, const params& p,
                       const run_options& options) {
  std::vector<offset_t> first;
  if (b.device_budget() > 0) first = cpu::row_products(start, start);
  const memory_plan plan =
      plan_memory(start, p, sizeof(T), first, b.device_budget(), host_available_bytes());
  if (options.on_plan) options.on_plan(plan);
  if (plan.placement == planned_placement::refused)
    throw std::runtime_error("the network does not fit: " + plan.reason);
}

/// Runs `b` on `start` with `p` and interprets the limit; `release` (may be empty) is waited
/// for after the interpretation and its wait reported.
template <class T>
cluster_result run_and_interpret(backend<T>& b, const host_csr<double>& start, const params& p,
                                 const std::function<void(const iteration_info&)>& progress,
                                 const run_options& options,
                                 const std::function<void()>& release = {}) {
  using clock = std::chrono::steady_clock;
  const auto since = [](clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  };
  run_result<T> r = run_loading(
      b, [&] { b.load_cells(start, p.threads); }, p, progress, options);
  if (options.on_limit) options.on_limit(sorted_in_double(r.limit));
  // The backend is released on another thread while the limit is interpreted here: a GPU
  // backend returns tens of GB with one cudaFree per array, ~1.4 ms per 4 GB on an H200.
  auto released = std::async(std::launch::async, [&release] {
    if (release) release();
  });
  cluster_result out;
  auto t = clock::now();
  out.result = interpret(r.limit, p.overlap, p.threads);
  out.interpret_seconds = since(t);
  t = clock::now();
  released.get();
  out.release_wait_seconds = since(t);
  out.iterations = r.iterations;
  out.converged = r.converged;
  out.seconds = r.seconds;
  out.stats = r.stats;
  return out;
}

template <class T>
cluster_result cluster_as(const host_csr<double>& start, const params& p, bool gpu,
                          const std::function<void(const iteration_info&)>& progress,
                          const run_options& options) {
  const auto t = std::chrono::steady_clock::now();
  std::unique_ptr<backend<T>> b = make_backend<T>(start, p, gpu, options.memory_budget);
  const double backend_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  check_memory_plan(*b, start, p, options);
  cluster_result out = run_and_interpret<T>(*b, start, p, progress, options, [&b] { b.reset(); });
  out.backend_seconds = backend_seconds;
  return out;
}

template <class T>
void sweep_as(const host_csr<double>& start, const params& p, const std::vector<double>& inflations,
              bool gpu, const std::function<void(const iteration_info&)>& progress,
              const std::function<void(std::size_t, const cluster_result&)>& done,
              std::size_t memory_budget) {
  // Each inflation loads the start matrix anew (the GPU converts it on the device).
  std::unique_ptr<backend<T>> b = make_backend<T>(start, p, gpu, memory_budget);
  run_options options;
  options.memory_budget = memory_budget;
  check_memory_plan(*b, start, p, options);
  for (std::size_t k = 0; k < inflations.size(); ++k) {
    params pk = p;
    pk.inflation = inflations[k];
    validate(pk);
    done(k, run_and_interpret<T>(*b, start, pk, progress, options));
  }
}

}  // namespace

bool has_negative_values(const host_csr<double>& start) {
  return std::any_of(start.val.begin(), start.val.end(), [](double v) { return !(v >= 0); });
}

cluster_result cluster(const host_csr<double>& start, const params& p, bool gpu, precision prec,
                       const std::function<void(const iteration_info&)>& progress,
                       const run_options& options) {
  return prec == precision::float32 ? cluster_as<float>(start, p, gpu, progress, options)
                                    : cluster_as<double>(start, p, gpu, progress, options);
}

void cluster_sweep(const host_csr<double>& start, const params& p,
                   const std::vector<double>& inflations, bool gpu, precision prec,
                   const std::function<void(const iteration_info&)>& progress,
                   const std::function<void(std::size_t, const cluster_result&)>& done,
                   std::size_t memory_budget) {
  if (prec == precision::float32)
    sweep_as<float>(start, p, inflations, gpu, progress, done, memory_budget);
  else
    sweep_as<double>(start, p, inflations, gpu, progress, done, memory_budget);
}

}  // namespace opsparse::mcl
