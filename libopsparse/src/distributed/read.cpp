// opsparse/distributed/read.hpp: every rank reads its part of the file, root numbers the
// vertices by first appearance over the parts' labels in file order, and every rank sends its
// part's arcs to the ranks that own their rows, which merge them.
#include "opsparse/distributed/read.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "opsparse/distributed/detail/comm.hpp"
#include "opsparse/distributed/error.hpp"
#include "opsparse/error.hpp"

namespace opsparse::dist {
namespace {

/// f() on every rank. A parse_error on some ranks is thrown on every rank as the lowest failing
/// rank's (the first bad line in the file); other failures as detail::agree_on_failure throws
/// them.
template <class F>
void agree_on_parse(MPI_Comm comm, const std::string& path, F&& f) {
  int rank = 0, size = 0;
  OPSPARSE_MPI_TRY(MPI_Comm_rank(comm, &rank));
  OPSPARSE_MPI_TRY(MPI_Comm_size(comm, &size));
  std::exception_ptr other;
  long long line = 0;
  std::string message;
  bool parse = false;
  try {
    f();
  } catch (const parse_error& e) {
    parse = true;
    line = e.line();
    message = e.message();
  } catch (...) {
    other = std::current_exception();
  }
  int first = parse || other ? rank : size;
  OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return;
  int kind = parse ? 1 : 0;
  OPSPARSE_MPI_TRY(MPI_Bcast(&kind, 1, MPI_INT, first, comm));
  if (kind == 1) {
    OPSPARSE_MPI_TRY(MPI_Bcast(&line, 1, MPI_LONG_LONG, first, comm));
    detail::bcast_string(message, first, comm);
    throw parse_error(path, line, message);
  }
  detail::agree_on_failure(rank == first ? other : std::exception_ptr(), "reading the graph", comm);
}

constexpr std::uint32_t first_seen = std::uint32_t(1) << 31;
constexpr int partition_bits = 10;

/// Vertex numbers by first appearance over `all` (the parts' labels, part after part, each in
/// its order of first appearance); labels[v] gets vertex v's. The labels are numbered in
/// partitions by hash, in parallel, then in one pass over `all` in order.
std::vector<index_t> number_labels(const std::vector<std::string_view>& all,
                                   std::vector<std::string>& labels) {
  const std::size_t count = all.size();
  constexpr std::size_t parts = std::size_t(1) << partition_bits;
  std::vector<std::uint16_t> part(count);
#pragma omp parallel for schedule(static)
  for (long long s = 0; s < static_cast<long long>(count); ++s)
    part[s] =
        static_cast<std::uint16_t>(std::hash<std::string_view>{}(all[s]) >>
                                   (std::numeric_limits<std::size_t>::digits - partition_bits));
  std::vector<std::size_t> start(parts + 1, 0);
  for (std::uint16_t q : part) ++start[q + 1];
  for (std::size_t q = 0; q < parts; ++q) start[q + 1] += start[q];
  std::vector<std::size_t> order(count), at(start.begin(), start.end() - 1);
  for (std::size_t s = 0; s < count; ++s) order[at[part[s]]++] = s;
  std::vector<std::uint32_t> number(count), distinct(parts, 0);
#pragma omp parallel for schedule(dynamic, 1)
  for (long long q = 0; q < static_cast<long long>(parts); ++q) {
    std::unordered_map<std::string_view, std::uint32_t> table;
    table.reserve(start[q + 1] - start[q]);
    for (std::size_t k = start[q]; k < start[q + 1]; ++k) {
      const std::size_t s = order[k];
      const auto [it, added] = table.try_emplace(all[s], static_cast<std::uint32_t>(table.size()));
      number[s] = it->second | (added ? first_seen : 0u);
    }
    distinct[q] = static_cast<std::uint32_t>(table.size());
  }
  std::vector<std::vector<index_t>> vertex(parts);
  for (std::size_t q = 0; q < parts; ++q) vertex[q].resize(distinct[q]);
  labels.clear();
  for (std::size_t s = 0; s < count; ++s) {
    if (!(number[s] & first_seen)) continue;
    if (labels.size() >= static_cast<std::size_t>(std::numeric_limits<index_t>::max()))
      throw std::runtime_error("more than " + std::to_string(std::numeric_limits<index_t>::max()) +
                               " distinct vertices: vertex numbers must fit in 32 bits");
    vertex[part[s]][number[s] & ~first_seen] = static_cast<index_t>(labels.size());
    labels.emplace_back(all[s]);
  }
  std::vector<index_t> out(count);
#pragma omp parallel for schedule(static)
  for (long long s = 0; s < static_cast<long long>(count); ++s)
    out[s] = vertex[part[s]][number[s] & ~first_seen];
  return out;
}

/// Every rank's labels numbered on root (number_labels over the ranks' lists in rank order, the
/// parts' file order); returns the numbers of this rank's labels, sets n on every rank and
/// labels on root. Collective.
std::vector<index_t> number_on_root(MPI_Comm comm, const std::vector<std::string>& mine, int root,
                                    std::vector<std::string>& labels, index_t& n) {
  int rank = 0, size = 0;
  OPSPARSE_MPI_TRY(MPI_Comm_rank(comm, &rank));
  OPSPARSE_MPI_TRY(MPI_Comm_size(comm, &size));
  std::vector<std::uint32_t> length(mine.size());
  std::string bytes;
  std::size_t total = 0;
  for (std::size_t i = 0; i < mine.size(); ++i)
    total += length[i] = static_cast<std::uint32_t>(mine[i].size());
  bytes.reserve(total);
  for (const std::string& l : mine) bytes += l;
  std::uint64_t sizes[2] = {mine.size(), bytes.size()};
  std::vector<std::uint64_t> all_sizes(rank == root ? 2 * static_cast<std::size_t>(size) : 0);
  OPSPARSE_MPI_TRY(
      MPI_Gather(sizes, 2, MPI_UINT64_T, all_sizes.data(), 2, MPI_UINT64_T, root, comm));
  std::vector<index_t> numbers, out;
  std::vector<std::size_t> first(static_cast<std::size_t>(size) + 1, 0);
  std::exception_ptr error;
  long long vertices = 0;
  if (rank != root) {
    detail::send_bytes(length.data(), length.size() * sizeof(std::uint32_t), root, 1, comm);
    detail::send_bytes(bytes.data(), bytes.size(), root, 2, comm);
  } else {
    std::vector<std::vector<std::uint32_t>> lengths(static_cast<std::size_t>(size));
    std::vector<std::string> texts(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) {
      if (r == root) continue;
      lengths[r].resize(all_sizes[2 * r]);
      texts[r].resize(all_sizes[2 * r + 1]);
      detail::recv_bytes(lengths[r].data(), lengths[r].size() * sizeof(std::uint32_t), r, 1, comm);
      detail::recv_bytes(texts[r].data(), texts[r].size(), r, 2, comm);
    }
    lengths[root] = std::move(length);
    texts[root] = std::move(bytes);
    std::vector<std::string_view> all;
    for (int r = 0; r < size; ++r) first[r + 1] = first[r] + lengths[r].size();
    all.reserve(first.back());
    for (int r = 0; r < size; ++r) {
      std::size_t at = 0;
      for (std::uint32_t l : lengths[r]) {
        all.emplace_back(texts[r].data() + at, l);
        at += l;
      }
    }
    try {
      out = number_labels(all, labels);
      vertices = static_cast<long long>(labels.size());
    } catch (...) {
      error = std::current_exception();
    }
  }
  detail::agree_on_failure(error, "numbering the vertices", comm);
  if (rank == root) {
    for (int r = 0; r < size; ++r)
      if (r != root)
        detail::send_bytes(out.data() + first[r], (first[r + 1] - first[r]) * sizeof(index_t), r, 3,
                           comm);
    numbers.assign(out.begin() + first[root], out.begin() + first[root + 1]);
  } else {
    numbers.resize(mine.size());
    detail::recv_bytes(numbers.data(), numbers.size() * sizeof(index_t), root, 3, comm);
  }
  OPSPARSE_MPI_TRY(MPI_Bcast(&vertices, 1, MPI_LONG_LONG, root, comm));
  n = static_cast<index_t>(vertices);
  return numbers;
}

/// An arc of the graph on its way to the rank that owns its row.
struct arc {
  index_t row;
  index_t col;
  double w;
};

/// The rows [first, first + m) from the arcs every rank sent (source after source, the parts'
/// file order): duplicates merged by their maximum, the earlier part's on a tie.
host_csr<double> assemble_rows(const arc* arcs, std::size_t count, index_t first, index_t m,
                               index_t n) {
  host_csr<double> out(m, n);
  std::vector<offset_t> at(static_cast<std::size_t>(m) + 1, 0);
  for (std::size_t k = 0; k < count; ++k) ++at[static_cast<std::size_t>(arcs[k].row - first) + 1];
  for (index_t i = 0; i < m; ++i) at[i + 1] += at[i];
  std::vector<std::pair<index_t, double>> by_row(count);
  {
    std::vector<offset_t> next(at.begin(), at.end() - 1);
    for (std::size_t k = 0; k < count; ++k)
      by_row[static_cast<std::size_t>(next[arcs[k].row - first]++)] = {arcs[k].col, arcs[k].w};
  }
  std::vector<offset_t> kept(static_cast<std::size_t>(m) + 1, 0);
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t i = 0; i < m; ++i) {
    auto* b = by_row.data() + at[i];
    auto* e = by_row.data() + at[i + 1];
    // A row from one part comes sorted (read_abc_part's rows are); rows from several parts are
    // sorted keeping the parts' order among equal columns.
    const auto by_col = [](const auto& x, const auto& y) { return x.first < y.first; };
    if (!std::is_sorted(b, e, by_col)) std::stable_sort(b, e, by_col);
    auto* o = b;
    for (auto* p = b; p < e; ++p) {
      if (o > b && (o - 1)->first == p->first) {
        if (p->second > (o - 1)->second) (o - 1)->second = p->second;
        continue;
      }
      *o++ = *p;
    }
    kept[i + 1] = o - b;
  }
  for (index_t i = 0; i < m; ++i) out.rpt[i + 1] = out.rpt[i] + kept[i + 1];
  out.col.resize(static_cast<std::size_t>(out.rpt[m]));
  out.val.resize(out.col.size());
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t i = 0; i < m; ++i)
    for (offset_t k = 0; k < kept[i + 1]; ++k) {
      out.col[out.rpt[i] + k] = by_row[at[i] + k].first;
      out.val[out.rpt[i] + k] = by_row[at[i] + k].second;
    }
  return out;
}

}  // namespace

