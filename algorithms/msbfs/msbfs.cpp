// The multi-source BFS algorithm, written once over msbfs::backend (see msbfs.hpp for the
// mathematics), and the host-side preparation: graph pattern, source ids, batches.
#include "msbfs/msbfs.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <stdexcept>
#include <unordered_map>

#include "opsparse/cpu/graph.hpp"
#include "opsparse/error.hpp"

namespace opsparse::msbfs {

direction parse_direction(const std::string& s) {
  if (s == "auto") return direction::automatic;
  if (s == "push") return direction::push;
  if (s == "pull") return direction::pull;
  throw std::invalid_argument("--direction must be auto, push or pull, not '" + s + "'");
}

const char* to_string(direction d) {
  switch (d) {
    case direction::push: return "push";
    case direction::pull: return "pull";
    default: return "auto";
  }
}

index_t default_batch(index_t n, std::size_t sources, offset_t budget) {
  const offset_t by_size = budget / std::max<offset_t>(n, 1);
  offset_t b = std::clamp<offset_t>(by_size, 1, 1024);
  if (b >= 64) b -= b % 64;  // whole 64-bit words of the GPU's bitmaps
  return static_cast<index_t>(
      std::max<offset_t>(1, std::min<offset_t>(b, static_cast<offset_t>(sources))));
}

void run_batches(backend& be, const host_csr<pattern>& a, const std::vector<index_t>& sources,
                 const options& opt, const std::function<void(const batch_result&)>& on_batch) {
  OPSPARSE_EXPECTS(a.rows == a.cols, "BFS needs a square adjacency matrix");
  for (index_t s : sources)
    OPSPARSE_EXPECTS(s >= 0 && s < a.rows, "source " + std::to_string(s) + " is not a vertex");
  OPSPARSE_EXPECTS(opt.batch >= 0, "the batch size must be positive (0: automatic)");
  const std::size_t batch =
      opt.batch > 0
          ? static_cast<std::size_t>(opt.batch)
          : static_cast<std::size_t>(default_batch(a.rows, sources.size(), be.batch_budget()));
  be.load(a, opt.symmetric);
  be.configure(opt.dir, opt.keep_levels);
  for (std::size_t first = 0; first < sources.size(); first += batch) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t last = std::min(sources.size(), first + batch);
    const std::vector<index_t> chunk(sources.begin() + static_cast<std::ptrdiff_t>(first),
                                     sources.begin() + static_cast<std::ptrdiff_t>(last));
    batch_result r;
    r.first = first;
    be.start(chunk);
    level_t level = 0;
    auto lap = std::chrono::steady_clock::now();
    while (opt.max_depth < 0 || level < opt.max_depth) {
      const offset_t frontier = be.advance(level + 1);
      const auto now = std::chrono::steady_clock::now();
      r.level_stats.push_back({std::chrono::duration<double, std::milli>(now - lap).count(),
                               frontier, be.last_level_note()});
      lap = now;
      if (frontier == 0) break;
      ++level;
    }
    r.depth = level;
    r.summary = be.summarise();
    for (std::size_t k = 0; k < chunk.size(); ++k) r.summary[k].source = chunk[k];
    if (opt.keep_levels) r.levels = be.levels();
    r.note = be.last_batch_note();
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    on_batch(r);
  }
}

void warm_up(backend& be) {
  host_csr<pattern> a(4, 4);  // the path 0 - 1 - 2 - 3, both ways
  for (index_t v = 0; v < 4; ++v) {
    if (v > 0) a.col.push_back(v - 1);
    if (v < 3) a.col.push_back(v + 1);
    a.rpt[v + 1] = static_cast<offset_t>(a.col.size());
  }
  for (direction dir : {direction::push, direction::pull}) {
    options opt;
    opt.symmetric = true;
    opt.dir = dir;
    (void)search(be, a, {0, 3}, opt);
  }
}

