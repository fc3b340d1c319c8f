// The memory plan of an MCL run (mcl_memory_plan.hpp).
#include "mcl_memory_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace opsparse::mcl {

namespace {

/// Entries a pruned row keeps at most (kept_entries_bound), at least 1 and at most every node.
long long kept_per_row(const params& p, index_t nodes) {
  const long long k = kept_entries_bound(p.rule(), nodes);
  return std::min<long long>(std::max<long long>(k, 1), std::max<index_t>(nodes, 1));
}

/// A row block the GPU backend would take in the expansion at least: 65,536 rows of 2,048
/// kept entries (the fused expansion's output buffer) or the rows themselves when fewer.
std::size_t least_workspace(index_t nodes, std::size_t entry_bytes) {
  return static_cast<std::size_t>(std::min<index_t>(nodes, 1 << 16)) * 2048 * entry_bytes;
}

}  // namespace

std::string gigabytes(std::size_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f GB", static_cast<double>(bytes) / 1e9);
  return buf;
}

memory_plan plan_memory(const host_csr<double>& start, const params& p, std::size_t cell_bytes,
                        const std::vector<offset_t>& first_products, std::size_t device_budget,
                        std::size_t host_available) {
  return plan_memory(start.rows, start.nnz(), p, cell_bytes, first_products, device_budget,
                     host_available);
}

memory_plan plan_memory(index_t nodes, offset_t start_nnz, const params& p, std::size_t cell_bytes,
                        const std::vector<offset_t>& first_products, std::size_t device_budget,
                        std::size_t host_available) {
  memory_plan m;
  m.nodes = nodes;
  m.start_nnz = start_nnz;
  m.kept_per_row = kept_per_row(p, nodes);
  m.entry_bytes = sizeof(index_t) + cell_bytes;
  const std::size_t rows_bytes = (static_cast<std::size_t>(m.nodes) + 1) * sizeof(offset_t);
  m.iterate_bound =
      static_cast<std::size_t>(m.nodes) * static_cast<std::size_t>(m.kept_per_row) * m.entry_bytes +
      rows_bytes;
  // The first iterate after pruning: each row's products capped at K, at least the start's.
  std::size_t est = 0;
  if (first_products.size() == static_cast<std::size_t>(m.nodes)) {
    for (offset_t x : first_products)
      est += static_cast<std::size_t>(std::min<offset_t>(x, m.kept_per_row));
    est = std::max<std::size_t>(est, static_cast<std::size_t>(m.start_nnz));
    m.iterate_estimate = est * m.entry_bytes + rows_bytes;
  } else {
    m.iterate_estimate = m.iterate_bound;
  }
  m.workspace = least_workspace(m.nodes, m.entry_bytes);
  m.device_budget = device_budget;
  m.host_available = host_available;
  // The program holds the graph as read and the start matrix (a double and a column a cell),
  // and the limit it downloads (an iterate) at the end.
  m.host_fixed =
      2 * (static_cast<std::size_t>(m.start_nnz) * (sizeof(index_t) + sizeof(double)) + rows_bytes);
  const auto host_fits = [&](std::size_t iterates_on_host) {
    return host_available == 0 || m.host_fixed + iterates_on_host <= host_available;
  };
  std::ostringstream why;
  if (device_budget == 0) {
    // The CPU backend holds two iterates in host memory.
    m.placement = planned_placement::host;
    m.bound_fits = host_fits(2 * m.iterate_bound);
    if (!host_fits(2 * m.iterate_estimate)) {
      m.placement = planned_placement::refused;
      why << "the iterates need about " << gigabytes(m.host_fixed + 2 * m.iterate_estimate)
          << " of host memory and " << gigabytes(host_available)
          << " are available; a smaller -S and -R keep fewer entries per column";
    }
  } else {
    const auto device_fits = [&](std::size_t iterates) {
      return iterates + m.workspace <= device_budget;
    };
    if (device_fits(2 * m.iterate_bound)) {
      m.placement = planned_placement::device;
    } else if (device_fits(m.iterate_bound) && host_fits(2 * m.iterate_bound)) {
      m.placement = planned_placement::streamed;
    } else if (device_fits(2 * m.iterate_estimate)) {
      m.placement = planned_placement::device;
      m.bound_fits = false;
    } else if (device_fits(m.iterate_estimate) && host_fits(2 * m.iterate_estimate)) {
      m.placement = planned_placement::streamed;
      m.bound_fits = false;
    } else {
      m.placement = planned_placement::refused;
      if (!device_fits(m.iterate_estimate))
        why << "one iterate and the expansion's least workspace need about "
            << gigabytes(m.iterate_estimate + m.workspace) << " of device memory and the budget is "
            << gigabytes(device_budget)
            << " (--memory-budget; without it, the device's free memory); several GPUs hold more "
               "(opsparse-mcl-mpi), --backend cpu uses host memory, a smaller -S and -R keep "
               "fewer entries per column";
      else
        why << "the iterate streamed through host memory needs about "
            << gigabytes(m.host_fixed + 2 * m.iterate_estimate) << " of host memory and "
            << gigabytes(host_available)
            << " are available; a smaller -S and -R keep fewer entries per column";
    }
  }
  m.reason = why.str();
  return m;
}

