// opsparse-mcl's run: the input read while the backend is decided, the start matrix, the
// iterations (one clustering or an inflation sweep), the output as mcl writes it, the reports.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "core/clm.hpp"
#include "core/mcl_checkpoint.hpp"
#include "core/mcl_memory_plan.hpp"
#include "common/backend.hpp"
#include "common/cli.hpp"
#include "common/options.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/io.hpp"
#include "opsparse/io_mcl_native.hpp"
#include "opsparse/output_file.hpp"

namespace opsparse::mcl {

namespace {

constexpr const char* prog = program_name;

// --backend auto: networks whose first expansion has fewer products than this run on the CPU.
// Measured on an H100 with 16 cores (docs/benchmarks.md): the GPU's start alone takes 0.29-0.44 s,
// while 16 CPU threads cluster the PPI networks of up to 7k edges (at most 0.54M products in
// the first expansion) in 0.01-0.06 s; the 32k-edge human network (5.2M) is faster on the GPU.
constexpr long long auto_cpu_products = 2000000;
/// Files up to this size are read before CUDA is started, to decide (at most ~0.1 s of reading).
constexpr std::uintmax_t auto_defer_bytes = std::uintmax_t(16) << 20;

std::string mib(std::size_t bytes) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1024.0 * 1024.0)
     << " MiB";
  return os.str();
}

/// The backend's decision: made on a background thread while the file is read (with the GPU's
/// context), on one hardware queue, which halves the context's creation and teardown
/// (apps::prefer_one_connection). Except for --backend auto on a small file with a driver
/// installed: the network may be so small that the CPU finishes before the GPU would have
/// started (see auto_cpu_products), so it is read first and CUDA is started only if the GPU is
/// to be used.
class backend_decision {
 public:
  explicit backend_decision(const cli_settings& s) : choice_(s.common.backend) {
    apps::prefer_one_connection();
    std::error_code size_error;
    defer_ = choice_ == "auto" && s.input != "-" &&
             std::filesystem::is_regular_file(s.path, size_error) &&
             std::filesystem::file_size(s.path, size_error) <= auto_defer_bytes && !size_error &&
             apps::driver_installed();
    if (!defer_) probe_.emplace(choice_);
  }

  /// The backend for the start matrix `start`; why the CPU, or the GPU's name, in `detail`.
  apps::backend get(const host_csr<double>& start, std::string& why_cpu) {
    if (has_negative_values(start)) {  // the CPU's, whatever the probe says (see mcl.hpp)
      // NaN: infinite weights (past float's range) that mcl divides by their infinite sums.
      const bool nan =
          std::any_of(start.val.begin(), start.val.end(), [](double v) { return std::isnan(v); });
      const std::string what =
          nan ? "NaN values (from weights past float's range)" : "negative weights";
      if (choice_ == "gpu")
        throw std::invalid_argument("--backend gpu: the graph has " + what +
                                    ", which only the CPU backend clusters as mcl does "
                                    "(--backend cpu or auto)");
      why_cpu = what + ", which the CPU backend clusters as mcl does";
      return apps::backend::cpu;
    }
    if (defer_) {
      const std::vector<offset_t> per_row = cpu::row_products(start, start);
      const long long products = std::accumulate(per_row.begin(), per_row.end(), 0ll);
      if (products < auto_cpu_products)
        why_cpu = "a small network: " + std::to_string(products) +
                  " products in the first expansion, under " + std::to_string(auto_cpu_products) +
                  ", where the CPU finishes before the GPU has started; --backend gpu to use it";
      else
        probe_.emplace(choice_);
    }
    return probe_ ? probe_->get(&why_cpu) : apps::backend::cpu;
  }

  const std::string& device_name() const { return probe_->device_name(); }

 private:
  std::string choice_;
  bool defer_ = false;
  std::optional<apps::backend_probe> probe_;
};

