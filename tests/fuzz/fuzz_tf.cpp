// libFuzzer target for mcl's value transform language (apps/mcl's
// value_transform, -tf and -abc-tf). Nothing but std::invalid_argument, with a
// message, may escape parse(); a transform parsed applies to a few values (0,
// tiny, ordinary, huge, negative, infinite, NaN) without a crash, and each
// result is a value as opsparse-mcl holds mcl's float cells: 0 (removed), a
// float's value (infinity and NaN included), or a nonzero double that is 0 as a
// float. Applying it again gives the same result, and so does the transform
// parsed again.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "fuzz_support.hpp"
#include "mcl_compat.hpp"

using opsparse::mcl::value_transform;
using opsparse_fuzz::fail;

namespace {

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

/// A value as value_transform gives it (see float_entry in mcl_compat.hpp).
bool is_entry(double r) {
  if (r == 0 || std::isnan(r) || std::isinf(r)) return true;
  if (std::fabs(r) > std::numeric_limits<float>::max()) return false;
  const float f = static_cast<float>(r);
  return f == 0 || static_cast<double>(f) == r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  value_transform t;
  try {
    t = value_transform::parse(spec);
  } catch (const std::invalid_argument& e) {
    if (std::strlen(e.what()) == 0) fail("parse threw invalid_argument without a message");
    return 0;
  }
  // Anything else thrown escapes: libFuzzer reports it as a crash.
  const value_transform again = value_transform::parse(spec);
  const double inf = std::numeric_limits<double>::infinity();
  const double values[] = {0.0,    1e-300, 1e-50, 1e-40, 0.25,   0.5, 1.0,  2.0,         1e30,
                           3.4e38, 1e300,  -1.0,  -0.5,  -1e300, inf, -inf, std::nan("")};
  for (const double v : values) {
    const double r = t(v);
    if (!is_entry(r))
      fail("'" + spec + "' gives " + std::to_string(r) + " for " + std::to_string(v));
    if (!same(r, again(v))) fail("'" + spec + "' parsed twice transforms differently");
    if (!same(r, t(v)))
      fail("'" + spec + "' transforms " + std::to_string(v) + " differently twice");
  }
  value_transform twice = t;
  twice.append(t);
  for (const double v : values) (void)twice(v);
  return 0;
}
