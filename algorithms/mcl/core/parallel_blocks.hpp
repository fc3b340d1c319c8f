#pragma once
// OpenMP building blocks of apps/mcl's interpretation (mcl_interpret.cpp): parallel loops over
// blocks that rethrow the first exception, a parallel sort, counters and prefix sums.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <vector>

namespace opsparse::mcl::detail {

/// Runs f(b) for every b in [0, blocks) on `threads` OpenMP threads. Only allocations can throw
/// here; the exception of the lowest block that threw is rethrown.
template <class F>
void for_blocks(std::size_t blocks, int threads, F&& f) {
  std::exception_ptr error;
  std::size_t error_block = blocks;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && blocks > 1)
  for (long long b = 0; b < static_cast<long long>(blocks); ++b) {
    try {
      f(static_cast<std::size_t>(b));
    } catch (...) {
#pragma omp critical(opsparse_mcl_for_blocks)
      if (static_cast<std::size_t>(b) < error_block) {
        error_block = static_cast<std::size_t>(b);
        error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

/// std::sort on `threads` threads: slices sorted in parallel, then merged pairwise. The same
/// order as std::sort when `less` is a strict total order (no two elements equivalent), which
/// every use below has.
template <class It, class Less>
void parallel_sort(It first, It last, Less less, int threads) {
  const std::size_t n = static_cast<std::size_t>(last - first);
  if (threads <= 1 || n < (std::size_t(1) << 14)) {
    std::sort(first, last, less);
    return;
  }
  std::size_t parts = 1;
  while (parts < static_cast<std::size_t>(threads) && parts < 64) parts *= 2;
  std::vector<std::size_t> bound(parts + 1);
  for (std::size_t i = 0; i <= parts; ++i) bound[i] = n * i / parts;
  for_blocks(parts, threads,
             [&](std::size_t i) { std::sort(first + bound[i], first + bound[i + 1], less); });
  for (std::size_t width = 1; width < parts; width *= 2)
    for_blocks(parts / (2 * width), threads, [&](std::size_t j) {
      const std::size_t i = j * 2 * width;
      std::inplace_merge(first + bound[i], first + bound[i + width], first + bound[i + 2 * width],
                         less);
    });
}

/// ++x, atomically when other threads may add to x too (an atomic add costs one thread about
/// 20 cycles: 30 ms over 4 million nodes).
template <class V>
void increment(V& x, bool concurrent) {
  if (concurrent) {
#pragma omp atomic
    ++x;
  } else {
    ++x;
  }
}

/// In-place exclusive prefix sum of counts[1..n] (counts[0] == 0): counts[i] becomes the sum
/// of the counts before i. Serial: a few milliseconds at 4 million nodes.
template <class V>
void prefix_sum(std::vector<V>& counts) {
  for (std::size_t i = 1; i < counts.size(); ++i) counts[i] += counts[i - 1];
}

}  // namespace opsparse::mcl::detail