/// The run's options: the budget, checkpoints (with the stop handlers) and what they report.
run_options make_run_options(const cli_settings& s, const host_csr<double>& start,
                             std::ostream& err) {
  run_options o;
  o.memory_budget = s.memory_budget;
  o.checkpoint_dir = s.checkpoint_dir;
  o.checkpoint_seconds = s.checkpoint_seconds;
  o.resume_dir = s.resume_dir;
  if (!s.checkpoint_dir.empty() || !s.resume_dir.empty())
    o.fingerprint = checkpoint::fingerprint(start, s.p, s.prec, s.p.threads);
  if (!s.checkpoint_dir.empty()) o.stop = install_stop_handlers();
  if (!s.common.quiet)
    o.note = [&err](const std::string& line) { err << "[" << prog << "] " << line << "\n"; };
  if (s.common.verbose)
    o.on_plan = [&err](const memory_plan& plan) {
      for (const std::string& line : describe(plan)) err << "[" << prog << "] " << line << "\n";
    };
  return o;
}

/// One progress line per iteration (more with --verbose).
void print_iteration(const iteration_info& it, bool verbose, std::ostream& err) {
  std::ostringstream os;
  os << "[" << prog << "] ite " << std::setw(3) << it.iteration << "  chaos " << std::fixed
     << std::setprecision(it.chaos < 0.01 ? 6 : 4) << it.chaos << "  nnz " << it.nnz;
  if (verbose) {
    os << "  expanded " << it.expanded_nnz;
    if (it.blocks != 1) os << " in " << it.blocks << " blocks";
    if (it.stats.streamed) os << " (next iterate streamed through host memory)";
    os << "  time " << std::setprecision(3) << it.seconds << "s";
    if (it.stats.device_allocations >= 0)
      os << "  device allocations " << it.stats.device_allocations << "  device memory "
         << mib(it.stats.current_device_bytes);
    if (it.stats.expand_ms >= 0 && it.stats.fused)
      os << "  gpu ms: expand+prune (fused) " << std::setprecision(2) << it.stats.expand_ms << " ("
         << it.stats.products << " products), gather " << it.stats.prune_ms;
    else if (it.stats.expand_ms >= 0)
      os << "  gpu ms: expand " << std::setprecision(2) << it.stats.expand_ms << " ("
         << it.stats.products << " products; symbolic " << it.stats.symbolic_ms << ", numeric "
         << it.stats.numeric_ms << "), prune " << it.stats.prune_ms << " + sort "
         << it.stats.sort_ms;
  }
  err << os.str() << "\n";
}

/// What every clustering of a run needs.
struct run_context {
  const cli_settings& s;
  const input_graph& in;
  const host_csr<double>& start;
  bool gpu;
  std::vector<std::unique_ptr<io::output_file>>& out_files;
  std::function<void(const iteration_info&)> progress;
  std::ostream& err;
};

/// --inflations: one output per inflation and a table of clm info's measures.
int run_sweep(const run_context& c) {
  const cli_settings& s = c.s;
  // clm info's measures of each clustering over the graph as clustered (mirrored unless native).
  const host_csr<double>& measured = c.in.g.adj;
  std::ostringstream table;
  table << "[" << prog
        << "] inflation  clusters  iterations  seconds  mass-fraction  area-fraction\n";
  cluster_sweep(
      c.start, s.p, s.inflations, c.gpu, s.prec, c.progress,
      [&](std::size_t k, const cluster_result& rk) {
        clustering cl = rk.result;
        if (s.sort_mode != "revsize") sort_clusters(cl, s.sort_mode);
        force_connected(cl, s, c.in, c.start, s.out_names[k], c.err);
        write_and_commit(*c.out_files[k], [&](std::ostream& os) {
          write_clustering(os, cl, s, c.in, c.start.rows, c.err);
          if (s.analyze) write_analysis(os, cl, s, c.start, s.out_names[k]);
        });
        clm::partition part;
        part.nodes = c.start.rows;
        part.clusters = cl.clusters;
        // (no fractions for overlapping clusters, which are no partition)
        double mass = NAN, area = NAN;
        if (cl.overlap == 0 || s.p.overlap != overlap_mode::keep) {
          const clm::info info = clm::measure(measured, part);
          mass = info.mass_fraction;
          area = info.area_fraction;
        }
        char row[160];
        std::snprintf(row, sizeof row, "%9g  %8zu  %10d  %7.3f  %13.4f  %13.6f", s.inflations[k],
                      cl.clusters.size(), rk.iterations, rk.seconds, mass, area);
        table << "[" << prog << "] " << row << "\n";
        if (!s.common.quiet)
          c.err << "[" << prog << "] -I " << s.inflations[k] << ": " << cl.clusters.size()
                << " clusters, output is in " << s.out_names[k] << "\n";
      },
      s.memory_budget);
  if (!s.common.quiet) c.err << table.str();
  return 0;
}

