#pragma once
// opsparse-mcl's command line: mcl 22-282's options read as mcl reads them (cli_options.cpp)
// and the run they describe (cli_run.cpp), over apps/common's shared layer.
#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/options.hpp"
#include "core/mcl.hpp"
#include "core/mcl_compat.hpp"
#include "core/mcl_graph_tf.hpp"
#include "opsparse/io.hpp"
#include "opsparse/io_mcl_native.hpp"
#include "opsparse/output_file.hpp"

namespace opsparse::mcl {

/// The program's name in its messages.
inline constexpr const char* program_name = "opsparse-mcl";

/// mcl's -dump, -dump-stem, -dump-interval and -dump-modulo (cli_diagnostics.cpp).
struct dump_settings {
  bool ite = false;    ///< the iterands: ite-N.STEM, N from 0 (the start matrix)
  bool cls = false;    ///< the clustering of each expanded iterand: cls-N.STEM, N from 1
  bool dag = false;    ///< the DAG it is read from: dag-N.STEM
  bool lines = false;  ///< label pairs (column, row, value) instead of native matrices
  bool cat = false;    ///< all of them appended to the output, then the clustering (native)
  std::string stem;    ///< the files' stem, as mcl makes it when -dump-stem is not given
  /// -dump-interval offset:bound, the iterations [offset, bound) (bound 0: no end; mcl's
  /// default 0:5, "all" 0:1000), and -dump-modulo, every modulo-th of them from offset.
  int offset = 0, bound = 5, modulo = 1;
  /// Whether anything is written.
  bool any() const { return ite || cls || dag || cat; }
  /// Whether iteration n is dumped (mcl's mclDumpMatrix).
  bool selects(int n) const {
    return !(offset && n < offset) && !(bound && n >= bound) && (n - offset) % modulo == 0;
  }
};

/// The command line as read and checked.
struct cli_settings {
  const char* prog = program_name;  ///< the program's name in its messages (cli_flavour)
  int argc = 0;
  const char* const* argv = nullptr;  ///< for the native output's command-line comment

  apps::common_options common;  ///< --backend, --threads/-te, --verbose, --quiet
  std::string input;            ///< as given ("-": standard input)
  std::string path;             ///< what is read ("/dev/stdin" for "-")
  io::file_format format = io::file_format::automatic;
  params p;
  precision prec = precision::float32;
  bool iteration_lines = true;  ///< the per-iteration lines (mcl -V all/cls turns them off)
  std::string sort_mode = "revsize";
  bool force_connected = false;        ///< -force-connected y (mcl's default is n)
  std::string tab_file;                ///< -use-tab / -tab
  std::string write_graph;             ///< -write-graph FILE
  value_transform stream_tf;           ///< -abc-tf
  matrix_transform matrix_tf;          ///< -tf
  double neg_log_base = 0;             ///< --abc-neg-log10: 10, --abc-neg-log: e
  std::vector<double> inflations;      ///< --inflations (empty: one clustering at -I)
  std::vector<std::string> out_names;  ///< one output per inflation
  std::size_t memory_budget = 0;       ///< --memory-budget (0: the device's free memory)
  std::string checkpoint_dir;          ///< --checkpoint
  double checkpoint_seconds = 60;      ///< --checkpoint-interval
  std::string resume_dir;              ///< --resume
  bool analyze = false;                ///< -analyze y
  bool write_limit = false;            ///< --write-limit
  dump_settings dump;                  ///< -dump and its companions

