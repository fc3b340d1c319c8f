// opsparse-mcl-mpi: distributed Markov clustering over MPI, run as
// `mpirun -np P opsparse-mcl-mpi FILE [options]`. opsparse-mcl's command line (cli.hpp) without
// the options that do not apply, plus --grid. Rank 0 reads the command line; every rank reads
// its part of an ABC input (else rank 0 all of it), and the start matrix is the one opsparse-mcl
// builds; the iterations run on every rank
// (mcl_dist.hpp); rank 0 interprets the limit and writes the one output. Every failure is agreed
// on by all ranks (every rank exits with status 1, rank 0 reports it once): none is left waiting.
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cctype>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cli.hpp"
#include "common/cli.hpp"
#include "common/options.hpp"
#include "core/mcl_compat.hpp"
#include "core/mcl_checkpoint.hpp"
#include "core/mcl_memory_plan.hpp"
#include "distributed/mcl_dist.hpp"
#include "distributed/mcl_dist_checkpoint.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/distributed/detail/comm.hpp"
#include "opsparse/distributed/error.hpp"
#include "opsparse/distributed/grid.hpp"
#include "opsparse/distributed/read.hpp"
#include "opsparse/io_mcl_native.hpp"
#include "opsparse/output_file.hpp"

namespace opsparse::mcl {

namespace {

constexpr const char* prog = "opsparse-mcl-mpi";

constexpr const char* usage =
    "Usage: mpirun -np P opsparse-mcl-mpi FILE [options]\n"
    "Distributed Markov clustering over MPI: opsparse-mcl's clustering, with the same clusters\n"
    "and the same output, over P ranks. Every rank reads its part of an ABC FILE (rank 0 reads\n"
    "other formats, and ABC with -abc-tf, --abc-neg-log, -tf, -write-graph or\n"
    "-force-connected) and the start matrix is opsparse-mcl's. In the rows layout (the default\n"
    "with GPUs: --layout) every rank expands, prunes and inflates its own rows with\n"
    "opsparse-mcl's CPU or GPU backend (the rank's GPU: the rank on its node modulo the node's\n"
    "GPUs); where each rank owns a GPU the iterate stays spread over them, each rank receiving\n"
    "GPU to GPU by NCCL the rows of X its expansion needs, a column block at a time when the\n"
    "expansion is dense, so that several GPUs cluster what one cannot hold; else every rank\n"
    "holds the whole iterate and the kept rows go through the host. In the grid layout the\n"
    "iterate lies in 2D blocks and the expansion is Sparse SUMMA. Rank 0 interprets the limit\n"
    "and writes the one output. With --backend cpu the iterates equal opsparse-mcl's CPU\n"
    "iterates bit for bit, on any grid and layout; the GPU engine's sums differ in the last bits\n"
    "(the clusters are mcl's). Options are opsparse-mcl's (mcl's spelling) except --inflations\n"
    "and --block-products; -te is the threads per rank; --backend gpu needs a GPU on every rank,\n"
    "auto takes the GPUs when every rank has one.\n"
    "Graphs with negative weights are refused (use opsparse-mcl).\n\nOptions";

constexpr const char* help_tail =
    "Environment:\n"
    "  OPSPARSE_DIST_MEMORY  bytes (optionally k, M or G) a rank may give to one phase of the\n"
    "                        expansion's output (each phase is pruned before the next); more\n"
    "                        phases when it needs more (default: half the node's available\n"
    "                        memory shared by its ranks); with the GPU engine at most half the\n"
    "                        GPU's memory for each rank sharing it\n"
    "  OMP_NUM_THREADS       threads per rank when -te is not given\n"
    "  OPSPARSE_NCCL=0       --layout rows on GPUs: gather the kept rows through the host even\n"
    "                        where every rank owns its GPU (NCCL is used there by default)\n"
    "  OPSPARSE_NCCL_LIBRARY the NCCL library to load (default libnccl.so.2 on the loader's path;\n"
    "                        without one the rows go through the host)\n"
    "  OPSPARSE_MCL_COLUMN_STAGES  --layout rows on GPUs: column stages of a dense expansion\n"
    "                        (default: the ranks; more hold less of X at a time)\n"
    "  OPSPARSE_MCL_WHOLE_ITERATE=1  --layout rows on GPUs: the whole iterate on every GPU, the\n"
    "                        kept rows gathered by NCCL (for comparisons)\n"
    "Open MPI binds each rank to one core by default (for 1 or 2 ranks; to a socket above): give\n"
    "mpirun --bind-to none, or --map-by slot:PE=T, for T threads a rank (-te T).\n";

/// What every rank needs of the command line (rank 0 reads it and sends this).
struct shared_settings {
  params p;
  precision prec = precision::float32;
  int backend = 2;  ///< --backend: 0 cpu, 1 gpu, 2 auto
  bool verbose = false, quiet = false, iteration_lines = true;
  int grid_rows = 0, grid_cols = 0;
  int layout = 0;            ///< --layout: 0 auto, 1 grid, 2 rows
  bool checkpoints = false;  ///< --checkpoint or --resume
  bool rows_layout = false;  ///< the layout run: rows (dist_layout::rows), else grid
};
static_assert(std::is_trivially_copyable_v<shared_settings>, "sent to the ranks as bytes");

/// The flavour of opsparse-mcl's command line: --grid RxC added, --verbose said anew.
cli_flavour mpi_flavour(shared_settings& sh, int ranks) {
  cli_flavour f;
  f.name = prog;
  f.usage = usage;
  f.help_tail = help_tail;
  // -dump would gather every dumped iterand to rank 0: left to opsparse-mcl.
  f.without = {
      "inflations", "block-products", "verbose", "memory-budget", "checkpoint", "dump", "dump-stem",
      "ds",         "dump-interval",  "di",      "dump-modulo",   "dm"};
  f.add = [](apps::po::options_description& d) {
    d.add_options()(
        "grid", apps::po::value<std::string>()->value_name("RxC"),
        "the process grid, R rows by C columns with R*C = P (default: the most square, R <= C)")(
        "layout", apps::po::value<std::string>()->value_name("L")->default_value("auto"),
        "rows: each rank expands, prunes and inflates its share of the rows with opsparse-mcl's "
        "own backend, the iterate spread over the ranks' GPUs where each owns one (else whole on "
        "every rank); grid: the iterate in 2D blocks, the expansion by Sparse SUMMA in memory "
        "phases (slower: for CPU ranks whose memory cannot hold the whole iterate); auto: rows "
        "with the GPU engine, with --checkpoint or --resume, and on the CPU where every rank's "
        "share of its node's memory holds the whole iterate after the first expansion (as "
        "estimated from the start matrix), else grid; --grid RxC alone means grid. --verbose "
        "says which and why")(
        "verbose",
        "per iteration: the expanded nnz, the memory phases and the seconds of each stage (the "
        "expansion, split into the local products and the rest: broadcasts, waiting, the product "
        "count and the phases' cuts; the two "
        "row exchanges; pruning and inflation; each the slowest rank's); then a summary and the "
        "seconds of reading, iterating, interpreting and writing")(
        "checkpoint", apps::po::value<std::string>()->value_name("DIR"),
        "(the rows layout) after each iteration that took at least --checkpoint-interval "
        "seconds, and on SIGINT, SIGTERM or SIGUSR1 to a rank once the running iteration ends "
        "(mpirun passes SIGUSR1 on to every rank; its own SIGINT and SIGTERM end the job), every "
        "rank writes its share of the iterate to DIR/mcl-checkpoint.itK.partRofP.bin and rank 0 "
        "lists them in DIR/mcl-checkpoint.parts, replacing the last checkpoint only when "
        "complete; --resume DIR continues on any number of ranks");
  };
  f.read = [&sh, ranks](const apps::po::variables_map& vm, cli_settings&) {
    const std::string layout = vm["layout"].as<std::string>();
    if (layout != "auto" && layout != "grid" && layout != "rows")
      throw apps::usage_error("--layout expects auto, rows or grid, not '" + layout + "'");
    sh.layout = layout == "grid" ? 1 : layout == "rows" ? 2 : 0;
    sh.checkpoints = vm.count("checkpoint") || vm.count("resume");
    if (sh.layout == 1 && sh.checkpoints)
      throw apps::usage_error("--checkpoint and --resume need the rows layout (--layout rows)");
    if (sh.layout == 0 && sh.checkpoints && vm.count("grid"))
      throw apps::usage_error("--checkpoint and --resume need the rows layout, not --grid");
    if (!vm.count("grid")) return;
    const std::string v = vm["grid"].as<std::string>();
    int r = 0, c = 0;
    char x = 0, extra = 0;
    if (std::sscanf(v.c_str(), "%d%c%d%c", &r, &x, &c, &extra) != 3 || (x != 'x' && x != 'X') ||
        r <= 0 || c <= 0)
      throw apps::usage_error("--grid expects RxC (e.g. 2x2), not '" + v + "'");
    if (static_cast<long long>(r) * c != ranks)
      throw apps::usage_error("--grid " + v + " needs " +
                              std::to_string(static_cast<long long>(r) * c) +
                              " ranks, this job has " + std::to_string(ranks));
    sh.grid_rows = r;
    sh.grid_cols = c;
  };
  return f;
}

void print_iteration(const dist_iteration_info& it, bool verbose, std::ostream& err) {
  std::ostringstream os;
  os << "[" << prog << "] ite " << std::setw(3) << it.iteration << "  chaos " << std::fixed
     << std::setprecision(it.chaos < 0.01 ? 6 : 4) << it.chaos << "  nnz " << it.nnz;
  if (verbose)
    os << "  expanded " << it.expanded_nnz << "  time " << std::setprecision(3) << it.seconds
       << "s: expansion " << it.expand_seconds << "s (local products " << it.products_seconds
       << "s, the rest " << it.expand_seconds - it.products_seconds << "s, " << it.phases
       << (it.phases == 1 ? " phase" : " phases") << "), row exchanges " << it.exchange_seconds
       << "s, pruning " << it.prune_seconds << "s";
  err << os.str() << "\n";
}

/// The start matrix as the run holds it: whole on rank 0, or by rows on every rank when every
/// rank read its part of the input (then whole on rank 0 as well only where -analyze needs it).
struct start_input {
  bool in_parts = false;
  row_blocks<double> parts;  ///< every rank's rows (in_parts)
  host_csr<double> whole;    ///< rank 0's
  index_t n = 0;             ///< nodes, on every rank
  long long nnz = 0;         ///< entries, on rank 0
};

/// Rank 0's part after the iterations: interpretation, -sort, -force-connected, the output, the
/// report.
template <class T>
void finish(const cli_settings& s, const input_graph& in, const start_input& start,
            const dist_run_result<T>& r, io::output_file& out, apps::stopwatch& clock,
            std::ostream& err) {
  clustering c = interpret(r.limit, s.p.overlap, s.p.threads);
  if (s.sort_mode != "revsize") sort_clusters(c, s.sort_mode);
  force_connected(c, s, in, start.whole, s.out_names.front(), err);
  const double interpretation = clock.lap_s();
  if (s.write_limit) write_limit(r.limit, in, s.out_names.front());
  write_clustering(out.stream(), c, s, in, start.n, err);
  if (s.analyze) write_analysis(out.stream(), c, s, start.whole, s.out_names.front());
  out.commit();
  const double output = clock.lap_s();
  if (s.common.quiet) return;
  report_outcome(s, c, r.iterations, r.converged, err);
  err << "[" << prog << "] " << c.clusters.size() << " clusters found";
  if (s.common.verbose)
    err << " (" << c.attractors << " attractors) in " << r.iterations << " iterations, "
        << std::fixed << std::setprecision(3) << r.seconds << "s";
  err << "\n[" << prog << "] output is in " << s.out_names.front() << "\n";
  if (s.common.verbose) {
    err << "[" << prog << "] stages: iterations (scatter, iterations, gather) " << std::fixed
        << std::setprecision(3) << r.seconds << "s";
    if (r.start_seconds > 0)
      err << " (of which the start matrix on every rank, the backends and NCCL " << r.start_seconds
          << "s)";
    err << ", interpretation " << interpretation << "s, output " << output << "s\n";
  }
  if (s.common.verbose && !r.row_exchange.empty())
    err << "[" << prog << "] rows layout: the kept rows were gathered through " << r.row_exchange
        << (r.spread ? "; the iterate spread over the GPUs, each rank holding its own rows, X "
                       "gathered in " +
                           std::to_string(r.column_stages) +
                           " column stage(s) for a dense expansion; rows split anew by the "
                           "products " +
                           std::to_string(r.resplits) + " time(s)"
                     : "")
        << "\n";
}

/// The run's checkpoints on every rank from rank 0's settings: the folders, the interval, the
/// fingerprint of rank 0's start matrix and options, the stop handlers (when writing).
/// Collective.
dist_checkpoints checkpoints(const dist::grid& g, const cli_settings& s, const shared_settings& sh,
                             const start_input& start, std::ostream& err) {
  dist_checkpoints ck;
  const bool root = g.rank() == 0;
  if (root) {
    ck.dir = s.checkpoint_dir;
    ck.resume_dir = s.resume_dir;
    ck.seconds = s.checkpoint_seconds;
  }
  dist::detail::bcast_string(ck.dir, 0, g.comm());
  dist::detail::bcast_string(ck.resume_dir, 0, g.comm());
  OPSPARSE_MPI_TRY(MPI_Bcast(&ck.seconds, 1, MPI_DOUBLE, 0, g.comm()));
  if (ck.dir.empty() && ck.resume_dir.empty()) return ck;
  unsigned long long fp = 0;
  if (start.in_parts)
    fp = mcl::detail::fingerprint(g, start.parts, sh.p, sh.prec, sh.p.threads);
  else if (root)
    fp = checkpoint::fingerprint(start.whole, s.p, s.prec, s.p.threads);
  OPSPARSE_MPI_TRY(MPI_Bcast(&fp, 1, MPI_UNSIGNED_LONG_LONG, 0, g.comm()));
  ck.fingerprint = fp;
  if (!ck.dir.empty()) ck.stop = install_stop_handlers();
  if (root && !sh.quiet)
    ck.note = [&err](const std::string& line) { err << "[" << prog << "] " << line << "\n"; };
  return ck;
}

/// The run on every rank in cell type T; `s`, `in` and `start` are rank 0's.
template <class T>
int run_as(const dist::grid& g, dist_engine engine, cli_settings& s, const shared_settings& sh,
           const input_graph& in, start_input& start,
           std::vector<std::unique_ptr<io::output_file>>& out, apps::stopwatch& clock,
           std::ostream& err) {
  const bool root = g.rank() == 0;
  auto progress = [&](const dist_iteration_info& it) {
    if (root && !sh.quiet && sh.iteration_lines) print_iteration(it, sh.verbose, err);
  };
  const dist_checkpoints ck = checkpoints(g, s, sh, start, err);
  clock.lap_s();
  const dist_layout layout = sh.rows_layout ? dist_layout::rows : dist_layout::grid;
  dist_run_result<T> r;
  try {
    // The cells as the CPU backend's load_cells rounds them.
    if (start.in_parts) {
      row_blocks<T> cells{start.n, start.parts.split, convert<T>(start.parts.rows)};
      start.parts = {};
      r = run_distributed<T>(g, std::move(cells), sh.p, progress, engine, layout, ck);
    } else {
      host_csr<T> cells;
      if (root) cells = convert<T>(start.whole);
      r = run_distributed<T>(g, cells, sh.p, progress, 0, engine, layout, ck);
    }
  } catch (const run_interrupted& stop) {
    int sig = stop_signal();
    OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &sig, 1, MPI_INT, MPI_MAX, g.comm()));
    if (root) {
      err << "[" << prog << "] stopped by signal " << sig << " after iteration " << stop.iteration;
      if (stop.checkpointed) err << "; --resume " << ck.dir << " continues from there";
      err << "\n";
    }
    return 128 + sig;
  }
  clock.lap_s();
  std::exception_ptr error;
  if (root) {
    try {
      finish(s, in, start, r, *out.front(), clock, err);
    } catch (...) {
      error = std::current_exception();
    }
  }
  dist::detail::agree_on_failure(error, "writing the clusters", g.comm());
  return 0;
}