/// The seconds of each stage for --verbose: what is not iterating is what a user waits for in
/// vain.
struct stage_seconds {
  double read = 0, start = 0, warmup = 0, cluster = 0, output = 0;
  std::uintmax_t input_bytes = 0;  ///< the input file's size (0: not a regular file)
};

/// " (N MB at G GB/s)" for the read stage, or "" when the input is not a regular file.
std::string read_rate(const stage_seconds& t) {
  if (t.input_bytes == 0 || t.read <= 0) return "";
  char buf[96];
  std::snprintf(buf, sizeof buf, " (%.1f MB at %.2f GB/s)",
                static_cast<double>(t.input_bytes) / 1e6,
                static_cast<double>(t.input_bytes) / 1e9 / t.read);
  return buf;
}

/// The lines after one clustering: overlap, unclaimed nodes, convergence, the count, the output
/// and (--verbose) the stages.
void report_clustering(const cli_settings& s, const cluster_result& r, const stage_seconds& t,
                       std::ostream& err) {
  report_outcome(s, r.result, r.iterations, r.converged, err);
  err << "[" << prog << "] " << r.result.clusters.size() << " clusters found";
  if (s.common.verbose) {
    err << " (" << r.result.attractors << " attractors) in " << r.iterations << " iterations, "
        << std::fixed << std::setprecision(3) << r.seconds << "s";
    if (r.stats.device_allocations >= 0)
      err << "; " << r.stats.device << ": peak device memory " << mib(r.stats.peak_device_bytes)
          << ", " << r.stats.device_allocations << " device allocations in total";
    if (!r.stats.peak_device_breakdown.empty())
      err << "\n[" << prog << "] peak device memory " << r.stats.peak_device_breakdown;
  }
  err << "\n[" << prog << "] output is in " << s.out_names.front() << "\n";
  if (s.common.verbose) {
    // "device start": the wait for the GPU's context beyond the read; "iterations":
    // r.seconds (upload, iterations, download); "interpretation": the rest of cluster()
    // (the start matrix in the cell type, the backend made and freed, the interpretation).
    err << "[" << prog << "] stages: read " << std::fixed << std::setprecision(3) << t.read << "s"
        << read_rate(t) << ", start matrix " << t.start << "s, device start " << t.warmup
        << "s, iterations " << r.seconds << "s, interpretation " << t.cluster - r.seconds
        << "s (backend " << r.backend_seconds << "s, interpret " << r.interpret_seconds
        << "s, then waiting for the backend's release " << r.release_wait_seconds << "s), output "
        << t.output << "s\n";
  }
}

void print_start(const cli_settings& s, const host_csr<double>& start, apps::backend chosen,
                 const std::string& why_cpu, std::ostream& err) {
  const params& p = s.p;
  err << "[" << prog << "] " << s.input << ": " << start.rows << " nodes, " << start.nnz()
      << " entries with loops; backend " << apps::to_string(chosen)
      << (chosen == apps::backend::gpu ? "" : " (" + why_cpu + ")") << ", "
      << (s.prec == precision::float32 ? "float" : "double") << "; -I " << p.inflation << " -P "
      << p.prune << " -S " << p.select << " -R " << p.recover << " -pct " << p.pct << "\n";
}

}  // namespace

namespace {
// SIGINT, SIGTERM and SIGUSR1 while checkpointing: the first asks the run to stop after the
// running iteration (its checkpoint written); a second one is handled as before (the output
// files' handler removes their temporary files and ends the program).
std::atomic<bool> stop_requested{false};
volatile std::sig_atomic_t stop_signal_seen = 0;
struct sigaction previous_int {
}, previous_term{}, previous_usr1{};

extern "C" void request_stop(int sig) {
  if (stop_requested.load()) {
    ::sigaction(SIGINT, &previous_int, nullptr);
    ::sigaction(SIGTERM, &previous_term, nullptr);
    ::sigaction(SIGUSR1, &previous_usr1, nullptr);
    std::raise(sig);
    return;
  }
  stop_signal_seen = sig;
  stop_requested.store(true);
}
}  // namespace

