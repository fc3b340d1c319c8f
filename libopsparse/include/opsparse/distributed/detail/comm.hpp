#pragma once
// Moving host CSR matrices between ranks: sizes first (rows, cols, nnz), then the row pointers,
// columns and values as bytes (the ranks of one job share one architecture), cut into messages of
// at most 1 GiB so that 64-bit sizes pass MPI's int counts.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "opsparse/csr.hpp"
#include "opsparse/distributed/detail/blocks.hpp"
#include "opsparse/distributed/error.hpp"

namespace opsparse::dist::detail {

void bcast_bytes(void* data, std::size_t bytes, int root, MPI_Comm comm);
void send_bytes(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm);
void recv_bytes(void* data, std::size_t bytes, int source, int tag, MPI_Comm comm);
/// Bytes from every rank to every rank (MPI_Alltoall of the sizes, then nonblocking messages of
/// at most 1 GiB): rank d gets bytes [offset[d], offset[d + 1]) of `data`. Returns what this
/// rank received, source after source, and where each source's bytes start (size + 1).
struct exchanged_bytes {
  std::vector<char> data;
  std::vector<std::size_t> offset;
};
exchanged_bytes exchange_bytes(const char* data, const std::vector<std::size_t>& offset,
                               MPI_Comm comm);
/// `text` of `root` on every rank.
void bcast_string(std::string& text, int root, MPI_Comm comm);

/// After a step that may have thrown on some ranks only (`error` is its exception on this rank):
/// every rank throws when one did, its own exception where it has one; the others throw the
/// lowest failing rank's message, naming `what` and that rank, as std::invalid_argument when it
/// was one and as std::runtime_error otherwise. Keeps the ranks together: one rank throwing alone
/// would leave the others waiting in the next collective.
void agree_on_failure(const std::exception_ptr& error, const char* what, MPI_Comm comm);

template <class V>
void check_transferable() {
  static_assert(std::is_trivially_copyable_v<V>, "values travel between ranks as bytes");
}

/// Resizes m's arrays for `header` = {rows, cols, nnz}.
template <class V>
void shape_for(host_csr<V>& m, const std::int64_t header[3]) {
  m.rows = static_cast<index_t>(header[0]);
  m.cols = static_cast<index_t>(header[1]);
  m.rpt.assign(static_cast<std::size_t>(header[0]) + 1, 0);
  m.col.resize(static_cast<std::size_t>(header[2]));
  if constexpr (has_values_v<V>) m.val.resize(static_cast<std::size_t>(header[2]));
}

/// `root`'s `mine` on every rank of comm: a reference to `mine` on the root (not copied), to
/// `buffer` (filled) elsewhere.
template <class V>
const host_csr<V>& share_csr(const host_csr<V>& mine, host_csr<V>& buffer, int root,
                             MPI_Comm comm) {
  check_transferable<V>();
  int me = 0;
  OPSPARSE_MPI_TRY(MPI_Comm_rank(comm, &me));
  const bool is_root = me == root;
  std::int64_t header[3] = {mine.rows, mine.cols, mine.nnz()};
  bcast_bytes(header, sizeof header, root, comm);
  host_csr<V>& m = is_root ? const_cast<host_csr<V>&>(mine) : buffer;  // the root only sends
  if (!is_root) shape_for(m, header);
  bcast_bytes(m.rpt.data(), m.rpt.size() * sizeof(offset_t), root, comm);
  bcast_bytes(m.col.data(), m.col.size() * sizeof(index_t), root, comm);
  if constexpr (has_values_v<V>) bcast_bytes(m.val.data(), m.val.size() * sizeof(V), root, comm);
  return m;
}

template <class V>
void send_csr(const host_csr<V>& m, int dest, int tag, MPI_Comm comm) {
  check_transferable<V>();
  const std::int64_t header[3] = {m.rows, m.cols, m.nnz()};
  send_bytes(header, sizeof header, dest, tag, comm);
  send_bytes(m.rpt.data(), m.rpt.size() * sizeof(offset_t), dest, tag, comm);
  send_bytes(m.col.data(), m.col.size() * sizeof(index_t), dest, tag, comm);
  if constexpr (has_values_v<V>)
    send_bytes(m.val.data(), m.val.size() * sizeof(V), dest, tag, comm);
}

template <class V>
host_csr<V> recv_csr(int source, int tag, MPI_Comm comm) {
  check_transferable<V>();
  std::int64_t header[3] = {};
  recv_bytes(header, sizeof header, source, tag, comm);
  host_csr<V> m;
  shape_for(m, header);
  recv_bytes(m.rpt.data(), m.rpt.size() * sizeof(offset_t), source, tag, comm);
  recv_bytes(m.col.data(), m.col.size() * sizeof(index_t), source, tag, comm);
  if constexpr (has_values_v<V>)
    recv_bytes(m.val.data(), m.val.size() * sizeof(V), source, tag, comm);
  return m;
}

/// The reverse of gather_row_blocks: rows split[r] .. split[r + 1] of root's matrix `m` (n
/// columns) on rank r, which returns them. Collective.
template <class V>
host_csr<V> scatter_row_blocks(const host_csr<V>& m, const std::vector<index_t>& split, int root,
                               MPI_Comm comm) {
  int me = 0, size = 0;
  OPSPARSE_MPI_TRY(MPI_Comm_rank(comm, &me));
  OPSPARSE_MPI_TRY(MPI_Comm_size(comm, &size));
  constexpr int tag = 12;
  if (me != root) return recv_csr<V>(root, tag, comm);
  host_csr<V> own;
  for (int r = 0; r < size; ++r) {
    host_csr<V> part = take_rows(m, {split[static_cast<std::size_t>(r)]},
                                 {split[static_cast<std::size_t>(r) + 1]});
    if (r == root)
      own = std::move(part);
    else
      send_csr(part, r, tag, comm);
  }
  return own;
}

/// Row blocks stacked on `root`: rank r's `rows` (n columns) are rows split[r] .. split[r + 1] of
/// the result, which root returns (n x n); the other ranks return an empty matrix. Collective.
template <class V>
host_csr<V> gather_row_blocks(const host_csr<V>& rows, const std::vector<index_t>& split, index_t n,
                              int root, MPI_Comm comm) {
  int me = 0, size = 0;
  OPSPARSE_MPI_TRY(MPI_Comm_rank(comm, &me));
  OPSPARSE_MPI_TRY(MPI_Comm_size(comm, &size));
  constexpr int tag = 11;
  if (me != root) {
    send_csr(rows, root, tag, comm);
    return {};
  }
  host_csr<V> all(n, n);
  for (int r = 0; r < size; ++r) {
    const host_csr<V> received = r == root ? host_csr<V>() : recv_csr<V>(r, tag, comm);
    const host_csr<V>& part = r == root ? rows : received;
    const index_t at = split[static_cast<std::size_t>(r)];
    for (index_t i = 0; i < part.rows; ++i)
      all.rpt[at + i + 1] = all.rpt[at + i] + part.rpt[i + 1] - part.rpt[i];
    all.col.insert(all.col.end(), part.col.begin(), part.col.end());
    if constexpr (has_values_v<V>) all.val.insert(all.val.end(), part.val.begin(), part.val.end());
  }
  return all;
}

}  // namespace opsparse::dist::detail
