// opsparse-bench's CSV and JSON files (see report.hpp).
#include "report.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

namespace opsparse::bench {

const char* const csv_header =
    "matrix,variant,rows,nnz_a,products,nnz_c,ms_mean,ms_median,gflops,steady_ms,steady_gflops,"
    "ms_setup,ms_symbolic_binning,ms_symbolic,ms_numeric_binning,ms_numeric,cusparse_alg,"
    "cusparse_ms_median,cusparse_gflops,speedup,check,bound_ms,bound_ms_no_reuse,of_bound,"
    "cusparse_pool_ms_median,speedup_pool";

traffic product_traffic(long long rows_a, long long nnz_a, long long rows_b, long long nnz_b,
                        long long products, long long rows_c, long long nnz_c, int value_bytes) {
  const double off = 8, col = 4, val = value_bytes;
  const double a_structure = (rows_a + 1) * off + nnz_a * col;
  const double a_once = a_structure + nnz_a * val;
  const double c_once = (rows_c + 1) * off + nnz_c * (col + val);
  traffic t;
  t.reuse = a_once + (rows_b + 1) * off + nnz_b * (col + val) + c_once;
  t.no_reuse = a_structure + a_once + products * (col + (col + val)) + c_once;
  return t;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + '"';
}

void write_csv(std::ostream& os, const std::vector<result_row>& rows) {
  os << csv_header << "\n";
  for (const result_row& r : rows) {
    // Built in a string stream of its own so that the caller's stream flags change nothing.
    std::ostringstream o;
    o << csv_field(r.matrix) << "," << csv_field(r.variant) << "," << r.rows << "," << r.nnz_a
      << "," << r.products << "," << r.nnz_c << "," << r.ms_mean << "," << r.ms_median << ","
      << r.gflops << "," << r.steady_ms << "," << r.steady_gflops << "," << r.ph_setup << ","
      << r.ph_symbin << "," << r.ph_sym << "," << r.ph_numbin << "," << r.ph_num << ","
      << csv_field(r.cus_alg) << "," << r.cus_ms_median << "," << r.cus_gflops << "," << r.speedup
      << "," << csv_field(r.check) << "," << r.bound_ms << "," << r.bound_ms_no_reuse << ","
      << r.of_bound << "," << r.cus_pool_ms_median << "," << r.speedup_pool << "\n";
    os << o.str();
  }
}

namespace {

using json = nlohmann::ordered_json;  // keys in the order written, as the file was before

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

}  // namespace

void write_json(std::ostream& os, const run_info& info, const std::vector<result_row>& rows) {
  json doc;
  doc["gpu"] = info.gpu;
  doc["compute_capability"] = info.compute_capability;
  doc["sm_count"] = info.sm_count;
  doc["cuda_runtime"] = info.cuda_runtime;
  doc["git_commit"] = info.git_commit;
  doc["precision"] = info.precision;
  doc["runs"] = info.runs;
  json results = json::array();
  for (const result_row& r : rows) {
    json o;
    o["matrix"] = r.matrix;
    o["variant"] = r.variant;
    o["rows"] = r.rows;
    o["nnz_a"] = r.nnz_a;
    o["products"] = r.products;
    o["nnz_c"] = r.nnz_c;
    o["ms_mean"] = number(r.ms_mean);
    o["ms_median"] = number(r.ms_median);
    o["gflops"] = number(r.gflops);
    o["steady_ms"] = number(r.steady_ms);
    o["steady_gflops"] = number(r.steady_gflops);
    o["phases_ms"] = json::array({number(r.ph_setup), number(r.ph_symbin), number(r.ph_sym),
                                  number(r.ph_numbin), number(r.ph_num)});
    o["cusparse_alg"] = r.cus_alg;
    o["cusparse_ms_median"] = number(r.cus_ms_median);
    o["cusparse_gflops"] = number(r.cus_gflops);
    o["speedup"] = number(r.speedup);
    o["check"] = r.check;
    o["bound_ms"] = number(r.bound_ms);
    o["bound_ms_no_reuse"] = number(r.bound_ms_no_reuse);
    o["of_bound"] = number(r.of_bound);
    o["cusparse_pool_ms_median"] = number(r.cus_pool_ms_median);
    o["speedup_pool"] = number(r.speedup_pool);
    results.push_back(std::move(o));
  }
  doc["results"] = std::move(results);
  // A matrix name is a file name, which need not be UTF-8; replacing such bytes keeps the file
  // readable instead of failing at the end of a long run.
  os << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace opsparse::bench