const std::atomic<bool>* install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = request_stop;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &previous_int);
  ::sigaction(SIGTERM, &sa, &previous_term);
  ::sigaction(SIGUSR1, &sa, &previous_usr1);
  return &stop_requested;
}

int stop_signal() { return static_cast<int>(stop_signal_seen); }

/// Reads the input as mcl does, then -write-graph and -tf. mcl clusters a native matrix as it
/// is, directed or not, and mirrors everything else: the reader mirrors as it assembles the rows
/// (no directed copy to mirror afterwards), so that start_matrix gets the graph ready.
io::read_options abc_read_options(const cli_settings& s) {
  // Negative weights are read and clustered as mcl clusters them (start_matrix, the CPU backend).
  io::read_options read_opts;
  // Every weight as mcl reads an ABC file's: NaN, infinity and anything above FLT_MAX (1e300) are
  // 1, then --abc-neg-log10 and -abc-tf, and the result is a float cell (-1e300 is -infinity, 1e-50
  // an entry of 0).
  read_opts.nonfinite_weights = true;
  read_opts.drop_zero_weights = true;  // mcl stores no weight of 0: a duplicate's -2 stays
  read_opts.weight_transform = [&tf = s.stream_tf, base = s.neg_log_base](double w) {
    w = abc_weight(w);
    if (base > 0) w = neg_log_weight(w, base);
    return tf.empty() ? float_entry(w) : tf(w);
  };
  read_opts.symmetrize = true;
  return read_opts;
}

input_graph read_input(const cli_settings& s) {
  input_graph in;
  io::read_options read_opts = abc_read_options(s);
  in.native = s.format == io::file_format::mcl_native;
  // Matrix Market's reader has no weight_transform: its values are taken as above before they are
  // mirrored (the larger of 1e300 and 5 is 5 once 1e300 is 1).
  const bool matrix_market = s.format == io::file_format::matrix_market ||
                             (s.format == io::file_format::automatic && s.path.size() > 4 &&
                              (s.path.compare(s.path.size() - 4, 4, ".mtx") == 0 ||
                               s.path.compare(s.path.size() - 4, 4, ".MTX") == 0));
  read_opts.symmetrize = !in.native && !matrix_market;
  read_opts.allow_no_nodes = in.native;  // mcl clusters a 0x0 matrix into nothing
  in.g =
      io::read_graph(s.path, matrix_market ? io::file_format::matrix_market : s.format, read_opts);
  if (matrix_market) {
    host_csr<double>& a = in.g.adj;
    offset_t kept = 0;  // weights of 0 are no entries (as drop_zero_weights above)
    for (index_t i = 0; i < a.rows; ++i) {
      const offset_t b = a.rpt[i], e = a.rpt[i + 1];
      a.rpt[i] = kept;
      for (offset_t k = b; k < e; ++k)
        if (a.val[k] != 0) {
          a.col[kept] = a.col[k];
          a.val[kept++] = float_entry(abc_weight(a.val[k]));
        }
    }
    a.rpt[a.rows] = kept;
    a.col.resize(static_cast<std::size_t>(kept));
    a.val.resize(static_cast<std::size_t>(kept));
    a = io::symmetrize_max(a);
  } else if (in.native) {
    // mcl reads a native matrix's values as floats: 1e300 is infinity there.
    for (double& v : in.g.adj.val) v = float_entry(v);
  }
  // A native matrix's labels are its domain's indices: kept as numbers for the output.
  if (in.native) {
    in.node_ids.reserve(in.g.labels.size());
    for (std::size_t i = 0; i < in.g.labels.size(); ++i) {
      in.node_ids.push_back(std::stoll(in.g.labels[i]));
      in.canonical_ids = in.canonical_ids && in.node_ids.back() == static_cast<std::int64_t>(i);
    }
  }
  // mcl's order: the graph as read (mirrored for ABC and the like) for -write-graph, then -tf.
  if (!s.write_graph.empty()) {
    // Zero weights are no edges (mcl does not load them); negative ones are written too.
    host_csr<double> nz(in.g.adj.rows, in.g.adj.cols);
    for (index_t i = 0; i < in.g.adj.rows; ++i) {
      for (offset_t k = in.g.adj.rpt[i]; k < in.g.adj.rpt[i + 1]; ++k)
        if (in.g.adj.val[k] != 0) {
          nz.col.push_back(in.g.adj.col[k]);
          nz.val.push_back(in.g.adj.val[k]);
        }
      nz.rpt[i + 1] = static_cast<offset_t>(nz.col.size());
    }
    io::output_file graph_file(s.write_graph);
    const bool ids = in.native && !in.canonical_ids;
    write_and_commit(graph_file, [&](std::ostream& os) {
      io::write_mcl_native(os, nz, ids ? &in.node_ids : nullptr, ids ? &in.node_ids : nullptr);
    });
  }
  // mcl's order: the input's loops removed (with the entries that are 0 as floats, 1e-50, in their
  // columns), then -tf. Other such entries stay entries of value 0 in mcl's matrices, as here: they
  // do not count as edges (a node with no others gets a loop of 1), but they take part in the
  // expansion (0 times NaN is NaN). floor(1) makes one 1, while a weight written as 0 is no entry
  // at all.
  if (s.p.discard_loops) drop_loops_as_mcl(in.g.adj);
  if (!s.matrix_tf.empty()) s.matrix_tf.apply(in.g.adj);
  return in;
}

