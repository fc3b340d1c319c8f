// opsparse-mcl: Markov clustering compatible with Debian's `mcl` 22-282 (same defaults, same
// clusters, same -o format), with the expansion on the GPU (OpSparse) or the CPU.
#include <boost/program_options.hpp>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "common/backend.hpp"
#include "common/cli.hpp"
#include "mcl.hpp"
#include "clm.hpp"
#include "mcl_compat.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/error.hpp"
#include "opsparse/io.hpp"
#include "opsparse/io_mcl_native.hpp"
#include "opsparse/output_file.hpp"

namespace po = boost::program_options;
using namespace opsparse;

namespace {

constexpr const char* prog = "opsparse-mcl";

using opsparse::apps::usage_error;  // apps/common/cli.hpp

std::string mib(std::size_t bytes) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1024.0 * 1024.0)
     << " MiB";
  return os.str();
}

po::options_description visible_options() {
  po::options_description d(
      "Usage: opsparse-mcl FILE [options]\n"
      "Markov clustering with the semantics and defaults of mcl 22-282: the same clusters as\n"
      "`mcl FILE --abc`, written the same way (one cluster per line, tab-separated labels,\n"
      "largest cluster first). FILE is ABC (label label [weight]; --abc or *.abc), Matrix\n"
      "Market (*.mtx) or a SNAP-style edge list (anything else), or - for standard input.\n"
      "Every graph but a native matrix is made undirected (an edge's weight is the larger of\n"
      "its two directions); a native matrix is clustered as it is, as mcl does.\n"
      "A file that starts with '(mclheader' is mcl's native matrix (mcxload writes them); its\n"
      "clustering is then written as mcl writes it, a native cluster matrix (labels with\n"
      "-use-tab). Options are spelled and read as mcl reads them: single-dash long options\n"
      "(-pct 90, -te 4, -odir d), a value after a blank (-I 2, not -I2), the last of a repeated\n"
      "option wins. mcl options not listed here are refused with their name.\n\nOptions");
  // clang-format off
  d.add_options()
    ("help,h", "show this help and exit")
    ("version", "show the version and exit")
    ("inflation,I", po::value<double>()->value_name("f"),
     "inflation, the granularity control (default 2.0; mcl accepts (0, 30])")
    ("output,o", po::value<std::string>()->value_name("FILE"),
     "output file, - for standard output (default: out.<input file name>.I<inflation>, in the "
     "current directory, as mcl names it). Written to a temporary file beside it and renamed "
     "into place at the end: a run that fails or is interrupted leaves an existing file as it "
     "was. The input itself is refused as output")
    ("odir", po::value<std::string>()->value_name("DIR"),
     "write the output under its automatic name in folder DIR (mcl -odir; -o wins)")
    ("d", "write the output under its automatic name in the input file's folder (mcl --d)")
    ("az", "print the output file name and exit (mcl -az)")
    ("inflations", po::value<std::string>()->value_name("LIST"),
     "an inflation sweep: cluster at each inflation of a comma-separated list (e.g. 1.4,2,4,6) "
     "in one run, reading the input and building the start matrix once and reusing the backend "
     "(one GPU context and workspace); one output per inflation, named as mcl names them (-o is "
     "refused; -odir DIR chooses the folder), then a table of cluster counts, iterations, "
     "seconds and clm info's mass and area fractions")
    ("abc", "the input is ABC (label label [weight]), as mcl --abc")
    ("format", po::value<std::string>()->value_name("abc|mtx|edges|mcl"),
     "input format (default: mcl's native matrix when the file starts with '(mclheader', else "
     "from the extension, .abc -> abc, .mtx -> Matrix Market, otherwise an edge list)")
    ("use-tab", po::value<std::string>()->value_name("FILE"),
     "native input: write clusters as labels from this tab file (index<TAB>label lines, "
     "mcxload -write-tab), '?_<index>' for indices it lacks, as mcl -use-tab")
    ("tab", po::value<std::string>()->value_name("FILE"), "the same as -use-tab")
    ("tf", po::value<std::string>()->value_name("SPEC"),
     "transform the graph's values after it is read (and made undirected), before loops are "
     "added (mcl -tf). SPEC: comma-separated steps, of gq(f) gt(f) lq(f) lt(f) (keep values "
     ">=, >, <=, < f), ceil(f) floor(f) (cap at f from above, below), mul(f) add(f) pow(f), "
     "log(b) neglog(b) exp(b) (base b; empty: e). A value made 0 is no edge")
    ("abc-tf", po::value<std::string>()->value_name("SPEC"),
     "transform every ABC weight as it is read (1 for a line without one), before duplicates "
     "are merged (mcl -abc-tf); SPEC as -tf")
    ("abc-neg-log10", "replace every ABC weight w by -log10(w) as it is read, before -abc-tf "
                      "(mcl --abc-neg-log10, for BLAST e-values; 0 gives the largest float)")
    ("abc-neg-log", "the same with the natural logarithm (mcl --abc-neg-log)")
    ("write-graph", po::value<std::string>()->value_name("FILE"),
     "write the graph as read (undirected, before -tf) as a native matrix (mcl -write-graph)")
    ("sort", po::value<std::string>()->value_name("revsize|size|lex"),
     "cluster order (mcl -sort): revsize (default) largest first, equal sizes by their "
     "members; size: the reverse of revsize; lex: by their members")
    ("prune-number,P", po::value<long long>()->value_name("n"),
     "pruning cutoff as an inverse: entries below 1/n of a column are dropped (default 10000; "
     "0: none)")
    ("cutoff,p", po::value<double>()->value_name("f"),
     "pruning cutoff directly, in [0, 0.1] (sets -P to (int)(1/f))")
    ("select,S", po::value<long long>()->value_name("n"),
     "selection: keep at most about n largest entries per column (default 1100; 0: off)")
    ("recover,R", po::value<long long>()->value_name("n"),
     "recovery: regain up to n entries when pruning kept too little mass (default 1400; 0: off)")
    ("pct", po::value<int>()->value_name("n"),
     "recovery percentage: recover when less than n% of a column's mass was kept (default 90)")
    ("scheme", po::value<int>()->value_name("1..7"),
     "mcl's preset resource schemes for -P/-S/-R/-pct (default 6); explicit flags override")
    ("threads", po::value<int>()->value_name("n"),
     "CPU threads (default: all processors; at most that many)")
    ("te", po::value<int>()->value_name("n"), "the same as --threads (mcl's spelling)")
    ("discard-loops", po::value<std::string>()->value_name("y|n")->implicit_value("y"),
     "y (default): drop loops in the input and give every node a loop as heavy as its heaviest "
     "edge, as mcl does; n: use the input's loops as they are and add none")
    ("loop-scale,c", po::value<double>()->value_name("f"), "multiply every loop weight by f (mcl -c)")
    ("pi", po::value<double>()->value_name("f"),
     "pre-inflation: raise the input weights to the power f once (mcl -pi)")
    ("overlap", po::value<std::string>()->value_name("cut|keep|split"),
     "nodes claimed by several clusters: cut (default, mcl's) keeps the first; keep writes "
     "overlapping clusters; split makes the shared parts clusters of their own")
    ("backend", po::value<std::string>()->value_name("gpu|cpu|auto"),
     "where the iterations run (default auto: the GPU when one is usable, except for small "
     "networks, with fewer than 2 million products in the first expansion (read from files up to "
     "16 MiB), where the CPU finishes before the GPU has started: on an H100 with 16 cores the "
     "GPU's start takes 0.3-0.4 s; both give the same clusters)")
    ("precision", po::value<std::string>()->value_name("float|double"),
     "float (default): mcl's own arithmetic, float cells with every expanded column summed in "
     "double, which keeps mcl's ties and so its clusters; double: double cells (more precise; "
     "values that mcl's floats make equal can then differ, so rare near-ties may fall the "
     "other way)")
    ("max-iter", po::value<int>()->value_name("n"),
     "stop after n iterations even without convergence (default 10000)")
    ("L", po::value<int>()->value_name("n"), "the same as --max-iter (mcl's spelling)")
    ("block-products", po::value<long long>()->value_name("n"),
     "expand in row blocks of at most n multiplications each, pruning every block before the "
     "next is computed (default 0: only when the expansion would not fit in device memory)")
    ("verbose", "per-iteration details (nnz, time, device allocations, GPU milliseconds), a "
                "summary and the seconds of every stage on standard error")
    ("quiet", "no progress output at all, not even the backend line (errors and warnings are "
              "still reported)")
    ("q", po::value<std::string>()->value_name("SPEC"),
     "mcl's log levels: a SPEC with x (-q x) is --quiet; other levels change nothing")
    ("V", po::value<std::vector<std::string>>()->value_name("MODE"),
     "mcl's verbosity off: all or cls silences the per-iteration lines; pruning, explain "
     "accepted (off already)")
    ("v", po::value<std::vector<std::string>>()->value_name("MODE"),
     "mcl's verbosity on: all or pruning gives --verbose; cls, explain accepted (cls is on)")
    ("annot", po::value<std::string>()->value_name("STR"),
     "a note for the output's command-line comment (mcl -annot); nothing else")
    ("warn-factor", po::value<std::string>()->value_name("n"), "accepted for mcl; no effect")
    ("warn-pct", po::value<std::string>()->value_name("n"), "accepted for mcl; no effect");
  // clang-format on
  return d;
}

