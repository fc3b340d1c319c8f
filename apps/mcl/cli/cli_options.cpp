// opsparse-mcl's options: spelled and read as mcl 22-282 reads them (single-dash long options,
// a value after a blank, the last of a repeated option wins), checked into cli_settings.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "common/cli.hpp"
#include "core/mcl_memory_plan.hpp"
#include "common/options.hpp"
#include "opsparse/io.hpp"
#include "opsparse/io_mcl_native.hpp"
#include "opsparse/output_file.hpp"

namespace opsparse::mcl {

namespace {

namespace po = boost::program_options;
using apps::usage_error;

constexpr const char* usage =
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
    "option wins. mcl options not listed here are refused with their name.\n\nOptions";

constexpr const char* help_tail =
    "Environment:\n"
    "  CUDA_DEVICE_MAX_CONNECTIONS  hardware work queues of the GPU context; set to 1\n"
    "                               when unset (faster context creation and exit)\n";

constexpr const char* backend_help =
    "where the iterations run (default auto: the GPU when one is usable, except for small "
    "networks, with fewer than 2 million products in the first expansion (read from files up to "
    "16 MiB), where the CPU finishes before the GPU has started: on an H100 with 16 cores the "
    "GPU's start takes 0.3-0.4 s; both give the same clusters)";

// clang-format off
void add_output_options(po::options_description& d) {
  d.add_options()
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
     "seconds and clm info's mass and area fractions");
}

void add_input_options(po::options_description& d) {
  d.add_options()
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
     "scale(f) (divide by f) abs() acos(), log(b) neglog(b) exp(b) (base b; empty or 0: e; "
     "log of a negative value or in a negative base is 0, as in mcl). A value made 0 is no edge. "
     "Graph steps, as mcl's, in the same list: #knn(k) (each node's k heaviest edges, kept "
     "where both ends keep them), #knnj(k) (kept where either does), #rank(k), #ceilnb(k) (at "
     "most k edges a node, hubs first), #add() #max() #min() #mul() (each pair of arcs made one "
     "edge), #arcmax() #arcsub() #arcmaxgq(f) .. #arcdifflt(f), #selfrm() #selfmax() "
     "#normself(), #tp() #rev(), #step(k), #qt(q), #ssq(f), #tug(f), #ils(), #hread(n) and "
     "#shuffle(n) (no effect, as in mcl); apps/mcl/README.md says what each does. #mcl, #symmcl "
     "and #shrug are refused")
    ("abc-tf", po::value<std::string>()->value_name("SPEC"),
     "transform every ABC weight as it is read (1 for a line without one), before duplicates "
     "are merged (mcl -abc-tf); SPEC as -tf, whose graph steps mcl passes over here (and so "
     "does this program, with a note)")
    ("abc-neg-log10", "replace every ABC weight w by -log10(w) as it is read, before -abc-tf "
                      "(mcl --abc-neg-log10, for BLAST e-values; 0 gives the largest float)")
    ("abc-neg-log", "the same with the natural logarithm (mcl --abc-neg-log)")
    ("write-graph", po::value<std::string>()->value_name("FILE"),
     "write the graph as read (undirected, before -tf) as a native matrix (mcl -write-graph)")
    ("sort", po::value<std::string>()->value_name("revsize|size|lex"),
     "cluster order (mcl -sort): revsize (default) largest first, equal sizes by their "
     "members; size: the reverse of revsize; lex: by their members");
}

void add_pruning_options(po::options_description& d, apps::common_options& common) {
  d.add_options()
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
    ("resource", po::value<long long>()->value_name("n"),
     "track at most n neighbours a node: -S n -R n -P 10n (mcl -resource); explicit -S, -R "
     "and -P override it");
  apps::add_threads_option(d, common, /*te_alias=*/true);
}

