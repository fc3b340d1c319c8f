#pragma once
// The memory plan of an MCL run, made before the first iteration: how much device and host
// memory each stage takes at most, where the iterates go (all on the device, or the next
// iterate assembled in host memory and streamed: one iterate on the device at a time), or why
// the run cannot be done. A pruned column (a CSR row here) keeps at most K = max(S, R) entries
// (mcl_prune.hpp; ties at the bar aside), so an iterate holds at most nodes x min(nodes, K)
// entries; the estimate also caps each row by its products in the first expansion, which is
// the iterate's size after one iteration on dense networks. mcl's -how-much-ram answers with
// the same bound for two iterates of 8-byte entries.
#include <cstddef>
#include <string>
#include <vector>

#include "mcl.hpp"
#include "opsparse/csr.hpp"

namespace opsparse::mcl {

enum class planned_placement {
  device,    ///< both iterates and the expansion's workspace on the device
  streamed,  ///< one iterate on the device, the next one assembled in pinned host memory
  host,      ///< the CPU backend: everything in host memory
  refused,   ///< does not fit: the run stops before iterating
};

struct memory_plan {
  index_t nodes = 0;
  offset_t start_nnz = 0;
  long long kept_per_row = 0;        ///< K: a pruned row's entries at most (ties aside)
  std::size_t entry_bytes = 0;       ///< a column index and a cell
  std::size_t iterate_bound = 0;     ///< bytes of one iterate at most (nodes x min(nodes, K))
  std::size_t iterate_estimate = 0;  ///< bytes of the iterate after the first expansion at most
  std::size_t workspace = 0;         ///< the least expansion workspace (a block of rows)
  std::size_t device_budget = 0;     ///< 0: no device
  std::size_t host_fixed = 0;        ///< the graph, the start matrix and its cells as read
  std::size_t host_available = 0;    ///< MemAvailable
  planned_placement placement = planned_placement::host;
  bool bound_fits = true;  ///< the placement holds for the bound, not only the estimate
  std::string reason;      ///< why refused: the memory needed, available, what helps
};

/// The plan for clustering `start` with `p` in cells of `cell_bytes`, on a device with
/// `device_budget` bytes for the run (0: the CPU backend), with `host_available` bytes of host
/// memory. `first_products[i]`: the products of row i in the first expansion (may be empty:
/// the estimate is then the bound).
memory_plan plan_memory(const host_csr<double>& start, const params& p, std::size_t cell_bytes,
                        const std::vector<offset_t>& first_products, std::size_t device_budget,
                        std::size_t host_available);
/// The same from the start matrix's shape alone (`nodes` rows, `start_nnz` entries): for a
/// program that holds it in parts.
memory_plan plan_memory(index_t nodes, offset_t start_nnz, const params& p, std::size_t cell_bytes,
                        const std::vector<offset_t>& first_products, std::size_t device_budget,
                        std::size_t host_available);

/// The plan as lines for --verbose.
std::vector<std::string> describe(const memory_plan& plan);

/// The host memory available now (Linux's MemAvailable; 0 when unknown).
std::size_t host_available_bytes();

/// mcl's answer to -how-much-ram N with `p`'s -S and -R, three lines as mcl prints them.
std::string how_much_ram(long long nodes, const params& p);

/// Bytes as "12.3 GB" (decimal units, as the plan's lines use).
std::string gigabytes(std::size_t bytes);

}  // namespace opsparse::mcl
