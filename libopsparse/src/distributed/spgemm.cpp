// The non-template parts of Sparse SUMMA: its stages, the rows of a row phase and the agreement
// on the phase count.
#include "opsparse/distributed/spgemm.hpp"

#include <algorithm>
#include <climits>

namespace opsparse::dist {

row_phase row_phase_of(index_t h, int parts, int phases, int p) {
  row_phase rp;
  rp.phase = p;
  rp.phases = phases;
  for (int d = 0; d < parts; ++d) {
    const index_t first = split_point(h, parts, d), size = split_point(h, parts, d + 1) - first;
    rp.begin.push_back(first + split_point(size, phases, p));
    rp.end.push_back(first + split_point(size, phases, p + 1));
  }
  return rp;
}

}  // namespace opsparse::dist

namespace opsparse::dist::detail {

std::vector<stage> summa_stages(index_t inner, int grid_rows, int grid_cols) {
  std::vector<index_t> cuts;
  for (int a = 0; a <= grid_cols; ++a) cuts.push_back(split_point(inner, grid_cols, a));
  for (int b = 0; b <= grid_rows; ++b) cuts.push_back(split_point(inner, grid_rows, b));
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<stage> stages;
  for (std::size_t t = 0; t + 1 < cuts.size(); ++t) {
    const index_t k0 = cuts[t];
    stages.push_back(
        {k0, cuts[t + 1], split_part(inner, grid_cols, k0), split_part(inner, grid_rows, k0)});
  }
  return stages;
}

int agree_on_phases(const grid& g, std::size_t bytes, std::size_t budget, index_t most,
                    int forced) {
  int mine = forced;
  if (forced <= 0) {
    const std::size_t wanted = budget == 0 ? 1 : (bytes + budget - 1) / budget;
    mine = static_cast<int>(std::min<std::size_t>(
        std::max<std::size_t>(wanted, 1), static_cast<std::size_t>(std::max<index_t>(most, 1))));
  }
  int phases = 1;
  OPSPARSE_MPI_TRY(MPI_Allreduce(&mine, &phases, 1, MPI_INT, MPI_MAX, g.comm()));
  return phases;
}

}  // namespace opsparse::dist::detail