void add_iteration_options(po::options_description& d, apps::common_options& common) {
  d.add_options()
    ("discard-loops", po::value<std::string>()->value_name("y|n")->implicit_value("y"),
     "y (default): drop loops in the input and give every node a loop as heavy as its heaviest "
     "edge, as mcl does; n: use the input's loops as they are and add none")
    ("loop-scale,c", po::value<double>()->value_name("f"), "multiply every loop weight by f (mcl -c)")
    ("pi", po::value<double>()->value_name("f"),
     "pre-inflation: raise the input weights to the power f once (mcl -pi)")
    ("overlap", po::value<std::string>()->value_name("cut|keep|split"),
     "nodes claimed by several clusters: cut (default, mcl's) keeps the first; keep writes "
     "overlapping clusters; split makes the shared parts clusters of their own")
    ("force-connected", po::value<std::string>()->value_name("y|n"),
     "y: split every cluster that is not connected in the graph as clustered (after -tf, "
     "directed arcs followed as they point) into its connected parts, as mcl -force-connected "
     "y: the parts are then written largest first whatever the -sort, and the clustering before "
     "the split goes to OUTPUT-rags as a native cluster matrix (mcl's name; '--rags' for -o -). "
     "n (the default): no check. As mcl, a value starting with 1, y or Y is y, with 0, n or N "
     "is n");
  apps::add_backend_option(d, common, backend_help);
  d.add_options()
    ("precision", po::value<std::string>()->value_name("float|double"),
     "float (default): mcl's own arithmetic, float cells with every expanded column summed in "
     "double, which keeps mcl's ties and so its clusters; double: double cells (more precise; "
     "values that mcl's floats make equal can then differ, so rare near-ties may fall the "
     "other way)")
    ("max-iter", po::value<int>()->value_name("n"),
     "stop after n iterations even without convergence (default 10000)")
    ("L", po::value<int>()->value_name("n"), "the same as --max-iter (mcl's spelling)")
    ("l", po::value<int>()->value_name("n"),
     "mcl's initial loop: n iterations at the -i inflation, without a convergence test, before "
     "the main loop's --max-iter at -I (default 0)")
    ("i", po::value<double>()->value_name("f"), "the initial loop's inflation (default 2.0)")
    ("block-products", po::value<long long>()->value_name("n"),
     "expand in row blocks of at most n multiplications each, pruning every block before the "
     "next is computed (default 0: only when the expansion would not fit in device memory)");
}

/// The memory budget, checkpoints and mcl's memory estimate.
void add_memory_options(po::options_description& d) {
  d.add_options()
    ("memory-budget", po::value<std::string>()->value_name("BYTES"),
     "device memory the GPU backend may use for the iterates and the expansion's workspace, as "
     "a number (40e9) or with a suffix K, M, G or T (powers of 1024: 40G); default: the "
     "device's free memory. When the next iterate does not fit on the device beside the "
     "current one, it is assembled in pinned host memory and uploaded in its place (same "
     "result); a network whose iterate alone cannot fit is refused before iterating, saying "
     "what it needs (--verbose prints the plan). With --backend cpu: the bytes of the stored "
     "expansion, computed in row blocks that fit")
    ("checkpoint", po::value<std::string>()->value_name("DIR"),
     "write the iterate to DIR/mcl-checkpoint.bin after each iteration that took at least "
     "--checkpoint-interval seconds, and on SIGINT, SIGTERM or SIGUSR1 once the running "
     "iteration ends (then the program stops with status 128 + the signal: 130, 143 or 138; a "
     "second signal stops it at once). "
     "Each checkpoint replaces the last one only when complete")
    ("checkpoint-interval", po::value<double>()->value_name("SECONDS"),
     "the shortest iteration that writes a checkpoint (default 60; 0: every iteration)")
    ("resume", po::value<std::string>()->value_name("DIR"),
     "continue from the checkpoint in DIR and write what the uninterrupted run writes; a "
     "checkpoint of another input or other options is refused")
    ("how-much-ram", po::value<long long>()->value_name("N"),
     "print mcl's estimate of the memory for N nodes with these -S and -R (mcl "
     "-how-much-ram), then exit (no input needed). A run's own plan, from the input, is "
     "printed by --verbose");
}

