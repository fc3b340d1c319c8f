#include <cuda_runtime.h>
#include <algorithm>
#include <dlfcn.h>

#include <cstdint>

#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"  // device_allocate / device_release
#include "opsparse/error.hpp"

namespace opsparse {

bool gpu_available(std::string* why) {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    if (why) {
      // The runtime is linked statically and loads the driver itself: without one it says
      // "driver version is insufficient", which reads like an old driver on a machine that
      // simply has no GPU.
      void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
      if (driver) ::dlclose(driver);
      if (!driver)
        *why = "no CUDA device found (no NVIDIA driver is installed: libcuda.so.1 is missing)";
      else if (err == cudaErrorNoDevice)
        *why = "no CUDA device found";
      else
        *why = std::string("no usable CUDA device: ") + cudaGetErrorString(err);
    }
    return false;
  }
  if (n == 0) {
    if (why) *why = "no CUDA device found";
    return false;
  }
  return true;
}

context::context(int device) {
  if (device < 0) OPSPARSE_CUDA_TRY(cudaGetDevice(&device));
  OPSPARSE_CUDA_TRY(cudaSetDevice(device));
  cudaDeviceProp p{};
  OPSPARSE_CUDA_TRY(cudaGetDeviceProperties(&p, device));
  info_.device = device;
  info_.name = p.name;
  info_.cc_major = p.major;
  info_.cc_minor = p.minor;
  info_.sm_count = p.multiProcessorCount;
  info_.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  info_.max_threads_per_block = p.maxThreadsPerBlock;
  info_.regs_per_sm = p.regsPerMultiprocessor;
  info_.smem_per_sm = p.sharedMemPerMultiprocessor;
  info_.smem_per_block_optin = p.sharedMemPerBlockOptin;
  info_.smem_reserved_per_block = p.reservedSharedMemPerBlock;
  info_.global_mem = p.totalGlobalMem;
  info_.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  memory_ = std::make_shared<detail::stream_pool>();
  OPSPARSE_CUDA_TRY(cudaStreamCreateWithFlags(&memory_->stream, cudaStreamNonBlocking));
  {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    OPSPARSE_CUDA_TRY(cudaMemPoolCreate(&memory_->pool, &props));
    // keep freed memory for the next product instead of unmapping it at each synchronisation
    std::uint64_t keep = ~std::uint64_t{0};  // cuuint64_t
    OPSPARSE_CUDA_TRY(
        cudaMemPoolSetAttribute(memory_->pool, cudaMemPoolAttrReleaseThreshold, &keep));
  }
  OPSPARSE_CUDA_TRY(cudaEventCreateWithFlags(&main_event_, cudaEventDisableTiming));
  for (int i = 0; i < max_bins; ++i) {
    OPSPARSE_CUDA_TRY(cudaStreamCreateWithFlags(&bins_[i], cudaStreamNonBlocking));
    OPSPARSE_CUDA_TRY(cudaEventCreateWithFlags(&bin_events_[i], cudaEventDisableTiming));
  }
  scratch_ = detail::device_allocate(scratch_bytes);
}

context::~context() {
  detail::device_release(scratch_);
  detail::device_release(workspace_, memory_);
  if (pinned_) OPSPARSE_CUDA_TRY_NO_THROW(cudaFreeHost(pinned_));
  for (int i = 0; i < max_bins; ++i) {
    if (bin_events_[i]) OPSPARSE_CUDA_TRY_NO_THROW(cudaEventDestroy(bin_events_[i]));
    if (bins_[i]) OPSPARSE_CUDA_TRY_NO_THROW(cudaStreamDestroy(bins_[i]));
  }
  if (main_event_) OPSPARSE_CUDA_TRY_NO_THROW(cudaEventDestroy(main_event_));
  // the main stream and the pool live on while blocks taken from them do (stream_pool)
  memory_.reset();
}

void context::release_cached_memory() {
  OPSPARSE_CUDA_TRY(cudaStreamSynchronize(memory_->stream));
  OPSPARSE_CUDA_TRY(cudaMemPoolTrimTo(memory_->pool, 0));
}

std::size_t context::pool_idle_bytes() const {
  std::uint64_t reserved = 0, used = 0;  // cuuint64_t
  OPSPARSE_CUDA_TRY(
      cudaMemPoolGetAttribute(memory_->pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  OPSPARSE_CUDA_TRY(cudaMemPoolGetAttribute(memory_->pool, cudaMemPoolAttrUsedMemCurrent, &used));
  return reserved > used ? static_cast<std::size_t>(reserved - used) : 0;
}

void context::fork() {
  OPSPARSE_CUDA_TRY(cudaEventRecord(main_event_, stream()));
  for (int i = 0; i < max_bins; ++i)
    OPSPARSE_CUDA_TRY(cudaStreamWaitEvent(bins_[i], main_event_, 0));
}

void context::join(int n) {
  for (int i = 0; i < n && i < max_bins; ++i) {
    OPSPARSE_CUDA_TRY(cudaEventRecord(bin_events_[i], bins_[i]));
    OPSPARSE_CUDA_TRY(cudaStreamWaitEvent(stream(), bin_events_[i], 0));
  }
}

void* context::pinned(std::size_t bytes) {
  if (bytes > pinned_bytes_) {
    void* p = nullptr;
    OPSPARSE_CUDA_TRY(cudaMallocHost(&p, bytes));
    if (pinned_) OPSPARSE_CUDA_TRY_NO_THROW(cudaFreeHost(pinned_));
    pinned_ = p;
    pinned_bytes_ = bytes;
  }
  return pinned_;
}

void* context::workspace(std::size_t bytes) {
  if (bytes > workspace_bytes_) {
    // half as much again: an op sized a little larger next time does not allocate again
    const std::size_t want = std::max<std::size_t>(bytes + bytes / 2, 4096);
    detail::device_release(workspace_, memory_);
    workspace_ = nullptr;
    workspace_bytes_ = 0;
    workspace_ = detail::device_allocate(want, memory_);
    workspace_bytes_ = want;
  }
  return workspace_;
}

void context::synchronize() const { OPSPARSE_CUDA_TRY(cudaStreamSynchronize(stream())); }

std::size_t context::note_memory() {
  std::size_t free_b = 0, total_b = 0;
  OPSPARSE_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  const std::size_t used = total_b - free_b;
  if (used > peak_used_) peak_used_ = used;
  return used;
}

}  // namespace opsparse