graph_rows read_abc_rows(MPI_Comm comm, const std::string& path, const io::read_options& options,
                         int root) {
  int rank = 0, size = 0;
  OPSPARSE_MPI_TRY(MPI_Comm_rank(comm, &rank));
  OPSPARSE_MPI_TRY(MPI_Comm_size(comm, &size));
  graph_rows g;
  io::text_part part;
  agree_on_parse(comm, path, [&] { part = io::find_text_part(path, rank, size); });
  long long before = 0, lines = part.lines;
  OPSPARSE_MPI_TRY(MPI_Exscan(&lines, &before, 1, MPI_LONG_LONG, MPI_SUM, comm));
  if (rank == 0) before = 0;
  OPSPARSE_MPI_TRY(MPI_Allreduce(&lines, &g.lines, 1, MPI_LONG_LONG, MPI_SUM, comm));
  g.bytes = part.file_bytes;
  io::labelled_graph local;
  agree_on_parse(comm, path, [&] { local = io::read_abc_part(path, part, before, options); });
  const std::vector<index_t> vertex = number_on_root(comm, local.labels, root, g.labels, g.n);
  local.labels = {};
  if (g.n == 0)
    throw parse_error(
        path, 0, "no edges found (" + std::to_string(g.lines) + " lines, all blank or comments)");
  g.split.resize(static_cast<std::size_t>(size) + 1);
  for (int r = 0; r <= size; ++r)
    g.split[r] = static_cast<index_t>(static_cast<long long>(g.n) * r / size);
  // The part's arcs, grouped by the rank owning their row.
  const host_csr<double>& a = local.adj;
  const auto owner = [&](index_t v) {
    return static_cast<int>(std::upper_bound(g.split.begin(), g.split.end(), v) - g.split.begin()) -
           1;
  };
  std::vector<std::size_t> offset(static_cast<std::size_t>(size) + 1, 0);
  std::vector<int> to(static_cast<std::size_t>(a.rows));
  for (index_t i = 0; i < a.rows; ++i) {
    to[i] = owner(vertex[i]);
    offset[to[i] + 1] += static_cast<std::size_t>(a.rpt[i + 1] - a.rpt[i]);
  }
  for (int d = 0; d < size; ++d) offset[d + 1] += offset[d];
  std::vector<offset_t> place(static_cast<std::size_t>(a.rows));  // where each row's arcs go
  {
    std::vector<std::size_t> next(offset.begin(), offset.end() - 1);
    for (index_t i = 0; i < a.rows; ++i) {
      place[i] = static_cast<offset_t>(next[to[i]]);
      next[to[i]] += static_cast<std::size_t>(a.rpt[i + 1] - a.rpt[i]);
    }
  }
  std::vector<arc> out(offset.back());
#pragma omp parallel for schedule(dynamic, 1024)
  for (index_t i = 0; i < a.rows; ++i)
    for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k)
      out[static_cast<std::size_t>(place[i] + k - a.rpt[i])] = {vertex[i], vertex[a.col[k]],
                                                                a.val[k]};
  local = {};
  for (std::size_t& o : offset) o *= sizeof(arc);
  const detail::exchanged_bytes in =
      detail::exchange_bytes(reinterpret_cast<const char*>(out.data()), offset, comm);
  out = {};
  const index_t first = g.split[rank], m = g.split[rank + 1] - first;
  g.rows = assemble_rows(reinterpret_cast<const arc*>(in.data.data()), in.data.size() / sizeof(arc),
                         first, m, g.n);
  return g;
}

}  // namespace opsparse::dist