  /// Whether the reader transforms every weight (-abc-tf, --abc-neg-log10).
  bool stream_transform() const { return !stream_tf.empty() || neg_log_base > 0; }
};

/// Another program over this command line (opsparse-mcl-mpi): its name, the first paragraph
/// of its --help, the help's last lines, the options it leaves out (then refused as unknown) and
/// options of its own, read after the others.
struct cli_flavour {
  const char* name = program_name;
  const char* usage = "";
  const char* help_tail = "";
  std::vector<std::string> without;
  std::function<void(apps::po::options_description&)> add;
  std::function<void(const apps::po::variables_map&, cli_settings&)> read;
};

/// Reads argv into `s`, as mcl reads its command line (with `flavour`'s changes when given).
/// Returns false when the command line was answered on `out` instead (--help, --version, -az);
/// throws apps::usage_error on mistakes.
bool parse_cli(cli_settings& s, int argc, const char* const* argv, std::ostream& out,
               std::ostream& err, const cli_flavour* flavour = nullptr);

/// The graph as read, with what the output needs of it.
struct input_graph {
  io::labelled_graph g;
  bool native = false;                 ///< mcl's native matrix (clustered as it is)
  std::vector<std::int64_t> node_ids;  ///< a native matrix's domain indices
  bool canonical_ids = true;           ///< node_ids are 0..n-1
};

/// Reads the input as mcl does, then -write-graph and -tf (cli_run.cpp).
input_graph read_input(const cli_settings& s);
/// How read_input reads an ABC file or an edge list (the weights as mcl reads them, mirrored).
io::read_options abc_read_options(const cli_settings& s);

/// SIGINT, SIGTERM and SIGUSR1 ask a checkpointing run to stop after the running iteration (a
/// second signal ends the program as before); returns the flag they raise. stop_signal(): the
/// signal that raised it (0: none).
const std::atomic<bool>* install_stop_handlers();
int stop_signal();

/// A clustering as mcl writes it: a native cluster matrix after the command line for a native
/// input without a tab file, else one line of labels per cluster.
void write_clustering(std::ostream& os, const clustering& c, const cli_settings& s,
                      const input_graph& in, index_t nodes, std::ostream& err);

/// -force-connected y: the clusters split into their connected parts in `start`, the
/// clustering before the split written to `out_name`-rags when that splits one (as mcl).
void force_connected(clustering& c, const cli_settings& s, const input_graph& in,
                     const host_csr<double>& start, const std::string& out_name, std::ostream& err);

/// The lines on overlap, unclaimed nodes and a missing convergence after a clustering.
void report_outcome(const cli_settings& s, const clustering& c, int iterations, bool converged,
                    std::ostream& err);

/// Writes `file` through `write` and commits it. A write that fails in the stream (a full disk)
/// is reported as the commit reports it, with the file's name and the system's reason, instead
/// of the writer's own message, which knows neither.
template <class F>
void write_and_commit(io::output_file& file, F&& write) {
  try {
    write(file.stream());
  } catch (const std::runtime_error&) {
    if (file.stream()) throw;  // not the stream's failure
    file.commit();             // throws "cannot write output file 'NAME': ...: <reason>"
    throw;
  }
  file.commit();
}

// mcl's diagnostics of its own run (cli_diagnostics.cpp).

/// -dump MODE, -dump-stem, -dump-interval, -dump-modulo (and their short spellings) into
/// s.dump, with a note on `err` for what is not written (chr, a MODE mcl does not know).
void read_dump_options(const apps::po::variables_map& vm, cli_settings& s, std::ostream& err);

/// -analyze y: clm info's measures of `c` over the start matrix (mcl's re-read matrix), written
/// after the clustering as mcl appends them to `out_name`.
void write_analysis(std::ostream& os, const clustering& c, const cli_settings& s,
                    const host_csr<double>& start, const std::string& out_name);

/// --write-limit: the limit (rows are mcl's columns, in any order) to OUT_NAME-limit, as mcl
/// writes it.
template <class T>
void write_limit(const host_csr<T>& limit, const input_graph& in, const std::string& out_name);

/// -dump: the iterands, their clusterings and DAGs written as mcl writes them, through the run's
/// hooks (run_options::on_iterand), each file whole or not at all.
class dump_writer {
 public:
  /// `cat_stream`: the output's stream, where -dump cat appends everything.
  dump_writer(const cli_settings& s, const input_graph& in, std::ostream& cat_stream,
              std::ostream& err);
  /// The start matrix as iteration 0 (ite-0), with mcl's column sums.
  void start(const host_csr<double>& start);
  /// Sets o's iterand hooks.
  void hook(run_options& o);
  /// -dump cat: the clustering, after the dumps, in place of the output mcl writes otherwise.
  void result(const clustering& c);

 private:
  template <class F>
  void dump(const char* affix, int n, F&& write);
  void write_matrix(std::ostream& os, const host_csr<double>& m, bool cluster_columns,
                    const std::vector<double>* col_values);
  std::string row_label(index_t node) const;
  std::string column_label(index_t index, bool cluster) const;

  const cli_settings& s_;
  const input_graph& in_;
  std::ostream& cat_;
  std::ostream& err_;
  io::mcl_tab tab_;
  bool has_tab_ = false;
};

/// Clusters as `s` says: reads the input, chooses the backend, iterates, writes the output(s)
/// (-o - is the process's standard output) and reports on `err`. `stage` names what it is
/// doing, for an out-of-memory message.
int run_clustering(cli_settings& s, const char*& stage, std::ostream& err);

/// The whole program (opsparse-mcl): parse_cli, then run_clustering, under apps::run_guarded;
/// returns the exit status (0 ok, 1 error in input or run, 2 bad usage). Never throws. `out`
/// gets what answers the command line (--help, --version, -az).
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace opsparse::mcl
