#pragma once
// Shared by the distributed tests: the world, every grid shape of it, and a check that all ranks
// agree (so that a failure seen on one rank is reported by rank 0's output too).
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "opsparse/distributed/grid.hpp"

namespace opsparse::test {

inline int world_size() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/// Every shape pr x pc of the world (1x1 only on one rank; 1x4, 2x2, 4x1 on four).
inline std::vector<dist::grid_shape> all_shapes() {
  std::vector<dist::grid_shape> shapes;
  const int p = world_size();
  for (int r = 1; r <= p; ++r)
    if (p % r == 0) shapes.push_back({r, p / r});
  return shapes;
}

inline std::string shape_name(const dist::grid& g) {
  return std::to_string(g.rows()) + "x" + std::to_string(g.cols()) + " grid";
}

/// True on every rank when every rank passed the same x.
inline bool same_on_every_rank(int x) {
  int low = x, high = x;
  MPI_Allreduce(MPI_IN_PLACE, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &high, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return low == high;
}

/// True on every rank when `ok` is true on all of them.
inline bool all_ranks(bool ok) {
  int in = ok ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return out != 0;
}

}  // namespace opsparse::test
