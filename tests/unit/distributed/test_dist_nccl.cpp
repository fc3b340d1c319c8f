// The NCCL layer's decisions, without a GPU (opsparse/distributed/nccl.hpp): NCCL loads or says
// why (and whether it has point-to-point transfers), and nccl_usable gives one answer on every
// rank: no when OPSPARSE_NCCL=0 or when two ranks of a node name one device, yes with distinct
// devices where NCCL loads. The transfers themselves need GPUs (test_dist_gpu.cpp).
#include <gtest/gtest.h>
#include <mpi.h>

#include <optional>
#include <string>

#include "dist_support.hpp"
#include "opsparse/distributed/nccl.hpp"
#include "test_support.hpp"

namespace {

namespace dist = opsparse::dist;
namespace test = opsparse::test;

/// The same text on every rank.
bool same_everywhere(const std::string& text) {
  std::string root = text;
  unsigned long long size = root.size();
  MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  root.resize(static_cast<std::size_t>(size));
  MPI_Bcast(root.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
  return test::all_ranks(root == text);
}

TEST(DistNccl, LoadsOrSaysWhy) {
  std::string why;
  const int version = dist::nccl_version(&why);
  if (version == 0) {
    EXPECT_NE(why.find("NCCL could not be loaded"), std::string::npos) << why;
  } else {
    EXPECT_GE(version, 20000) << "an NCCL 2 version code (major * 10000 + minor * 100 + patch)";
    EXPECT_TRUE(why.empty()) << why;
    // ncclSend and ncclRecv came with 2.7
    EXPECT_EQ(dist::nccl_comm::has_point_to_point(), version >= 20700) << version;
  }
}

TEST(DistNccl, UsableIsOneAnswerOnEveryRank) {
  const int rank = test::world_rank(), size = test::world_size();
  const bool loads = dist::nccl_version() > 0;
  {
    const test::env_scope env("OPSPARSE_NCCL", std::string("0"));
    std::string why;
    EXPECT_FALSE(dist::nccl_usable(MPI_COMM_WORLD, rank, &why));
    EXPECT_EQ(why, "rank 0: OPSPARSE_NCCL=0");
  }
  const test::env_scope env("OPSPARSE_NCCL", std::nullopt);
  // Distinct devices: usable wherever NCCL loads.
  std::string why;
  const bool distinct = dist::nccl_usable(MPI_COMM_WORLD, rank, &why);
  EXPECT_EQ(distinct, test::all_ranks(loads)) << why;
  EXPECT_TRUE(test::same_on_every_rank(distinct ? 1 : 0)) << "ranks disagree";
  EXPECT_TRUE(same_everywhere(why)) << why;
  // Every rank on device 0 (ctest starts the ranks on one machine): ranks share a GPU.
  why.clear();
  const bool shared = dist::nccl_usable(MPI_COMM_WORLD, 0, &why);
  if (size > 1) {
    EXPECT_FALSE(shared);
    if (test::all_ranks(loads))
      EXPECT_NE(why.find("ranks share a GPU on a node"), std::string::npos) << why;
  } else {
    EXPECT_EQ(shared, loads) << why;
  }
  EXPECT_TRUE(same_everywhere(why)) << why;
}

}  // namespace
