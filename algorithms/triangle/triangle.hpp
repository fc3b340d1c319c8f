#pragma once
// Triangle counting the LAGraph way (LAGr_TriangleCount), as masked sparse products.
//
// A is the undirected simple graph of the input: symmetric pattern, no self-loops, no duplicate
// edges. L = tril(A,-1), U = triu(A,1) = Lᵀ. Over the plus_pair semiring (every product counts
// 1) a masked product C<M> = X·Y gives, at each position (i,j) of M, the number of k with X(i,k)
// and Y(k,j). For a triangle {a < b < c}:
//   sandia-ll   C<L> = L·L   C(i,j), i>j, counts k with i>k>j: found once, at (c,a) via b.
//   sandia-uu   C<U> = U·U   C(i,j), i<j, counts k with i<k<j: found once, at (a,c) via b.
//   sandia-lut  C<L> = L·Uᵀ  LAGraph's dot-product form of sandia-ll. A row-wise (Gustavson)
//                            engine needs Uᵀ by rows, and for a symmetric A that is exactly L, so
//                            the product, mask and result are those of sandia-ll.
//   sandia-ult  C<U> = U·Lᵀ  likewise the dot-product form of sandia-uu (Lᵀ = U).
//   cohen       C<A> = L·U   C(i,j) counts k < min(i,j): found twice, at (b,c) and (c,b) via a;
//                            count = sum(C) / 2.
//   burkhardt   C<A> = A·A   every common neighbour: found six times; count = sum(C) / 6.
//   ul          C<L> = U·L   C(j,k), j>k, counts i > j with k < i: found once, at (b,a) via c
//                            (not one of LAGraph's). Its products are Σ_i |L(i)|², sandia-ll's
//                            Σ_k |L(k)|·|U(k)| (row i of U·L reads L(c) for each c in U(i)).
// count = sum(C) / divisor.
//
// Degree ordering (LAGraph's presort): relabelling vertices by degree bounds the work of the
// Sandia methods (a vertex's neighbours of higher degree number at most sqrt(2|E|)). When:
// LAGraph's automatic rule, used here with exact rather than sampled degrees: sort when n > 1000,
// the mean degree nnz(A)/n is at least 10, and the mean exceeds 4 × the median degree; never for
// cohen and burkhardt. Which way: the opposite of LAGraph's (which sorts sandia-ll ascending),
// so that the rows a product probes (its mask rows) and, for ul, the rows it reads (B's rows)
// are a vertex's neighbours of HIGHER degree: short rows that fit a warp's hash table, where
// LAGraph's direction makes a hub's mask row every neighbour of lower degree (163,328 entries on
// R-MAT 22, a bitmap in global memory). Measured on the H100 (R-MAT 22,
// docs/experiments/2026-11-21-graph-programs.md): sandia-ll 341 ms ascending, 173 ms descending;
// descending for sandia-ll/lut and ul, ascending for sandia-uu/ult. Σ_i |L(i)|² is then 14.5G
// products where sandia-ll's are 28.9G.
//
// Triangles through each vertex: an entry C(i,j) of the method's product stands for C(i,j)
// triangles, each of which also passes through a third vertex k that the product summed over.
// The row and column of every entry are credited directly, and the role C does not name is
// filled by a second product on the same plan whose rows are exactly that role:
//   sandia-ll/lut  rows = largest,  cols = smallest;  middle  from C2<U> = L·U (k < i < j).
//   sandia-uu/ult  rows = smallest, cols = largest;   middle  from C2<L> = U·L (k > i > j).
//   ul             rows = middle,   cols = smallest;  largest from C2<L> = L·L (sandia-ll's C).
//   cohen          rows = middle and largest (one entry each);   smallest from C2<U> = U·U.
//   burkhardt      row sums count each triangle through i twice: t(i) = rowsum(C)(i) / 2.
// Local clustering coefficient: t(i) / (d(i)(d(i)-1)/2), 0 when d(i) < 2.
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "opsparse/csr.hpp"
#include "opsparse/types.hpp"