/// mcl 22-282's options that this program does not implement: refused with their name, before
/// the parser could read them as something else.
void reject_unsupported_mcl_options(int argc, char** argv, const po::options_description& known) {
  static const char* const unsupported[] = {
      "aa", "analyze", "ap", "ax", "check-connected", "di", "digits", "dm", "ds", "dump",
      "dump-interval", "dump-modulo", "dump-stem", "etc", "expect-values", "force-connected",
      "how-much-ram", "i3", "icl", "if", "jury-charter", "resource", "show", "show-log",
      "show-schemes", "sif", "sparse", "write-binary", "write-expanded", "write-graphx",
      "write-limit", "z"};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() < 2 || a[0] != '-') continue;
    std::string name = a.substr(a.find_first_not_of('-'));
    name = name.substr(0, name.find('='));
    if (std::find(std::begin(unsupported), std::end(unsupported), name) != std::end(unsupported))
      throw usage_error("mcl's option '" + a.substr(0, a.find('=')) +
                        "' is not supported by opsparse-mcl");
    // "-I2", "-ofile": mcl reads no value glued to a single-dash option, and neither does this
    // program (the parser would take it as -I 2); a negative number is a value.
    const bool number = a.find_first_not_of("0123456789.eE+-", 1) == std::string::npos;
    if (a[1] != '-' && a.size() > 2 && !number && !known.find_nothrow(name, false))
      throw usage_error("unrecognised option '" + a + "'" +
                        (known.find_nothrow(a.substr(0, 2), false)
                             ? " (a value follows its option after a blank, as for mcl: '" +
                                   a.substr(0, 2) + " " + a.substr(2) + "')"
                             : ""));
  }
}