/// A clustering as mcl writes it: a native cluster matrix after the command line for a native
/// input without a tab file, else one line of labels per cluster.
void write_clustering(std::ostream& os, const clustering& c, const cli_settings& s,
                      const input_graph& in, index_t nodes, std::ostream& err) {
  if (in.native && s.tab_file.empty()) {
    write_native_clusters(os, c, nodes, command_line_comment(s.prog, s.argc, s.argv),
                          in.canonical_ids ? nullptr : &in.node_ids);
  } else if (in.native) {
    const io::mcl_tab tab = io::read_mcl_tab(s.tab_file);
    std::vector<std::string> labels;
    labels.reserve(in.node_ids.size());
    for (std::int64_t id : in.node_ids) labels.push_back(tab.label(id));
    write_clusters(os, c, labels);
  } else {
    if (!s.tab_file.empty() && !s.common.quiet)
      err << "[" << s.prog
          << "] -use-tab is for a native matrix; the input's own labels "
             "are written\n";
    write_clusters(os, c, in.g.labels);
  }
}

/// -force-connected y: the clusters split into their connected parts in the start matrix (the
/// graph as clustered), as mcl does after its -sort; when that splits one, the clustering before
/// the split goes to `out_name`-rags first, a native cluster matrix without the command line, as
/// mcl's mclxaWrite writes it (for label output too; "--rags" for -o -).
void force_connected(clustering& c, const cli_settings& s, const input_graph& in,
                     const host_csr<double>& start, const std::string& out_name,
                     std::ostream& err) {
  if (!s.force_connected) return;
  const clustering before = c;
  if (!split_disconnected(c, start)) {
    if (s.common.verbose) err << "[" << s.prog << "] clustering induces connected components\n";
    return;
  }
  const std::string rags_name = out_name + "-rags";
  io::output_file rags(rags_name);
  write_and_commit(rags, [&](std::ostream& os) {
    write_native_clusters(os, before, start.rows, std::string(),
                          in.canonical_ids ? nullptr : &in.node_ids);
  });
  if (!s.common.quiet)
    err << "[" << s.prog << "] -force-connected: splitting yields an additional "
        << c.clusters.size() - before.clusters.size() << " clusters at a total of "
        << c.clusters.size() << "; the clustering before the split is in " << rags_name << "\n";
}

void report_outcome(const cli_settings& s, const clustering& c, int iterations, bool converged,
                    std::ostream& err) {
  if (c.overlap)
    err << "[" << s.prog << "] "
        << (s.p.overlap == overlap_mode::cut    ? "cut"
            : s.p.overlap == overlap_mode::keep ? "kept"
                                                : "split")
        << " <" << c.overlap << "> instances of overlap\n";
  if (c.missing)
    err << "[" << s.prog << "] collected <" << c.missing
        << "> nodes that no cluster claimed into one cluster\n";
  if (!converged)
    err << "[" << s.prog << "] warning: no convergence after " << iterations
        << " iterations (--max-iter); the last iterate was interpreted\n";
}

