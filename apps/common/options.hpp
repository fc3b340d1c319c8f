#pragma once
// The options every program spells one way, on Boost.Program_options: --help/-h, --version,
// --backend gpu|cpu|auto, --threads N (opsparse-mcl also reads mcl's -te), -q/--quiet and
// -V/--verbose (stage timings); with the checks and the parsing that go with them.
#include <boost/program_options.hpp>

#include <initializer_list>
#include <iosfwd>
#include <string>
#include <utility>

#include "common/backend.hpp"
#include "common/cli.hpp"
#include "opsparse/io.hpp"

namespace opsparse::apps {

namespace po = boost::program_options;

/// What the shared options were given.
struct common_options {
  std::string backend = "auto";
  int threads = 0;
  bool quiet = false;
  bool verbose = false;
};

/// --help/-h and --version.
void add_help_options(po::options_description& d);
/// --backend gpu|cpu|auto (default auto); `help` may say more about auto.
void add_backend_option(po::options_description& d, common_options& o,
                        const char* help = "gpu, cpu or auto");
/// --threads N (0: all processors); with `te_alias` also mcl's spelling, -te N.
void add_threads_option(po::options_description& d, common_options& o, bool te_alias = false);
/// -q/--quiet (`quiet_help` says what it silences) and -V/--verbose (stage timings on stderr).
void add_report_options(po::options_description& d, common_options& o, const char* quiet_help);

/// Stores what `parsed` gives in `vm`; answers --help (`visible`, then `help_tail`) or
/// --version on `out` and returns false; else fills the options' variables and returns true.
/// The parser's own errors are usage errors.
bool store_or_answer(const program& p, po::parsed_options parsed,
                     const po::options_description& visible, po::variables_map& vm,
                     std::ostream& out, const char* help_tail = "");

/// A graph program's command line: the `visible` options and one GRAPH file, which must be
/// given; as store_or_answer.
bool parse_graph_command_line(const program& p, int argc, const char* const* argv,
                              const po::options_description& visible, std::string& graph_path,
                              po::variables_map& vm, std::ostream& out);

/// A program's run_cli: under run_guarded, a Settings filled by parse(s, argc, argv, out, err)
/// (false: the command line was answered, status 0), then run(s, out, err)'s status.
template <class Settings, class Parse, class Run>
int run_settings(const program& p, int argc, const char* const* argv, std::ostream& out,
                 std::ostream& err, Parse parse, Run run) {
  return run_guarded(p, err, [&] {
    Settings s;
    if (!parse(s, argc, argv, out, err)) return 0;
    return run(s, out, err);
  });
}

/// Calls `f`, turning what an option's value makes it throw (std::invalid_argument, the
/// parser's errors) into a usage error.
template <class F>
decltype(auto) as_usage_error(F&& f) {
  try {
    return f();
  } catch (const po::error& e) {
    throw usage_error(e.what());
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
}

/// --backend's value must be gpu, cpu or auto (a usage error otherwise).
void check_backend_choice(const std::string& choice);

/// --threads (or -te) as given: not negative, not both spellings, capped to the processors
/// available (with a warning on `err`).
int checked_threads(const program& p, const po::variables_map& vm, int threads, std::ostream& err);

/// The engine a run uses: the backend and, for the CPU, why and how many threads.
struct engine_choice {
  backend which = backend::cpu;
  std::string why_cpu;
  int threads = 0;
};

/// checked_threads, then --backend resolved (resolve_backend); mistakes are usage errors.
engine_choice choose_engine(const program& p, const po::variables_map& vm, const common_options& o,
                            std::ostream& err);

/// The backend line (report_backend) unless --quiet.
void report_engine(const program& p, const engine_choice& e, bool quiet, std::ostream& err);

/// An output file option: its name and the path it was given ("" if none).
using output_option = std::pair<const char*, const std::string*>;

/// Each output option given names a file (not ""), that file is not `input`, and no two of them
/// name the same file; usage errors otherwise.
void check_outputs(const po::variables_map& vm, const std::string& input,
                   std::initializer_list<output_option> outputs);

/// --format's value: auto, mtx (matrix-market), edges (edge-list) or abc.
io::file_format parse_format(const std::string& s);

/// `path` read as a graph (io::read_graph); an input error unless its matrix is square.
io::labelled_graph read_square_graph(const std::string& path, io::file_format format);

}  // namespace opsparse::apps
