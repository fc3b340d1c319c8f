// apps/mcl's parameters: mcl's accepted ranges, its preset schemes and its automatic output name.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "mcl.hpp"
#include "mcl_detail.hpp"

namespace opsparse::mcl {

using detail::mcl_float;
using detail::num;

void validate(const params& p) {
  // The ranges mcl's option parser accepts (procinit.c); anything else is refused, not clamped.
  // -I and -c are used as floats (mcl_float), so the float they round to is what is checked:
  // -I 1e-50 passed as a double and inflated with 0.
  if (!(p.inflation > 0.0 && p.inflation <= 30.0))
    throw std::invalid_argument("-I (inflation) must be in (0, 30], not " + num(p.inflation));
  if (!(mcl_float(p.inflation) > 0.0))
    throw std::invalid_argument("-I " + num(p.inflation) +
                                " is 0 in mcl's float arithmetic: inflation must be in (0, 30]");
  if (p.loop_scale >= 0 && !std::isfinite(mcl_float(p.loop_scale)))
    throw std::invalid_argument("-c " + num(p.loop_scale) +
                                " is not finite in mcl's float arithmetic");
  if (p.pre_inflation >= 0 && !std::isfinite(p.pre_inflation))
    throw std::invalid_argument("-pi must be finite");
  if (p.prune < 0) throw std::invalid_argument("-P must be >= 0, not " + std::to_string(p.prune));
  if (p.select < 0) throw std::invalid_argument("-S must be >= 0, not " + std::to_string(p.select));
  if (p.recover < 0)
    throw std::invalid_argument("-R must be >= 0, not " + std::to_string(p.recover));
  if (p.pct < 0 || p.pct >= 100)
    throw std::invalid_argument("-pct must be in [0, 100), not " + std::to_string(p.pct));
  if (p.max_iter < 0)
    throw std::invalid_argument("--max-iter must be >= 0, not " + std::to_string(p.max_iter));
  if (p.threads < 0) throw std::invalid_argument("-te must be >= 0, not " + std::to_string(p.threads));
  if (p.block_products < 0)
    throw std::invalid_argument("--block-products must be >= 0, not " +
                                std::to_string(p.block_products));
  if (!(p.chaos_limit >= 0.0)) throw std::invalid_argument("the chaos limit must be >= 0");
}

void apply_scheme(params& p, int scheme) {
  // mcl's preset resource schemes (--show-schemes): P, S, R, pct.
  static const long long table[7][4] = {{3000, 400, 500, 90},   {4000, 500, 600, 90},
                                        {5000, 600, 700, 90},   {6000, 700, 800, 90},
                                        {7000, 800, 900, 90},   {10000, 1100, 1400, 90},
                                        {10000, 1200, 1600, 90}};
  if (scheme < 1 || scheme > 7)
    throw std::invalid_argument("-scheme must be 1..7, not " + std::to_string(scheme));
  const long long* s = table[scheme - 1];
  p.prune = s[0];
  p.select = s[1];
  p.recover = s[2];
  p.pct = static_cast<int>(s[3]);
}

std::string default_output_name(const std::string& input, const params& p,
                                int inflation_decimals) {
  // mcl's make_output_name: "I%.1f", then "pi%.1f" and "c%.1f" when used, dots removed.
  char buf[64];
  std::string suffix;
  std::snprintf(buf, sizeof buf, "I%.*f", inflation_decimals, p.inflation);
  suffix += buf;
  if (p.pre_inflation >= 0) {
    std::snprintf(buf, sizeof buf, "pi%.1f", p.pre_inflation);
    suffix += buf;
  }
  if (p.loop_scale >= 0) {
    std::snprintf(buf, sizeof buf, "c%.1f", p.loop_scale);
    suffix += buf;
  }
  suffix.erase(std::remove(suffix.begin(), suffix.end(), '.'), suffix.end());
  const std::size_t slash = input.find_last_of('/');
  const std::string base = slash == std::string::npos ? input : input.substr(slash + 1);
  return "out." + base + "." + suffix;
}

}  // namespace opsparse::mcl
