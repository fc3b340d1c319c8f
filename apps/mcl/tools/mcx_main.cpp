// opsparse-mcx: ABC <-> mcl's native matrix with a tab file, as mcl 22-282's mcxload and mcxdump
// do it for the usual command lines (their option spellings; byte-identical files):
//   opsparse-mcx load -abc FILE [--stream-mirror] [--stream-neg-log10|--stream-neg-log]
//                     [-stream-tf SPEC] [-tf SPEC] [-write-tab TAB] [--write-binary] [-o MATRIX]
//   opsparse-mcx dump -imx MATRIX [-tab TAB | -tabr TAB -tabc TAB] [--no-values] [-o FILE]
//   opsparse-mcx dump -icl CLUSTERS [-tabr TAB] [--lazy-tab] [-o FILE]
// load: labels numbered in order of first appearance; duplicate arcs keep the larger weight
// (mcxload's default -re max); --stream-mirror adds every arc's reverse; zero weights are no
// entries. dump: one "column<TAB>row<TAB>value" line per non-zero entry, column by column
// (labels from the tab file; an index the tab lacks is an error).
#include <cmath>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "core/mcl_compat.hpp"
#include "core/mcl_detail.hpp"
#include "core/mcl_graph_tf.hpp"
#include "opsparse/error.hpp"
#include "opsparse/io.hpp"
#include "opsparse/io_mcl_native.hpp"
#include "opsparse/output_file.hpp"

using namespace opsparse;