/// The local products' engine, the same on every rank: the GPU engine when --backend is gpu or
/// auto and every rank has a usable GPU; --backend gpu without one fails on every rank (the rank
/// that has none says why). `why_cpu`: why auto chose the CPU engine ("" otherwise).
dist_engine agree_on_engine(const dist::grid& g, int choice, std::string& why_cpu) {
  if (choice == 0) return dist_engine::cpu;
  std::string why;
  int usable = 0;
  try {
    usable = apps::resolve_backend("auto", &why) == apps::backend::gpu;
  } catch (const std::exception& e) {
    why = e.what();
  }
  std::exception_ptr error;
  if (!usable && choice == 1)
    error = std::make_exception_ptr(std::runtime_error(
        "--backend gpu: rank " + std::to_string(g.rank()) + " has no usable GPU: " + why));
  dist::detail::agree_on_failure(error, "choosing the backend", g.comm());
  int all = usable;
  OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, g.comm()));
  if (all) return dist_engine::gpu;
  why_cpu = usable ? "another rank has no usable GPU" : why;
  return dist_engine::cpu;
}

/// Whether every rank reads its part of the input (dist::read_abc_rows) instead of rank 0 all of
/// it: an ABC file (-abc, or its extension), a regular file, read without -abc-tf or
/// --abc-neg-log (rank 0 alone has parsed them), and nothing before the start matrix that needs
/// the whole graph (-write-graph, -tf, -force-connected). OPSPARSE_MCL_READ_ON_ROOT=1 has rank 0
/// read it (for comparisons).
bool read_in_parts(const cli_settings& s) {
  if (const char* v = std::getenv("OPSPARSE_MCL_READ_ON_ROOT"); v && std::string(v) == "1")
    return false;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(s.path, ec)) return false;
  std::string ext = s.path.size() >= 4 ? s.path.substr(s.path.size() - 4) : "";
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool abc =
      s.format == io::file_format::abc || (s.format == io::file_format::automatic &&
                                           ext == ".abc" && !io::looks_like_mcl_native(s.path));
  return abc && !s.stream_transform() && s.write_graph.empty() && s.matrix_tf.empty() &&
         !s.force_connected;
}

