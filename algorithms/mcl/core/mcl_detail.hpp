#pragma once
// What the host parts of apps/mcl share (internal): mcl's float rounding of -I and -c, and how
// numbers appear in messages.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace opsparse::mcl::detail {

/// mcl reads -I and -c into floats (-I 1.4 is 1.39999998 there); using the same values keeps
/// the arithmetic, and so the clusters, identical.
inline double mcl_float(double x) { return static_cast<double>(static_cast<float>(x)); }

/// `v` rounded to float as C rounds it, without undefined behaviour past float's range: to
/// +-infinity from halfway between FLT_MAX and 2^128 on (round to even), FLT_MAX below; NaN stays
/// NaN. mcl's cells are floats: 1e39 is infinity there.
inline float to_float(double v) {
  constexpr float flt_max = std::numeric_limits<float>::max();
  static const double overflow = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
  if (std::fabs(v) >= overflow)
    return v > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
  if (std::fabs(v) > flt_max) return v > 0 ? flt_max : -flt_max;
  return static_cast<float>(v);
}

/// The iteration after which mcl starts raising the inflation of a process that has not
/// converged (a directed 3-cycle at -I 2 oscillates for ever otherwise).
inline constexpr int inflation_bump_after = 40;

/// mcl's inflation in iteration `it` (1-based): -i in the initial loop (-l iterations), then -I,
/// as mcl reads them (floats), raised by 0.1% after every iteration from the 40th (counted over
/// both loops) that did not converge, as mcl 22-282 does ("Inflation bumped to 2.0020").
inline double inflation_at(double initial, int initial_loop, double inflation, int it) {
  if (it <= initial_loop) return mcl_float(initial);
  double x = mcl_float(inflation);
  for (int k = std::max(inflation_bump_after, initial_loop); k < it; ++k) x *= 1.001;
  return x;
}

/// x as "%g" writes it, for messages.
inline std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace opsparse::mcl::detail