namespace {

constexpr const char* prog = "opsparse-mcx";

using opsparse::apps::usage_error;  // apps/common/cli.hpp

const char* usage =
    "Usage: opsparse-mcx load -abc FILE [--stream-mirror] [--stream-neg-log10|--stream-neg-log]\n"
    "                         [-stream-tf SPEC] [-tf SPEC] [-write-tab TAB] [--write-binary]\n"
    "                         [-o MATRIX]\n"
    "       opsparse-mcx dump -imx MATRIX [-tab TAB | -tabr TAB -tabc TAB] [--no-values]\n"
    "                         [--lazy-tab] [-o FILE]\n"
    "       opsparse-mcx dump -icl CLUSTERS [-tabr TAB | -tab TAB] [--lazy-tab] [-o FILE]\n"
    "As mcl 22-282's mcxload and mcxdump: ABC (label label [weight]) to mcl's native matrix and a\n"
    "tab file (index<TAB>label), and back. Duplicate arcs keep the larger weight (mcxload -re "
    "max);\n"
    "--stream-mirror adds every arc's reverse; weights are transformed as they are read by\n"
    "--stream-neg-log10 (then -stream-tf), the matrix by -tf (opsparse-mcl --help lists the\n"
    "transforms). --write-binary writes mcl's binary format (mcxload's bytes), which opsparse-mcl\n"
    "and mcl read several times faster than the text. -o - (the default) is standard output.\n"
    "dump -icl writes a clustering (mcl's native cluster file) one cluster a line, its members'\n"
    "labels from -tabr (or -tab) tab-separated, as mcxdump -icl; a tab file must hold exactly\n"
    "the labels of the domain it names unless --lazy-tab, which writes ?_<index> for a missing\n"
    "one.\n";

/// mcx modes take options only: a word that is none is refused as one.
void refuse_words(const char* mode, const std::vector<std::string>& words) {
  if (!words.empty())
    throw usage_error(std::string(mode) + ": unsupported option '" + words[0] + "'");
}

int run_load(const std::vector<std::string>& args) {
  std::string abc, tab, out = "-", stream_spec, matrix_spec, re = "max";
  bool mirror = false, binary = false;
  double neg_log_base = 0;
  refuse_words("load",
               apps::read_words(args, "load",
                                {{{"-abc", &abc},
                                  {"-write-tab", &tab},
                                  {"-o", &out},
                                  {"-stream-tf", &stream_spec},
                                  {"-tf", &matrix_spec},
                                  {"-re", &re}},
                                 {{"--stream-mirror", [&] { mirror = true; }},
                                  {"--write-binary", [&] { binary = true; }},
                                  {"--stream-neg-log10", [&] { neg_log_base = 10; }},
                                  {"--stream-neg-log", [&] { neg_log_base = std::exp(1.0); }}}}));
  if (re != "max") throw usage_error("-re: only max (mcxload's default) is supported");
  if (abc.empty()) throw usage_error("load needs -abc FILE");
  mcl::value_transform stream_tf;
  mcl::matrix_transform matrix_tf;
  try {
    // As mcxload: a stream's spec has its graph steps passed over.
    if (!stream_spec.empty()) stream_tf = mcl::matrix_transform::parse(stream_spec).value_steps();
    if (!matrix_spec.empty()) matrix_tf = mcl::matrix_transform::parse(matrix_spec);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  io::read_options opts;
  // As mcxload reads a weight: NaN, infinity and anything above FLT_MAX are 1, then
  // --stream-neg-log10 and -stream-tf; the result is a float cell (-1e300 is -inf).
  opts.nonfinite_weights = true;
  opts.drop_zero_weights = true;  // mcxload stores no weight of 0: a duplicate's -2 stays
  opts.weight_transform = [&stream_tf, neg_log_base](double w) {
    w = mcl::abc_weight(w);
    if (neg_log_base > 0) w = mcl::neg_log_weight(w, neg_log_base);
    return stream_tf.empty() ? mcl::float_entry(w) : stream_tf(w);
  };
  io::labelled_graph g = io::read_abc(abc, opts);
  if (mirror) g.adj = io::symmetrize_max(g.adj);
  // A zero weight (or one a -stream-tf step makes 0) is no entry (mcxload keeps the node, not the
  // arc); a nonzero one that is 0 as a float (1e-150, or 0.5 after pow(1000)) is an entry written
  // as 0, as mcxload writes it. Then -tf.
  {
    host_csr<double> nz(g.adj.rows, g.adj.cols);
    for (index_t i = 0; i < g.adj.rows; ++i) {
      for (offset_t k = g.adj.rpt[i]; k < g.adj.rpt[i + 1]; ++k)
        if (g.adj.val[k] != 0) {
          nz.col.push_back(g.adj.col[k]);
          nz.val.push_back(g.adj.val[k]);
        }
      nz.rpt[i + 1] = static_cast<offset_t>(nz.col.size());
    }
    g.adj = std::move(nz);
  }
  matrix_tf.apply(g.adj);
  io::output_file matrix(out);
  if (binary)
    io::write_mcl_native_binary(matrix.stream(), g.adj);
  else
    io::write_mcl_native(matrix.stream(), g.adj);
  if (!tab.empty()) {
    io::output_file t(tab);
    io::write_mcl_tab(t.stream(), g.labels);
    t.commit();
  }
  matrix.commit();
  return 0;
}

/// A tab file's labels for one domain of a matrix, as mcxdump substitutes them: the tab must
/// cover exactly that domain unless --lazy-tab, which writes "?_<index>" for a missing label.
struct domain_labels {
  bool given = false;
  io::mcl_tab tab;
  std::string path;

  void check(const std::vector<std::int64_t>& domain, bool lazy, const std::string& what) const {
    if (!given || lazy) return;
    bool same = domain.size() == tab.ids.size();
    for (std::size_t i = 0; same && i < domain.size(); ++i)
      same = tab.position.count(domain[i]) > 0;
    if (!same)
      throw parse_error(path, 0,
                        "the tab file has " + std::to_string(tab.ids.size()) + " labels for " +
                            std::to_string(domain.size()) + " " + what +
                            " indices, or other indices (--lazy-tab allows that, as mcxdump)");
  }
  std::string name(std::int64_t id) const { return given ? tab.label(id) : std::to_string(id); }
};

/// mcxdump -icl: one line a cluster (a column), its members' labels (row indices through -tabr
/// or -tab), tab-separated; an empty cluster is an empty line.
void dump_clusters(io::output_file& f, const io::mcl_native_matrix& m, const domain_labels& rows) {
  for (index_t c = 0; c < m.columns.rows; ++c) {
    for (offset_t k = m.columns.rpt[c]; k < m.columns.rpt[c + 1]; ++k)
      f.stream() << (k > m.columns.rpt[c] ? "\t" : "") << rows.name(m.row_ids[m.columns.col[k]]);
    f.stream() << '\n';
  }
}

int run_dump(const std::vector<std::string>& args) {
  std::string imx, icl, tab, tabr, tabc, out = "-";
  bool no_values = false, lazy = false;
  refuse_words("dump", apps::read_words(args, "dump",
                                        {{{"-imx", &imx},
                                          {"-icl", &icl},
                                          {"-tab", &tab},
                                          {"-tabr", &tabr},
                                          {"-tabc", &tabc},
                                          {"-o", &out}},
                                         {{"--no-values", [&] { no_values = true; }},
                                          {"--lazy-tab", [&] { lazy = true; }}}}));
  const bool values = !no_values;
  if (imx.empty() == icl.empty()) throw usage_error("dump needs one of -imx MATRIX, -icl CLUSTERS");
  if (!tab.empty() && (!tabr.empty() || !tabc.empty()))
    throw usage_error("give -tab, or -tabr and -tabc, not both");
  io::read_options opts;
  opts.nonfinite_weights = true;  // mcxload writes inf and nan where mcl's floats hold them
  const std::string in = imx.empty() ? icl : imx;
  const io::mcl_native_matrix m = io::read_mcl_native(in, opts);
  domain_labels rows, cols;
  for (auto [labels, path] :
       {std::pair{&rows, tabr.empty() ? tab : tabr}, std::pair{&cols, tabc.empty() ? tab : tabc}})
    if (!path.empty()) *labels = {true, io::read_mcl_tab(path), path};
  rows.check(m.row_ids, lazy, "row");
  io::output_file f(out);
  if (!icl.empty()) {
    dump_clusters(f, m, rows);
    f.commit();
    return 0;
  }
  cols.check(m.col_ids, lazy, "column");
  char buf[64];
  for (index_t c = 0; c < m.columns.rows; ++c)
    for (offset_t k = m.columns.rpt[c]; k < m.columns.rpt[c + 1]; ++k) {
      // mcxdump writes no zero entries (mcl's reader drops them), nor values below -FLT_MAX (its
      // threshold): -inf, as mcxload writes -1e300.
      const float cell = mcl::detail::to_float(m.columns.val[k]);
      if (cell == 0 || cell < -std::numeric_limits<float>::max()) continue;
      f.stream() << cols.name(m.col_ids[c]) << '\t' << rows.name(m.row_ids[m.columns.col[k]]);
      if (values) {
        std::snprintf(buf, sizeof buf, "\t%.7g", static_cast<double>(cell));
        f.stream() << buf;
      }
      f.stream() << '\n';
    }
  f.commit();
  return 0;
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  return apps::run_modes(prog, usage, argc, argv, out, err,
                         {{"load", run_load}, {"dump", run_dump}});
}

}  // namespace

int main(int argc, char** argv) { return run_cli(argc, argv, std::cout, std::cerr); }
