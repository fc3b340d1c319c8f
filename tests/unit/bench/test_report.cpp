// opsparse-bench's result files (bench/report.hpp): what is written reads back as it was. The CSV
// goes through a strict RFC 4180 reader written here, the JSON through nlohmann::json::parse.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "report.hpp"

namespace bench = opsparse::bench;
using record = std::vector<std::string>;

namespace {

// RFC 4180, strictly: a quote may only open a field or, doubled, stand inside a quoted one;
// after a closing quote comes a comma or a line end; CR only as part of CRLF outside quotes.
// Anything else throws, so that a writer that forgets to quote fails the tests below.
std::vector<record> read_csv(const std::string& text) {
  std::vector<record> out;
  record rec;
  std::string field;
  bool in_quotes = false, was_quoted = false, closed = false;
  auto end_field = [&] {
    rec.push_back(field);
    field.clear();
    was_quoted = closed = false;
  };
  auto end_record = [&] {
    end_field();
    out.push_back(rec);
    rec.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        in_quotes = false;
        closed = true;
      }
      continue;
    }
    if (c == ',') {
      end_field();
    } else if (c == '\n' || (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) {
      if (c == '\r') ++i;
      end_record();
    } else if (closed) {
      throw std::runtime_error("character after a closing quote at offset " + std::to_string(i));
    } else if (c == '"') {
      if (!field.empty() || was_quoted)
        throw std::runtime_error("quote inside an unquoted field at offset " + std::to_string(i));
      in_quotes = was_quoted = true;
    } else if (c == '\r') {
      throw std::runtime_error("bare CR outside quotes at offset " + std::to_string(i));
    } else {
      field += c;
    }
  }
  if (in_quotes) throw std::runtime_error("unterminated quoted field");
  if (!field.empty() || !rec.empty() || was_quoted) end_record();
  return out;
}

record split_header() {
  record h;
  std::stringstream ss(bench::csv_header);
  for (std::string w; std::getline(ss, w, ',');) h.push_back(w);
  return h;
}

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

std::vector<bench::result_row> awkward_rows() {
  std::vector<bench::result_row> rows(3);
  bench::result_row& a = rows[0];
  a.matrix = "web,base \"1M\"";
  a.variant = "opsparse";
  a.rows = 1000005;
  a.nnz_a = 3105536;
  a.products = 69524195;
  a.nnz_c = 51111996;
  a.ms_mean = 12.5;
  a.ms_median = 12.25;
  a.gflops = 11.3512;
  a.steady_ms = 10.0625;
  a.steady_gflops = 13.8187;
  a.ph_setup = 0.5;
  a.ph_symbin = 0.125;
  a.ph_sym = 4.25;
  a.ph_numbin = 0.0625;
  a.ph_num = 6.5;
  a.cus_alg = "ALG1";
  a.cus_ms_median = 40.75;
  a.cus_gflops = 3.41224;
  a.speedup = 3.32653;
  a.check = "ok vs cuSPARSE";
  a.bound_ms = 1.5;
  a.bound_ms_no_reuse = 4.75;
  a.of_bound = 0.122449;
  a.cus_pool_ms_median = 21.125;
  a.speedup_pool = 1.72449;

  bench::result_row& b = rows[1];
  b.matrix = "two\nlines\r\nand a CR\r alone";
  b.variant = "paper-hash";
  b.ms_mean = nan;
  b.ms_median = inf;
  b.gflops = -inf;
  b.ph_sym = nan;
  b.speedup = nan;
  b.speedup_pool = inf;
  b.check = "";  // empty fields stay empty
  b.cus_alg = "\"";

  bench::result_row& c = rows[2];
  c.matrix = "tab\there, control \x01 and UTF-8 \xc3\xa9";
  c.variant = "no-product-flattening";
  c.products = 1LL << 40;  // past 2^31, as products of large matrices are
  c.check = "VALUES DIFFER from CPU engine, \"row 7\"";
  return rows;
}

