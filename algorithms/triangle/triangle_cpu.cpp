// triangle::backend on the CPU engine (opsparse::cpu::spgemm and the graph operations, OpenMP):
// the oracle of the GPU backend and the program's engine where no GPU is present. The backend
// is triangle_space.hpp's over cpu_space.
#include "opsparse/space.hpp"
#include "triangle/triangle.hpp"
#include "triangle/triangle_space.hpp"

namespace opsparse::triangle {

std::unique_ptr<backend> make_cpu_backend(int threads) {
  return std::make_unique<space_backend<cpu_space>>("cpu", threads);
}

}  // namespace opsparse::triangle
