// opsparse-mcl: Markov clustering compatible with Debian's `mcl` 22-282 (same defaults, same
// clusters, same -o format), with the expansion on the GPU (OpSparse) or the CPU. The command
// line is cli.hpp's.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#if defined(__GLIBC__)  // (known once a standard header is included)
#include <malloc.h>
#endif

#include "cli.hpp"

namespace {

/// The host stages allocate and free arrays of hundreds of MB one after another (the reader's
/// chunks and rows, the adjacency, its mirror, the start matrix, the limit), and so do the CPU
/// backend's iterations. glibc maps every block over 32 MB afresh and unmaps it when it is
/// freed, so the kernel zeroed each array page by page on first touch: 40% of the CPU time of
/// reading and preparing 4M nodes / 20M edges went to page faults (perf: clear_page_erms,
/// exc_page_fault). Served from the heap, which keeps what is freed (up to 2 GiB at its top), a
/// freed array's pages go to the next one. Measured with 2 threads: the 4M start matrix
/// 1.3-1.4 s -> 0.8-0.85 s, the 200k network's CPU iterations 52-72 s -> 34-38 s, for a peak
/// resident size 10-13% higher (fragments of the heap are not returned).
/// The user's own malloc settings (GLIBC_TUNABLES, MALLOC_*_ variables) are left alone.
void reuse_freed_memory() noexcept {
#if defined(__GLIBC__)
  for (const char* v : {"GLIBC_TUNABLES", "MALLOC_MMAP_MAX_", "MALLOC_MMAP_THRESHOLD_",
                        "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_"})
    if (std::getenv(v)) return;
  (void)mallopt(M_MMAP_MAX, 0);
  (void)mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
}

}  // namespace

int main(int argc, char** argv) {
  reuse_freed_memory();
  const int rc = opsparse::mcl::run_cli(argc, argv, std::cout, std::cerr);
  // Everything is written and closed by now. Leave without the static destructors: the CUDA
  // runtime's would free the device memory and destroy the context one call at a time, which
  // the driver does anyway when the process ends.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(rc);
}