/// What the program is doing, for an out-of-memory message.
// --backend auto: networks whose first expansion has fewer products than this run on the CPU.
// Measured on an H100 with 16 cores (docs/benchmarks.md): the GPU's start alone takes 0.29-0.44 s,
// while 16 CPU threads cluster the PPI networks of up to 7k edges (at most 0.54M products in
// the first expansion) in 0.01-0.06 s; the 32k-edge human network (5.2M) is faster on the GPU.
constexpr long long auto_cpu_products = 2000000;
/// Files up to this size are read before CUDA is started, to decide (at most ~0.1 s of reading).
constexpr std::uintmax_t auto_defer_bytes = std::uintmax_t(16) << 20;

const char* stage = "starting";

int run_main(int argc, char** argv) {
  po::options_description visible = visible_options();
  po::options_description hidden;
  hidden.add_options()("input", po::value<std::vector<std::string>>(), "input file");
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add("input", -1);
  namespace st = po::command_line_style;
  // No guessing of abbreviations (-p must not become -pct or -pi); single-dash long options as
  // mcl spells them; a value after a blank only, as mcl (-odir must not become -o dir).
  const int style = st::allow_short | st::short_allow_next | st::allow_long |
                    st::long_allow_adjacent | st::long_allow_next | st::allow_long_disguise |
                    st::allow_dash_for_short;
  reject_unsupported_mcl_options(argc, argv, all);
  po::variables_map vm;
  try {
    po::parsed_options parsed =
        po::command_line_parser(argc, argv).options(all).positional(pos).style(style).run();
    // mcl's rule: the last of a repeated option wins (scripts append to a fixed command line);
    // -V, -v and the input keep every occurrence.
    auto& opts = parsed.options;
    for (std::size_t i = 0; i < opts.size(); ++i) {
      const std::string& key = opts[i].string_key;
      if (key == "input" || key == "V" || key == "v") continue;
      for (std::size_t j = i + 1; j < opts.size(); ++j)
        if (opts[j].string_key == key) {
          opts.erase(opts.begin() + static_cast<std::ptrdiff_t>(i));
          --i;
          break;
        }
    }
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw usage_error(e.what());
  }
  if (vm.count("version")) {
    std::cout << apps::version_line(prog) << "\n";
    return 0;
  }
  if (vm.count("help")) {
    std::cout << visible << "\n"
              << "Environment:\n"
              << "  CUDA_DEVICE_MAX_CONNECTIONS  hardware work queues of the GPU context; set to 1\n"
              << "                               when unset (faster context creation and exit)\n";
    return 0;
  }
  if (!vm.count("input")) throw usage_error("no input file given");
  const auto& inputs = vm["input"].as<std::vector<std::string>>();
  if (inputs.size() != 1)
    throw usage_error("exactly one input file expected, got " + std::to_string(inputs.size()) +
                      " ('" + inputs[1] + "' is extra)");
  const std::string input = inputs[0];

  mcl::params p;
  if (vm.count("scheme")) {
    try {
      mcl::apply_scheme(p, vm["scheme"].as<int>());
    } catch (const std::invalid_argument& e) {
      throw usage_error(e.what());
    }
  }
  // mcl reads -p into a float: -p 0.001 gives P = 999 there (-I and -c are rounded likewise,
  // in mcl_core.cpp, for every caller).
  auto as_mcl_float = [](double x) { return static_cast<double>(static_cast<float>(x)); };
  if (vm.count("inflation")) p.inflation = vm["inflation"].as<double>();
  if (vm.count("prune-number") && vm.count("cutoff"))
    throw usage_error("give either -P or -p, not both");
  if (vm.count("prune-number")) p.prune = vm["prune-number"].as<long long>();
  if (vm.count("cutoff")) {
    const double f = as_mcl_float(vm["cutoff"].as<double>());
    if (!(f >= 0.0 && f <= 0.1)) throw usage_error("-p must be in [0, 0.1]");
    p.prune = f > 0 ? static_cast<long long>(1.0 / f) : 0;
  }
  if (vm.count("select")) p.select = vm["select"].as<long long>();
  if (vm.count("recover")) p.recover = vm["recover"].as<long long>();
  if (vm.count("pct")) p.pct = vm["pct"].as<int>();
  if (vm.count("te") && vm.count("threads")) throw usage_error("give either -te or --threads, not both");
  if (vm.count("te")) p.threads = vm["te"].as<int>();
  if (vm.count("threads")) p.threads = vm["threads"].as<int>();
  p.threads = apps::cap_threads(prog, vm.count("te") ? "-te" : "--threads", p.threads, std::cerr);
  if (vm.count("max-iter") && vm.count("L")) throw usage_error("give either -L or --max-iter, not both");
  if (vm.count("max-iter")) p.max_iter = vm["max-iter"].as<int>();
  if (vm.count("L")) p.max_iter = vm["L"].as<int>();
  if (vm.count("block-products")) p.block_products = vm["block-products"].as<long long>();
  if (vm.count("discard-loops")) {
    const std::string v = vm["discard-loops"].as<std::string>();
    if (v == "y" || v == "yes" || v == "1") p.discard_loops = true;
    else if (v == "n" || v == "no" || v == "0") p.discard_loops = false;
    else throw usage_error("--discard-loops expects y or n, not '" + v + "'");
  }
  if (vm.count("loop-scale")) {
    p.loop_scale = vm["loop-scale"].as<double>();
    if (!(p.loop_scale >= 0)) throw usage_error("-c must be >= 0");
  }
  if (vm.count("pi")) {
    p.pre_inflation = vm["pi"].as<double>();
    if (!(p.pre_inflation >= 0)) throw usage_error("-pi must be >= 0");
  }
  if (vm.count("overlap")) {
    const std::string v = vm["overlap"].as<std::string>();
    if (v == "cut") p.overlap = mcl::overlap_mode::cut;
    else if (v == "keep") p.overlap = mcl::overlap_mode::keep;
    else if (v == "split") p.overlap = mcl::overlap_mode::split;
    else throw usage_error("-overlap expects cut, keep or split, not '" + v + "'");
  }
  mcl::precision prec = mcl::precision::float32;
  if (vm.count("precision")) {
    const std::string v = vm["precision"].as<std::string>();
    if (v == "float") prec = mcl::precision::float32;
    else if (v == "double") prec = mcl::precision::float64;
    else throw usage_error("--precision expects float or double, not '" + v + "'");
  }
  io::file_format format = io::file_format::automatic;
  if (vm.count("format")) {
    const std::string v = vm["format"].as<std::string>();
    if (v == "abc") format = io::file_format::abc;
    else if (v == "mtx") format = io::file_format::matrix_market;
    else if (v == "edges") format = io::file_format::edge_list;
    else if (v == "mcl") format = io::file_format::mcl_native;
    else throw usage_error("--format expects abc, mtx, edges or mcl, not '" + v + "'");
    if (vm.count("abc") && format != io::file_format::abc)
      throw usage_error("--abc contradicts --format " + v);
  } else if (vm.count("abc")) {
    format = io::file_format::abc;
  }
  bool verbose = vm.count("verbose") > 0;
  bool quiet = vm.count("quiet") > 0;
  if (verbose && quiet) throw usage_error("--verbose and --quiet contradict each other");
  // mcl's -v/-V modes in order, then -q.
  bool iteration_lines = true;
  static const char* const modes[] = {"all", "pruning", "explain", "cls"};
  auto check_mode = [&](const char* opt, const std::string& m) {
    if (std::find(std::begin(modes), std::end(modes), m) == std::end(modes))
      throw usage_error(std::string(opt) + " expects all, pruning, explain or cls, not '" + m + "'");
  };
  if (vm.count("v"))
    for (const std::string& m : vm["v"].as<std::vector<std::string>>()) {
      check_mode("-v", m);
      if (m == "all" || m == "pruning") verbose = !quiet;
      if (m == "all" || m == "cls") iteration_lines = true;
    }
  if (vm.count("V"))
    for (const std::string& m : vm["V"].as<std::vector<std::string>>()) {
      check_mode("-V", m);
      if (m == "all" || m == "cls") iteration_lines = false;
      if ((m == "all" || m == "pruning") && !vm.count("verbose")) verbose = false;
      // mcl -V all prints nothing at all (OrthoFinder passes it): nor does this program
      if (m == "all" && !vm.count("verbose")) quiet = true;
    }
  if (vm.count("q") && vm["q"].as<std::string>().find('x') != std::string::npos) {
    quiet = true;
    verbose = false;
  }
  std::string sort_mode = "revsize";
  if (vm.count("sort")) {
    sort_mode = vm["sort"].as<std::string>();
    if (sort_mode != "revsize" && sort_mode != "size" && sort_mode != "lex")
      throw usage_error("-sort expects revsize, size or lex, not '" + sort_mode + "'" +
                        (sort_mode == "none" ? " (mcl's internal order, none, is not supported)"
                                             : ""));
  }
  // -abc-tf and --abc-neg-log10: applied by the reader to every weight of an ABC file.
  mcl::value_transform stream_tf, matrix_tf;
  // --abc-neg-log10 takes the logarithm of the weight as read (1e-100 gives 100), -abc-tf
  // transforms mcl's float value (where 1e-100 is 0): mcl's order and arithmetic.
  double neg_log_base = 0;
  try {
    if (vm.count("abc-neg-log10") && vm.count("abc-neg-log"))
      throw usage_error("give either --abc-neg-log10 or --abc-neg-log, not both");
    if (vm.count("abc-neg-log10")) neg_log_base = 10;
    if (vm.count("abc-neg-log")) neg_log_base = std::exp(1.0);
    if (vm.count("abc-tf")) stream_tf = mcl::value_transform::parse(vm["abc-tf"].as<std::string>());
    if (vm.count("tf")) matrix_tf = mcl::value_transform::parse(vm["tf"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string(vm.count("tf") ? "-tf/-abc-tf: " : "-abc-tf: ") + e.what());
  }
  if (vm.count("use-tab") && vm.count("tab")) throw usage_error("give either -use-tab or -tab, not both");
  const std::string tab_file = vm.count("use-tab") ? vm["use-tab"].as<std::string>()
                               : vm.count("tab")   ? vm["tab"].as<std::string>()
                                                   : std::string();
  try {
    mcl::validate(p);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  const std::string backend_choice =
      vm.count("backend") ? vm["backend"].as<std::string>() : std::string("auto");
  if (backend_choice != "gpu" && backend_choice != "cpu" && backend_choice != "auto")
    throw usage_error("--backend expects gpu, cpu or auto, not '" + backend_choice + "'");

  // Standard input has no extension to go by: edge list unless told otherwise.
  const std::string path = input == "-" ? std::string("/dev/stdin") : input;
  if (input == "-" && format == io::file_format::automatic) format = io::file_format::edge_list;
  if (format == io::file_format::automatic && io::looks_like_mcl_native(path))
    format = io::file_format::mcl_native;
  const bool mtx_by_name = input.size() > 4 && (input.compare(input.size() - 4, 4, ".mtx") == 0 ||
                                                input.compare(input.size() - 4, 4, ".MTX") == 0);
  const bool stream_transform = !stream_tf.empty() || neg_log_base > 0;
  if (stream_transform &&
      (format == io::file_format::mcl_native || format == io::file_format::matrix_market ||
       (format == io::file_format::automatic && mtx_by_name)))
    throw usage_error("-abc-tf and --abc-neg-log(10) transform the weights of ABC input; use -tf "
                      "for a matrix");
  // --inflations: the sweep's inflations, each checked as -I is.
  std::vector<double> inflations;
  if (vm.count("inflations")) {
    if (vm.count("output")) throw usage_error("--inflations writes one file per inflation: -o is refused (-odir DIR chooses their folder)");
    if (vm.count("az")) throw usage_error("--inflations and -az do not go together");
    std::stringstream list(vm["inflations"].as<std::string>());
    for (std::string item; std::getline(list, item, ',');) {
      char* end = nullptr;
      const double x = std::strtod(item.c_str(), &end);
      if (item.empty() || end != item.c_str() + item.size())
        throw usage_error("--inflations expects numbers separated by commas, not '" +
                          vm["inflations"].as<std::string>() + "'");
      mcl::params pk = p;
      pk.inflation = as_mcl_float(x);
      try {
        mcl::validate(pk);
      } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("--inflations ") + item + ": " + e.what());
      }
      inflations.push_back(x);
    }
    if (inflations.empty()) throw usage_error("--inflations needs at least one inflation");
  }
  // The output: -o, else the automatic name (mcl's) under -odir DIR or the input's folder (--d).
  auto automatic_name = [&](const mcl::params& pk) {
    std::string name = mcl::default_output_name(input, pk);
    if (vm.count("odir")) {
      name = vm["odir"].as<std::string>() + "/" + name;
    } else if (vm.count("d")) {
      const std::size_t slash = input.find_last_of('/');
      if (slash != std::string::npos) name = input.substr(0, slash + 1) + name;
    }
    return name;
  };
  std::vector<std::string> out_names;
  if (inflations.empty()) {
    out_names.push_back(vm.count("output") ? vm["output"].as<std::string>() : automatic_name(p));
  } else {
    for (double x : inflations) {
      mcl::params pk = p;
      pk.inflation = x;
      out_names.push_back(automatic_name(pk));
    }
  }
  const std::string& out_name = out_names.front();
  if (vm.count("az")) {
    std::cout << out_name;  // without a newline, as mcl
    return 0;
  }
  for (const std::string& name : out_names)
    if (name != "-" && (name == input || io::same_file(name, path)))
      throw usage_error("the output file '" + name + "' is the input file");

  // The output's temporary file is made first, beside it: a run of hours must not end on an
  // unwritable folder. The target itself is only replaced once every cluster is written.
  std::vector<std::unique_ptr<io::output_file>> out_files;
  for (const std::string& name : out_names) out_files.push_back(std::make_unique<io::output_file>(name));
  io::output_file& out_file = *out_files.front();

  // The backend is decided, and the GPU's context made, while the file is read; on one hardware
  // queue, which halves the context's creation and teardown (apps::prefer_one_connection).
  // Except for --backend auto on a small file with a driver installed: the network may be so
  // small that the CPU finishes before the GPU would have started (see auto_cpu_products), so
  // it is read first and CUDA is started only if the GPU is to be used.
  apps::prefer_one_connection();
  std::error_code size_error;
  const bool defer_probe =
      backend_choice == "auto" && input != "-" && std::filesystem::is_regular_file(path, size_error) &&
      std::filesystem::file_size(path, size_error) <= auto_defer_bytes && !size_error &&
      apps::driver_installed();
  std::optional<apps::backend_probe> probe;
  if (!defer_probe) probe.emplace(backend_choice);

  // Seconds of each stage for -V: what is not iterating is what a user waits for in vain.
  using clock = std::chrono::steady_clock;
  auto stage_start = clock::now();
  auto stage_seconds = [&] {
    const auto now = clock::now();
    const double s = std::chrono::duration<double>(now - stage_start).count();
    stage_start = now;
    return s;
  };
  // MCL's weights are similarities: a negative one is an error naming its line.
  io::read_options read_opts;
  read_opts.nonnegative = true;
  if (stream_transform)
    read_opts.weight_transform = [&stream_tf, neg_log_base](double w) {
      if (neg_log_base > 0) w = w > 0 ? -std::log(w) / std::log(neg_log_base) : HUGE_VAL;
      return stream_tf(w);
    };
  stage = "reading the input";
  // mcl clusters a native matrix as it is, directed or not, and mirrors everything else: the
  // reader mirrors as it assembles the rows (no directed copy to mirror afterwards), so that
  // start_matrix gets the graph ready (format is mcl_native here for any native input: above).
  const bool native = format == io::file_format::mcl_native;
  read_opts.symmetrize = !native;
  io::labelled_graph g = io::read_graph(path, format, read_opts);
  p.mirror = false;
  // A native matrix's labels are its domain's indices: kept as numbers for the output.
  std::vector<std::int64_t> node_ids;
  bool canonical_ids = true;
  if (native) {
    node_ids.reserve(g.labels.size());
    for (std::size_t i = 0; i < g.labels.size(); ++i) {
      node_ids.push_back(std::stoll(g.labels[i]));
      canonical_ids = canonical_ids && node_ids.back() == static_cast<std::int64_t>(i);
    }
  }
  if (vm.count("write-graph") || !matrix_tf.empty()) {
    // mcl's order: the graph as read (mirrored for ABC and the like) for -write-graph, then -tf.
    if (vm.count("write-graph")) {
      host_csr<double> nz = g.adj;
      mcl::transform_values(nz, mcl::value_transform::parse("gt(0)"));
      io::output_file graph_file(vm["write-graph"].as<std::string>());
      io::write_mcl_native(graph_file.stream(), nz, native && !canonical_ids ? &node_ids : nullptr,
                           native && !canonical_ids ? &node_ids : nullptr);
      graph_file.commit();
    }
    mcl::transform_values(g.adj, matrix_tf);
  }
  const double read_seconds = stage_seconds();
  stage = "building the start matrix";
  const host_csr<double> start = mcl::start_matrix(g.adj, p, &g.labels);
  const double start_seconds = stage_seconds();
  std::string why_cpu;
  stage = "starting the GPU";
  apps::backend chosen = apps::backend::cpu;
  if (defer_probe) {
    const std::vector<offset_t> per_row = cpu::row_products(start, start);
    const long long products = std::accumulate(per_row.begin(), per_row.end(), 0ll);
    if (products < auto_cpu_products)
      why_cpu = "a small network: " + std::to_string(products) +
                " products in the first expansion, under " + std::to_string(auto_cpu_products) +
                ", where the CPU finishes before the GPU has started; --backend gpu to use it";
    else
      probe.emplace(backend_choice);
  }
  if (probe) chosen = probe->get(&why_cpu);
  const bool gpu = chosen == apps::backend::gpu;
  const double warmup_seconds = stage_seconds();
  if (!quiet) apps::report_backend(prog, chosen, gpu ? probe->device_name() : why_cpu, std::cerr);
  if (verbose) {
    std::cerr << "[" << prog << "] " << input << ": " << start.rows << " nodes, "
              << start.nnz() << " entries with loops; backend " << apps::to_string(chosen)
              << (gpu ? "" : " (" + why_cpu + ")") << ", "
              << (prec == mcl::precision::float32 ? "float" : "double") << "; -I " << p.inflation
              << " -P " << p.prune << " -S " << p.select << " -R " << p.recover << " -pct "
              << p.pct << "\n";
  }

  auto progress = [&](const mcl::iteration_info& it) {
    if (quiet || !iteration_lines) return;
    std::ostringstream os;
    os << "[" << prog << "] ite " << std::setw(3) << it.iteration << "  chaos " << std::fixed
       << std::setprecision(it.chaos < 0.01 ? 6 : 4) << it.chaos << "  nnz " << it.nnz;
    if (verbose) {
      os << "  expanded " << it.expanded_nnz;
      if (it.blocks != 1) os << " in " << it.blocks << " blocks";
      os << "  time " << std::setprecision(3) << it.seconds << "s";
      if (it.stats.device_allocations >= 0)
        os << "  device allocations " << it.stats.device_allocations << "  device memory "
           << mib(it.stats.current_device_bytes);
      if (it.stats.expand_ms >= 0 && it.stats.fused)
        os << "  gpu ms: expand+prune (fused) " << std::setprecision(2) << it.stats.expand_ms
           << " (" << it.stats.products << " products), gather " << it.stats.prune_ms;
      else if (it.stats.expand_ms >= 0)
        os << "  gpu ms: expand " << std::setprecision(2) << it.stats.expand_ms << " ("
           << it.stats.products << " products; symbolic " << it.stats.symbolic_ms << ", numeric "
           << it.stats.numeric_ms << "), prune " << it.stats.prune_ms << " + sort "
           << it.stats.sort_ms;
    }
    std::cerr << os.str() << "\n";
  };
  // A clustering as mcl writes it: a native cluster matrix after the command line for a native
  // input without a tab file, else one line of labels per cluster.
  auto write_clustering = [&](std::ostream& os, const mcl::clustering& c) {
    if (native && tab_file.empty()) {
      mcl::write_native_clusters(os, c, start.rows, mcl::command_line_comment(prog, argc, argv),
                                 canonical_ids ? nullptr : &node_ids);
    } else if (native) {
      const io::mcl_tab tab = io::read_mcl_tab(tab_file);
      std::vector<std::string> labels;
      labels.reserve(node_ids.size());
      for (std::int64_t id : node_ids) labels.push_back(tab.label(id));
      mcl::write_clusters(os, c, labels);
    } else {
      if (!tab_file.empty() && !quiet)
        std::cerr << "[" << prog << "] -use-tab is for a native matrix; the input's own labels "
                     "are written\n";
      mcl::write_clusters(os, c, g.labels);
    }
  };

  if (!inflations.empty()) {
    stage = "clustering (inflation sweep)";
    // clm info's measures of each clustering over the graph as clustered (mirrored unless native).
    const host_csr<double>& measured = g.adj;
    std::ostringstream table;
    table << "[" << prog << "] inflation  clusters  iterations  seconds  mass-fraction  area-fraction\n";
    mcl::cluster_sweep(start, p, inflations, gpu, prec, progress,
                       [&](std::size_t k, const mcl::cluster_result& rk) {
                         mcl::clustering c = rk.result;
                         if (sort_mode != "revsize") mcl::sort_clusters(c, sort_mode);
                         write_clustering(out_files[k]->stream(), c);
                         out_files[k]->commit();
                         clm::partition part;
                         part.nodes = start.rows;
                         part.clusters = c.clusters;
                         // (no fractions for overlapping clusters, which are no partition)
                         double mass = NAN, area = NAN;
                         if (c.overlap == 0 || p.overlap != mcl::overlap_mode::keep) {
                           const clm::info info = clm::measure(measured, part);
                           mass = info.mass_fraction;
                           area = info.area_fraction;
                         }
                         char row[160];
                         std::snprintf(row, sizeof row, "%9g  %8zu  %10d  %7.3f  %13.4f  %13.6f",
                                       inflations[k], c.clusters.size(), rk.iterations,
                                       rk.seconds, mass, area);
                         table << "[" << prog << "] " << row << "\n";
                         if (!quiet)
                           std::cerr << "[" << prog << "] -I " << inflations[k] << ": "
                                     << c.clusters.size() << " clusters, output is in "
                                     << out_names[k] << "\n";
                       });
    if (!quiet) std::cerr << table.str();
    return 0;
  }

  stage = "clustering";
  mcl::cluster_result r = mcl::cluster(start, p, gpu, prec, progress);
  if (sort_mode != "revsize") mcl::sort_clusters(r.result, sort_mode);
  const double cluster_seconds = stage_seconds();

  stage = "writing the clusters";
  write_clustering(out_file.stream(), r.result);
  out_file.commit();
  const double output_seconds = stage_seconds();
  if (!quiet) {
    if (r.result.overlap)
      std::cerr << "[" << prog << "] "
                << (p.overlap == mcl::overlap_mode::cut    ? "cut"
                    : p.overlap == mcl::overlap_mode::keep ? "kept"
                                                           : "split")
                << " <" << r.result.overlap << "> instances of overlap\n";
    if (r.result.missing)
      std::cerr << "[" << prog << "] collected <" << r.result.missing
                << "> nodes that no cluster claimed into one cluster\n";
    if (!r.converged)
      std::cerr << "[" << prog << "] warning: no convergence after " << r.iterations
                << " iterations (--max-iter); the last iterate was interpreted\n";
    std::cerr << "[" << prog << "] " << r.result.clusters.size() << " clusters found";
    if (verbose) {
      std::cerr << " (" << r.result.attractors << " attractors) in " << r.iterations
                << " iterations, " << std::fixed << std::setprecision(3) << r.seconds << "s";
      if (r.stats.device_allocations >= 0)
        std::cerr << "; " << r.stats.device << ": peak device memory "
                  << mib(r.stats.peak_device_bytes) << ", "
                  << r.stats.device_allocations << " device allocations in total";
    }
    std::cerr << "\n[" << prog << "] output is in " << out_name << "\n";
    if (verbose) {
      // "device start": the wait for the GPU's context beyond the read; "iterations":
      // r.seconds (upload, iterations, download); "interpretation": the rest of cluster()
      // (the start matrix in the cell type, the backend made and freed, the interpretation).
      std::cerr << "[" << prog << "] stages: read " << std::fixed << std::setprecision(3)
                << read_seconds << "s, start matrix " << start_seconds << "s, device start "
                << warmup_seconds << "s, iterations " << r.seconds << "s, interpretation "
                << cluster_seconds - r.seconds << "s (backend " << r.backend_seconds
                << "s, interpret " << r.interpret_seconds << "s, then waiting for the backend's release "
                << r.release_wait_seconds << "s), output " << output_seconds << "s\n";
    }
  }
  return 0;
}

}  // namespace