namespace opsparse::triangle {

enum class method { ul, sandia_ll, sandia_uu, sandia_lut, sandia_ult, cohen, burkhardt };
enum class presort { automatic, none, ascending, descending };

/// "sandia-ll" -> method::sandia_ll ...; throws std::invalid_argument naming the choices.
method parse_method(const std::string& s);
const char* to_string(method m);
presort parse_presort(const std::string& s);
const char* to_string(presort p);

/// The operands a product can name. L and U are derived from A by the backend.
enum class operand { a, l, u };

/// What the last product did (for -V).
struct product_info {
  offset_t products = 0;  ///< multiplications (0 where the backend does not count them)
  offset_t nnz = 0;       ///< nnz(C)
  bool fused = false;     ///< only sum(C) was computed; C was not formed
};

/// Where the matrices live and the products run. One implementation per engine; the algorithm
/// (count_triangles) is written once over this interface. Every call completes its work before
/// returning, so that the caller's stage timings are honest.
class backend {
 public:
  virtual ~backend() = default;
  virtual const char* name() const = 0;
  /// Takes A (square, symmetric pattern, no loops); A becomes the operand `a`.
  virtual void load(const host_csr<pattern>& a) = 0;
  /// A ← P·A·Pᵀ: new vertex r is the vertex of r-th smallest (ascending) or largest degree, ties
  /// by vertex number. Remembered so that vertex_counts() answers in the loaded numbering.
  virtual void sort_by_degree(bool ascending) = 0;
  /// Derives L = tril(A,-1) or U = triu(A,1) from the current A.
  virtual void extract(operand which) = 0;
  /// C<M> = X·Y over plus_pair; returns sum(C). With `keep`, C is kept for add_vertex_counts;
  /// without, a backend may compute sum(C) without forming C (both engines fuse the reduction).
  virtual std::int64_t product(operand x, operand y, operand mask, bool keep = true) = 0;
  /// sum(C<M> = X·Y) over plus_pair for matrices the caller gives (a tile of a product counted
  /// in parts: count_triangles with options::parts); A, L, U and C are left as they were.
  virtual std::int64_t count_tile(const host_csr<pattern>& x, const host_csr<pattern>& y,
                                  const host_csr<pattern>& m) = 0;
  virtual product_info last_product() const = 0;
  /// Sets every vertex count to zero (n entries).
  virtual void reset_vertex_counts() = 0;
  /// count(i) += rowsum(C)(i) (rows) and count(j) += colsum(C)(j) (cols), for the last C.
  virtual void add_vertex_counts(bool rows, bool cols) = 0;
  /// The counts, in the numbering of the matrix given to load().
  virtual std::vector<std::int64_t> vertex_counts() = 0;
};

std::unique_ptr<backend> make_cpu_backend(int threads = 0);
#if OPSPARSE_HAS_GPU_ENGINE
/// Uses the current CUDA device: one context and one plan for every product.
std::unique_ptr<backend> make_gpu_backend();
#endif

struct options {
  method how = method::ul;
  presort sort = presort::automatic;
  bool per_vertex = false;   ///< also compute the triangles through each vertex
  bool materialize = false;  ///< form C even when only its sum is needed (cross-checks, benchmarks)
  /// > 1: count in parts × parts tiles (the count only). The host relabels and extracts; each
  /// tile C(I,:)<M(I,:)> = X(I,K)·Y(K,:), I a range of rows and K of the inner dimension, each
  /// range about 1/parts of the entries, goes to the backend alone, which then holds about
  /// (|M| + |Y|)/parts + |X|/parts² entries instead of A, L and U.
  int parts = 1;
  int host_threads = 0;  ///< OpenMP threads of the host's share of parts > 1 (0: the default)
};

struct stage_time {
  std::string stage;
  double ms = 0;
  std::string note;
};

struct result {
  std::int64_t triangles = 0;
  presort sorted = presort::none;        ///< the ordering actually used
  std::vector<std::int64_t> per_vertex;  ///< triangles through each vertex (when asked)
  std::vector<stage_time> stages;        ///< what -V prints
};

/// Counts on a tiny graph with `opt` in each ordering: it launches what a real count launches,
/// so that a program can run it on a throwaway backend while it reads the graph (the GPU loads a
/// kernel at its first launch).
void warm_up(backend& be, const options& opt);

/// The undirected simple graph on the structure of `adj` (square): A = S + Sᵀ as a pattern,
/// diagonal dropped, duplicates merged. Host: it pairs with the host readers.
host_csr<pattern> simple_undirected(const host_csr<double>& adj);

/// LAGraph's condition for sorting by degree (n > 1000, mean degree >= 10 and > 4 × median).
bool degrees_skewed(const host_csr<pattern>& a);

/// The presort `auto` picks for `how` on `a`: LAGraph's condition, our direction (see the header).
presort automatic_presort(const host_csr<pattern>& a, method how);

/// Counts the triangles of `a` (as simple_undirected returns it) on `be`.
result count_triangles(backend& be, const host_csr<pattern>& a, const options& opt);

/// Local clustering coefficients from per-vertex counts and the degrees of `a`.
std::vector<double> clustering_coefficients(const host_csr<pattern>& a,
                                            const std::vector<std::int64_t>& per_vertex);

}  // namespace opsparse::triangle
