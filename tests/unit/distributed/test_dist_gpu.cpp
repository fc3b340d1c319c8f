// The distributed product with the GPU engine on every rank (dist::gpu_engine): one GPU per rank,
// the ranks of a node sharing the node's GPUs in turn (local rank % devices), against the CPU
// engine's product on rank 0. Run under mpirun on a machine with a GPU; elsewhere every rank skips
// with the reason (OPSPARSE_REQUIRE_GPU=1 makes that a failure).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "dist_support.hpp"
#include "opsparse/context.hpp"
#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/distributed/gpu_engine.hpp"
#include "opsparse/distributed/nccl.hpp"
#include "opsparse/distributed/spgemm.hpp"
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
        const auto c = dist::gather(
            grid, dist::spgemm<plus_times>(grid, da, dist::scatter(grid, *b), opt, engine));
        if (grid.rank() == 0) EXPECT_TRUE(test::csr_near(c, cpu::spgemm<plus_times>(g, *b), 1e-12));
      }
    }
}

// NCCL's grouped broadcasts between the ranks' GPUs (dist::nccl_comm::allgatherv): rank r's
// (r + 1) * 1000 + 3 bytes of value r + 1, and an empty part, land at their offsets on every rank.
// Where NCCL cannot carry them (ranks sharing a GPU, no NCCL) it skips with the reason.
TEST_F(DistGpu, NcclAllgatherPutsEveryRanksBytesInPlace) {
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  std::string why;
  // (not "GPU test skipped": ctest would take the whole run, the other tests too, for a skip)
  if (!dist::nccl_usable(MPI_COMM_WORLD, device, &why)) GTEST_SKIP() << "NCCL not usable: " << why;
  const int rank = test::world_rank(), size = test::world_size();
  std::vector<std::size_t> bytes;
  std::size_t total = 0;
  for (int r = 0; r < size; ++r) {
    bytes.push_back(r == 1 ? 0 : static_cast<std::size_t>(r + 1) * 1000 + 3);  // rank 1 sends none
    total += bytes.back();
  }
  dist::nccl_comm comm(MPI_COMM_WORLD);
  EXPECT_EQ(comm.rank(), rank);
  EXPECT_EQ(comm.size(), size);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  unsigned char *send = nullptr, *recv = nullptr;
  // (room past the send: NCCL's LL protocol reads it in whole words; nccl.hpp)
  ASSERT_EQ(cudaMalloc(&send, bytes[static_cast<std::size_t>(rank)] + 16), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&recv, total), cudaSuccess);
  ASSERT_EQ(cudaMemset(send, rank + 1, bytes[static_cast<std::size_t>(rank)] + 1), cudaSuccess);
  ASSERT_EQ(cudaMemset(recv, 0xee, total), cudaSuccess);
  comm.allgatherv(send, recv, bytes, stream);
  std::vector<unsigned char> got(total);
  ASSERT_EQ(cudaMemcpyAsync(got.data(), recv, total, cudaMemcpyDeviceToHost, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::size_t at = 0, wrong = 0;
  for (int r = 0; r < size; ++r)
    for (std::size_t k = 0; k < bytes[static_cast<std::size_t>(r)]; ++k)
      wrong += got[at++] != static_cast<unsigned char>(r + 1);
  EXPECT_EQ(wrong, 0u) << "of " << total << " bytes";
  cudaFree(send);
  cudaFree(recv);
  cudaStreamDestroy(stream);
  EXPECT_THROW(comm.allgatherv(nullptr, nullptr, std::vector<std::size_t>(size + 1, 0), nullptr),
               std::invalid_argument);
}

// dist::nccl_comm::broadcast: the last rank's 4099 bytes (its rank + 1, one byte past them not
// sent) on every rank, its own included; a root out of range refused.
TEST_F(DistGpu, NcclBroadcastPutsTheRootsBytesOnEveryRank) {
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  std::string why;
  if (!dist::nccl_usable(MPI_COMM_WORLD, device, &why)) GTEST_SKIP() << "NCCL not usable: " << why;
  const int rank = test::world_rank(), size = test::world_size(), root = size - 1;
  const std::size_t bytes = 4099;
  dist::nccl_comm comm(MPI_COMM_WORLD);
  unsigned char *send = nullptr, *recv = nullptr;
  ASSERT_EQ(cudaMalloc(&send, bytes + 16), cudaSuccess);  // (room past it, as above)
  ASSERT_EQ(cudaMalloc(&recv, bytes + 1), cudaSuccess);
  ASSERT_EQ(cudaMemset(send, rank + 1, bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(recv, 0xee, bytes + 1), cudaSuccess);
  comm.broadcast(send, recv, bytes, root, nullptr);
  std::vector<unsigned char> got(bytes + 1);
  ASSERT_EQ(cudaMemcpy(got.data(), recv, bytes + 1, cudaMemcpyDeviceToHost), cudaSuccess);
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < bytes; ++k) wrong += got[k] != static_cast<unsigned char>(root + 1);
  EXPECT_EQ(wrong, 0u) << "of " << bytes << " bytes";
  EXPECT_EQ(got[bytes], 0xee) << "a byte past the broadcast was written";
  cudaFree(send);
  cudaFree(recv);
  EXPECT_THROW(comm.broadcast(nullptr, nullptr, 1, size, nullptr), std::invalid_argument);
}

// dist::nccl_comm::exchange: every rank sends two pieces to every other (the first of
// 1000 * (to + 1) + from bytes, the second empty or 7 bytes) and receives theirs in place; a
// send to itself or to a rank out of range refused.
TEST_F(DistGpu, NcclExchangeMovesEachPieceToItsPeer) {
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  std::string why;
  if (!dist::nccl_usable(MPI_COMM_WORLD, device, &why)) GTEST_SKIP() << "NCCL not usable: " << why;
  if (!dist::nccl_comm::has_point_to_point()) GTEST_SKIP() << "this NCCL has no ncclSend";
  const int rank = test::world_rank(), size = test::world_size();
  dist::nccl_comm comm(MPI_COMM_WORLD);
  EXPECT_THROW(comm.exchange({{rank, nullptr, 1}}, {}, nullptr), std::invalid_argument);
  EXPECT_THROW(comm.exchange({}, {{size, nullptr, 1}}, nullptr), std::invalid_argument);
  auto first = [](int from, int to) { return static_cast<std::size_t>(1000 * (to + 1) + from); };
  auto second = [](int from, int to) { return std::size_t{(from + to) % 2 ? 7u : 0u}; };
  std::vector<std::size_t> sent_at, got_at;
  std::size_t sent = 0, got = 0;
  for (int q = 0; q < size; ++q) {
    sent_at.push_back(sent);
    got_at.push_back(got);
    if (q == rank) continue;
    sent += first(rank, q) + second(rank, q);
    got += first(q, rank) + second(q, rank);
  }
  unsigned char *send = nullptr, *recv = nullptr;
  ASSERT_EQ(cudaMalloc(&send, sent + 1), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&recv, got + 1), cudaSuccess);
  std::vector<unsigned char> out(sent + 1);
  for (int q = 0; q < size; ++q)
    for (std::size_t k = 0; q != rank && k < first(rank, q) + second(rank, q); ++k)
      out[sent_at[q] + k] = static_cast<unsigned char>(16 * rank + q + (k >= first(rank, q)));
  ASSERT_EQ(cudaMemcpy(send, out.data(), sent + 1, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(recv, 0xee, got + 1), cudaSuccess);
  std::vector<dist::nccl_comm::transfer> sends, receives;
  for (int q = 0; q < size; ++q) {
    if (q == rank) continue;
    sends.push_back({q, send + sent_at[q], first(rank, q)});
    sends.push_back({q, send + sent_at[q] + first(rank, q), second(rank, q)});
    receives.push_back({q, recv + got_at[q], first(q, rank)});
    receives.push_back({q, recv + got_at[q] + first(q, rank), second(q, rank)});
  }
  comm.exchange(sends, receives, nullptr);
  std::vector<unsigned char> in(got + 1);
  ASSERT_EQ(cudaMemcpy(in.data(), recv, got + 1, cudaMemcpyDeviceToHost), cudaSuccess);
  std::size_t wrong = 0;
  for (int q = 0; q < size; ++q)
    for (std::size_t k = 0; q != rank && k < first(q, rank) + second(q, rank); ++k)
      wrong +=
          in[got_at[q] + k] != static_cast<unsigned char>(16 * q + rank + (k >= first(q, rank)));
  EXPECT_EQ(wrong, 0u) << "of " << got << " bytes received";
  EXPECT_EQ(in[got], 0xee) << "a byte past the pieces was written";
  cudaFree(send);
  cudaFree(recv);
}

}  // namespace