/// The start matrix of the graph at `path` read in parts by every rank, each making the start
/// matrix's rows it holds (start_matrix_rows); rank 0 gets the labels into `in`. Collective; a
/// bad line or negative weights throw on every rank.
row_blocks<double> read_start_in_parts(const dist::grid& g, const std::string& path, params p,
                                       input_graph& in) {
  const cli_settings plain;  // the weights as mcl reads them (read_in_parts: no transform)
  dist::graph_rows r = dist::read_abc_rows(g.comm(), path, abc_read_options(plain));
  const int me = g.rank();
  const index_t first = r.split[me];
  if (p.discard_loops) drop_loops_as_mcl(r.rows, first);
  p.mirror = false;  // the reader has mirrored the graph
  row_blocks<double> start{r.n, r.split, start_matrix_rows(r.rows, first, p)};
  r.rows = {};
  int negative = has_negative_values(start.rows) ? 1 : 0;
  OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &negative, 1, MPI_INT, MPI_MAX, g.comm()));
  if (negative)
    throw std::invalid_argument(
        "the graph has negative weights, which the distributed "
        "iterations do not cluster as mcl does (use opsparse-mcl)");
  if (me == 0) in.g.labels = std::move(r.labels);
  return start;
}

/// The products of each row of the start matrix's square (the first expansion), every row's on
/// rank 0 (empty elsewhere), for its memory plan. Collective.
std::vector<offset_t> first_products(const dist::grid& g, const start_input& start) {
  static_assert(sizeof(offset_t) == sizeof(std::int64_t), "row lengths go as MPI_INT64_T");
  const int me = g.rank();
  if (!start.in_parts)
    return me == 0 ? cpu::row_products(start.whole, start.whole) : std::vector<offset_t>{};
  const host_csr<double>& rows = start.parts.rows;
  const std::vector<index_t>& split = start.parts.split;
  std::vector<int> counts(static_cast<std::size_t>(g.size())), at(counts.size());
  for (int r = 0; r < g.size(); ++r) {
    counts[r] = static_cast<int>(split[r + 1] - split[r]);
    at[r] = static_cast<int>(split[r]);
  }
  // Every row's length on every rank, then this rank's rows' products to rank 0.
  std::vector<offset_t> lengths(static_cast<std::size_t>(start.n)), mine(counts[me]);
  for (index_t i = 0; i < rows.rows; ++i) mine[i] = rows.rpt[i + 1] - rows.rpt[i];
  OPSPARSE_MPI_TRY(MPI_Allgatherv(mine.data(), counts[me], MPI_INT64_T, lengths.data(),
                                  counts.data(), at.data(), MPI_INT64_T, g.comm()));
#pragma omp parallel for schedule(static, 4096)
  for (index_t i = 0; i < rows.rows; ++i) {
    offset_t products = 0;
    for (offset_t q = rows.rpt[i]; q < rows.rpt[i + 1]; ++q)
      products += lengths[static_cast<std::size_t>(rows.col[q])];
    mine[i] = products;
  }
  std::vector<offset_t> all(me == 0 ? static_cast<std::size_t>(start.n) : 0);
  OPSPARSE_MPI_TRY(MPI_Gatherv(mine.data(), counts[me], MPI_INT64_T, all.data(), counts.data(),
                               at.data(), MPI_INT64_T, 0, g.comm()));
  return all;
}

