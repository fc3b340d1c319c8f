#pragma once
// What the host parts of apps/mcl share (internal): mcl's float rounding of -I and -c, and how
// numbers appear in messages.
#include <cstdio>
#include <string>

namespace opsparse::mcl::detail {

/// mcl reads -I and -c into floats (-I 1.4 is 1.39999998 there); using the same values keeps
/// the arithmetic, and so the clusters, identical.
inline double mcl_float(double x) { return static_cast<double>(static_cast<float>(x)); }

/// x as "%g" writes it, for messages.
inline std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace opsparse::mcl::detail
