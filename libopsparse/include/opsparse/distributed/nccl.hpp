#pragma once
// NCCL between the ranks of an MPI communicator that each own a GPU (docs/design.md, "The GPU
// path"): device arrays broadcast GPU to GPU, where host staging copies them down, through MPI
// and up again. NCCL is loaded at run time (dlopen of OPSPARSE_NCCL_LIBRARY, else libnccl.so.2),
// so a program built with this layer needs no NCCL to build or to run: where it is missing, or
// ranks share a GPU, callers keep host staging (nccl_usable says why). NVLink multicast stays
// off: NCCL_NVLS_ENABLE=0 unless the environment sets it (it can take a shared host's GPUs out of
// service).
//
// Host header (g++): it needs MPI, not the CUDA headers (a stream is CUDA's cudaStream_t).
#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

struct CUstream_st;  // cudaStream_t is CUstream_st*

namespace opsparse::dist {

/// NCCL's version code (e.g. 22809 for 2.28.9), or 0 when it cannot be loaded (then *why says
/// what was tried). Loads the library once; no GPU needed.
int nccl_version(std::string* why = nullptr);

/// Whether NCCL can carry this communicator's transfers: OPSPARSE_NCCL is not 0, NCCL loads on
/// every rank, and no two ranks of a node use the same device (`device`, this rank's). The same
/// answer on every rank; *why (when false) names the first rank that says no and why.
/// Collective over comm.
bool nccl_usable(MPI_Comm comm, int device, std::string* why = nullptr);

/// An NCCL communicator over the ranks of an MPI communicator (the same ranks, in the same order),
/// each on the device current on its thread when it is made. Collective construction (the id
/// travels by MPI_Bcast from rank 0); a failure throws std::runtime_error naming the call, NCCL's
/// error string, the file and the line. Move-only; the destructor never throws.
class nccl_comm {
 public:
  explicit nccl_comm(MPI_Comm comm);
  ~nccl_comm();
  nccl_comm(nccl_comm&& other) noexcept;
  nccl_comm& operator=(nccl_comm&& other) noexcept;
  nccl_comm(const nccl_comm&) = delete;
  nccl_comm& operator=(const nccl_comm&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

  /// Rank r's bytes[r] bytes at `send` (read on rank r only) to recv + (bytes[0] + ... +
  /// bytes[r-1]) on every rank, as one group of broadcasts enqueued on `stream`: the data are
  /// there once the stream has passed it. Collective; `bytes` the same on every rank; recv must
  /// not overlap send. NCCL reads a send in whole 4-byte words: one whose size is not a multiple
  /// of 4 needs up to 3 readable bytes after it (compute-sanitizer reports the read otherwise).
  void allgatherv(const void* send, void* recv, const std::vector<std::size_t>& bytes,
                  CUstream_st* stream);
  /// `root`'s `bytes` bytes at `send` (read on root only) to `recv` on every rank, root's own
  /// included, enqueued on `stream`. Collective; a root out of range is std::invalid_argument.
  void broadcast(const void* send, void* recv, std::size_t bytes, int root, CUstream_st* stream);

  /// One transfer of a point-to-point exchange: `bytes` bytes at `data` to or from rank `peer`.
  struct transfer {
    int peer = 0;
    void* data = nullptr;  ///< read for a send, written for a receive
    std::size_t bytes = 0;
  };
  /// Whether the loaded NCCL has point-to-point transfers (ncclSend and ncclRecv, NCCL 2.7).
  static bool has_point_to_point();
  /// Every send and receive of this rank as one group enqueued on `stream` (the data are there
  /// once the stream has passed it). Each send must meet its peer's receive of the same bytes, in
  /// the same order between a pair of ranks; transfers of 0 bytes are skipped and a rank does
  /// not send to itself (std::invalid_argument, as is a peer out of range). Not collective: only
  /// the ranks named take part.
  void exchange(const std::vector<transfer>& sends, const std::vector<transfer>& receives,
                CUstream_st* stream);

 private:
  void release() noexcept;
  void* comm_ = nullptr;  ///< ncclComm_t
  int rank_ = 0, size_ = 1;
};

}  // namespace opsparse::dist