/// mcl's -V and -q mean other things than the other programs' -V and -q: --verbose and --quiet
/// are spelled out here.
void add_report_options(po::options_description& d) {
  d.add_options()
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
    ("warn-pct", po::value<std::string>()->value_name("n"), "accepted for mcl; no effect")
    ("z", "print the settings as mcl -z prints them (after the options before and after it), "
          "then exit");
  // mcl's diagnostics of its own run (cli_diagnostics.cpp).
  d.add_options()
    ("analyze", po::value<std::string>()->value_name("y|n")->implicit_value("y"),
     "y: append clm info's criteria of the clustering to the output, as mcl -analyze y: a line "
     "of its cluster sizes (ncl max ctr avg min DGI TWI TWL sgl qrt), then eff, mod, mf and af "
     "over the matrix as clustered (the start matrix: stochastic, with its loops) with the "
     "input's and the output's names (target-name, source-name). mcl's bytes, mod aside where "
     "clm's own modularity is not reproduced (apps/mcl/README.md)")
    ("write-limit", "write the limit matrix (the last iterand) to OUTPUT-limit (--limit for -o -) "
                    "in mcl's native format, as mcl --write-limit")
    ("dump", po::value<std::vector<std::string>>()->value_name("MODE"),
     "write the iterands as mcl -dump: MODE is searched for ite (each iterand after inflation, "
     "to ite-N.STEM, N from 0: the start matrix, with mcl's column sums), cls (the clustering "
     "mcl reads from each expanded iterand before its inflation, overlap kept: cls-N.STEM, N "
     "from 1), dag (the DAG it is read from: dag-N.STEM), lines (label pairs: column, row, "
     "value, below 1e-5 left out, instead of native matrices), cat (everything appended to the "
     "output, then the clustering as a native matrix, in place of the usual output); repeated "
     "-dump add up. chr (mcl's characteristics of each iterand) is not written (a note says "
     "so). Each file is written whole; the GPU's iterands may differ from mcl's in the last "
     "digit (the CPU's are mcl's)")
    ("dump-stem", po::value<std::string>()->value_name("STEM"),
     "the dump files' stem (default, as mcl: the -o name; the input's name for -o - and, "
     "without -o, followed by the suffix of the automatic output name: INPUT.I20)")
    ("ds", po::value<std::string>()->value_name("STEM"),
     "the same as -dump-stem (the spelling of mcl's manual, which mcl 22-282 refuses)")
    ("dump-interval", po::value<std::string>()->value_name("i:j|all"),
     "dump iterations i to j-1 (default 0:5; j 0: no end; all: 0:1000)")
    ("di", po::value<std::string>()->value_name("i:j|all"), "the same as -dump-interval")
    ("dump-modulo", po::value<std::string>()->value_name("n"),
     "dump every n-th iteration of the interval, from i (default 1)")
    ("dm", po::value<std::string>()->value_name("n"), "the same as -dump-modulo");
}
// clang-format on

po::options_description visible_options(apps::common_options& common, const cli_flavour* flavour) {
  po::options_description d(usage);
  apps::add_help_options(d);
  add_output_options(d);
  add_input_options(d);
  add_pruning_options(d, common);
  add_iteration_options(d, common);
  add_memory_options(d);
  add_report_options(d);
  if (!flavour) return d;
  // Another program's options: these without its left-out ones, then its own.
  po::options_description f(flavour->usage);
  for (const auto& o : d.options())
    if (std::find(flavour->without.begin(), flavour->without.end(), o->long_name()) ==
        flavour->without.end())
      f.add(o);
  if (flavour->add) flavour->add(f);
  return f;
}

