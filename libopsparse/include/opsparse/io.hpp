#pragma once
// Readers and writers for the formats users already have:
//  - Matrix Market coordinate (real, integer, pattern; general, symmetric, skew-symmetric).
//    Duplicate entries are SUMMED (the Matrix Market convention for assembled matrices).
//  - SNAP-style edge lists: '#' comments, "u v" or "u v w" per line, arbitrary integer ids,
//    relabelled to 0..n-1 in order of first appearance; the mapping is kept as labels.
//    Duplicate edges keep the MAXIMUM weight (as for ABC). A first line "n m" is a header, not
//    an edge, when exactly m edge lines follow it and every id after it lies in [0, n] (the
//    "vertices edges" line of many SNAP-derived files); it is checked and skipped, and the
//    vertices are still those that appear in edges.
//  - ABC labelled edges as `mcl --abc` reads them: "label<TAB>label[<TAB>weight]", string labels,
//    weight 1 when absent. A line that holds a TAB is split on TABs, so labels may contain
//    spaces ("x<TAB>gene 1" is two labels, no weight); a line without one is split on blanks, as
//    mcl does. Blanks around a field are dropped. Duplicate edges keep the MAXIMUM weight.
// Every reader throws opsparse::parse_error naming the file, the line and what was wrong:
// never a crash and never a silently partial matrix. A NUL byte anywhere is an error (binary
// data, not text), found before the file is read any further. Memory is sized from what the
// file holds: a size line that announces more than the machine's available memory can hold is
// an error naming the memory needed. Edge lists and ABC files are parsed on the OpenMP threads
// (OMP_NUM_THREADS); the result and the errors never depend on how many.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "opsparse/csr.hpp"
#include "opsparse/error.hpp"

