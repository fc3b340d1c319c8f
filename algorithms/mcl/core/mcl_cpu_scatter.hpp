#pragma once
// The CPU backend's inner loop for dense rows (mcl_cpu.cpp): acc[col[k]] += a * val[k] over one
// row of X, eight products at a time with AVX-512 gathers and scatters where the processor has
// them (checked at run time: the build targets plain x86-64), and the listing of the summed row
// (take_sums) eight columns at a time with compress instructions.
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
inline bool scatter_add_supported() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
}

/// acc[col[k]] += double(a) * double(val[k]) for k in [0, n); col's n values are distinct.
__attribute__((target("avx512f,avx512vl"))) inline void scatter_add(double* acc, const index_t* col,
                                                                    const float* val, offset_t n,
                                                                    float a) {
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

/// Lists the row summed in acc[0, cols): each j with acc[j] != 0 appended to out, (float)acc[j]
/// to vals, every acc[j] reset to 0; returns the count. out and vals need room for cols + 8
/// (each step stores eight lanes, of which the first popcount are kept).
__attribute__((target("avx512f,avx512vl,popcnt"))) inline offset_t take_sums(double* acc,
                                                                             index_t cols,
                                                                             index_t* out,
                                                                             float* vals) {
  offset_t n = 0;
  __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  index_t j = 0;
  for (; j + 8 <= cols; j += 8) {
    const __m512d v = _mm512_loadu_pd(acc + j);
    const __mmask8 m = _mm512_cmpneq_pd_mask(v, _mm512_setzero_pd());
    _mm512_storeu_pd(acc + j, _mm512_setzero_pd());
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + n), _mm256_maskz_compress_epi32(m, idx));
    _mm256_storeu_ps(vals + n, _mm256_maskz_compress_ps(m, _mm512_maskz_cvtpd_ps(0xFF, v)));
    n += __builtin_popcount(m);
    idx = _mm256_add_epi32(idx, _mm256_set1_epi32(8));
  }
  for (; j < cols; ++j) {
    const double v = acc[j];
    out[n] = j;
    vals[n] = static_cast<float>(v);
    acc[j] = 0.0;
    n += v != 0.0;
  }
  return n;
}
#else
inline bool scatter_add_supported() { return false; }
inline void scatter_add(double*, const index_t*, const float*, offset_t, float) {}
inline offset_t take_sums(double*, index_t, index_t*, float*) { return 0; }
#endif

}  // namespace opsparse::mcl::detail