/// mcl 22-282's options that this program does not implement: refused with their name, before
/// the parser could read them as something else.
void reject_unsupported_mcl_options(int argc, const char* const* argv,
                                    const po::options_description& known, const char* program) {
  static const char* const unsupported[] = {"aa",
                                            "ap",
                                            "ax",
                                            "check-connected",
                                            "digits",
                                            "etc",
                                            "expect-values",
                                            "i3",
                                            "icl",
                                            "if",
                                            "jury-charter",
                                            "show",
                                            "show-log",
                                            "show-schemes",
                                            "sif",
                                            "sparse",
                                            "write-binary",
                                            "write-expanded",
                                            "write-graphx"};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() < 2 || a[0] != '-') continue;
    std::string name = a.substr(a.find_first_not_of('-'));
    name = name.substr(0, name.find('='));
    if (std::find(std::begin(unsupported), std::end(unsupported), name) != std::end(unsupported))
      throw usage_error("mcl's option '" + a.substr(0, a.find('=')) + "' is not supported by " +
                        program);
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

/// argv parsed with mcl's rules into `vm`; false when --help or --version was answered.
bool parse_mcl_style(int argc, const char* const* argv, apps::common_options& common,
                     po::variables_map& vm, std::ostream& out, const cli_flavour* flavour) {
  const po::options_description visible = visible_options(common, flavour);
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
  const char* name = flavour ? flavour->name : program_name;
  reject_unsupported_mcl_options(argc, argv, all, name);
  po::parsed_options parsed = apps::as_usage_error([&] {
    return po::command_line_parser(argc, argv).options(all).positional(pos).style(style).run();
  });
  // mcl's rule: the last of a repeated option wins (scripts append to a fixed command line);
  // -V, -v, -dump and the input keep every occurrence.
  auto& opts = parsed.options;
  for (std::size_t i = 0; i < opts.size(); ++i) {
    const std::string& key = opts[i].string_key;
    if (key == "input" || key == "V" || key == "v" || key == "dump") continue;
    for (std::size_t j = i + 1; j < opts.size(); ++j)
      if (opts[j].string_key == key) {
        opts.erase(opts.begin() + static_cast<std::ptrdiff_t>(i));
        --i;
        break;
      }
  }
  return apps::store_or_answer(apps::program(name), std::move(parsed), visible, vm, out,
                               flavour ? flavour->help_tail : help_tail);
}

/// A y/n value as mcl reads one (its set_bit): the first character decides, 1, y or Y for yes,
/// 0, n or N for no; an empty value is yes there (strchr finds the string's end).
bool mcl_yes_no(const char* option, const std::string& v) {
  if (v.empty() || v[0] == '1' || v[0] == 'y' || v[0] == 'Y') return true;
  if (v[0] == '0' || v[0] == 'n' || v[0] == 'N') return false;
  throw usage_error(std::string(option) + " expects 1/0/Yes/yes/No/no value, not '" + v + "'");
}

/// mcl reads -p into a float: -p 0.001 gives P = 999 there (-I and -c are rounded likewise,
/// for every caller: -I in mcl_core.cpp's run, -c in mcl_start.cpp).
double as_mcl_float(double x) { return static_cast<double>(static_cast<float>(x)); }

/// -scheme, -I, -P/-p, -S, -R, -pct, --threads/-te, --max-iter/-L and the loops into s.p.
void read_params(const po::variables_map& vm, cli_settings& s, std::ostream& err) {
  params& p = s.p;
  if (vm.count("scheme")) apps::as_usage_error([&] { apply_scheme(p, vm["scheme"].as<int>()); });
  if (vm.count("resource"))
    apps::as_usage_error([&] { apply_resource(p, vm["resource"].as<long long>()); });
  if (vm.count("l")) p.initial_loop = vm["l"].as<int>();
  if (vm.count("i")) p.initial_inflation = vm["i"].as<double>();
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
  p.threads = apps::checked_threads(apps::program(s.prog), vm, s.common.threads, err);
  if (vm.count("max-iter") && vm.count("L"))
    throw usage_error("give either -L or --max-iter, not both");
  if (vm.count("max-iter")) p.max_iter = vm["max-iter"].as<int>();
  if (vm.count("L")) p.max_iter = vm["L"].as<int>();
  if (vm.count("block-products")) p.block_products = vm["block-products"].as<long long>();
  if (vm.count("discard-loops"))
    p.discard_loops = mcl_yes_no("--discard-loops", vm["discard-loops"].as<std::string>());
  if (vm.count("loop-scale")) {
    p.loop_scale = vm["loop-scale"].as<double>();
    if (!(p.loop_scale >= 0)) throw usage_error("-c must be >= 0");
  }
  if (vm.count("pi")) {
    p.pre_inflation = vm["pi"].as<double>();
    if (!(p.pre_inflation >= 0)) throw usage_error("-pi must be >= 0");
  }
}

