#pragma once
// Raw R-MAT edge generation shared by rmat() and the web-graph stand-ins.
#include <vector>

#include "opsparse/types.hpp"

namespace opsparse::datasets::detail {

/// `edges` R-MAT edges on 2^levels vertices (ids before any relabelling), written in place.
void rmat_edges(int levels, double a, double b, double c, offset_t edges, std::uint64_t seed,
                std::vector<index_t>& rows, std::vector<index_t>& cols);

}  // namespace opsparse::datasets::detail