::testing::AssertionResult csv_number_matches(const std::string& field, double want) {
  double got = 0;
  try {
    std::size_t used = 0;
    got = std::stod(field, &used);
    if (used != field.size())
      return ::testing::AssertionFailure() << "'" << field << "' has trailing text";
  } catch (const std::exception&) {
    return ::testing::AssertionFailure() << "'" << field << "' is not a number";
  }
  if (std::isnan(want))
    return std::isnan(got) ? ::testing::AssertionSuccess()
                           : ::testing::AssertionFailure() << field << " is not nan";
  if (std::isinf(want))
    return got == want ? ::testing::AssertionSuccess()
                       : ::testing::AssertionFailure() << field << " is not " << want;
  // iostreams' default: 6 significant digits.
  if (std::fabs(got - want) <= 1e-5 * std::fabs(want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << field << " reads back as " << got << ", not " << want;
}

::testing::AssertionResult json_number_matches(const nlohmann::json& j, double want) {
  if (!std::isfinite(want))
    return j.is_null()
               ? ::testing::AssertionSuccess()
               : ::testing::AssertionFailure() << j.dump() << " should be null for " << want;
  if (!j.is_number()) return ::testing::AssertionFailure() << j.dump() << " is not a number";
  // nlohmann writes the shortest text that reads back to the same double.
  if (j.get<double>() == want) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << j.dump() << " reads back as " << j.get<double>() << ", not " << want;
}

}  // namespace

TEST(bench_report, CsvReaderRejectsWhatRfc4180Forbids) {
  // The reader must be strict for the round trips below to prove anything.
  EXPECT_THROW(read_csv("a\"b,c\n"), std::runtime_error);
  EXPECT_THROW(read_csv("\"a\"b,c\n"), std::runtime_error);
  EXPECT_THROW(read_csv("\"open,c\n"), std::runtime_error);
  EXPECT_THROW(read_csv("a\rb\n"), std::runtime_error);
  const auto r = read_csv("a,\"b,\"\"c\"\"\",\r\n\"x\ny\",z\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (record{"a", "b,\"c\"", ""}));
  EXPECT_EQ(r[1], (record{"x\ny", "z"}));
}