/// --layout auto's choice (shared_settings::layout): true for the rows layout; `why` says why.
/// Collective.
bool choose_rows_layout(const dist::grid& g, const shared_settings& sh, const start_input& start,
                        dist_engine engine, std::string& why) {
  if (sh.layout != 0) {
    why = "as asked (--layout)";
    return sh.layout == 2;
  }
  if (sh.checkpoints) {
    why = "auto: checkpoints are the rows layout's";
    return true;
  }
  if (sh.grid_rows > 0) {
    why = "auto: --grid asks for the grid layout";
    return false;
  }
  if (engine == dist_engine::gpu) {
    why = "auto: the GPU engine (each rank's rows on its GPU)";
    return true;
  }
  // The CPU engine's rows layout holds the whole iterate and the next one on every rank: the
  // iterate as the memory plan estimates it after the first expansion (rank 0's, sent to all).
  const std::size_t cell = sh.prec == precision::float32 ? 4 : 8;
  const std::vector<offset_t> first = first_products(g, start);
  unsigned long long iterate = 0;
  if (g.rank() == 0)
    iterate = plan_memory(start.n, start.nnz, sh.p, cell, first, 0, 0).iterate_estimate;
  OPSPARSE_MPI_TRY(MPI_Bcast(&iterate, 1, MPI_UNSIGNED_LONG_LONG, 0, g.comm()));
  const std::size_t need =
      2 * static_cast<std::size_t>(iterate) * static_cast<std::size_t>(g.ranks_on_node());
  unsigned long long available = host_available_bytes();
  OPSPARSE_MPI_TRY(
      MPI_Allreduce(MPI_IN_PLACE, &available, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, g.comm()));
  const bool rows = available == 0 || need <= available;
  why = "auto: two whole iterates on each of a node's " + std::to_string(g.ranks_on_node()) +
        " rank(s) take about " + gigabytes(need) + " of the " +
        (available ? gigabytes(available) : std::string("unknown")) + " available" +
        (rows ? "" : ": the grid layout spreads them");
  return rows;
}

