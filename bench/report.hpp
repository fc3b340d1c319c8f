// opsparse-bench's result files: one CSV line and one JSON object per matrix and ablation
// variant. Host code only (g++), so that the quoting can be tested where there is no GPU.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace opsparse::bench {

/// One matrix (or one ablation variant of it); times in milliseconds.
struct result_row {
  std::string matrix, variant;
  long long rows = 0, nnz_a = 0, products = 0, nnz_c = 0;
  double ms_mean = 0, ms_median = 0, gflops = 0, steady_ms = 0, steady_gflops = 0;
  double ph_setup = 0, ph_symbin = 0, ph_sym = 0, ph_numbin = 0, ph_num = 0;
  /// Per bin of each phase (the phase-event run): rows, and ms from the phase's start until the
  /// bin's kernels ended (spgemm_stats::*_bin_end_ms). Printed, not written to the files.
  std::vector<long long> sym_bin_rows, num_bin_rows;
  std::vector<float> sym_bin_end, num_bin_end;
  std::string cus_alg;
  double cus_ms_median = 0, cus_gflops = 0, speedup = 0;
  /// With --cusparse-pool: cuSPARSE again with its buffers and C from a warm stream-ordered pool
  /// (cusparse_spgemm's `pooled`), and our time over that one; 0 when not measured.
  double cus_pool_ms_median = 0, speedup_pool = 0;
  std::string check;
  /// Lower bounds of the product's time from the bytes it must move at the device's measured
  /// copy bandwidth (product_traffic): with B's rows read once, and as each product reads them;
  /// of_bound = bound_ms / ms_median, the achieved fraction.
  double bound_ms = 0, bound_ms_no_reuse = 0, of_bound = 0;
};

/// Bytes a product C = A·B must move at the least (offsets of 8 bytes, columns of 4, values of
/// `value_bytes`): A read once and C written once; B's rows read once (`reuse`), or once per
/// product that reads them, the symbolic phase their columns and the numeric phase their columns
/// and values, with A's structure read by both phases (`no_reuse`).
struct traffic {
  double reuse = 0, no_reuse = 0;
};
traffic product_traffic(long long rows_a, long long nnz_a, long long rows_b, long long nnz_b,
                        long long products, long long rows_c, long long nnz_c, int value_bytes);

/// What the JSON file says about the run as a whole.
struct run_info {
  std::string gpu;
  std::string compute_capability;  ///< "9.0"
  int sm_count = 0;
  std::string cuda_runtime;  ///< "13.0"
  std::string git_commit;
  std::string precision;  ///< "double" or "float"
  int runs = 0;
};

/// The CSV header line, without its line end.
extern const char* const csv_header;

/// `s` as one RFC 4180 field: wrapped in quotes, inner quotes doubled, when it holds a comma, a
/// quote, CR or LF; unchanged otherwise.
std::string csv_field(const std::string& s);

/// The header and one line per row, each ended by "\n". Numbers are written as iostreams write
/// them (6 significant digits; nan and inf as "nan" and "inf", which Python's float() reads).
void write_csv(std::ostream& os, const std::vector<result_row>& rows);

/// One JSON document: the run_info fields and "results", an array with one object per row.
/// NaN and infinities become null (JSON has no such numbers); bytes that are not UTF-8 in the
/// strings become U+FFFD.
void write_json(std::ostream& os, const run_info& info, const std::vector<result_row>& rows);

}  // namespace opsparse::bench
