// Graph preparation on the host: symmetrize_max (mcl's mirroring of a graph), and the writer
// of labelled groups (one line of labels per cluster, as mcl writes clusters).
#include "io/reader_common.hpp"

namespace opsparse::io {

using namespace internal;

namespace {

/// validate(a) on the OpenMP threads: the rows are checked in parallel and validate() runs only
/// when one fails, to throw its message (the first violation). It checked 44 million entries
/// on one thread, a tenth of symmetrize_max's time on 16 threads.
void validate_in_parallel(const host_csr<double>& a) {
  const std::size_t rows = static_cast<std::size_t>(a.rows);
  bool ok = a.rows >= 0 && a.cols >= 0 && a.rpt.size() == rows + 1 && a.rpt[0] == 0 &&
            static_cast<offset_t>(a.col.size()) == a.rpt.back() && a.val.size() == a.col.size();
  if (ok) {
    bool bad = false;  // rpt decreases: the rows' entries cannot be read yet
#pragma omp parallel for schedule(static) reduction(|| : bad)
    for (index_t i = 0; i < a.rows; ++i) bad = bad || a.rpt[i + 1] < a.rpt[i];
    ok = !bad;
  }
  if (ok) {
    bool bad = false;
#pragma omp parallel for schedule(dynamic, 4096) reduction(|| : bad)
    for (index_t i = 0; i < a.rows; ++i) {
      const offset_t k0 = a.rpt[i], k1 = a.rpt[i + 1];
      for (offset_t k = k0; k < k1 && !bad; ++k)
        bad = a.col[k] < 0 || a.col[k] >= a.cols || (k > k0 && a.col[k - 1] >= a.col[k]);
    }
    ok = !bad;
  }
  if (!ok) validate(a);
}

}  // namespace

host_csr<double> symmetrize_max(const host_csr<double>& a) {
  OPSPARSE_EXPECTS(a.rows == a.cols, "symmetrize_max needs a square matrix");
  const index_t n = a.rows;
  const std::size_t rows = static_cast<std::size_t>(n);
  const bool parallel = a.col.size() >= parallel_rows_min_entries && omp_get_max_threads() > 1;
  if (parallel)
    validate_in_parallel(a);
  else
    validate(a);

  // A^T, grouped by row from blocks of rows of A taken in order: a row of A^T then lists its
  // columns in increasing order, as transpose() does.
  struct entry {
    index_t col;
    double val;
  };
  std::vector<index_t> block{0};  // blocks of rows of A with about 64 Ki entries each
  if (parallel)
    for (index_t i = 0; i < n; ++i)
      if (a.rpt[i + 1] - a.rpt[block.back()] >= offset_t(1) << 16) block.push_back(i + 1);
  if (block.back() != n) block.push_back(n);
  std::vector<offset_t> tpt;
  const std::unique_ptr<entry[]> t = group_by_row<entry>(
      n, block.size() - 1,
      [&](std::size_t s, auto&& emit) {
        for (index_t i = block[s]; i < block[s + 1]; ++i)
          for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k) emit(a.col[k], entry{i, a.val[k]});
      },
      tpt);

  // Row-wise merge of A and A^T. An entry present on one side only keeps its own value (an
  // absent entry is not a zero, which matters for negative weights).
  const auto merge_row = [&](index_t i, auto&& emit) {
    const entry* q = t.get() + tpt[static_cast<std::size_t>(i)];
    const entry* const qe = t.get() + tpt[static_cast<std::size_t>(i) + 1];
    offset_t p = a.rpt[i];
    const offset_t pe = a.rpt[i + 1];
    while (p < pe || q < qe) {
      if (q == qe || (p < pe && a.col[p] < q->col)) {
        emit(a.col[p], a.val[p]);
        ++p;
      } else if (p == pe || q->col < a.col[p]) {
        emit(q->col, q->val);
        ++q;
      } else {
        emit(a.col[p], std::max(a.val[p], q->val));
        ++p;
        ++q;
      }
    }
  };
  host_csr<double> s(n, n);
  if (!parallel) {
    s.col.reserve(a.col.size() * 2);
    s.val.reserve(a.col.size() * 2);
    for (index_t i = 0; i < n; ++i) {
      merge_row(i, [&](index_t c, double v) {
        s.col.push_back(c);
        s.val.push_back(v);
      });
      s.rpt[static_cast<std::size_t>(i) + 1] = static_cast<offset_t>(s.col.size());
    }
    return s;
  }
  // In parallel: every row's length first, then its entries in place.
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t i = 0; i < n; ++i) {
    offset_t count = 0;
    merge_row(i, [&](index_t, double) { ++count; });
    s.rpt[static_cast<std::size_t>(i) + 1] = count;
  }
  for (std::size_t i = 0; i < rows; ++i) s.rpt[i + 1] += s.rpt[i];
  s.col.resize(static_cast<std::size_t>(s.rpt.back()));
  s.val.resize(static_cast<std::size_t>(s.rpt.back()));
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t i = 0; i < n; ++i) {
    std::size_t out = static_cast<std::size_t>(s.rpt[i]);
    merge_row(i, [&](index_t c, double v) {
      s.col[out] = c;
      s.val[out++] = v;
    });
  }
  return s;
}

void write_labelled_groups(std::ostream& os, const std::vector<std::vector<index_t>>& groups,
                           const std::vector<std::string>& labels) {
  // Every vertex is checked before anything is written.
  for (const auto& group : groups)
    for (const index_t v : group)
      OPSPARSE_EXPECTS(v >= 0 && static_cast<std::size_t>(v) < labels.size(),
                       "write_labelled_groups: vertex " + std::to_string(v) + " has no label");
  // Blocks of groups with about 64 Ki labels each are formatted in parallel, a round of them at
  // a time, and written in order: the labels are visited in cluster order, which is random in
  // memory, and one thread spent 9 ms on the 200,000 of a protein network. A round bounds the
  // text held at once.
  const std::size_t block_labels = std::size_t(1) << 16;
  std::vector<std::size_t> block{0};  // groups [block[b], block[b + 1])
  std::size_t in_block = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    in_block += groups[g].size() + 1;
    if (in_block >= block_labels) {
      block.push_back(g + 1);
      in_block = 0;
    }
  }
  if (block.back() != groups.size()) block.push_back(groups.size());
  const std::size_t blocks = block.size() - 1;
  const std::size_t round = 4 * static_cast<std::size_t>(omp_get_max_threads());
  std::vector<std::string> text(std::min(blocks, round));
  for (std::size_t b0 = 0; b0 < blocks; b0 += round) {
    const std::size_t b1 = std::min(blocks, b0 + round);
    parallel_for(b1 - b0, [&](std::size_t i) {
      std::string& buf = text[i];
      buf.clear();
      for (std::size_t g = block[b0 + i]; g < block[b0 + i + 1]; ++g) {
        const std::vector<index_t>& group = groups[g];
        for (std::size_t k = 0; k < group.size(); ++k) {
          if (k) buf += '\t';
          buf += labels[static_cast<std::size_t>(group[k])];
        }
        buf += '\n';
      }
    });
    for (std::size_t i = 0; i < b1 - b0; ++i)
      os.write(text[i].data(), static_cast<std::streamsize>(text[i].size()));
  }
  if (!os) throw std::runtime_error("write_labelled_groups: writing to the stream failed");
}

}  // namespace opsparse::io
