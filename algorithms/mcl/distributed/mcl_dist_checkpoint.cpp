// Checkpoints of opsparse-mcl-mpi's rows layout, in parts (mcl_dist_checkpoint.hpp).
#include "mcl_dist_checkpoint.hpp"

#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "mcl_dist_common.hpp"
#include "opsparse/distributed/detail/comm.hpp"
#include "opsparse/output_file.hpp"

namespace opsparse::mcl::detail {
namespace {

const char* const list_name = "mcl-checkpoint.parts";
const char* const list_magic = "opsparse-mcl-mpi checkpoint 1";

std::string part_name(long long iteration, int part, int parts) {
  return "mcl-checkpoint.it" + std::to_string(iteration) + ".part" + std::to_string(part) + "of" +
         std::to_string(parts) + ".bin";
}

/// A part file of any checkpoint of this folder (mcl-checkpoint.it*.part*.bin).
bool is_part(const std::string& name) {
  const std::string head = "mcl-checkpoint.it", tail = ".bin";
  return name.size() > head.size() + tail.size() && name.compare(0, head.size(), head) == 0 &&
         name.compare(name.size() - tail.size(), tail.size(), tail) == 0 &&
         name.find(".part") != std::string::npos;
}

struct part_list {
  std::uint64_t fingerprint = 0;
  long long iteration = 0, cells = 0, sorted = 0;
  std::vector<long long> split;
};

part_list read_list(const std::string& dir, std::uint64_t fp, int cells) {
  const std::string path = checkpoint::file_in(dir, list_name);
  std::ifstream in(path);
  auto fail = [&](const std::string& why) {
    throw std::runtime_error("checkpoint " + path + " " + why);
  };
  if (!in) fail("cannot be read (no checkpoint of opsparse-mcl-mpi in " + dir + ")");
  std::string line;
  if (!std::getline(in, line) || line != list_magic)
    fail("is not a list of opsparse-mcl-mpi's checkpoint parts (or is damaged)");
  part_list l;
  bool have[5] = {};
  while (std::getline(in, line)) {
    std::istringstream is(line);
    std::string key;
    is >> key;
    if (key == "fingerprint") have[0] = static_cast<bool>(is >> l.fingerprint);
    if (key == "iteration") have[1] = static_cast<bool>(is >> l.iteration);
    if (key == "cells") have[2] = static_cast<bool>(is >> l.cells);
    if (key == "sorted") have[3] = static_cast<bool>(is >> l.sorted);
    if (key == "split") {
      for (long long v = 0; is >> v;) l.split.push_back(v);
      have[4] = l.split.size() >= 2;
    }
  }
  if (!std::all_of(std::begin(have), std::end(have), [](bool b) { return b; }) || l.iteration < 1 ||
      l.split.front() != 0 || !std::is_sorted(l.split.begin(), l.split.end()))
    fail("is damaged");
  if (l.cells != cells)
    fail(std::string("holds ") + (l.cells == 4 ? "float" : "double") +
         " cells, and this run uses " + (cells == 4 ? "float" : "double") + " (--precision)");
  if (l.fingerprint != fp)
    fail(
        "was written for another input or other options (the graph, -I, -P, -S, -R, -pct, "
        "--max-iter, -tf, -c, -pi and the loops must be the same as when it was written)");
  return l;
}

}  // namespace

template <class T>
host_csr<T> rows_only(const host_csr<T>& m, index_t first, index_t last) {
  host_csr<T> x(m.rows, m.cols);
  const offset_t e0 = m.rpt[first], e1 = m.rpt[last];
  for (index_t i = 0; i < m.rows; ++i) x.rpt[i + 1] = std::clamp(m.rpt[i + 1], e0, e1) - e0;
  x.col.assign(m.col.begin() + e0, m.col.begin() + e1);
  x.val.assign(m.val.begin() + e0, m.val.begin() + e1);
  return x;
}

template <class T>
void write_parts(const dist::grid& g, const dist_checkpoints& c, int iteration, bool rows_sorted,
                 host_csr<T> mine, const std::vector<index_t>& split) {
  const int me = g.rank(), parts = g.size();
  std::exception_ptr error;
  try {
    checkpoint::state<T> s;
    s.iteration = iteration;
    s.rows_sorted = rows_sorted;
    s.iterate = std::move(mine);
    checkpoint::write(c.dir, c.fingerprint, s, part_name(iteration, me, parts));
  } catch (...) {
    error = std::current_exception();
  }
  dist::detail::agree_on_failure(error, "opsparse-mcl-mpi: writing the checkpoint's parts",
                                 g.comm());
  int sorted = rows_sorted ? 1 : 0;  // the same on every rank (their backends decide alike)
  OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &sorted, 1, MPI_INT, MPI_MIN, g.comm()));
  if (me == 0) {
    try {
      io::output_file out(checkpoint::file_in(c.dir, list_name));
      std::ostream& os = out.stream();
      os << list_magic << "\nfingerprint " << c.fingerprint << "\niteration " << iteration
         << "\ncells " << sizeof(T) << "\nsorted " << sorted << "\nsplit";
      for (index_t s : split) os << ' ' << s;
      os << '\n';
      out.commit();
      // The list names the new parts: every other part goes (older ones, and those of runs on
      // other rank counts).
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(c.dir, ec)) {
        const std::string name = e.path().filename().string();
        bool listed = false;
        for (int r = 0; r < parts && !listed; ++r) listed = name == part_name(iteration, r, parts);
        if (is_part(name) && !listed) std::filesystem::remove(e.path(), ec);
      }
    } catch (...) {
      error = std::current_exception();
    }
  }
  dist::detail::agree_on_failure(error, "opsparse-mcl-mpi: writing the checkpoint's list",
                                 g.comm());
  if (me == 0 && c.note)
    c.note("checkpoint after iteration " + std::to_string(iteration) + " written to " +
           checkpoint::file_in(c.dir, list_name) + " (" + std::to_string(parts) +
           (parts == 1 ? " part)" : " parts)"));
}

