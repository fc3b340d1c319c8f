// opsparse-transfer-bench: how fast a pageable host array reaches the device and comes back, by
// the library's copies (detail::copy_to_device and copy_to_host, under device_csr::assign and
// download) against one cudaMemcpy with the same pageable memory and against the link's rate
// from pinned memory (the bound). Medians of 5 after a warm-up, wall time to the end of the
// copy. Usage: opsparse-transfer-bench [MiB=512]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "opsparse/device_csr.hpp"
#include "opsparse/error.hpp"

namespace {

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median_seconds(const std::function<void()>& copy) {
  copy();  // warm-up: staging buffers, the driver's own
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    const double start = seconds();
    copy();
    t.push_back(seconds() - start);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void report(const char* what, std::size_t bytes, double s) {
  std::printf("%-44s %9.2f ms %8.1f GB/s\n", what, s * 1e3, static_cast<double>(bytes) / s / 1e9);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace opsparse;
  const long mib = argc > 1 ? std::atol(argv[1]) : 512;
  if (mib <= 0) {
    std::fprintf(stderr, "usage: opsparse-transfer-bench [MiB > 0]\n");
    return 2;
  }
  const std::size_t bytes = static_cast<std::size_t>(mib) << 20;
  try {
    std::vector<unsigned char> host(bytes);
    for (std::size_t i = 0; i < bytes; ++i) host[i] = static_cast<unsigned char>(i * 131);
    device_buffer<unsigned char> dev;
    dev.reserve(bytes);
    cudaStream_t stream = nullptr;
    OPSPARSE_CUDA_TRY(cudaStreamCreate(&stream));
    std::printf("%zu MiB between pageable host memory and the device\n", bytes >> 20);

    report("cudaMemcpyAsync from pageable memory", bytes, median_seconds([&] {
             OPSPARSE_CUDA_TRY(
                 cudaMemcpyAsync(dev.data(), host.data(), bytes, cudaMemcpyHostToDevice, stream));
             OPSPARSE_CUDA_TRY(cudaStreamSynchronize(stream));
           }));
    report("detail::copy_to_device (staged)", bytes,
           median_seconds([&] { detail::copy_to_device(dev.data(), host.data(), bytes, stream); }));
    // the check: what arrived is what was sent
    std::vector<unsigned char> back(bytes);
    OPSPARSE_CUDA_TRY(cudaMemcpy(back.data(), dev.data(), bytes, cudaMemcpyDeviceToHost));
    if (std::memcmp(back.data(), host.data(), bytes) != 0) {
      std::fprintf(stderr, "opsparse-transfer-bench: the staged copy differs from the source\n");
      return 1;
    }
    std::vector<unsigned char> out(bytes);
    report("cudaMemcpyAsync to pageable memory", bytes, median_seconds([&] {
             OPSPARSE_CUDA_TRY(
                 cudaMemcpyAsync(out.data(), dev.data(), bytes, cudaMemcpyDeviceToHost, stream));
             OPSPARSE_CUDA_TRY(cudaStreamSynchronize(stream));
           }));
    report("detail::copy_to_host (staged)", bytes,
           median_seconds([&] { detail::copy_to_host(out.data(), dev.data(), bytes, stream); }));
    if (std::memcmp(out.data(), host.data(), bytes) != 0) {
      std::fprintf(stderr, "opsparse-transfer-bench: the staged download differs\n");
      return 1;
    }
    unsigned char* pinned = nullptr;
    const double t0 = seconds();
    OPSPARSE_CUDA_TRY(cudaMallocHost(&pinned, bytes));
    const double t_alloc = seconds() - t0;
    std::memcpy(pinned, host.data(), bytes);
    report("bound: cudaMemcpyAsync from pinned memory", bytes, median_seconds([&] {
             OPSPARSE_CUDA_TRY(
                 cudaMemcpyAsync(dev.data(), pinned, bytes, cudaMemcpyHostToDevice, stream));
             OPSPARSE_CUDA_TRY(cudaStreamSynchronize(stream));
           }));
    std::printf("%-44s %9.2f ms (what pinning the array itself would cost)\n",
                "cudaMallocHost of the same size", t_alloc * 1e3);
    OPSPARSE_CUDA_TRY(cudaFreeHost(pinned));
    OPSPARSE_CUDA_TRY(cudaStreamDestroy(stream));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opsparse-transfer-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