TEST(bench_report, CsvFieldQuotesOnlyWhereNeeded) {
  EXPECT_EQ(bench::csv_field("cage12"), "cage12");
  EXPECT_EQ(bench::csv_field(""), "");
  EXPECT_EQ(bench::csv_field("ok vs cuSPARSE"), "ok vs cuSPARSE");
  EXPECT_EQ(bench::csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(bench::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(bench::csv_field("\""), "\"\"\"\"");
  EXPECT_EQ(bench::csv_field("x\ny"), "\"x\ny\"");
  EXPECT_EQ(bench::csv_field("x\ry"), "\"x\ry\"");
}

TEST(bench_report, CsvRoundTrip) {
  const auto rows = awkward_rows();
  std::ostringstream os;
  bench::write_csv(os, rows);
  std::vector<record> back;
  ASSERT_NO_THROW(back = read_csv(os.str())) << os.str();
  ASSERT_EQ(back.size(), rows.size() + 1) << os.str();
  const record header = split_header();
  ASSERT_EQ(header.size(), 26u);
  EXPECT_EQ(back[0], header);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    const record& f = back[i + 1];
    ASSERT_EQ(f.size(), header.size());
    const bench::result_row& r = rows[i];
    EXPECT_EQ(f[0], r.matrix);
    EXPECT_EQ(f[1], r.variant);
    EXPECT_EQ(f[2], std::to_string(r.rows));
    EXPECT_EQ(f[3], std::to_string(r.nnz_a));
    EXPECT_EQ(f[4], std::to_string(r.products));
    EXPECT_EQ(f[5], std::to_string(r.nnz_c));
    const double numbers[] = {r.ms_mean,  r.ms_median, r.gflops, r.steady_ms, r.steady_gflops,
                              r.ph_setup, r.ph_symbin, r.ph_sym, r.ph_numbin, r.ph_num};
    for (std::size_t k = 0; k < 10; ++k)
      EXPECT_TRUE(csv_number_matches(f[6 + k], numbers[k])) << header[6 + k];
    EXPECT_EQ(f[16], r.cus_alg);
    EXPECT_TRUE(csv_number_matches(f[17], r.cus_ms_median));
    EXPECT_TRUE(csv_number_matches(f[18], r.cus_gflops));
    EXPECT_TRUE(csv_number_matches(f[19], r.speedup));
    EXPECT_EQ(f[20], r.check);
    EXPECT_TRUE(csv_number_matches(f[21], r.bound_ms)) << header[21];
    EXPECT_TRUE(csv_number_matches(f[22], r.bound_ms_no_reuse)) << header[22];
    EXPECT_TRUE(csv_number_matches(f[23], r.of_bound)) << header[23];
    EXPECT_TRUE(csv_number_matches(f[24], r.cus_pool_ms_median)) << header[24];
    EXPECT_TRUE(csv_number_matches(f[25], r.speedup_pool)) << header[25];
  }
}

// A 2x3 A (3 entries) times a 3x2 B (4 entries), 5 products, C 2x2 with 3 entries, doubles:
// A once 3*8 + 3*12 = 60, B once 4*8 + 4*12 = 80, C once 3*8 + 3*12 = 60; without reuse A's
// structure again (3*8 + 3*4 = 36) and every product's column twice and value once (5*16 = 80).
TEST(bench_report, ProductTrafficCountsEachArray) {
  const bench::traffic t = bench::product_traffic(2, 3, 3, 4, 5, 2, 3, 8);
  EXPECT_DOUBLE_EQ(t.reuse, 60 + 80 + 60);
  EXPECT_DOUBLE_EQ(t.no_reuse, 36 + 60 + 80 + 60);
  const bench::traffic f = bench::product_traffic(2, 3, 3, 4, 5, 2, 3, 4);  // floats
  EXPECT_DOUBLE_EQ(f.reuse, (24 + 24) + (32 + 32) + (24 + 24));
  EXPECT_LT(f.reuse, t.reuse);
}

TEST(bench_report, JsonRoundTrip) {
  const auto rows = awkward_rows();
  bench::run_info info;
  info.gpu = "NVIDIA H100 \"SXM\" \\ 80GB";
  info.compute_capability = "9.0";
  info.sm_count = 132;
  info.cuda_runtime = "13.0";
  info.git_commit = "572fe5a";
  info.precision = "double";
  info.runs = 10;
  std::ostringstream os;
  bench::write_json(os, info, rows);
  nlohmann::json j;
  // parse() is strict: a NaN or Infinity token, a raw control character or a bad escape throws.
  ASSERT_NO_THROW(j = nlohmann::json::parse(os.str())) << os.str();
  EXPECT_EQ(j.at("gpu"), info.gpu);
  EXPECT_EQ(j.at("compute_capability"), "9.0");
  EXPECT_EQ(j.at("sm_count"), 132);
  EXPECT_EQ(j.at("cuda_runtime"), "13.0");
  EXPECT_EQ(j.at("git_commit"), "572fe5a");
  EXPECT_EQ(j.at("precision"), "double");
  EXPECT_EQ(j.at("runs"), 10);
  const auto& res = j.at("results");
  ASSERT_TRUE(res.is_array());
  ASSERT_EQ(res.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    const auto& o = res[i];
    const bench::result_row& r = rows[i];
    EXPECT_EQ(o.at("matrix"), r.matrix);
    EXPECT_EQ(o.at("variant"), r.variant);
    EXPECT_EQ(o.at("rows").get<long long>(), r.rows);
    EXPECT_EQ(o.at("nnz_a").get<long long>(), r.nnz_a);
    EXPECT_EQ(o.at("products").get<long long>(), r.products);
    EXPECT_EQ(o.at("nnz_c").get<long long>(), r.nnz_c);
    EXPECT_TRUE(json_number_matches(o.at("ms_mean"), r.ms_mean));
    EXPECT_TRUE(json_number_matches(o.at("ms_median"), r.ms_median));
    EXPECT_TRUE(json_number_matches(o.at("gflops"), r.gflops));
    EXPECT_TRUE(json_number_matches(o.at("steady_ms"), r.steady_ms));
    EXPECT_TRUE(json_number_matches(o.at("steady_gflops"), r.steady_gflops));
    const auto& ph = o.at("phases_ms");
    ASSERT_TRUE(ph.is_array());
    ASSERT_EQ(ph.size(), 5u);
    const double phases[] = {r.ph_setup, r.ph_symbin, r.ph_sym, r.ph_numbin, r.ph_num};
    for (std::size_t k = 0; k < 5; ++k) EXPECT_TRUE(json_number_matches(ph[k], phases[k])) << k;
    EXPECT_EQ(o.at("cusparse_alg"), r.cus_alg);
    EXPECT_TRUE(json_number_matches(o.at("cusparse_ms_median"), r.cus_ms_median));
    EXPECT_TRUE(json_number_matches(o.at("cusparse_gflops"), r.cus_gflops));
    EXPECT_TRUE(json_number_matches(o.at("speedup"), r.speedup));
    EXPECT_EQ(o.at("check"), r.check);
    EXPECT_TRUE(json_number_matches(o.at("bound_ms"), r.bound_ms));
    EXPECT_TRUE(json_number_matches(o.at("bound_ms_no_reuse"), r.bound_ms_no_reuse));
    EXPECT_TRUE(json_number_matches(o.at("of_bound"), r.of_bound));
    EXPECT_TRUE(json_number_matches(o.at("cusparse_pool_ms_median"), r.cus_pool_ms_median));
    EXPECT_TRUE(json_number_matches(o.at("speedup_pool"), r.speedup_pool));
  }
}

TEST(bench_report, JsonReplacesBytesThatAreNotUtf8) {
  std::vector<bench::result_row> rows(1);
  rows[0].matrix = "latin1 caf\xe9";
  std::ostringstream os;
  ASSERT_NO_THROW(bench::write_json(os, bench::run_info{}, rows));
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(os.str())) << os.str();
  EXPECT_EQ(j.at("results").at(0).at("matrix"), "latin1 caf\xef\xbf\xbd");
}

TEST(bench_report, NoRowsGivesHeaderAndEmptyArray) {
  std::ostringstream csv, js;
  bench::write_csv(csv, {});
  EXPECT_EQ(csv.str(), std::string(bench::csv_header) + "\n");
  bench::write_json(js, bench::run_info{}, {});
  const nlohmann::json j = nlohmann::json::parse(js.str());
  ASSERT_TRUE(j.at("results").is_array());
  EXPECT_TRUE(j.at("results").empty());
}