template <class T>
checkpoint::state<T> read_rows(const dist::grid& g, const dist_checkpoints& c, index_t n,
                               index_t first, index_t last) {
  part_list l;
  std::exception_ptr error;
  if (g.rank() == 0) {
    try {
      l = read_list(c.resume_dir, c.fingerprint, static_cast<int>(sizeof(T)));
      if (l.split.back() != n)
        throw std::runtime_error("checkpoint " + checkpoint::file_in(c.resume_dir, list_name) +
                                 " holds " + std::to_string(l.split.back()) +
                                 " rows, and this graph has " + std::to_string(n));
    } catch (...) {
      error = std::current_exception();
    }
  }
  dist::detail::agree_on_failure(error, "opsparse-mcl-mpi: reading the checkpoint", g.comm());
  long long head[3] = {l.iteration, l.sorted, static_cast<long long>(l.split.size())};
  OPSPARSE_MPI_TRY(MPI_Bcast(head, 3, MPI_LONG_LONG, 0, g.comm()));
  l.split.resize(static_cast<std::size_t>(head[2]));
  OPSPARSE_MPI_TRY(
      MPI_Bcast(l.split.data(), static_cast<int>(head[2]), MPI_LONG_LONG, 0, g.comm()));
  checkpoint::state<T> out;
  out.iteration = static_cast<int>(head[0]);
  out.rows_sorted = head[1] != 0;
  out.iterate = host_csr<T>(n, n);
  try {
    host_csr<T>& x = out.iterate;
    const int parts = static_cast<int>(l.split.size()) - 1;
    for (int r = 0; r < parts; ++r) {
      const auto r0 = static_cast<index_t>(std::max<long long>(first, l.split[r]));
      const auto r1 = static_cast<index_t>(std::min<long long>(last, l.split[r + 1]));
      if (r0 >= r1) continue;
      const std::string name = part_name(head[0], r, parts);
      const checkpoint::state<T> p = checkpoint::read<T>(c.resume_dir, c.fingerprint, name);
      if (p.iteration != out.iteration || p.iterate.rows != n)
        throw std::runtime_error("checkpoint " + checkpoint::file_in(c.resume_dir, name) +
                                 " is not the part its list names");
      const host_csr<T>& m = p.iterate;
      x.col.insert(x.col.end(), m.col.begin() + m.rpt[r0], m.col.begin() + m.rpt[r1]);
      x.val.insert(x.val.end(), m.val.begin() + m.rpt[r0], m.val.begin() + m.rpt[r1]);
      for (index_t i = r0; i < r1; ++i) x.rpt[i + 1] = x.rpt[i] + m.rpt[i + 1] - m.rpt[i];
    }
    // rows past the parts read (and between none) stay empty
    for (index_t i = 0; i < n; ++i) x.rpt[i + 1] = std::max(x.rpt[i + 1], x.rpt[i]);
  } catch (...) {
    error = std::current_exception();
  }
  dist::detail::agree_on_failure(error, "opsparse-mcl-mpi: reading the checkpoint's parts",
                                 g.comm());
  if (g.rank() == 0 && c.note)
    c.note("resumed from " + checkpoint::file_in(c.resume_dir, list_name) + " after iteration " +
           std::to_string(out.iteration));
  return out;
}

