// A property test against Debian's mcl 22-282: random small graphs (10-60 nodes, up to a few
// hundred edges, weights drawn log-uniformly from 1e-50 to 1e300, some 0, some missing) and
// random options (-I 1.2-5, -pi, -tf steps, -P/-S/-R, -c) are clustered by both programs, whose
// output files must be equal byte for byte. The cases are seeded: OPSPARSE_MCL_PROPERTY_SEED
// picks another series and OPSPARSE_MCL_PROPERTY_CASES sets how many (200 by default: about two
// seconds on two cores; OPSPARSE_MCL_PROPERTY_MAX_FAILURES, 5, how many failures end the run);
// a failure names the case's files, kept in the scratch folder, and its command line.
// Deliberate differences (apps/mcl/README.md) are left out of the options drawn, each with its
// reason below.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mcl_test_util.hpp"
#include "test_support.hpp"

#ifdef OPSPARSE_MCL_EXE
namespace {

using namespace opsparse::mcl::test;

struct property_tag {
  static constexpr const char* name = "property";
};
using MclProperty = files_suite<property_tag>;

long env_number(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

/// A number as the command line and the file carry it (%.6g: mcl reads what we write).
std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

/// One random case: the ABC text and the options.
struct test_case {
  std::string abc;
  std::string options;
};

test_case draw(std::mt19937_64& rng) {
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  auto integer = [&](long lo, long hi) { return std::uniform_int_distribution<long>(lo, hi)(rng); };
  auto chance = [&](double p) { return uniform(0, 1) < p; };
  test_case c;
  // The graph: groups of nodes with more edges inside than across, so that there is something to
  // find, and weights over mcl's whole range and beyond it.
  const long n = integer(10, 60);
  const long groups = integer(1, 6);
  const long edges = integer(n, std::min<long>(n * (n - 1) / 2, 400));
  std::ostringstream abc;
  for (long e = 0; e < edges; ++e) {
    const long a = integer(0, n - 1);
    long b = integer(0, n - 1);
    if (chance(0.7)) b = (a % groups) + groups * integer(0, (n - 1 - a % groups) / groups);
    abc << "n" << a << "\tn" << b;
    if (chance(0.05)) {
      abc << "\t0";
    } else if (!chance(0.1)) {
      abc << "\t" << num(std::pow(10.0, uniform(-50, 300)));
    }
    abc << "\n";
  }
  c.abc = abc.str();

  std::ostringstream o;
  o << "-I " << num(uniform(1.2, 5));
  if (chance(0.3)) o << " -pi " << num(uniform(0.5, 4));
  if (chance(0.15)) o << " -c " << num(uniform(0, 3));
  if (chance(0.5)) {
    // Value steps with arguments that keep (or take) the weights near float's range. Left out:
    // rand(), which mcl draws from its own generator, and neglog/log below 1 before a step
    // that makes negative weights fractional powers (NaN values in a column with more than R
    // entries: mcl's heap orders them by chance; README, "Negative weights").
    static const char* steps[] = {"gq",  "gt",  "lq",  "lt",  "ceil",  "floor", "mul",
                                  "add", "pow", "log", "exp", "scale", "abs",   "acos"};
    const long k = integer(1, 3);
    std::string spec;
    for (long s = 0; s < k; ++s) {
      const std::string name = steps[integer(0, sizeof steps / sizeof steps[0] - 1)];
      std::string arg;
      if (name == "gq" || name == "gt" || name == "lq" || name == "lt" || name == "ceil" ||
          name == "floor")
        arg = num(std::pow(10.0, uniform(-5, 40)));
      else if (name == "mul" || name == "scale")
        arg = num(std::pow(10.0, uniform(-40, 40)));
      else if (name == "add")
        arg = num(uniform(0, 10));
      else if (name == "pow")
        arg = num(uniform(0.1, 3));
      else if (name == "log")
        arg = chance(0.2) ? "" : num(uniform(1.5, 20));
      else if (name == "exp")
        arg = chance(0.5) ? "" : num(uniform(1.01, 3));
      if (!spec.empty()) spec += ",";
      spec += name + "(" + arg + ")";
    }
    // The last step keeps positive weights only: negative ones go through mcl's pruning of
    // NaN values, whose order is its heap's chance (see above).
    o << " -tf '" << spec << ",gt(0)'";
  }
  if (chance(0.3)) o << " -P " << integer(10, 10000);
  if (chance(0.3)) {
    const long s = integer(1, 60);
    o << " -S " << s << " -R " << integer(s, 80);
  }
  c.options = o.str();
  return c;
}

TEST_F(MclProperty, RandomGraphsAndOptionsGiveMclsOutput) {
  REQUIRE_MCL_TOOLS();
  const long cases = env_number("OPSPARSE_MCL_PROPERTY_CASES", 200);
  const long seed = env_number("OPSPARSE_MCL_PROPERTY_SEED", 20240611);
  const std::string ours =
      "'" + opsparse::test::program_path("opsparse-mcl", OPSPARSE_MCL_EXE) + "'";
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
  int failures = 0, excluded = 0;
  for (long k = 0; k < cases; ++k) {
    const test_case c = draw(rng);
    const std::string stem = "case" + std::to_string(k);
    const fs::path abc = file(stem + ".abc", c.abc);
    const std::string args = q(abc) + " --abc " + c.options;
    const fs::path want = dir_ / (stem + ".mcl"), got = dir_ / (stem + ".ours");
    ASSERT_EQ(sh("mcl " + args + " -o " + q(want) + " > /dev/null 2>&1"), 0) << "mcl " << args;
    ASSERT_EQ(sh(ours + " " + args + " -o " + q(got) + " > " + q(dir_ / (stem + ".err")) + " 2>&1"),
              0)
        << "opsparse-mcl " << args << "\n"
        << read_text(dir_ / (stem + ".err"));
    const std::string a = read_text(want), b = read_text(got);
    // Deliberate (apps/mcl/README.md, "Not reproduced"): a start matrix with NaN values (weights
    // past float's range, infinite after -tf, -pi or -c) whose columns mcl's -S/-R selection
    // ranks: mcl's heap (mclvKBar) orders NaN by the order it meets them.
    const bool nan_ranked =
        read_text(dir_ / (stem + ".err")).find("NaN values") != std::string::npos &&
        (c.options.find("-S ") != std::string::npos || c.options.find("-R ") != std::string::npos);
    if (a != b && nan_ranked) {
      ++excluded;
    } else if (a != b) {
      ++failures;
      ADD_FAILURE() << "case " << k << " (seed " << seed << "): mcl " << args
                    << "\n  mcl's output: " << want.string() << "\n  ours: " << got.string();
      if (failures >= env_number("OPSPARSE_MCL_PROPERTY_MAX_FAILURES", 5)) break;
    } else {
      std::error_code ec;
      for (const char* ext : {".abc", ".mcl", ".ours", ".err"}) fs::remove(dir_ / (stem + ext), ec);
    }
  }
  if (excluded)
    std::printf("%d of %ld cases differed where NaN values meet -S/-R (excluded)\n", excluded,
                cases);
  if (failures) dir_ = fs::path();  // keep the files of the failed cases (the suite's folder)
}

}  // namespace
#endif
