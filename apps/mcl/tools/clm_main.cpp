// opsparse-clm: the parts of mcl's `clm` that pipelines use to compare and judge clusterings in
// mcl's native format (see clm.hpp), with clm 22-282's command lines and output lines:
//   opsparse-clm dist [-mode sj|vi|mk] [--chain] [-o FILE] CLUSTERING CLUSTERING...
//   opsparse-clm info [-o FILE] GRAPH CLUSTERING...
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/clm.hpp"
#include "common/cli.hpp"
#include "opsparse/error.hpp"
#include "opsparse/io_mcl_native.hpp"
#include "opsparse/output_file.hpp"

using namespace opsparse;

namespace {

constexpr const char* prog = "opsparse-clm";

using opsparse::apps::usage_error;  // apps/common/cli.hpp

const char* usage =
    "Usage: opsparse-clm dist [-mode sj|vi|mk] [--chain] [-o FILE] CLUSTERING CLUSTERING...\n"
    "       opsparse-clm info [-o FILE] GRAPH CLUSTERING...\n"
    "Clusterings and the graph in mcl's native format (mcl's output without labels, mcxload's\n"
    "graphs), as mcl 22-282's `clm dist` and `clm info`.\n"
    "dist: one line per pair (every pair, or consecutive ones with --chain):\n"
    "  d=D d1=D1 d2=D2 nn=NODES c1=CLUSTERS c2=CLUSTERS n1=FILE n2=FILE\n"
    "  sj: split/join distance (nodes to move; d1 from the first clustering to the meet of\n"
    "  both, d2 from the second), vi: variance of information (natural logarithm, 3 decimals),\n"
    "  mk: Mirkin metric. -digits k is accepted and, as in clm 22-282, changes nothing.\n"
    "info: per clustering, eff (efficiency: per node, van Dongen's coverage of its edge weights\n"
    "  by its cluster, averaged), mod (Newman's modularity, weighted, without loops), mf (mass\n"
    "  fraction: per node, the share of its edge weight inside its cluster, averaged; eff and mf\n"
    "  with a loop as heavy as its heaviest edge for the first clustering only, as clm 22-282\n"
    "  computes them), af (area fraction: the sum of |C|(|C|-1) over N(N-1)), ncl, max, ctr\n"
    "  (sum of |C|^2 over N), avg, min, and with the sizes sorted largest first and summed from\n"
    "  the smallest: DGI (how many clusters the sum needs to reach the largest size), TWI (the\n"
    "  index, from 0, of the cluster with which it reaches (N+1)/2), TWL (that cluster's size),\n"
    "  sgl (clusters of one node), qrt (clusters of at most four nodes).\n";

int run_dist(const std::vector<std::string>& args) {
  std::string mode_s = "sj", out_name = "-", digits;
  bool chain = false;
  const std::vector<std::string> files =
      apps::read_words(args, "dist",
                       {{{"-mode", &mode_s}, {"-o", &out_name}, {"-digits", &digits}},
                        {{"--chain", [&] { chain = true; }}}});
  clm::distance_mode mode = clm::distance_mode::split_join;
  if (mode_s == "vi")
    mode = clm::distance_mode::variance_of_information;
  else if (mode_s == "mk")
    mode = clm::distance_mode::mirkin;
  else if (mode_s != "sj")
    throw usage_error("-mode expects sj, vi or mk, not '" + mode_s + "'");
  if (files.size() < 2) throw usage_error("dist needs at least two clusterings");
  std::vector<clm::partition> parts;
  for (const std::string& f : files) parts.push_back(clm::read_partition(f));
  io::output_file out(out_name);
  std::ostream& os = out.stream();
  char buf[128];
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = i + 1; j < files.size(); ++j) {
      if (chain && j != i + 1) continue;
      const clm::distance d = clm::compare(parts[i], parts[j], mode);
      if (mode == clm::distance_mode::variance_of_information)
        std::snprintf(buf, sizeof buf, "d=%.3f\td1=%.3f\td2=%.3f", d.d, d.d1, d.d2);
      else
        std::snprintf(buf, sizeof buf, "d=%.0f\td1=%.0f\td2=%.0f", d.d, d.d1, d.d2);
      os << buf << "\tnn=" << parts[i].nodes << "\tc1=" << parts[i].clusters.size()
         << "\tc2=" << parts[j].clusters.size() << "\tn1=" << files[i] << "\tn2=" << files[j]
         << (mode == clm::distance_mode::split_join ? "\t\n" : "\n");
    }
  out.commit();
  return 0;
}

int run_info(const std::vector<std::string>& args) {
  std::string out_name = "-";
  const std::vector<std::string> files = apps::read_words(args, "info", {{{"-o", &out_name}}, {}});
  if (files.size() < 2) throw usage_error("info needs a graph and at least one clustering");
  const io::mcl_native_matrix g = io::read_mcl_native(files[0], io::read_options{});
  io::output_file out(out_name);
  for (std::size_t k = 1; k < files.size(); ++k) {
    // clm 22-282 counts the loops for the first clustering only (clm.hpp).
    const clm::info r =
        clm::measure(g.columns, clm::read_partition(files[k]),
                     k == 1 ? clm::loop_weights::heaviest_edge : clm::loop_weights::none);
    if (k > 1) out.stream() << "===\n";
    out.stream() << clm::performance_line(r, " src=" + files[k]) << ' '
                 << clm::granularity_line(r, "") << '\n';
  }
  out.commit();
  return 0;
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  return apps::run_modes(prog, usage, argc, argv, out, err,
                         {{"dist", run_dist}, {"info", run_info}},
                         "; clm's other modes are not provided");
}

}  // namespace

int main(int argc, char** argv) { return run_cli(argc, argv, std::cout, std::cerr); }