/// The run after the command line: the input read by every rank in parts (read_in_parts) or by
/// rank 0 (failures agreed on by every rank), then the iterations everywhere.
int run(cli_settings& s, const shared_settings& sh, std::ostream& err) {
  const dist::grid g(MPI_COMM_WORLD, sh.grid_rows, sh.grid_cols);
  const bool root = g.rank() == 0;
  std::vector<std::unique_ptr<io::output_file>> out;
  input_graph in;
  start_input start;
  apps::stopwatch clock;
  std::exception_ptr error;
  int parts[2] = {};  // read in parts; -analyze (which needs the whole graph on rank 0)
  std::string path;
  if (root) {
    try {
      // The output's temporary file first (an unwritable folder fails now, not after the run).
      out.push_back(std::make_unique<io::output_file>(s.out_names.front()));
      parts[0] = read_in_parts(s) ? 1 : 0;
      parts[1] = s.analyze ? 1 : 0;
      path = s.path;
    } catch (...) {
      error = std::current_exception();
    }
  }
  dist::detail::agree_on_failure(error, "opening the output", g.comm());
  OPSPARSE_MPI_TRY(MPI_Bcast(parts, 2, MPI_INT, 0, g.comm()));
  if (parts[0]) {
    dist::detail::bcast_string(path, 0, g.comm());
    try {
      start.in_parts = true;
      start.parts = read_start_in_parts(g, path, sh.p, in);
      start.n = start.parts.n;
      start.nnz = static_cast<long long>(start.parts.rows.nnz());
      OPSPARSE_MPI_TRY(
          MPI_Allreduce(MPI_IN_PLACE, &start.nnz, 1, MPI_LONG_LONG, MPI_SUM, g.comm()));
      if (parts[1])
        start.whole = dist::detail::gather_row_blocks(start.parts.rows, start.parts.split, start.n,
                                                      0, g.comm());
    } catch (...) {
      error = std::current_exception();
    }
  } else if (root) {
    try {
      in = read_input(s);
      s.p.mirror = false;  // the reader has mirrored the graph (read_input)
      start.whole = start_matrix(in.g.adj, s.p);
      start.n = start.whole.rows;
      start.nnz = static_cast<long long>(start.whole.nnz());
      if (has_negative_values(start.whole))
        throw std::invalid_argument(
            "the graph has negative weights, which the distributed "
            "iterations do not cluster as mcl does (use opsparse-mcl)");
    } catch (...) {
      error = std::current_exception();
    }
  }
  dist::detail::agree_on_failure(error, "reading the input", g.comm());
  std::string why_cpu, why_layout;
  const dist_engine engine = agree_on_engine(g, sh.backend, why_cpu);
  shared_settings run_sh = sh;
  run_sh.rows_layout = choose_rows_layout(g, sh, start, engine, why_layout);
  if (root && !sh.quiet)
    apps::report_backend(prog, engine == dist_engine::gpu ? apps::backend::gpu : apps::backend::cpu,
                         std::string(engine == dist_engine::gpu ? "GPU" : "CPU") + " engine on " +
                             std::to_string(g.size()) + (g.size() == 1 ? " rank, " : " ranks, ") +
                             (run_sh.rows_layout ? std::string("the rows layout")
                                                 : "a " + std::to_string(g.rows()) + "x" +
                                                       std::to_string(g.cols()) + " grid") +
                             (why_cpu.empty() ? "" : "; " + why_cpu),
                         err);
  if (root && !sh.quiet && sh.verbose)
    err << "[" << prog << "] " << s.input << ": " << start.n << " nodes, " << start.nnz
        << " entries with loops, read " << (parts[0] ? "in parts by every rank" : "by rank 0")
        << " and prepared in " << std::fixed << std::setprecision(3) << clock.lap_s() << "s; "
        << g.size() << " ranks on a " << g.rows() << "x" << g.cols() << " grid, "
        << (sh.p.threads > 0 ? std::to_string(sh.p.threads) : "default") << " threads each; "
        << (sh.prec == precision::float32 ? "float" : "double") << "; -I " << sh.p.inflation
        << " -P " << sh.p.prune << " -S " << sh.p.select << " -R " << sh.p.recover << " -pct "
        << sh.p.pct << "\n[" << prog << "] layout: " << (run_sh.rows_layout ? "rows" : "grid")
        << " (" << why_layout << ")\n";
  return sh.prec == precision::float32
             ? run_as<float>(g, engine, s, run_sh, in, start, out, clock, err)
             : run_as<double>(g, engine, s, run_sh, in, start, out, clock, err);
}

}  // namespace