result search(backend& be, const host_csr<pattern>& a, const std::vector<index_t>& sources,
              const options& opt) {
  result out;
  out.levels = host_csr<level_t>(0, a.cols);
  run_batches(be, a, sources, opt, [&](const batch_result& r) {
    out.summary.insert(out.summary.end(), r.summary.begin(), r.summary.end());
    if (!opt.keep_levels) return;
    // Append the batch's rows.
    const offset_t base = out.levels.nnz();
    for (index_t i = 0; i < r.levels.rows; ++i)
      out.levels.rpt.push_back(base + r.levels.rpt[i + 1]);
    out.levels.col.insert(out.levels.col.end(), r.levels.col.begin(), r.levels.col.end());
    out.levels.val.insert(out.levels.val.end(), r.levels.val.begin(), r.levels.val.end());
    out.levels.rows += r.levels.rows;
  });
  return out;
}

host_csr<pattern> graph_pattern(const host_csr<double>& adj, bool undirected) {
  if (adj.rows != adj.cols)
    throw std::invalid_argument("a graph needs a square adjacency matrix, not " +
                                std::to_string(adj.rows) + " x " + std::to_string(adj.cols));
  const index_t n = adj.rows;
  host_csr<pattern> g(n, n);
  if (!undirected) {
    // The reader's CSR is already sorted and free of repeats: drop the loops.
    g.col.reserve(adj.col.size());
    for (index_t i = 0; i < n; ++i) {
      for (offset_t p = adj.rpt[i]; p < adj.rpt[i + 1]; ++p)
        if (adj.col[p] != i) g.col.push_back(adj.col[p]);
      g.rpt[i + 1] = static_cast<offset_t>(g.col.size());
    }
    return g;
  }
  return cpu::undirected_simple(adj);  // A ∪ Aᵀ without the diagonal, rows sorted, no repeats
}

namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

/// The canonical spelling of an integer id ("+007" -> "7"), or "" when `s` is not one.
std::string canonical_integer(const std::string& s) {
  if (s.empty()) return "";
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return "";
  return std::to_string(v);
}

}  // namespace

std::vector<index_t> resolve_sources(const std::vector<std::string>& ids,
                                     const std::vector<std::string>& labels,
                                     const std::string& graph_name) {
  std::unordered_map<std::string, index_t> index;
  index.reserve(labels.size());
  for (std::size_t v = 0; v < labels.size(); ++v) index.emplace(labels[v], static_cast<index_t>(v));
  std::vector<index_t> out;
  out.reserve(ids.size());
  for (const std::string& id : ids) {
    auto it = index.find(id);
    if (it == index.end()) {
      const std::string canon = canonical_integer(id);
      if (!canon.empty()) it = index.find(canon);
    }
    if (it == index.end())
      throw std::runtime_error("source '" + id + "' is not a vertex of " + graph_name);
    out.push_back(it->second);
  }
  return out;
}

std::vector<std::string> parse_sources_argument(const std::string& value) {
  std::vector<std::string> ids;
  std::error_code ec;
  if (std::filesystem::is_regular_file(value, ec)) {
    std::ifstream f(value);
    if (!f) throw std::runtime_error("cannot read the sources file " + value);
    std::string line;
    while (std::getline(f, line)) {
      const std::string id = trim(line);
      if (id.empty() || id[0] == '#') continue;
      ids.push_back(id);
    }
    if (f.bad()) throw std::runtime_error("error while reading the sources file " + value);
    if (ids.empty()) throw std::runtime_error("the sources file " + value + " lists no ids");
    return ids;
  }
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = value.find(',', start);
    const std::string id =
        trim(value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (id.empty())
      throw std::invalid_argument("--sources '" + value +
                                  "' is neither a file nor a comma-separated list of ids");
    ids.push_back(id);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ids;
}

std::vector<index_t> random_sources(index_t n, std::size_t k, std::uint64_t seed) {
  if (k > static_cast<std::size_t>(n))
    throw std::runtime_error("--random " + std::to_string(k) + " asks for more sources than the " +
                             std::to_string(n) + " vertices of the graph");
  // Partial Fisher-Yates: k distinct vertices in random order.
  std::vector<index_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < k; ++i) {
    std::uniform_int_distribution<std::size_t> pick(i, v.size() - 1);
    std::swap(v[i], v[pick(rng)]);
  }
  v.resize(k);
  return v;
}

}  // namespace opsparse::msbfs