namespace opsparse::io {

/// What a reader accepts beyond the format itself.
struct read_options {
  /// A negative weight (or value) is a parse_error naming its line: for programs whose
  /// weights are similarities (MCL).
  bool nonnegative = false;
  /// Bytes a Matrix Market size line may ask for before anything is allocated (0: the memory
  /// the machine has available now). Beyond it the reader throws parse_error naming the need.
  std::uint64_t memory_limit = 0;
  /// Edge lists and ABC: applied to every weight as it is read (1 for a line without one),
  /// before duplicates are merged and before the `nonnegative` check (mcl's -abc-tf).
  std::function<double(double)> weight_transform;
  /// Edge lists, ABC and mcl's native matrices: a weight that is NaN, infinite or beyond double's
  /// range (read as +-infinity) is taken instead of refused, and so is a non-finite result of
  /// weight_transform (mcl reads such an ABC weight as 1, and keeps infinity and NaN in a native
  /// matrix; its transforms can make them).
  bool nonfinite_weights = false;
  /// Edge lists and ABC: an edge whose weight (after weight_transform) is exactly 0 is no entry at
  /// all, so that it takes no part in the merging of duplicates (mcl never stores it: a 0 and a -2
  /// for one arc give -2, not 0); its endpoints are vertices still.
  bool drop_zero_weights = false;
  /// The graph as symmetrize_max makes it (mcl's mirroring): same matrix, bit for bit. Edge
  /// lists and ABC files mirror every edge while their rows are assembled, with no directed
  /// copy of the graph; the other formats call symmetrize_max after reading.
  bool symmetrize = false;
  /// mcl's native matrix of dimensions 0x0 is read as a graph without nodes (mcl clusters it
  /// into nothing) instead of refused as every graph without vertices is.
  bool allow_no_nodes = false;
};

/// Reads a Matrix Market coordinate file. Symmetric and skew-symmetric files are expanded.
/// V = double, float, int32_t, int64_t or pattern (values dropped; pattern files give 1 when V
/// has values).
template <class V>
host_csr<V> read_matrix_market(const std::string& path, const read_options& options);
template <class V>
host_csr<V> read_matrix_market(const std::string& path) {
  return read_matrix_market<V>(path, read_options{});
}

/// Writes a Matrix Market coordinate general file (pattern when V is pattern), 1-based.
template <class V>
void write_matrix_market(const std::string& path, const host_csr<V>& m);
template <class V>
void write_matrix_market(std::ostream& os, const host_csr<V>& m);

/// A graph with a label for every vertex (vertex i is labels[i]).
struct labelled_graph {
  host_csr<double> adj;             ///< square, n x n, weights (1 when the file has none)
  std::vector<std::string> labels;  ///< size n
};

/// Reads ABC ("a<TAB>b[<TAB>w]") as mcl --abc does; edges as listed (directed), duplicates max.
labelled_graph read_abc(const std::string& path, const read_options& options);
inline labelled_graph read_abc(const std::string& path) { return read_abc(path, read_options{}); }

/// Reads a SNAP-style edge list; edges as listed (directed), duplicates max; labels are the ids.
labelled_graph read_edge_list(const std::string& path, const read_options& options);
inline labelled_graph read_edge_list(const std::string& path) {
  return read_edge_list(path, read_options{});
}

/// A part of a text file for readers that split it between processes
/// (opsparse/distributed/read.hpp): the lines that start in bytes [begin, end), cut at the
/// first line start at or after `part`/`parts` of the file's size, and its count of '\n'.
/// Parts 0 .. parts-1 tile the file; a part may be empty (a line longer than a part).
struct text_part {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  long long newlines = 0;
  long long lines = 0;           ///< newlines, and the last line if the file ends without one
  std::uint64_t file_bytes = 0;  ///< the whole file's
};
/// Part `part` of `parts` of the regular file at `path` (parse_error when it cannot be read, or
/// is not a regular file: a stream cannot be split).
text_part find_text_part(const std::string& path, int part, int parts);

/// The lines of `part` read as read_abc reads a file: vertices numbered by first appearance in
/// the part, labels, the adjacency mirrored and merged as options say. Errors name their line as
/// line_base (the lines before the part) plus its line in the part. A part without vertices is
/// an empty graph (read_abc refuses a file without edges).
labelled_graph read_abc_part(const std::string& path, const text_part& part, long long line_base,
                             const read_options& options);

enum class file_format { automatic, matrix_market, edge_list, abc, mcl_native };

/// Picks the reader from the format or, for `automatic`, from the content and the extension: a
/// file that starts with "(mclheader" is mcl's native matrix (io_mcl_native.hpp; labels are
/// its indices), else .mtx -> Matrix Market, .abc -> ABC, anything else -> edge list. Matrix Market
/// labels are the 1-based row numbers as strings.
labelled_graph read_graph(const std::string& path, file_format format, const read_options& options);
inline labelled_graph read_graph(const std::string& path,
                                 file_format format = file_format::automatic) {
  return read_graph(path, format, read_options{});
}

/// Symmetrises the pattern and weights: A(i,j) = A(j,i) = max(A(i,j), A(j,i)).
host_csr<double> symmetrize_max(const host_csr<double>& a);

/// Writes groups of vertices as lines of tab-separated labels (mcl's -o format).
void write_labelled_groups(std::ostream& os, const std::vector<std::vector<index_t>>& groups,
                           const std::vector<std::string>& labels);

namespace detail {
/// How read_edge_list and read_abc divide their work, for tests: cutting a small file into many
/// chunks exercises the parallel reader's chunk seams, and `serial` gives the reference reading.
/// Process-wide: change it only while no file is being read. Results never depend on it.
struct text_reader_tuning {
  std::size_t chunk_bytes = 0;  ///< target bytes per chunk parsed in parallel (0: the default)
  bool serial = false;          ///< read line by line on one thread instead
};
/// Sets the tuning and returns the previous one.
text_reader_tuning set_text_reader_tuning(const text_reader_tuning& tuning);
}  // namespace detail

}  // namespace opsparse::io
