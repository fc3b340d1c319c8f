#pragma once
// A graph file read by every rank of a job, each its part (opsparse/io.hpp: find_text_part,
// read_abc_part), the rows of its adjacency then sent to the ranks that own them: no rank reads
// or holds the whole graph. The vertices are numbered as io::read_abc numbers them (by first
// appearance in the file), so that a distributed program writes the same output as a single
// process.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "opsparse/csr.hpp"
#include "opsparse/io.hpp"

namespace opsparse::dist {

/// A rank's rows of a graph read in parts.
struct graph_rows {
  index_t n = 0;                    ///< vertices
  std::vector<index_t> split;       ///< rank r holds rows split[r] .. split[r + 1] (equal counts)
  host_csr<double> rows;            ///< this rank's: split[me + 1] - split[me] rows, n columns
  std::vector<std::string> labels;  ///< the vertices' labels, on root only
  long long lines = 0;              ///< the file's
  std::uint64_t bytes = 0;          ///< the file's
};

/// Reads the ABC file at `path` on every rank of comm (collective): the same adjacency as
/// io::read_abc(path, options), row by row, and the same numbering and labels. Duplicates are
/// merged by their maximum, as read_abc merges them; where two of them are equal but for the
/// sign of a zero (read_abc keeps the first in file order, mirrored arcs after direct ones), the
/// part read first wins (options.drop_zero_weights leaves no zeros). A parse error is thrown on
/// every rank, naming the file's first bad line as read_abc names it.
graph_rows read_abc_rows(MPI_Comm comm, const std::string& path, const io::read_options& options,
                         int root = 0);

}  // namespace opsparse::dist
