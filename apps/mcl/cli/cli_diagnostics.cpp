// mcl's diagnostics of its own run, written as mcl 22-282 writes them: -analyze y (clm info's
// measures appended to the output), --write-limit (OUTPUT-limit) and -dump (the iterands, their
// clusterings and DAGs, to files named MODE-N.STEM or appended to the output with cat).
// tests/apps/mcl/test_mcl_diagnostics.cpp compares every file with Debian's mcl.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "core/clm.hpp"
#include "common/cli.hpp"
#include "opsparse/io_mcl_native.hpp"
#include "opsparse/output_file.hpp"

namespace opsparse::mcl {

namespace {

using apps::usage_error;

/// mcl's -dump-interval i:j ("all": 0:1000), read as mcl's sscanf("%d:%d") but refusing what
/// does not end there and negative numbers.
void read_interval(const std::string& v, dump_settings& d) {
  if (v == "all") {
    d.bound = 1000;
    return;
  }
  int offset = 0, bound = 0, used = 0;
  if (std::sscanf(v.c_str(), "%d:%d%n", &offset, &bound, &used) != 2 ||
      used != static_cast<int>(v.size()) || offset < 0 || bound < 0)
    throw usage_error(
        "-dump-interval expects i:j (iterations i to j-1, j 0: no end) or all, not '" + v + "'");
  d.offset = offset;
  d.bound = bound;
}

/// The value of an option given under either of two spellings (not both), or "".
std::string either(const apps::po::variables_map& vm, const char* a, const char* b) {
  if (vm.count(a) && vm.count(b))
    throw usage_error(std::string("give either -") + a + " or -" + b + ", not both");
  return vm.count(a) ? vm[a].as<std::string>() : vm.count(b) ? vm[b].as<std::string>() : "";
}

}  // namespace

void read_dump_options(const apps::po::variables_map& vm, cli_settings& s, std::ostream& err) {
  dump_settings& d = s.dump;
  auto note = [&](const std::string& what) {
    if (!s.common.quiet) err << s.prog << ": note: " << what << "\n";
  };
  if (vm.count("dump"))
    // As mcl: every value is searched for the names of its modes, repeated -dump add up.
    for (const std::string& v : vm["dump"].as<std::vector<std::string>>()) {
      const auto has = [&v](const char* m) { return v.find(m) != std::string::npos; };
      d.ite = d.ite || has("ite");
      d.cls = d.cls || has("cls");
      d.dag = d.dag || has("dag");
      d.lines = d.lines || has("lines");
      d.cat = d.cat || has("cat");
      if (has("chr"))
        note("-dump chr makes mcl write its own characteristics of each iterand; " +
             std::string(s.prog) + " does not write them");
      if (!has("ite") && !has("cls") && !has("dag") && !has("lines") && !has("cat") &&
          !has("labels") && !has("chr"))
        note("-dump " + v + " names none of mcl's dump modes (ite, cls, dag, lines, cat): " +
             "nothing is dumped for it, as mcl");
    }
  s.dump.stem = either(vm, "dump-stem", "ds");
  const std::string interval = either(vm, "dump-interval", "di");
  if (!interval.empty()) read_interval(interval, d);
  const std::string modulo = either(vm, "dump-modulo", "dm");
  if (!modulo.empty()) {
    char* end = nullptr;
    const long m = std::strtol(modulo.c_str(), &end, 10);
    if (end == modulo.c_str() || *end || m < 1 || m > 1000000)
      throw usage_error("-dump-modulo expects an integer >= 1, not '" + modulo + "'");
    d.modulo = static_cast<int>(m);
  }
}

void write_analysis(std::ostream& os, const clustering& c, const cli_settings& s,
                    const host_csr<double>& start, const std::string& out_name) {
  clm::partition part;
  part.nodes = start.rows;
  part.clusters = c.clusters;
  // mcl measures the matrix it clustered (re-read: the start matrix, in its float cells) with its
  // own loops (as -c and --discard-loops made them) in eff and mf, none in mod.
  host_csr<double> cells = start;
  for (double& v : cells.val) v = static_cast<double>(static_cast<float>(v));
  const clm::info r = clm::measure(cells, part, clm::loop_weights::as_given);
  os << clm::granularity_line(r, "") << '\n'
     << clm::performance_line(r, "target-name=" + s.input + "\nsource-name=" + out_name + "\n")
     << '\n';
}

template <class T>
void write_limit(const host_csr<T>& limit, const input_graph& in, const std::string& out_name) {
  // Rows sorted by column (mcl's order), values in double (exact).
  host_csr<double> m(limit.rows, limit.cols);
  m.rpt = limit.rpt;
  std::vector<std::pair<index_t, double>> row;
  for (index_t i = 0; i < limit.rows; ++i) {
    row.clear();
    for (offset_t k = limit.rpt[i]; k < limit.rpt[i + 1]; ++k)
      row.emplace_back(limit.col[k], static_cast<double>(limit.val[k]));
    std::sort(row.begin(), row.end());
    for (const auto& [c, v] : row) {
      m.col.push_back(c);
      m.val.push_back(v);
    }
  }
  io::output_file file(out_name + "-limit");  // "--limit" for -o -, as mcl
  const std::vector<std::int64_t>* ids = in.native && !in.canonical_ids ? &in.node_ids : nullptr;
  write_and_commit(file, [&](std::ostream& os) { io::write_mcl_native(os, m, ids, ids); });
}

template void write_limit<float>(const host_csr<float>&, const input_graph&, const std::string&);
template void write_limit<double>(const host_csr<double>&, const input_graph&, const std::string&);

// ------------------------------------------------------------------------------------------------
// -dump
// ------------------------------------------------------------------------------------------------

dump_writer::dump_writer(const cli_settings& s, const input_graph& in, std::ostream& cat_stream,
                         std::ostream& err)
    : s_(s), in_(in), cat_(cat_stream), err_(err) {
  // The labels of -dump lines: the input's for ABC and the like, a native matrix's tab file
  // (its indices without one), as mcl's.
  has_tab_ = in.native && !s.tab_file.empty();
  if (has_tab_) tab_ = io::read_mcl_tab(s.tab_file);
}

std::string dump_writer::row_label(index_t node) const {
  if (!in_.native) return in_.g.labels[static_cast<std::size_t>(node)];
  const std::int64_t id = in_.node_ids[static_cast<std::size_t>(node)];
  return has_tab_ ? tab_.label(id) : std::to_string(id);
}

std::string dump_writer::column_label(index_t index, bool cluster) const {
  if (!cluster) return row_label(index);
  // mcl looks a cluster's number up in the node labels too.
  if (!in_.native) return in_.g.labels[static_cast<std::size_t>(index)];
  return has_tab_ ? tab_.label(index) : std::to_string(index);
}

template <class F>
void dump_writer::dump(const char* affix, int n, F&& write) {
  if (!s_.dump.selects(n)) return;
  if (s_.dump.cat) {
    if (s_.dump.lines) cat_ << "(mcldump " << affix << " " << n << "\n";
    write(cat_);
    if (s_.dump.lines) cat_ << ")\n";
    return;
  }
  const std::string name = std::string(affix) + "-" + std::to_string(n) + "." + s_.dump.stem;
  // As mcl: a dump that cannot be written is reported and the run goes on.
  try {
    io::output_file file(name);
    write_and_commit(file, write);
  } catch (const std::runtime_error& e) {
    err_ << "[" << s_.prog << "] warning: " << e.what() << "; going on without it (as mcl)\n";
  }
}

void dump_writer::write_matrix(std::ostream& os, const host_csr<double>& m, bool cluster_columns,
                               const std::vector<double>* col_values) {
  if (!s_.dump.lines) {
    const std::vector<std::int64_t>* ids =
        in_.native && !in_.canonical_ids ? &in_.node_ids : nullptr;
    io::write_mcl_native(os, m, ids, cluster_columns ? nullptr : ids, col_values);
    return;
  }
  // mcl's pairs: column, row and value (%.7g of its float cell) a line, values below 1e-5 left
  // out.
  char value[32];
  for (index_t c = 0; c < m.rows; ++c) {
    if (m.rpt[c] == m.rpt[c + 1]) continue;
    const std::string column = column_label(c, cluster_columns);
    for (offset_t k = m.rpt[c]; k < m.rpt[c + 1]; ++k) {
      const double v = static_cast<double>(static_cast<float>(m.val[k]));
      if (v < 0.00001) continue;
      std::snprintf(value, sizeof value, "%.7g", v);
      os << column << '\t' << row_label(m.col[k]) << '\t' << value << '\n';
    }
  }
}

void dump_writer::start(const host_csr<double>& start) {
  if (!s_.dump.ite || !s_.resume_dir.empty()) return;
  params p = s_.p;
  p.mirror = false;  // as the start matrix was made (run_clustering)
  const std::vector<double> sums = start_column_sums(in_.g.adj, p);
  dump("ite", 0, [&](std::ostream& os) { write_matrix(os, start, false, &sums); });
}

void dump_writer::hook(run_options& o) {
  const dump_settings& d = s_.dump;
  o.wants_iterand = [&d](int it, bool inflated) {
    return (inflated ? d.ite : d.cls || d.dag) && d.selects(it);
  };
  o.on_iterand = [this, &d](int it, bool inflated, const host_csr<double>& x) {
    if (inflated) {
      dump("ite", it, [&](std::ostream& os) { write_matrix(os, x, false, nullptr); });
      return;
    }
    if (d.cls) {
      // mcl writes what it interprets of the expanded iterand, before inflation.
      const clustering c = interpret_iterand(x);
      host_csr<double> m(static_cast<index_t>(c.clusters.size()), x.rows);
      for (std::size_t k = 0; k < c.clusters.size(); ++k) {
        m.col.insert(m.col.end(), c.clusters[k].begin(), c.clusters[k].end());
        m.rpt[k + 1] = static_cast<offset_t>(m.col.size());
      }
      m.val.assign(m.col.size(), 1.0);
      dump("cls", it, [&](std::ostream& os) {
        if (d.lines)
          write_matrix(os, m, true, nullptr);
        else
          write_native_clusters(os, c, x.rows, std::string(),
                                in_.canonical_ids ? nullptr : &in_.node_ids);
      });
    }
    if (d.dag) {
      const host_csr<double> dag = iterand_dag(x);
      dump("dag", it, [&](std::ostream& os) { write_matrix(os, dag, false, nullptr); });
    }
  };
}

void dump_writer::result(const clustering& c) {
  // mcl's "result" dump: a native cluster matrix without the command line, or with lines the
  // clusters' labels a line, as its label output.
  if (!s_.dump.lines) {
    write_native_clusters(cat_, c, in_.g.adj.rows, std::string(),
                          in_.canonical_ids ? nullptr : &in_.node_ids);
    return;
  }
  cat_ << "(mcldump result 0\n";
  for (const std::vector<index_t>& members : c.clusters) {
    for (std::size_t k = 0; k < members.size(); ++k)
      cat_ << (k ? "\t" : "") << row_label(members[k]);
    cat_ << '\n';
  }
  cat_ << ")\n";
}

}  // namespace opsparse::mcl
