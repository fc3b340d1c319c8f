// opsparse-mcx: ABC <-> mcl's native matrix with a tab file, as mcl 22-282's mcxload and mcxdump
// do it for the usual command lines (their option spellings; byte-identical files):
//   opsparse-mcx load -abc FILE [--stream-mirror] [--stream-neg-log10|--stream-neg-log]
//                     [-stream-tf SPEC] [-tf SPEC] [-write-tab TAB] [-o MATRIX]
//   opsparse-mcx dump -imx MATRIX [-tab TAB] [--no-values] [-o FILE]
// load: labels numbered in order of first appearance; duplicate arcs keep the larger weight
// (mcxload's default -re max); --stream-mirror adds every arc's reverse; zero weights are no
// entries. dump: one "column<TAB>row<TAB>value" line per non-zero entry, column by column
// (labels from the tab file; an index the tab lacks is an error).
#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "mcl_compat.hpp"
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
    "                         [-stream-tf SPEC] [-tf SPEC] [-write-tab TAB] [-o MATRIX]\n"
    "       opsparse-mcx dump -imx MATRIX [-tab TAB] [--no-values] [-o FILE]\n"
    "As mcl 22-282's mcxload and mcxdump: ABC (label label [weight]) to mcl's native matrix and a\n"
    "tab file (index<TAB>label), and back. Duplicate arcs keep the larger weight (mcxload -re max);\n"
    "--stream-mirror adds every arc's reverse; weights are transformed as they are read by\n"
    "--stream-neg-log10 (then -stream-tf), the matrix by -tf (opsparse-mcl --help lists the\n"
    "transforms). -o - (the default) is standard output.\n";

struct args_reader {
  std::vector<std::string> a;
  std::size_t i = 0;
  std::string value() {
    if (i + 1 >= a.size()) throw usage_error(a[i] + " needs a value");
    return a[++i];
  }
};

int run_load(args_reader r) {
  std::string abc, tab, out = "-", stream_spec, matrix_spec;
  bool mirror = false;
  double neg_log_base = 0;
  for (; r.i < r.a.size(); ++r.i) {
    const std::string& o = r.a[r.i];
    if (o == "-abc") abc = r.value();
    else if (o == "-write-tab") tab = r.value();
    else if (o == "-o") out = r.value();
    else if (o == "--stream-mirror") mirror = true;
    else if (o == "--stream-neg-log10") neg_log_base = 10;
    else if (o == "--stream-neg-log") neg_log_base = std::exp(1.0);
    else if (o == "-stream-tf") stream_spec = r.value();
    else if (o == "-tf") matrix_spec = r.value();
    else if (o == "-re") {
      if (r.value() != "max") throw usage_error("-re: only max (mcxload's default) is supported");
    } else throw usage_error("load: unsupported option '" + o + "'");
  }
  if (abc.empty()) throw usage_error("load needs -abc FILE");
  mcl::value_transform stream_tf, matrix_tf;
  try {
    if (!stream_spec.empty()) stream_tf = mcl::value_transform::parse(stream_spec);
    if (!matrix_spec.empty()) matrix_tf = mcl::value_transform::parse(matrix_spec);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  io::read_options opts;
  if (neg_log_base > 0 || !stream_tf.empty())
    opts.weight_transform = [&stream_tf, neg_log_base](double w) {
      if (neg_log_base > 0) w = w > 0 ? -std::log(w) / std::log(neg_log_base) : HUGE_VAL;
      return stream_tf(w);
    };
  io::labelled_graph g = io::read_abc(abc, opts);
  if (mirror) g.adj = io::symmetrize_max(g.adj);
  // A zero weight is no entry (mcxload keeps the node, not the arc); a weight too small for a
  // float (1e-150) is an entry written as 0, as mcxload writes it. Then -tf.
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
  mcl::transform_values(g.adj, matrix_tf);
  io::output_file matrix(out);
  io::write_mcl_native(matrix.stream(), g.adj);
  if (!tab.empty()) {
    io::output_file t(tab);
    io::write_mcl_tab(t.stream(), g.labels);
    t.commit();
  }
  matrix.commit();
  return 0;
}

int run_dump(args_reader r) {
  std::string imx, tab, out = "-";
  bool values = true;
  for (; r.i < r.a.size(); ++r.i) {
    const std::string& o = r.a[r.i];
    if (o == "-imx") imx = r.value();
    else if (o == "-tab") tab = r.value();
    else if (o == "-o") out = r.value();
    else if (o == "--no-values") values = false;
    else throw usage_error("dump: unsupported option '" + o + "'");
  }
  if (imx.empty()) throw usage_error("dump needs -imx MATRIX");
  const io::mcl_native_matrix m = io::read_mcl_native(imx, io::read_options{});
  io::mcl_tab labels;
  if (!tab.empty()) labels = io::read_mcl_tab(tab);
  auto name = [&](std::int64_t id) {
    if (tab.empty()) return std::to_string(id);
    const auto it = labels.position.find(id);
    if (it == labels.position.end())
      throw parse_error(tab, 0, "index " + std::to_string(id) + " of " + imx + " has no label");
    return labels.labels[it->second];
  };
  io::output_file f(out);
  char buf[64];
  for (index_t c = 0; c < m.columns.rows; ++c)
    for (offset_t k = m.columns.rpt[c]; k < m.columns.rpt[c + 1]; ++k) {
      if (m.columns.val[k] == 0) continue;  // mcxdump writes no zero entries
      f.stream() << name(m.col_ids[c]) << '\t' << name(m.row_ids[m.columns.col[k]]);
      if (values) {
        std::snprintf(buf, sizeof buf, "\t%.7g", static_cast<double>(static_cast<float>(m.columns.val[k])));
        f.stream() << buf;
      }
      f.stream() << '\n';
    }
  f.commit();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    args_reader r{std::vector<std::string>(argv + 1, argv + argc)};
    if (r.a.empty()) throw usage_error("a mode is needed: load or dump");
    if (r.a[0] == "-h" || r.a[0] == "--help") {
      std::cout << usage;
      return 0;
    }
    if (r.a[0] == "--version") {
      std::cout << apps::version_line(prog) << "\n";
      return 0;
    }
    r.i = 1;
    if (r.a[0] == "load") return run_load(r);
    if (r.a[0] == "dump") return run_dump(r);
    throw usage_error("unknown mode '" + r.a[0] + "' (load or dump)");
  } catch (const usage_error& e) {
    std::cerr << prog << ": " << e.what() << "\n" << usage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << prog << ": error: " << e.what() << "\n";
    return 1;
  }
}
