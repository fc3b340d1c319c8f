#pragma once
// mcl 22-282's -tf language with its graph steps: the value steps of mcl_compat.hpp and the
// steps that start with '#' (or '@') and act on the graph as a whole, such as '#knn(10)', applied
// in the order the spec gives them, as mcl's mclgTFexec applies them.
#include <string>
#include <vector>

#include "mcl_compat.hpp"

namespace opsparse::mcl {

/// A -tf spec: comma-separated steps, value steps (value_transform) and graph steps. The graph
/// steps, on the graph as this program holds it (row i is mcl's column of node i: node i's arcs):
///   #knn(k)   each node keeps its k heaviest arcs (fewer where the k-th weight is tied: mcl's
///             selection keeps the values >= the k-th largest, and when that keeps more than k,
///             those > it by a float epsilon), then an edge stays where both ends kept it
///   #knnj(k)  the same selection, then an edge stays where either end kept it (the larger
///             weight); #rank(k): the selection alone (directed)
///   #ceilnb(k) nodes with more than k arcs, most arcs first, keep their k heaviest (as #knn's
///             selection), and each arc dropped loses its reverse arc too
///   #add() #max() #min() #mul()  each pair of arcs u->v, v->u becomes an edge, the sum, larger,
///             smaller or product of the two (a missing arc counts 0; a result of 0 is no edge;
///             a loop is combined with itself)
///   #arcmax() an arc stays when its reverse is missing or not heavier; #arcsub(): the graph
///             minus its transpose; #arcmaxgq(f) #arcmaxgt(f) #arcmaxlq(f) #arcmaxlt(f): a pair
///             of arcs stays when either compares with f so (a missing arc is 0);
///             #arcmingq(f) #arcmingt(f) #arcmimlq(f) #arcminlt(f): when both do (mcl spells the
///             third so); #arcdiffgq(f) ...lt(f): when u->v minus v->u, or v->u minus u->v, does
///   #selfrm() removes loops (with the node's arcs of value 0); #selfmax() sets every loop to the
///             node's heaviest arc (1 for none); #normself() divides a node's arcs by its loop
///             (by its heaviest arc without one)
///   #tp() #rev()  the transpose; #step(k) the graph multiplied by itself k times in a row
///             (G^(2^k); k defaults to 2); #qt(q) each node keeps its q fraction of heaviest arcs
///   #ssq(f)   each node keeps the arcs above f * (sum of squares)/(sum), its loop left out
///   #tug(f)   each edge's weight times 1 + FLT_EPSILON f cos(u, v) (the cosine of the two
///             nodes' arc vectors; f defaults to 1000), nodes in order, as mcl perturbs them
///   #ils()    inverted log-weighted similarity: every edge u-v gets the sum of
///             log 2 / log deg(w) over their common neighbours w (of degree > 1)
///   #hread(n) mcl's thread count for these steps (its spelling): no effect on the result;
///             #shuffle(n) does nothing in mcl 22-282, nor here
/// A number is read as a float, k as mcl rounds it (k + 0.5, truncated; #knn, #knnj and #rank
/// with k = 0 do nothing, below -0.5 they keep everything). mcl's #mcl, #symmcl (a clustering
/// inside the transform) and #shrug (random) are refused by parse().
class matrix_transform {
 public:
  /// Throws std::invalid_argument naming the step that is not understood.
  static matrix_transform parse(const std::string& spec);
  /// The graph steps parse() accepts, for --help.
  static const char* graph_supported();
  bool empty() const { return stages_.empty(); }
  /// The value steps alone, in order: what mcl applies of a spec to a weight as it is read
  /// (-abc-tf, mcxload -stream-tf), where it passes over graph steps.
  value_transform value_steps() const;
  /// The spec's graph steps as written ('#knn(10)'), for a note that a stream ignores them.
  std::vector<std::string> graph_steps() const;
  /// Applies the steps to `a` (square, rows sorted, no entries of value 0 but mcl's float
  /// zeros: see float_entry); the result is such a matrix again.
  void apply(host_csr<double>& a) const;

  enum class graph_op {
    knn,
    knnj,
    rank,
    ceilnb,
    add,
    max,
    min,
    mul,
    arcmax,
    arcsub,
    arcmaxgq,
    arcmaxgt,
    arcmaxlq,
    arcmaxlt,
    arcmingq,
    arcmingt,
    arcminlq,
    arcminlt,
    arcdiffgq,
    arcdiffgt,
    arcdifflq,
    arcdifflt,
    selfrm,
    selfmax,
    normself,
    transpose,
    step,
    qt,
    ssq,
    tug,
    ils,
    thread,
    shuffle
  };

 private:
  struct stage {
    bool graph = false;
    value_transform values;  ///< a value step (graph == false)
    graph_op op = graph_op::knn;
    double arg = 0;    ///< the graph step's number, as mcl holds it (a float)
    std::string text;  ///< as written
  };
  std::vector<stage> stages_;
};

/// One graph step on `a` (see matrix_transform), for the tests.
void apply_graph_step(host_csr<double>& a, matrix_transform::graph_op op, double arg);

}  // namespace opsparse::mcl