/// -overlap, -force-connected, --precision and --format/--abc.
void read_modes(const po::variables_map& vm, cli_settings& s) {
  if (vm.count("overlap")) {
    const std::string v = vm["overlap"].as<std::string>();
    if (v == "cut")
      s.p.overlap = overlap_mode::cut;
    else if (v == "keep")
      s.p.overlap = overlap_mode::keep;
    else if (v == "split")
      s.p.overlap = overlap_mode::split;
    else
      throw usage_error("-overlap expects cut, keep or split, not '" + v + "'");
  }
  if (vm.count("force-connected"))
    s.force_connected = mcl_yes_no("-force-connected", vm["force-connected"].as<std::string>());
  if (vm.count("precision")) {
    const std::string v = vm["precision"].as<std::string>();
    if (v == "float")
      s.prec = precision::float32;
    else if (v == "double")
      s.prec = precision::float64;
    else
      throw usage_error("--precision expects float or double, not '" + v + "'");
  }
  if (vm.count("format")) {
    const std::string v = vm["format"].as<std::string>();
    if (v == "abc")
      s.format = io::file_format::abc;
    else if (v == "mtx")
      s.format = io::file_format::matrix_market;
    else if (v == "edges")
      s.format = io::file_format::edge_list;
    else if (v == "mcl")
      s.format = io::file_format::mcl_native;
    else
      throw usage_error("--format expects abc, mtx, edges or mcl, not '" + v + "'");
    if (vm.count("abc") && s.format != io::file_format::abc)
      throw usage_error("--abc contradicts --format " + v);
  } else if (vm.count("abc")) {
    s.format = io::file_format::abc;
  }
}

/// --verbose and --quiet, then mcl's -v/-V modes in order, then -q.
void read_verbosity(const po::variables_map& vm, cli_settings& s) {
  bool& verbose = s.common.verbose;
  bool& quiet = s.common.quiet;
  verbose = vm.count("verbose") > 0;
  quiet = vm.count("quiet") > 0;
  if (verbose && quiet) throw usage_error("--verbose and --quiet contradict each other");
  static const char* const modes[] = {"all", "pruning", "explain", "cls"};
  auto check_mode = [&](const char* opt, const std::string& m) {
    if (std::find(std::begin(modes), std::end(modes), m) == std::end(modes))
      throw usage_error(std::string(opt) + " expects all, pruning, explain or cls, not '" + m +
                        "'");
  };
  if (vm.count("v"))
    for (const std::string& m : vm["v"].as<std::vector<std::string>>()) {
      check_mode("-v", m);
      if (m == "all" || m == "pruning") verbose = !quiet;
      if (m == "all" || m == "cls") s.iteration_lines = true;
    }
  if (vm.count("V"))
    for (const std::string& m : vm["V"].as<std::vector<std::string>>()) {
      check_mode("-V", m);
      if (m == "all" || m == "cls") s.iteration_lines = false;
      if ((m == "all" || m == "pruning") && !vm.count("verbose")) verbose = false;
      // mcl -V all prints nothing at all (OrthoFinder passes it): nor does this program
      if (m == "all" && !vm.count("verbose")) quiet = true;
    }
  if (vm.count("q") && vm["q"].as<std::string>().find('x') != std::string::npos) {
    quiet = true;
    verbose = false;
  }
}

