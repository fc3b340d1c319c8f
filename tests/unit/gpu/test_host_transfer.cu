// Copies between host and device (detail::copy_to_device and copy_to_host, under
// device_csr::assign and download): small and large arrays, sizes that do not divide into the
// staging buffers or the host threads, pageable and pinned hosts, copies from several host
// threads at once in both directions; each compared with what was sent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "test_support.hpp"

namespace {

using namespace opsparse;

std::vector<std::uint32_t> pattern_of(std::size_t n, std::uint32_t seed) {
  std::vector<std::uint32_t> v(n);
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& e : v) e = x = x * 1664525u + 1013904223u;
  return v;
}

/// Copies `src` to a fresh device array at a byte offset and back.
std::vector<std::uint32_t> round_trip(const std::uint32_t* src, std::size_t n,
                                      cudaStream_t stream) {
  device_buffer<std::uint32_t> d;
  d.reserve(n + 1);
  detail::copy_to_device(d.data() + 1, src, n * sizeof(std::uint32_t), stream);
  std::vector<std::uint32_t> back(n);
  if (n > 0)
    OPSPARSE_CUDA_TRY(
        cudaMemcpy(back.data(), d.data() + 1, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  return back;
}

TEST(HostTransfer, PageableArraysOfEverySizeArriveWhole) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  cudaStream_t stream = nullptr;
  OPSPARSE_CUDA_TRY(cudaStreamCreate(&stream));
  // below the staging threshold, one chunk and a bit, several chunks with an odd tail
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000003},
                        (std::size_t{33} << 20) / 4 + 7, (std::size_t{100} << 20) / 4 + 5}) {
    const auto v = pattern_of(n, static_cast<std::uint32_t>(n));
    EXPECT_EQ(round_trip(v.data(), n, stream), v) << n << " values";
  }
  // a source that does not start on a word boundary of the staging buffers
  const auto v = pattern_of((std::size_t{40} << 20) / 4, 3);
  const std::size_t skip = 3;
  const auto got = round_trip(v.data() + skip, v.size() - skip, stream);
  EXPECT_TRUE(std::equal(got.begin(), got.end(), v.begin() + skip));
  OPSPARSE_CUDA_TRY(cudaStreamDestroy(stream));
}

/// Copies `src` to the device with cudaMemcpy and back with copy_to_host.
std::vector<std::uint32_t> down(const std::vector<std::uint32_t>& src, cudaStream_t stream) {
  device_buffer<std::uint32_t> d;
  d.reserve(src.size() + 1);
  if (!src.empty())
    OPSPARSE_CUDA_TRY(cudaMemcpy(d.data(), src.data(), src.size() * sizeof(std::uint32_t),
                                 cudaMemcpyHostToDevice));
  std::vector<std::uint32_t> back(src.size());
  detail::copy_to_host(back.data(), d.data(), src.size() * sizeof(std::uint32_t), stream);
  return back;
}

TEST(HostTransfer, DownloadsOfEverySizeArriveWhole) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  cudaStream_t stream = nullptr;
  OPSPARSE_CUDA_TRY(cudaStreamCreate(&stream));
  // below the threshold, fewer chunks than buffers, more chunks than buffers with odd tails
  for (std::size_t n : {std::size_t{0}, std::size_t{7}, (std::size_t{33} << 20) / 4 + 3,
                        (std::size_t{40} << 20) / 4 + 1, (std::size_t{130} << 20) / 4 + 9}) {
    const auto v = pattern_of(n, static_cast<std::uint32_t>(n) + 1);
    EXPECT_EQ(down(v, stream), v) << n << " values";
  }
  // into pinned memory (copied directly)
  const auto v = pattern_of((std::size_t{36} << 20) / 4, 4);
  device_buffer<std::uint32_t> d;
  d.reserve(v.size());
  OPSPARSE_CUDA_TRY(
      cudaMemcpy(d.data(), v.data(), v.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  std::uint32_t* pinned = nullptr;
  OPSPARSE_CUDA_TRY(cudaMallocHost(&pinned, v.size() * sizeof(std::uint32_t)));
  detail::copy_to_host(pinned, d.data(), v.size() * sizeof(std::uint32_t), stream);
  EXPECT_TRUE(std::equal(v.begin(), v.end(), pinned));
  OPSPARSE_CUDA_TRY(cudaFreeHost(pinned));
  OPSPARSE_CUDA_TRY(cudaStreamDestroy(stream));
}

TEST(HostTransfer, PinnedSourcesAndConcurrentCopies) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  const std::size_t n = (std::size_t{48} << 20) / 4 + 11;
  const auto v = pattern_of(n, 9);
  std::uint32_t* pinned = nullptr;
  OPSPARSE_CUDA_TRY(cudaMallocHost(&pinned, n * sizeof(std::uint32_t)));
  std::copy(v.begin(), v.end(), pinned);
  EXPECT_EQ(round_trip(pinned, n, nullptr), v);
  OPSPARSE_CUDA_TRY(cudaFreeHost(pinned));
  // four threads at once share the staging buffers: each copy must still arrive whole
  std::vector<std::vector<std::uint32_t>> sources, results(4);
  for (int t = 0; t < 4; ++t) sources.push_back(pattern_of(n - t, 20 + t));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      cudaStream_t s = nullptr;
      OPSPARSE_CUDA_TRY(cudaStreamCreate(&s));
      // even threads upload, odd ones download
      results[t] =
          t % 2 == 0 ? round_trip(sources[t].data(), sources[t].size(), s) : down(sources[t], s);
      OPSPARSE_CUDA_TRY(cudaStreamDestroy(s));
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(results[t], sources[t]) << "thread " << t;
}

TEST(HostTransfer, DeviceCsrAssignUploadsLargeMatrices) {
  OPSPARSE_SKIP_WITHOUT_GPU();
  host_csr<double> a = test::random_csr<double>(400000, 400000, 20, 5);  // ~100 MB of entries
  device_csr<double> d;
  d.assign(a);
  const host_csr<double> back = d.download();
  EXPECT_EQ(back.rpt, a.rpt);
  EXPECT_EQ(back.col, a.col);
  EXPECT_EQ(back.val, a.val);
}

}  // namespace
