#pragma once
// Deterministic, seeded generators of sparse matrices and graphs for the benchmark, the apps'
// demos and the tests. Host only, C++17.
//
// Determinism: every random draw comes from splitmix64 streams derived from the seed and a fixed
// chunk or row number, converted to integers and doubles by our own arithmetic (never the
// implementation-defined std::*_distribution), so the same arguments give the same matrix on
// every run, machine, compiler and OpenMP thread count.
//
// Every generator returns a host_csr<double> with sorted, duplicate-free rows (valid per
// opsparse::check). Values are 1 or pseudo-random in (0,1]; random values are a hash of the seed
// and the unordered pair {i, j}, so a structurally symmetric matrix is also numerically symmetric.
#include <cstdint>
#include <string>
#include <vector>

#include "opsparse/csr.hpp"

namespace opsparse::datasets {

enum class value_kind {
  random,  ///< hash of (seed, min(i,j), max(i,j)) mapped to (0,1]
  ones,    ///< every stored value is 1
};

// ---------------------------------------------------------------------------------------------
// R-MAT / Kronecker graphs (Graph500 style)

struct rmat_options {
  bool symmetric = false;   ///< store (v,u) for every generated (u,v)
  bool drop_loops = false;  ///< discard generated (u,u)
  bool permute = true;      ///< random relabelling of the vertices, as Graph500 does
  value_kind values = value_kind::random;
};

/// 2^scale vertices, round(edge_factor * 2^scale) generated edges before duplicates are merged.
/// Each edge descends `scale` levels of the 2x2 probability matrix [[a, b], [c, 1-a-b-c]].
/// Graph500 uses a = 0.57, b = c = 0.19. Runs in parallel (OpenMP) with the output independent
/// of the thread count.
host_csr<double> rmat(int scale, double edge_factor, double a, double b, double c,
                      std::uint64_t seed, bool symmetric = false, bool drop_loops = false);
host_csr<double> rmat(int scale, double edge_factor, double a, double b, double c,
                      std::uint64_t seed, const rmat_options& options);

// ---------------------------------------------------------------------------------------------
// Protein-interaction-like networks with planted complexes

struct protein_params {
  index_t nodes = 200000;
  double avg_degree = 10.0;  ///< target mean degree (undirected edges = nodes*avg_degree/2)
  index_t min_cluster = 5;   ///< planted complex sizes, drawn from P(s) ~ s^-cluster_exponent
  index_t max_cluster = 50;
  double cluster_exponent = 2.0;
  /// Fraction of the edges that join two different complexes (p_out side of the planted
  /// partition); the in-complex density p_in is solved for so that the edge count meets
  /// avg_degree, capped at complete complexes.
  double mixing = 0.15;
  /// Degree heterogeneity: each protein's propensity is Pareto with this tail exponent (capped at
  /// 10x the mean); pair probabilities are p_in * theta_i * theta_j. 0 = homogeneous.
  double degree_exponent = 2.5;
  value_kind values = value_kind::random;
  std::uint64_t seed = 1;
};

/// What protein_network planted and achieved.
struct protein_info {
  std::vector<index_t> cluster_of;  ///< complex id of every protein (0..clusters-1)
  index_t clusters = 0;
  double p_in = 0;              ///< mean in-complex pair probability that was solved for
  offset_t internal_edges = 0;  ///< undirected edges inside complexes
  offset_t external_edges = 0;  ///< undirected edges between complexes
};

/// Symmetric, loop-free adjacency matrix (each undirected edge stored twice). Protein ids are
/// shuffled, so complexes are not contiguous ranges.
host_csr<double> protein_network(const protein_params& params, protein_info* info = nullptr);

// ---------------------------------------------------------------------------------------------
// Structured building blocks (also used by the paper stand-ins)

/// Stencil on a d-dimensional grid (d = dims.size(), 1..4), nodes numbered lexicographically
/// (last dimension fastest). `offsets` are d-vectors; a neighbour outside the grid is dropped, or
/// wrapped when `periodic`. Every node carries a dense `block` x `block` coupling (block = 1: a
/// plain stencil), so rows = block * prod(dims).
host_csr<double> grid_stencil(const std::vector<index_t>& dims,
                              const std::vector<std::vector<int>>& offsets, bool periodic = false,
                              index_t block = 1, std::uint64_t seed = 1,
                              value_kind values = value_kind::random);

/// Named stencils: "5pt", "9pt" (2D), "7pt", "15pt" (7pt + 8 corners), "19pt", "27pt" (3D).
std::vector<std::vector<int>> stencil_offsets(const std::string& name);

/// Markov chain of the triangle {(s, i): s, i >= 0, s + i <= side - 1} with transitions
/// (0,0), (-1,+1), (0,-1), (+1,0) (the structure of SuiteSparse Williams/mc2depi at side 1025).
host_csr<double> triangle_markov_chain(index_t side, std::uint64_t seed = 1,
                                       value_kind values = value_kind::random);

/// Planar triangulation of an nx x ny grid: every unit square is split along a randomly chosen
/// diagonal (degrees 3..8, mean ~6): a cheap stand-in for a Delaunay triangulation. No diagonal.
host_csr<double> random_triangulated_grid(index_t nx, index_t ny, std::uint64_t seed,
                                          value_kind values = value_kind::random);

/// Random geometric graph: n points uniform in a 3D torus, i ~ j when closer than the radius
/// that gives `mean_degree` neighbours on average (Poisson degrees); the diagonal is stored.
/// Points are numbered cell by cell (spatial locality, as meshes are usually ordered). Throws
/// std::invalid_argument when the radius would reach half the torus (n too small for the degree).
host_csr<double> random_geometric_3d(index_t n, double mean_degree, std::uint64_t seed,
                                     value_kind values = value_kind::random);

/// Structurally symmetric banded random matrix with a full diagonal: row i has about
/// `per_row` entries in [i - half_width, i + half_width].
host_csr<double> banded_random(index_t n, double per_row, index_t half_width, std::uint64_t seed,
                               value_kind values = value_kind::random);

// ---------------------------------------------------------------------------------------------
// Statistics of A*A (used to check the stand-ins; serial-per-row, OpenMP over rows)

struct square_stats {
  index_t rows = 0;
  offset_t nnz = 0;
  double nnz_per_row = 0;
  offset_t max_row = 0;
  offset_t products = 0;   ///< multiplications of A*A: sum over entries (i,k) of nnz(row k)
  offset_t nnz_c = 0;      ///< structural nnz(A*A) (no cancellation)
  double compression = 0;  ///< products / nnz_c
};

/// Rows, nnz, max row, products and nnz of A*A (A must be square).
square_stats compute_square_stats(const host_csr<double>& a);
/// The same, without nnz(A*A) (cheap: one pass over A); compression and nnz_c are 0.
square_stats compute_product_count(const host_csr<double>& a);

// ---------------------------------------------------------------------------------------------
// Stand-ins for the 26 SuiteSparse matrices of the OpSparse paper

struct paper_matrix {
  std::string name;
  std::string group;  ///< SuiteSparse group
  index_t rows;       ///< of the real matrix
  offset_t nnz;
  double nnz_per_row;
  index_t max_row;
  double products;     ///< multiplications of A*A
  double compression;  ///< products / nnz(A*A)
  std::string recipe;  ///< how the stand-in is built
};

/// The paper's 26 matrices with their real statistics, in the paper's order.
const std::vector<paper_matrix>& paper_matrices();

/// Looks a name up (exact); throws std::invalid_argument listing the names when unknown.
const paper_matrix& find_paper_matrix(const std::string& name);

/// Synthetic stand-in for the named matrix, matched on rows, nnz/row, max row and the
/// compression ratio of A*A (recipes and achieved figures: datasets/README.md). `scale` in (0, 1]
/// shrinks the rows proportionally (grids shrink each side by scale^(1/d), with minimum sides, so
/// very small scales stop shrinking). Throws std::invalid_argument for an unknown name or a bad
/// scale.
host_csr<double> paper_standin(const std::string& name, double scale = 1.0, std::uint64_t seed = 1,
                               value_kind values = value_kind::random);

}  // namespace opsparse::datasets