/// -analyze, --write-limit and -dump (refused with an inflation sweep, but -analyze), with the
/// dump files' default stem (mcl's: the -o name, the input's for -o -, else INPUT.SUFFIX).
void read_diagnostics(const po::variables_map& vm, cli_settings& s, std::ostream& err) {
  s.analyze = vm.count("analyze") && mcl_yes_no("-analyze", vm["analyze"].as<std::string>());
  s.write_limit = vm.count("write-limit") > 0;
  read_dump_options(vm, s, err);
  if (vm.count("inflations") && (s.write_limit || s.dump.any()))
    throw usage_error(std::string(s.write_limit ? "--write-limit" : "-dump") +
                      " is for one clustering, not an --inflations sweep");
  if (s.dump.stem.empty()) {
    const std::string out = vm.count("output") ? vm["output"].as<std::string>() : "";
    s.dump.stem = out == "-" ? s.input : !out.empty() ? out : s.input + "." + output_suffix(s.p);
  }
}

/// -sort, -abc-tf, --abc-neg-log(10), -tf, -use-tab/-tab and -write-graph.
void read_transforms(const po::variables_map& vm, cli_settings& s, std::ostream& err) {
  if (vm.count("sort")) {
    s.sort_mode = vm["sort"].as<std::string>();
    if (s.sort_mode != "revsize" && s.sort_mode != "size" && s.sort_mode != "lex")
      throw usage_error(
          "-sort expects revsize, size or lex, not '" + s.sort_mode + "'" +
          (s.sort_mode == "none" ? " (mcl's internal order, none, is not supported)" : ""));
  }
  // --abc-neg-log10 takes the logarithm of the weight as read (1e-100 gives 100), -abc-tf
  // transforms mcl's float value (where 1e-100 is 0): mcl's order and arithmetic.
  try {
    if (vm.count("abc-neg-log10") && vm.count("abc-neg-log"))
      throw usage_error("give either --abc-neg-log10 or --abc-neg-log, not both");
    if (vm.count("abc-neg-log10")) s.neg_log_base = 10;
    if (vm.count("abc-neg-log")) s.neg_log_base = std::exp(1.0);
    if (vm.count("abc-tf")) {
      // mcl applies a spec's value steps to the weights as they are read and passes over its
      // graph steps there.
      const matrix_transform t = matrix_transform::parse(vm["abc-tf"].as<std::string>());
      s.stream_tf = t.value_steps();
      for (const std::string& g : t.graph_steps())
        if (!s.common.quiet)
          err << s.prog << ": note: -abc-tf passes over the graph transform '" << g
              << "' as mcl does (it transforms weights as they are read); give it to -tf\n";
    }
    if (vm.count("tf")) s.matrix_tf = matrix_transform::parse(vm["tf"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string(vm.count("tf") ? "-tf/-abc-tf: " : "-abc-tf: ") + e.what());
  }
  if (vm.count("use-tab") && vm.count("tab"))
    throw usage_error("give either -use-tab or -tab, not both");
  s.tab_file = vm.count("use-tab") ? vm["use-tab"].as<std::string>()
               : vm.count("tab")   ? vm["tab"].as<std::string>()
                                   : std::string();
  if (vm.count("write-graph")) s.write_graph = vm["write-graph"].as<std::string>();
}

/// The file read and its format: standard input has no extension to go by (an edge list
/// unless told otherwise); a native matrix is known by its first line.
void resolve_input(cli_settings& s) {
  const std::string& input = s.input;
  s.path = input == "-" ? std::string("/dev/stdin") : input;
  if (input == "-" && s.format == io::file_format::automatic) s.format = io::file_format::edge_list;
  if (s.format == io::file_format::automatic && io::looks_like_mcl_native(s.path))
    s.format = io::file_format::mcl_native;
  const bool mtx_by_name = input.size() > 4 && (input.compare(input.size() - 4, 4, ".mtx") == 0 ||
                                                input.compare(input.size() - 4, 4, ".MTX") == 0);
  if (s.stream_transform() &&
      (s.format == io::file_format::mcl_native || s.format == io::file_format::matrix_market ||
       (s.format == io::file_format::automatic && mtx_by_name)))
    throw usage_error(
        "-abc-tf and --abc-neg-log(10) transform the weights of ABC input; use -tf "
        "for a matrix");
}

/// --inflations: the sweep's inflations, each checked as -I is.
void read_inflations(const po::variables_map& vm, cli_settings& s) {
  if (!vm.count("inflations")) return;
  if (vm.count("output"))
    throw usage_error(
        "--inflations writes one file per inflation: -o is refused (-odir DIR "
        "chooses their folder)");
  if (vm.count("az")) throw usage_error("--inflations and -az do not go together");
  const std::string list_s = vm["inflations"].as<std::string>();
  std::stringstream list(list_s);
  for (std::string item; std::getline(list, item, ',');) {
    char* end = nullptr;
    const double x = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size())
      throw usage_error("--inflations expects numbers separated by commas, not '" + list_s + "'");
    params pk = s.p;
    pk.inflation = as_mcl_float(x);
    try {
      validate(pk);
    } catch (const std::invalid_argument& e) {
      throw usage_error(std::string("--inflations ") + item + ": " + e.what());
    }
    s.inflations.push_back(x);
  }
  if (s.inflations.empty()) throw usage_error("--inflations needs at least one inflation");
}