int run_guarded(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << prog << ": " << e.what() << "\n(try " << prog << " --help)\n";
    return 2;
  } catch (const parse_error& e) {
    // what() names the file and the line.
    std::cerr << prog << ": error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << prog << ": error: out of host memory while " << stage
              << ": the network needs more memory than this machine has free (a smaller -S "
                 "keeps fewer entries per column; --block-products bounds the expansion's "
                 "size)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << prog << ": error: " << e.what() << "\n";
    return 1;
  } catch (...) {
    std::cerr << prog << ": error: unknown failure\n";
    return 1;
  }
}

/// The host stages allocate and free arrays of hundreds of MB one after another (the reader's
/// chunks and rows, the adjacency, its mirror, the start matrix, the limit), and so do the CPU
/// backend's iterations. glibc maps every block over 32 MB afresh and unmaps it when it is
/// freed, so the kernel zeroed each array page by page on first touch: 40% of the CPU time of
/// reading and preparing 4M nodes / 20M edges went to page faults (perf: clear_page_erms,
/// exc_page_fault). Served from the heap, which keeps what is freed (up to 2 GiB at its top), a
/// freed array's pages go to the next one. Measured with 2 threads: the 4M start matrix
/// 1.3-1.4 s -> 0.8-0.85 s, the 200k network's CPU iterations 52-72 s -> 34-38 s, for a peak
/// resident size 10-13% higher (fragments of the heap are not returned).
/// The user's own malloc settings (GLIBC_TUNABLES, MALLOC_*_ variables) are left alone.
void reuse_freed_memory() noexcept {
#if defined(__GLIBC__)
  for (const char* v : {"GLIBC_TUNABLES", "MALLOC_MMAP_MAX_", "MALLOC_MMAP_THRESHOLD_",
                        "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"})
    if (std::getenv(v)) return;
  (void)mallopt(M_MMAP_MAX, 0);
  (void)mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
}

int main(int argc, char** argv) {
  reuse_freed_memory();
  const int rc = run_guarded(argc, argv);
  // Everything is written and closed by now. Leave without the static destructors: the CUDA
  // runtime's would free the device memory and destroy the context one call at a time, which
  // the driver does anyway when the process ends.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(rc);
}
