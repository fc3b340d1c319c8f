#pragma once
// mcl's native interchange format (mcxio), as mcl and mcxload 22-282 read and write it:
//
//   (mclheader
//   mcltype matrix
//   dimensions 7x3
//   )
//   (mcldoms 10 20 30 $ )          optional domain blocks: mcldoms (both), mclrows, mclcols;
//   (mclmatrix                     without one the domain is canonical, 0 .. n-1
//   begin
//   0 0 1 2 $                      a column: its index, then row[:value] ... and '$'
//   1 3:0.5 4 5 $                  (value 1 when absent; a column may carry a value of its
//                                  own, "1:2.5 3:0.5 $", which is read and left out)
//   )
//
// '#' starts a comment that runs to the end of its line (mcl writes "# cline: ..." first).
// Columns may be listed in any order and more than once (the lists are merged); within a
// column, a row given twice keeps its first value, as mcl does. Columns without entries are not
// written. A tab file ("index<TAB>label" per line, mcxload -write-tab) names the indices.
//
// The writer reproduces mcl's bytes: the column index is left-aligned in a field as wide as the
// decimal digits of the largest row index + 1, entries follow with one blank each and wrap
// after the line has passed 69 - width characters (continued after width + 2 blanks), values
// are written as %.7g of the float value (mcl's cells are floats).
//
// mcl's binary format (mcxload --write-binary; mcl reads either) holds the same matrix with
// float values: read_mcl_native reads both, write_mcl_native_binary writes mcxload's bytes. Its
// offsets let the columns be decoded in parallel, several times faster than the text.
//
// Errors are opsparse::parse_error naming the file and the line (the byte, in a binary file).
#include <cstdint>
#include <iosfwd>
#include <string>
#include <unordered_map>
#include <vector>

#include "opsparse/csr.hpp"
#include "opsparse/io.hpp"

namespace opsparse::io {

/// A native matrix: its columns as the rows of a CSR (mcl's vectors), entries' column numbers are
/// positions in the row domain. `columns.rows` is the number of columns, `columns.cols` the number
/// of rows (mcl's "dimensions ROWSxCOLS").
struct mcl_native_matrix {
  host_csr<double> columns;
  std::vector<std::int64_t> row_ids;  ///< the row domain (canonical: 0 .. rows-1)
  std::vector<std::int64_t> col_ids;  ///< the column domain
  bool has_values = false;            ///< some entry carried a ':value'
};

/// True when a line among the file's first 1000 starts with "(mclheader" (after blanks), or the
/// file is a binary native matrix: how the automatic format detection recognises a native
/// matrix. Text before that line is skipped when the matrix is read, as mcl skips it.
bool looks_like_mcl_native(const std::string& path);

/// True when the file starts with the binary format's cookie.
bool is_mcl_native_binary(const std::string& path);

/// Reads a native matrix, text or binary. read_options::nonnegative refuses negative values.
mcl_native_matrix read_mcl_native(const std::string& path, const read_options& options);

/// Reads a binary native matrix (read_mcl_native does when the file is one).
mcl_native_matrix read_mcl_native_binary(const std::string& path, const read_options& options);

/// Reads a native matrix as a graph: square, the same row and column domain; adj(c, r) is the
/// value of row r in column c; labels are the domain's indices as decimal strings.
labelled_graph read_mcl_native_graph(const std::string& path, const read_options& options);

/// Writes `columns` (see mcl_native_matrix) in mcl's bytes; values when V has them (pattern:
/// none, as mcl writes clusterings). `row_ids`/`col_ids` (optional, non-canonical domains) are
/// written as the mclrows/mclcols blocks mcl writes and give the indices written.
/// `col_values` (optional, one per column): the value mcl keeps with each column vector, written
/// after its index as "index:value" (%.7g of the double) where it is not 0, as mcl writes a start
/// matrix's column sums in its -dump ite files.
template <class V>
void write_mcl_native(std::ostream& os, const host_csr<V>& columns,
                      const std::vector<std::int64_t>* row_ids = nullptr,
                      const std::vector<std::int64_t>* col_ids = nullptr,
                      const std::vector<double>* col_values = nullptr);

/// Writes `columns` as write_mcl_native does, in the binary format, as mcxload --write-binary
/// writes it (values as floats; ids must fit 32 bits).
template <class V>
void write_mcl_native_binary(std::ostream& os, const host_csr<V>& columns,
                             const std::vector<std::int64_t>* row_ids = nullptr,
                             const std::vector<std::int64_t>* col_ids = nullptr);

/// A tab file: index -> label, in the order of the file. Indices are non-negative and unique.
struct mcl_tab {
  std::vector<std::int64_t> ids;
  std::vector<std::string> labels;
  std::unordered_map<std::int64_t, std::size_t> position;  ///< id -> its place in ids
  /// The label of `id`, or mcl's dummy label "?_<id>" when the file has none.
  std::string label(std::int64_t id) const;
};
mcl_tab read_mcl_tab(const std::string& path);

/// Writes "i<TAB>labels[i]" for every i, as mcxload -write-tab.
void write_mcl_tab(std::ostream& os, const std::vector<std::string>& labels);

}  // namespace opsparse::io
