#pragma once
// Checkpoints of an MCL run: the iterate after an iteration, exactly as the backend held it,
// written atomically (a temporary file beside it, then a rename) into a folder of its own, and
// read back by a run of the same input and options, which then goes on from the next iteration
// and writes what an uninterrupted run writes. A checkpoint records a fingerprint of the start
// matrix and of the options that shape the iterates; one of another run is refused.
//
// File DIR/mcl-checkpoint.bin, little-endian: the 16-byte magic "opsparse-mcl-ck\n", version
// (u32), cell bytes (u32: 4 float, 8 double), fingerprint (u64), iteration (i64), rows sorted
// (i64: 0 or 1), rows (i64), nnz (i64), row pointers (rows + 1 i64), columns (nnz i32), values
// (nnz cells), then the magic again.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mcl.hpp"
#include "opsparse/csr.hpp"

namespace opsparse::mcl::checkpoint {

template <class T>
struct state {
  int iteration = 0;        ///< iterations done (1-based count)
  bool rows_sorted = true;  ///< the backend's rows were in column order (backend::snapshot)
  host_csr<T> iterate;
};

/// The checkpoint file in `dir` (`name`: opsparse-mcl's; opsparse-mcl-mpi writes parts).
std::string file_in(const std::string& dir, const std::string& name = "mcl-checkpoint.bin");

/// What identifies a run's iterates: the start matrix (its shape, structure and values) and
/// the options that shape them (-I, -P, -S, -R, -pct, the iteration limit, the cell type).
std::uint64_t fingerprint(const host_csr<double>& start, const params& p, precision prec,
                          int threads = 0);

/// fingerprint() from the start matrix's shape and its arrays' hash_bytes (row pointers,
/// columns, values): for a program that holds the matrix in pieces.
std::uint64_t fingerprint_of(long long rows, long long cols, std::uint64_t rpt_hash,
                             std::uint64_t col_hash, std::uint64_t val_hash, const params& p,
                             precision prec);

/// The hash fingerprint() takes of an array's bytes: chunks of `chunk` bytes (the last one
/// shorter) hashed each (hash_chunk), on `threads` threads, the chunks' hashes then combined in
/// order (combine_chunks). An array held in pieces hashes to the same value from its chunks'.
constexpr std::size_t hash_chunk_bytes = std::size_t(1) << 22;
std::uint64_t hash_bytes(const void* data, std::size_t bytes, int threads,
                         std::size_t chunk = hash_chunk_bytes);
std::uint64_t hash_chunk(const void* data, std::size_t bytes);
std::uint64_t combine_chunks(std::size_t bytes, const std::vector<std::uint64_t>& chunk_hashes);

/// Writes `s` to file_in(dir, name) (the folder made when missing) under `fp`, replacing an
/// older checkpoint only once the new one is complete. Throws std::runtime_error naming the file
/// and the reason.
template <class T>
void write(const std::string& dir, std::uint64_t fp, const state<T>& s,
           const std::string& name = "mcl-checkpoint.bin");

/// Reads the checkpoint file_in(dir, name). Throws std::runtime_error naming the file when it
/// is missing, damaged, of another cell type or of another run (fingerprint).
template <class T>
state<T> read(const std::string& dir, std::uint64_t fp,
              const std::string& name = "mcl-checkpoint.bin");

}  // namespace opsparse::mcl::checkpoint