int run_clustering(cli_settings& s, const char*& stage, std::ostream& err) {
  // The output's temporary file is made first, beside it: a run of hours must not end on an
  // unwritable folder. The target itself is only replaced once every cluster is written.
  std::vector<std::unique_ptr<io::output_file>> out_files;
  for (const std::string& name : s.out_names)
    out_files.push_back(std::make_unique<io::output_file>(name));
  backend_decision decision(s);
  // A tab file is read (and a malformed one refused) before the clustering, as mcl does; it is
  // read again for the output.
  if (!s.tab_file.empty()) (void)io::read_mcl_tab(s.tab_file);

  apps::stopwatch clock;
  stage_seconds t;
  stage = "reading the input";
  const input_graph in = read_input(s);
  t.read = clock.lap_s();
  {
    std::error_code ec;
    if (std::filesystem::is_regular_file(s.input, ec))
      t.input_bytes = std::filesystem::file_size(s.input, ec);
    if (ec) t.input_bytes = 0;
  }
  stage = "building the start matrix";
  s.p.mirror = false;  // the reader has mirrored the graph (read_input)
  const host_csr<double> start = start_matrix(in.g.adj, s.p);
  t.start = clock.lap_s();
  stage = "starting the GPU";
  std::string why_cpu;
  const apps::backend chosen = decision.get(start, why_cpu);
  const bool gpu = chosen == apps::backend::gpu;
  t.warmup = clock.lap_s();
  if (!s.common.quiet)
    apps::report_backend(prog, chosen, gpu ? decision.device_name() : why_cpu, err);
  if (s.common.verbose) print_start(s, start, chosen, why_cpu, err);

  auto progress = [&](const iteration_info& it) {
    if (!s.common.quiet && s.iteration_lines) print_iteration(it, s.common.verbose, err);
  };
  const run_context c{s, in, start, gpu, out_files, progress, err};
  if (!s.inflations.empty()) {
    stage = "clustering (inflation sweep)";
    return run_sweep(c);
  }
  stage = "clustering";
  // -dump and --write-limit see the iterands through the run's hooks (cli_diagnostics.cpp).
  std::optional<dump_writer> dumps;
  run_options options = make_run_options(s, start, err);
  if (s.dump.any()) {
    dumps.emplace(s, in, out_files.front()->stream(), err);
    dumps->start(start);
    dumps->hook(options);
  }
  if (s.write_limit)
    options.on_limit = [&](const host_csr<double>& limit) {
      write_limit(limit, in, s.out_names.front());
    };
  cluster_result r;
  try {
    r = cluster(start, s.p, gpu, s.prec, progress, options);
  } catch (const run_interrupted& stop) {
    err << "[" << prog << "] stopped by signal " << stop_signal() << " after iteration "
        << stop.iteration;
    if (stop.checkpointed) err << "; --resume " << s.checkpoint_dir << " continues from there";
    err << "\n";
    return 128 + stop_signal();
  }
  if (s.sort_mode != "revsize") sort_clusters(r.result, s.sort_mode);
  force_connected(r.result, s, in, start, s.out_names.front(), err);
  t.cluster = clock.lap_s();
  stage = "writing the clusters";
  write_and_commit(*out_files.front(), [&](std::ostream& os) {
    if (s.dump.cat) {  // mcl writes the dumps' file instead, and no analysis
      dumps->result(r.result);
      return;
    }
    write_clustering(os, r.result, s, in, start.rows, err);
    if (s.analyze) write_analysis(os, r.result, s, start, s.out_names.front());
  });
  t.output = clock.lap_s();
  if (!s.common.quiet) report_clustering(s, r, t, err);
  return 0;
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  const char* stage = "starting";
  apps::program cli(program_name);
  cli.out_of_memory = [&stage] {
    return std::string("out of host memory while ") + stage +
           ": the network needs more memory than this machine has free (a smaller -S keeps "
           "fewer entries per column; --block-products bounds the expansion's size)";
  };
  return apps::run_settings<cli_settings>(
      cli, argc, argv, out, err,
      [](cli_settings& s, int n, const char* const* v, std::ostream& o, std::ostream& e) {
        return parse_cli(s, n, v, o, e);
      },
      [&stage](cli_settings& s, std::ostream&, std::ostream& e) {
        return run_clustering(s, stage, e);
      });
}

}  // namespace opsparse::mcl
