#pragma once
// Checkpoints of opsparse-mcl-mpi's rows layout: after an iteration each rank writes its share of
// the iterate as a part (opsparse-mcl's checkpoint format, an n x n matrix holding those rows:
// DIR/mcl-checkpoint.itK.partRofP.bin), then rank 0 lists the parts (DIR/mcl-checkpoint.parts,
// written whole or not at all) and removes the parts of older checkpoints. A run on any number
// of ranks resumes from the list: each rank reads the parts that hold its rows.
//
// DIR/mcl-checkpoint.parts, text: "opsparse-mcl-mpi checkpoint 1", then the lines
// "fingerprint F", "iteration K", "cells 4|8", "sorted 0|1" and "split s0 s1 ... sP" (part r
// holds rows s_r to s_r+1).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/mcl_checkpoint.hpp"
#include "mcl_dist.hpp"
#include "opsparse/distributed/grid.hpp"

namespace opsparse::mcl::detail {

/// Rows [first, last) of m as an n x n matrix whose other rows are empty.
template <class T>
host_csr<T> rows_only(const host_csr<T>& m, index_t first, index_t last);

/// Writes `mine` (this rank's rows split[me] to split[me + 1], the others empty) as its part of
/// the checkpoint after `iteration`, then rank 0 lists the parts and removes older ones.
/// Collective; a failure on any rank throws on every rank, and the last checkpoint stays.
template <class T>
void write_parts(const dist::grid& g, const dist_checkpoints& c, int iteration, bool rows_sorted,
                 host_csr<T> mine, const std::vector<index_t>& split);

/// Rows [first, last) of the checkpoint in c.resume_dir as an n x n matrix (the other rows
/// empty), with its iteration and row order. Collective; a missing, damaged or foreign
/// checkpoint (another input, other options, another cell type) throws on every rank.
template <class T>
checkpoint::state<T> read_rows(const dist::grid& g, const dist_checkpoints& c, index_t n,
                               index_t first, index_t last);

/// checkpoint::hash_bytes(all, bytes of all, threads, chunk) of `all`, the concatenation of every
/// rank's `bytes` at `data` in rank order, on every rank, without gathering them: each chunk is
/// hashed where it starts, its bytes on later ranks sent there. Collective.
std::uint64_t hash_pieces(const dist::grid& g, const void* data, std::size_t bytes, int threads,
                          std::size_t chunk = checkpoint::hash_chunk_bytes);

/// checkpoint::fingerprint of the start matrix held by rows, on every rank. Collective.
std::uint64_t fingerprint(const dist::grid& g, const row_blocks<double>& start, const params& p,
                          precision prec, int threads);

/// Whether a rank was asked to stop (c.stop): the same answer on every rank. Collective.
bool any_rank_stopping(const dist::grid& g, const dist_checkpoints& c);

}  // namespace opsparse::mcl::detail