std::uint64_t hash_pieces(const dist::grid& g, const void* data, std::size_t bytes, int threads,
                          std::size_t chunk) {
  using ull = unsigned long long;
  const int size = g.size(), me = g.rank();
  std::vector<ull> at(static_cast<std::size_t>(size) + 1, 0);
  ull mine = bytes;
  OPSPARSE_MPI_TRY(MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, at.data() + 1, 1,
                                 MPI_UNSIGNED_LONG_LONG, g.comm()));
  for (int r = 0; r < size; ++r) at[r + 1] += at[r];
  const ull total = at[size];
  // Chunk k starts on the rank holding byte k·chunk, which hashes it: the bytes of a rank before
  // its first chunk's start (its head) belong to a chunk that starts on an earlier rank.
  auto holder = [&](ull x) {
    return static_cast<int>(std::upper_bound(at.begin(), at.end(), x) - at.begin()) - 1;
  };
  auto head = [&](int r) -> ull {
    if (at[r] == at[r + 1] || at[r] % chunk == 0) return 0;
    return std::min(at[r + 1], (at[r] / chunk + 1) * chunk) - at[r];
  };
  const ull c0 = (at[me] + chunk - 1) / chunk, c1 = (at[me + 1] + chunk - 1) / chunk;
  const auto* p = static_cast<const unsigned char*>(data);
  MPI_Request sent = MPI_REQUEST_NULL;
  if (head(me) > 0)
    OPSPARSE_MPI_TRY(MPI_Isend(p, static_cast<int>(head(me)), MPI_BYTE,
                               holder(at[me] / chunk * chunk), 7, g.comm(), &sent));
  // The last chunk that starts here may end on later ranks: their heads complete it.
  std::vector<unsigned char> last;
  if (c1 > c0 && std::min(total, c1 * chunk) > at[me + 1]) {
    last.assign(p + ((c1 - 1) * chunk - at[me]), p + bytes);
    for (int q = me + 1; q < size; ++q) {
      const ull h = head(q);
      if (h == 0 || holder(at[q] / chunk * chunk) != me) continue;
      const std::size_t was = last.size();
      last.resize(was + h);
      OPSPARSE_MPI_TRY(MPI_Recv(last.data() + was, static_cast<int>(h), MPI_BYTE, q, 7, g.comm(),
                                MPI_STATUS_IGNORE));
    }
  }
  std::vector<std::uint64_t> own(static_cast<std::size_t>(c1 - c0));