/// The outputs: -o, else the automatic name (mcl's) under -odir DIR or the input's folder (--d),
/// one per inflation of a sweep; none of them the input.
void name_outputs(const po::variables_map& vm, cli_settings& s) {
  auto automatic_name = [&](const params& pk, int decimals) {
    std::string name = default_output_name(s.input, pk, decimals);
    if (vm.count("odir")) {
      name = vm["odir"].as<std::string>() + "/" + name;
    } else if (vm.count("d")) {
      const std::size_t slash = s.input.find_last_of('/');
      if (slash != std::string::npos) name = s.input.substr(0, slash + 1) + name;
    }
    return name;
  };
  if (s.inflations.empty()) {
    s.out_names.push_back(vm.count("output") ? vm["output"].as<std::string>()
                                             : automatic_name(s.p, 1));
    return;
  }
  // A sweep: mcl's names (one decimal) unless two inflations would share one; then every name
  // gets the fewest decimals that tell them apart (1.2,1.25 -> I120, I125).
  for (int decimals = 1;; ++decimals) {
    s.out_names.clear();
    for (double x : s.inflations) {
      params pk = s.p;
      pk.inflation = x;
      s.out_names.push_back(automatic_name(pk, decimals));
    }
    std::vector<std::string> sorted = s.out_names;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end() || decimals == 9) break;
  }
}