std::vector<std::string> describe(const memory_plan& m) {
  std::vector<std::string> lines;
  std::ostringstream a;
  a << "memory plan: " << m.nodes << " nodes, " << m.start_nnz << " start entries, at most "
    << m.kept_per_row << " entries a column after pruning (ties aside)";
  lines.push_back(a.str());
  std::ostringstream b;
  b << "  one iterate: at most " << gigabytes(m.iterate_bound) << ", about "
    << gigabytes(m.iterate_estimate) << " after the first expansion; least expansion workspace "
    << gigabytes(m.workspace);
  lines.push_back(b.str());
  std::ostringstream c;
  if (m.device_budget > 0)
    c << "  device budget " << gigabytes(m.device_budget) << "; host: " << gigabytes(m.host_fixed)
      << " for the graph and the start matrix, "
      << (m.host_available ? gigabytes(m.host_available) : std::string("unknown")) << " available";
  else
    c << "  host: " << gigabytes(m.host_fixed) << " for the graph and the start matrix, "
      << (m.host_available ? gigabytes(m.host_available) : std::string("unknown")) << " available";
  lines.push_back(c.str());
  std::ostringstream d;
  switch (m.placement) {
    case planned_placement::device: d << "  placement: both iterates on the device"; break;
    case planned_placement::streamed:
      d << "  placement: one iterate on the device, the next streamed through pinned host memory "
           "when it does not fit beside it";
      break;
    case planned_placement::host: d << "  placement: host memory (CPU backend)"; break;
    case planned_placement::refused: d << "  placement: none fits: " << m.reason; break;
  }
  if (m.placement != planned_placement::refused && !m.bound_fits)
    d << " (for the estimate; the bound does not fit, so a later iterate denser than the first "
         "may not)";
  lines.push_back(d.str());
  return lines;
}

std::size_t host_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::size_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

std::string how_much_ram(long long nodes, const params& p) {
  // mcl 22-282: two matrices of n columns of min(n, max(S, R)) entries of 8 bytes each, in
  // GiB rounded to the nearest; the degree it assumes is twice the entries a column.
  const long long k = std::min<long long>(std::max(p.select, p.recover), nodes);
  const double bytes = 2.0 * static_cast<double>(nodes) * static_cast<double>(k) * 8.0;
  std::ostringstream os;
  os << "The current settings require at most <" << std::llround(bytes / (1024.0 * 1024 * 1024))
     << "G> RAM for a graph with <" << nodes << "> nodes,\n"
     << "assuming the average node degree of the input graph does not exceed <" << 2 * k << ">.\n"
     << "This estimate will usually but not always be too cautious/high.\n";
  return os.str();
}

}  // namespace opsparse::mcl
