// The distributed product with the GPU engine on every rank (dist::gpu_engine): one GPU per rank,
// the ranks of a node sharing the node's GPUs in turn (local rank % devices), against the CPU
// engine's product on rank 0. Run under mpirun on a machine with a GPU; elsewhere every rank skips
// with the reason (OPSPARSE_REQUIRE_GPU=1 makes that a failure).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cuda_runtime.h>

#include <string>

#include "dist_support.hpp"
#include "opsparse/context.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/dist/gpu_engine.hpp"
#include "opsparse/dist/spgemm.hpp"
#include "opsparse_datasets/generators.hpp"
#include "test_support.hpp"

namespace {

using opsparse::host_csr;
namespace cpu = opsparse::cpu;
namespace dist = opsparse::dist;
namespace test = opsparse::test;
using plus_times = opsparse::plus_times<double>;

/// This rank's device: its rank among the ranks of its node, modulo the node's devices.
void choose_device() {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, test::world_rank(), MPI_INFO_NULL,
                      &node);
  int local = 0, devices = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) cudaSetDevice(local % devices);
}

class DistGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    const bool usable = opsparse::gpu_available(&why);
    // every rank skips, or none: a rank alone in a collective would wait for ever
    if (!test::all_ranks(usable)) {
      if (test::gpu_required()) FAIL() << "OPSPARSE_REQUIRE_GPU=1 but a rank has no GPU: " << why;
      GTEST_SKIP() << "GPU test skipped: " << (usable ? "another rank has no GPU" : why);
    }
    choose_device();
  }
};

TEST_F(DistGpu, SummaWithTheGpuEngineEqualsTheCpuEngine) {
  const host_csr<double> g = opsparse::datasets::rmat(12, 8.0, 0.57, 0.19, 0.19, 5);
  const host_csr<double> r = test::random_csr(g.cols, 700, 6.0, 6);
  const dist::gpu_engine<plus_times> engine;  // one per rank, reused by every shape and product
  for (const auto s : test::all_shapes())
    for (int phases : {0, 3}) {
      const dist::grid grid(MPI_COMM_WORLD, s.rows, s.cols);
      SCOPED_TRACE(test::shape_name(grid) + ", phases " + std::to_string(phases));
      dist::spgemm_options opt;
      opt.phases = phases;
      const auto da = dist::scatter(grid, g);
      for (const host_csr<double>* b : {&g, &r}) {
        const auto c = dist::gather(grid, dist::spgemm<plus_times>(grid, da, dist::scatter(grid, *b),
                                                                   opt, engine));
        if (grid.rank() == 0)
          EXPECT_TRUE(test::csr_near(c, cpu::spgemm<plus_times>(g, *b), 1e-12));
      }
    }
}

}  // namespace