/// --inflations: no inflation twice (mcl reads them as floats: 2 and 2.0000000001 are one).
void check_sweep_distinct(const cli_settings& s) {
  for (std::size_t i = 0; i < s.inflations.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (as_mcl_float(s.inflations[i]) == as_mcl_float(s.inflations[j])) {
        std::ostringstream os;
        os << "--inflations lists the inflation " << s.inflations[j] << " twice";
        if (s.inflations[i] != s.inflations[j])
          os << " (" << s.inflations[i] << " is the same in single precision, as mcl reads it)";
        throw usage_error(os.str());
      }
}

/// A byte count: a number (40e9) or a number with K, M, G or T (powers of 1024).
std::size_t parse_bytes(const std::string& option, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  double scale = 1;
  const std::string suffix = end ? std::string(end) : std::string();
  if (suffix == "K" || suffix == "k")
    scale = 1024.0;
  else if (suffix == "M")
    scale = 1024.0 * 1024;
  else if (suffix == "G")
    scale = 1024.0 * 1024 * 1024;
  else if (suffix == "T")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else if (!suffix.empty() || end == v.c_str())
    throw usage_error(option + " expects bytes, as 40e9 or 40G, not '" + v + "'");
  const double bytes = x * scale;
  if (!(bytes >= 1) || bytes > 1e18)
    throw usage_error(option + " must be at least 1 byte, not '" + v + "'");
  return static_cast<std::size_t>(bytes);
}

/// --memory-budget, --checkpoint, --checkpoint-interval and --resume.
void read_memory(const po::variables_map& vm, cli_settings& s) {
  if (vm.count("memory-budget"))
    s.memory_budget = parse_bytes("--memory-budget", vm["memory-budget"].as<std::string>());
  if (vm.count("checkpoint")) s.checkpoint_dir = vm["checkpoint"].as<std::string>();
  if (vm.count("resume")) s.resume_dir = vm["resume"].as<std::string>();
  if (vm.count("checkpoint-interval")) {
    if (!vm.count("checkpoint")) throw usage_error("--checkpoint-interval needs --checkpoint DIR");
    s.checkpoint_seconds = vm["checkpoint-interval"].as<double>();
    if (!(s.checkpoint_seconds >= 0))
      throw usage_error("--checkpoint-interval must be >= 0 seconds");
  }
  if ((vm.count("checkpoint") || vm.count("resume")) && vm.count("inflations"))
    throw usage_error(
        "--checkpoint and --resume are for one clustering, not an --inflations sweep");
  if (s.checkpoint_dir.empty() && vm.count("checkpoint"))
    throw usage_error("--checkpoint needs a folder");
}

void check_outputs_are_not_input(const cli_settings& s) {
  for (const std::string& name : s.out_names)
    if (name != "-" && (name == s.input || io::same_file(name, s.path)))
      throw usage_error("the output file '" + name + "' is the input file");
}

}  // namespace

bool parse_cli(cli_settings& s, int argc, const char* const* argv, std::ostream& out,
               std::ostream& err, const cli_flavour* flavour) {
  s.argc = argc;
  s.argv = argv;
  if (flavour) s.prog = flavour->name;
  po::variables_map vm;
  if (!parse_mcl_style(argc, argv, s.common, vm, out, flavour)) return false;
  if (vm.count("z")) {  // needs no input, as -how-much-ram
    read_params(vm, s, err);
    apps::as_usage_error([&] { validate(s.p); });
    out << settings_table(s.p, vm.count("warn-pct") ? vm["warn-pct"].as<std::string>() : "",
                          vm.count("warn-factor") ? vm["warn-factor"].as<std::string>() : "");
    return false;
  }
  if (vm.count("how-much-ram")) {  // needs no input (mcl wants "-" as its file name)
    read_params(vm, s, err);
    const long long nodes = vm["how-much-ram"].as<long long>();
    if (nodes < 0) throw usage_error("-how-much-ram expects a node count >= 0");
    out << how_much_ram(nodes, s.p);
    return false;
  }
  if (!vm.count("input")) throw usage_error("no input file given");
  const auto& inputs = vm["input"].as<std::vector<std::string>>();
  if (inputs.size() != 1)
    throw usage_error("exactly one input file expected, got " + std::to_string(inputs.size()) +
                      " ('" + inputs[1] + "' is extra)");
  s.input = inputs[0];
  read_params(vm, s, err);
  read_modes(vm, s);
  read_verbosity(vm, s);
  read_transforms(vm, s, err);
  read_diagnostics(vm, s, err);
  read_memory(vm, s);
  if (flavour && flavour->read) flavour->read(vm, s);
  apps::as_usage_error([&] { validate(s.p); });
  apps::check_backend_choice(s.common.backend);
  resolve_input(s);
  read_inflations(vm, s);
  check_sweep_distinct(s);
  name_outputs(vm, s);
  if (vm.count("az")) {
    out << s.out_names.front();  // without a newline, as mcl
    return false;
  }
  check_outputs_are_not_input(s);
  return true;
}

}  // namespace opsparse::mcl
