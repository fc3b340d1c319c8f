#pragma once
// The CPU backend's inner loop for dense rows (mcl_cpu.cpp): acc[col[k]] += a * val[k] over one
// row of X, eight products at a time with AVX-512 gathers and scatters where the processor has
// them (checked at run time: the build targets plain x86-64).
//
// The columns of one row of X are distinct, so a gather, add and scatter of eight of them is the
// scalar loop's result. Only float values come here: a float times a float is exact in double,
// so a fused multiply-add (which the compiler may form from the multiply and the add) rounds
// once, as the scalar multiply then add does, and every sum stays bit for bit the same.
#include <cstdint>

#include "opsparse/types.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define OPSPARSE_MCL_SCATTER 1
#endif

namespace opsparse::mcl::detail {

#ifdef OPSPARSE_MCL_SCATTER
/// Whether scatter_add can run here.
inline bool scatter_add_supported() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"); }

/// acc[col[k]] += double(a) * double(val[k]) for k in [0, n); col's n values are distinct.
__attribute__((target("avx512f,avx512vl"))) inline void scatter_add(double* acc, const index_t* col,
                                                          const float* val, offset_t n, float a) {
  static_assert(sizeof(index_t) == 4, "the gathers take 32-bit column indices");
  const __m512d va = _mm512_set1_pd(static_cast<double>(a));
  offset_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m256i j = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col + k));
    // (The masked forms with all lanes on: GCC 12's unmasked ones read an undefined register,
    // which -Wmaybe-uninitialized reports.)
    const __m512d b = _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(val + k));
    const __m512d g = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), 0xFF, j, acc, 8);
    const __m512d s = _mm512_add_pd(g, _mm512_mul_pd(va, b));
    _mm512_i32scatter_pd(acc, j, s, 8);
  }
  if (k < n) {  // the last 1 to 7 products under a mask (masked lanes read and write nothing)
    const __mmask8 m = static_cast<__mmask8>((1u << (n - k)) - 1);
    const __m256i j = _mm256_maskz_loadu_epi32(m, col + k);
    const __m512d b = _mm512_maskz_cvtps_pd(m, _mm256_maskz_loadu_ps(m, val + k));
    const __m512d g = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, j, acc, 8);
    _mm512_mask_i32scatter_pd(acc, m, j, _mm512_add_pd(g, _mm512_mul_pd(va, b)), 8);
  }
}
#else
inline bool scatter_add_supported() { return false; }
inline void scatter_add(double*, const index_t*, const float*, offset_t, float) {}
#endif

}  // namespace opsparse::mcl::detail
