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
  if (p.initial_loop < 0)
    throw std::invalid_argument("-l must be >= 0, not " + std::to_string(p.initial_loop));
  if (!(p.initial_inflation > 0.0 && p.initial_inflation <= 30.0) ||
      !(mcl_float(p.initial_inflation) > 0.0))
    throw std::invalid_argument("-i (initial inflation) must be in (0, 30], not " +
                                num(p.initial_inflation));
  if (p.threads < 0)
    throw std::invalid_argument("-te must be >= 0, not " + std::to_string(p.threads));
  if (p.block_products < 0)
    throw std::invalid_argument("--block-products must be >= 0, not " +
                                std::to_string(p.block_products));
  if (!(p.chaos_limit >= 0.0)) throw std::invalid_argument("the chaos limit must be >= 0");
}

void apply_scheme(params& p, int scheme) {
  // mcl's preset resource schemes (--show-schemes): P, S, R, pct.
  static const long long table[7][4] = {
      {3000, 400, 500, 90}, {4000, 500, 600, 90},    {5000, 600, 700, 90},   {6000, 700, 800, 90},
      {7000, 800, 900, 90}, {10000, 1100, 1400, 90}, {10000, 1200, 1600, 90}};
  if (scheme < 1 || scheme > 7)
    throw std::invalid_argument("-scheme must be 1..7, not " + std::to_string(scheme));
  const long long* s = table[scheme - 1];
  p.prune = s[0];
  p.select = s[1];
  p.recover = s[2];
  p.pct = static_cast<int>(s[3]);
}

void apply_resource(params& p, long long n) {
  if (n < 0) throw std::invalid_argument("-resource must be >= 0, not " + std::to_string(n));
  p.select = n;
  p.recover = n;
  p.prune = 10 * n;
}

std::string settings_table(const params& p, const std::string& warn_pct,
                           const std::string& warn_factor) {
  std::string out =
      "[mcl] cell size: 8\n[mcl] cell contents: int and float\n"
      "[mcl] largest index allowed: 2147483647\n[mcl] smallest index allowed: 0\n";
  char line[160];
  auto row = [&](const char* label, const std::string& value, const char* option) {
    std::snprintf(line, sizeof line, "%-40s%8s        %s\n", label, value.c_str(), option);
    out += line;
  };
  auto real = [&](const char* label, double value, const char* option) {
    std::snprintf(line, sizeof line, "%-40s%10.1f      %s\n", label, value, option);
    out += line;
  };
  row("Prune number", std::to_string(p.prune), "[-P n]");
  row("Selection number", std::to_string(p.select), "[-S n]");
  row("Recovery number", std::to_string(p.recover), "[-R n]");
  row("Recovery percentage", std::to_string(p.pct), "[-pct n]");
  row("warn-pct", warn_pct.empty() ? "10" : warn_pct, "[-warn-pct k]");
  row("warn-factor", warn_factor.empty() ? "1000" : warn_factor, "[-warn-factor k]");
  row("dumpstem", "", "[-dump-stem str]");
  row("Initial loop length", std::to_string(p.initial_loop), "[-l n]");
  row("Main loop length", std::to_string(p.max_iter), "[-L n]");
  real("Initial inflation", mcl_float(p.initial_inflation), "[-i f]");
  real("Main inflation", mcl_float(p.inflation), "[-I f]");
  return out;
}

std::string output_suffix(const params& p, int inflation_decimals) {
  // mcl's make_output_name: "I%.1f", then "l%di%.1f" with an initial loop, "pi%.1f" and "c%.1f"
  // when used, dots removed.
  char buf[64];
  std::string suffix;
  std::snprintf(buf, sizeof buf, "I%.*f", inflation_decimals, p.inflation);
  suffix += buf;
  if (p.initial_loop) {
    // (mcl's initial inflation is a float)
    std::snprintf(buf, sizeof buf, "l%di%.1f", p.initial_loop,
                  static_cast<double>(static_cast<float>(p.initial_inflation)));
    suffix += buf;
  }
  if (p.pre_inflation >= 0) {
    std::snprintf(buf, sizeof buf, "pi%.1f", p.pre_inflation);
    suffix += buf;
  }
  if (p.loop_scale >= 0) {
    std::snprintf(buf, sizeof buf, "c%.1f", p.loop_scale);
    suffix += buf;
  }
  suffix.erase(std::remove(suffix.begin(), suffix.end(), '.'), suffix.end());
  return suffix;
}

std::string default_output_name(const std::string& input, const params& p, int inflation_decimals) {
  const std::size_t slash = input.find_last_of('/');
  const std::string base = slash == std::string::npos ? input : input.substr(slash + 1);
  return "out." + base + "." + output_suffix(p, inflation_decimals);
}

}  // namespace opsparse::mcl
