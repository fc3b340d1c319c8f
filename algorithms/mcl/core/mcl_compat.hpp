#pragma once
// What makes opsparse-mcl a drop-in for mcl 22-282 beyond the clustering itself: mcl's value
// transform language (-tf, -abc-tf), its native cluster output with the "# cline:" comment, and
// its label files (-use-tab).
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "mcl.hpp"

namespace opsparse::mcl {

/// A value transform in mcl's tf-spec language: comma-separated steps, each `name(number)`:
///   gq(f) gt(f) lq(f) lt(f)   keep values >= f, > f, <= f, < f (others become 0: no edge)
///   ceil(f) floor(f)          min(v, f), max(v, f)
///   mul(f) add(f) pow(f)      v*f, v+f, v^f
///   scale(f) abs() acos()     v/f (0 when f is 0), |v|, acos(v) of v clamped to [-1, 1]
///   log(b) neglog(b) exp(b)   log_b(v), -log_b(v), b^v; b empty or 0: base e
/// Applied as mcl 22-282 applies it (its mclpUnary): each step reads the value as a float (so
/// 1e-100 is 0, and 1e39 infinity) and the number as a float, and computes in double; log of 0
/// is -FLT_MAX, and log of a negative value, or in a negative base, is 0; a value that gq, gt,
/// lq or lt make 0 is gone (later steps do not see it), while the other steps go on from 0
/// (mul(0),add(1) makes 1). The result is an entry unless it is exactly 0 in double, and its
/// float cell may be 0, infinite or NaN, as mcl's. Graph transforms ('#knn(k)', ...), rand()
/// and unknown names are refused by parse().
class value_transform {
 public:
  /// Throws std::invalid_argument naming the step that is not understood.
  static value_transform parse(const std::string& spec);
  /// The transforms parse() accepts, for --help.
  static const char* supported();
  bool empty() const { return steps_.empty(); }
  /// The value `v` (an entry as this program holds mcl's float cells: see float_entry())
  /// transformed: 0 when the transform removes it, else float_entry() of mcl's result.
  double operator()(double v) const;
  /// This transform followed by `next`.
  void append(const value_transform& next);

 private:
  enum class op { gq, gt, lq, lt, ceil, floor, mul, add, pow, log, neglog, exp, scale, abs, acos };
  struct step {
    op o;
    double arg;
  };
  std::vector<step> steps_;
};

/// How this program holds one of mcl's float cells in a double: the float value, except that a
/// nonzero value that is 0 as a float (1e-50; mcl keeps such an entry, with the value 0) keeps its
/// double value, so that 0 still means "no entry".
double float_entry(double v);

/// mcl's reading of an ABC weight (its read_abc in stream.c): NaN, infinity and anything above
/// FLT_MAX (1e300) are 1; the rest as read (-1e300 is -infinity once a float).
double abc_weight(double w);

/// mcl's --abc-neg-log10 and --abc-neg-log (mcxload's --stream-neg-log10/-log) on a weight as
/// read: -log(w) / log(base), where mcl's logarithm of w <= 0 is -FLT_MAX (so an e-value of 0 is
/// FLT_MAX / ln(10) = 1.477827e+38 with base 10, checked with mcl 22-282).
double neg_log_weight(double w, double base);

/// Applies `tf` to every nonzero value of `a`; zeros and the values it makes 0 are dropped.
void transform_values(host_csr<double>& a, const value_transform& tf);

/// mcl's removal of the input's loops (mclxAdjustLoops with mclxLoopCBremove, before -tf): a row
/// with a loop loses it and every entry that is 0 as a float (1e-50), the others keep theirs.
/// `first`: the graph's row of a's row 0 (a distributed rank's rows).
void drop_loops_as_mcl(host_csr<double>& a, index_t first = 0);

/// mcl's "# cline:" line (without the newline): the program, the first argument as it is, every
/// further argument in double quotes.
std::string command_line_comment(const char* program, int argc, const char* const* argv);

/// Writes a clustering as mcl writes it without labels: `cline` (when not empty) and a native
/// matrix with one column per cluster (members are node indices, `node_ids` when the input's
/// domain is not 0..n-1).
void write_native_clusters(std::ostream& os, const clustering& c, index_t nodes,
                           const std::string& cline,
                           const std::vector<std::int64_t>* node_ids = nullptr);

/// Orders clusters as mcl's -sort: "revsize" (the default: largest first, equal sizes by their
/// members), "size" (revsize reversed: smallest first, equal sizes by their members from the
/// last, as mcl), "lex" (by their members).
/// Throws std::invalid_argument for another mode.
void sort_clusters(clustering& c, const std::string& mode);

/// mcl's -force-connected y (its clmUGraphComponents on the start matrix): every cluster is
/// replaced by the parts of it that are connected in `start` (rows are mcl's columns: node i
/// reaches the columns of row i, so a directed matrix is followed along its arcs). As mcl, each
/// cluster in turn, from its smallest unassigned node, takes every member reachable through
/// members that no earlier part has taken (in any cluster: with -overlap keep a shared node
/// belongs to the first part that reaches it, later ones start from it alone). When that gives
/// more parts than there were clusters, `c` becomes the parts, in revsize order whatever the
/// -sort (mcl sorts them so after its -sort), and the result is true; otherwise `c` is left as
/// it is (its order too) and the result is false.
bool split_disconnected(clustering& c, const host_csr<double>& start);

}  // namespace opsparse::mcl
