// main of the distributed tests: MPI around GoogleTest. Every rank runs every test (the layer's
// calls are collective); rank 0 prints as usual, the other ranks print only their failures, with
// their rank, and each rank's exit status counts (mpirun fails when one rank fails).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

namespace {

class failures_only : public ::testing::EmptyTestEventListener {
 public:
  explicit failures_only(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_,
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new failures_only(rank));
  }
  const int result = RUN_ALL_TESTS();
  MPI_Finalize();
  return result;
}