/// opsparse-mcl-mpi's whole program (between MPI_Init and MPI_Finalize): the exit status, the
/// same on every rank for every failure after the command line.
int run_mpi_cli(int argc, const char* const* argv, std::ostream& out_root, std::ostream& err_root) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::ostream silent(nullptr);  // the other ranks' messages: rank 0 reports for all
  std::ostream& out = rank == 0 ? out_root : silent;
  std::ostream& err = rank == 0 ? err_root : silent;
  apps::program cli(prog);
  cli.out_of_memory = [] {
    return std::string("out of host memory: run on more ranks or nodes, or with a smaller -S");
  };
  cli_settings s;
  shared_settings sh;
  int status = -1;  // -1: run; else the exit status of the command line's answer or mistake
  if (rank == 0) {
    const cli_flavour flavour = mpi_flavour(sh, ranks);
    status = apps::run_guarded(cli, err, [&] {
      if (!parse_cli(s, argc, argv, out, err, &flavour)) return 0;
      return -1;
    });
    sh.p = s.p;
    sh.prec = s.prec;
    sh.backend = s.common.backend == "cpu" ? 0 : s.common.backend == "gpu" ? 1 : 2;
    sh.verbose = s.common.verbose;
    sh.quiet = s.common.quiet;
    sh.iteration_lines = s.iteration_lines;
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status != -1) return status;
  MPI_Bcast(&sh, sizeof sh, MPI_BYTE, 0, MPI_COMM_WORLD);
  // -te T: every OpenMP region of the rank (the layer's merges and row exchanges too), not
  // only those that take the count.
  if (sh.p.threads > 0) omp_set_num_threads(sh.p.threads);
  return apps::run_guarded(cli, err, [&] { return run(s, sh, err); });
}

}  // namespace opsparse::mcl

int main(int argc, char** argv) {
  int provided = 0;  // OpenMP threads inside a rank never call MPI
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const int rc = opsparse::mcl::run_mpi_cli(argc, argv, std::cout, std::cerr);
  std::cout.flush();
  std::cerr.flush();
  MPI_Finalize();
  return rc;
}