#pragma omp parallel for schedule(static) num_threads(threads) if (own.size() > 1)
  for (long long k = 0; k < static_cast<long long>(own.size()); ++k) {
    const ull b = (c0 + static_cast<ull>(k)) * chunk;
    if (!last.empty() && static_cast<std::size_t>(k) + 1 == own.size())
      own[static_cast<std::size_t>(k)] = checkpoint::hash_chunk(last.data(), last.size());
    else
      own[static_cast<std::size_t>(k)] =
          checkpoint::hash_chunk(p + (b - at[me]), std::min(at[me + 1], b + chunk) - b);
  }
  OPSPARSE_MPI_TRY(MPI_Wait(&sent, MPI_STATUS_IGNORE));
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(counts.size() + 1, 0);
  for (int r = 0; r < size; ++r) {
    counts[r] = static_cast<int>((at[r + 1] + chunk - 1) / chunk - (at[r] + chunk - 1) / chunk);
    offsets[r + 1] = offsets[r] + counts[r];
  }
  std::vector<std::uint64_t> all(static_cast<std::size_t>(offsets[size]));
  OPSPARSE_MPI_TRY(MPI_Allgatherv(own.data(), static_cast<int>(own.size()), MPI_UINT64_T,
                                  all.data(), counts.data(), offsets.data(), MPI_UINT64_T,
                                  g.comm()));
  return checkpoint::combine_chunks(static_cast<std::size_t>(total), all);
}

std::uint64_t fingerprint(const dist::grid& g, const row_blocks<double>& start, const params& p,
                          precision prec, int threads) {
  if (threads <= 0) threads = omp_get_max_threads();
  const host_csr<double>& m = start.rows;
  long long before = static_cast<long long>(m.nnz());
  OPSPARSE_MPI_TRY(MPI_Exscan(MPI_IN_PLACE, &before, 1, MPI_LONG_LONG, MPI_SUM, g.comm()));
  if (g.rank() == 0) before = 0;  // (MPI_Exscan leaves rank 0's undefined)
  // The whole matrix's row pointers: rank 0's leading 0, then every rank's row ends.
  std::vector<offset_t> ends(m.rpt.begin() + (g.rank() == 0 ? 0 : 1), m.rpt.end());
  for (offset_t& e : ends) e += static_cast<offset_t>(before);
  const std::uint64_t rpt = hash_pieces(g, ends.data(), ends.size() * sizeof(offset_t), threads);
  const std::uint64_t col = hash_pieces(g, m.col.data(), m.col.size() * sizeof(index_t), threads);
  const std::uint64_t val = hash_pieces(g, m.val.data(), m.val.size() * sizeof(double), threads);
  return checkpoint::fingerprint_of(start.n, start.n, rpt, col, val, p, prec);
}

bool any_rank_stopping(const dist::grid& g, const dist_checkpoints& c) {
  int stop = c.stop && c.stop->load() ? 1 : 0;
  OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, g.comm()));
  return stop != 0;
}

template host_csr<float> rows_only(const host_csr<float>&, index_t, index_t);
template host_csr<double> rows_only(const host_csr<double>&, index_t, index_t);
template void write_parts(const dist::grid&, const dist_checkpoints&, int, bool, host_csr<float>,
                          const std::vector<index_t>&);
template void write_parts(const dist::grid&, const dist_checkpoints&, int, bool, host_csr<double>,
                          const std::vector<index_t>&);
template checkpoint::state<float> read_rows(const dist::grid&, const dist_checkpoints&, index_t,
                                            index_t, index_t);
template checkpoint::state<double> read_rows(const dist::grid&, const dist_checkpoints&, index_t,
                                             index_t, index_t);

}  // namespace opsparse::mcl::detail
