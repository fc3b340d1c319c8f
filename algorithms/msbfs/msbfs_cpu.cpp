// msbfs::backend on the host (OpenMP): the oracle of the GPU backend and the program's engine
// where no GPU is present.
//
// The product F ← (F·A)<¬V> of msbfs.hpp, computed so that a level costs what its frontier
// costs: with the batch's b sources packed 64 to a word, F, V and the next F are n × W bitmaps
// (W = ⌈b/64⌉ words per vertex: bit r of vertex v's words is entry (r, v)), and F's nonzero
// vertices are also kept as a list. A level is then one of
//   push  for each listed vertex v and out-edge v → u: next(u) |= F(v) & ¬V(u), u listed once;
//         O(W · Σ deg over the list), whatever n and the size of V;
//   pull  for each vertex u and word w still wanted by some live source: next(u) = OR of F(v)
//         over the in-edges v → u (Aᵀ), stopping once every wanted bit is found; O(W · (n +
//         nnz(A))) at most, so it is only chosen when the push would cost a fair share of that.
// and V |= next, the new bits counted per source as they are found (reached, level sum,
// eccentricity), and only the vertices of the old list cleared. Apart from the pulls, which the
// frontier pays for, nothing is proportional to n or to nnz(V) per level: a 100k-vertex path
// (100k levels of one vertex) is linear, where the sparse product over n columns and the merge
// V ∪ F (rewriting V) every level made it quadratic (46 s against 7 ms).
// V as a matrix (levels()) is rebuilt at the end of a batch from a log of each level's new bits.
// The product formulation itself runs on the CPU engine too (make_cpu_product_backend,
// msbfs_space.hpp's levels over cpu_space: the GPU's push levels, checked against this
// backend without a GPU).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "msbfs/msbfs.hpp"
#include "msbfs/msbfs_space.hpp"
#include "opsparse/cpu/graph_ops.hpp"
#include "opsparse/error.hpp"
#include "opsparse/space.hpp"

namespace opsparse::msbfs {

namespace {

using word = std::uint64_t;
constexpr int word_bits = 64;

/// A level goes parallel from this many edge-words. Chosen, not tuned: far above the few
/// microseconds that starting and joining a team costs, so that small levels stay serial (with
/// a team per level the old engine took 22-58 s on a 10k path on two busy cores, 1.5 s on one
/// thread; at 2^14 the tests' 18k-vertex grid spent three quarters of its time in libgomp,
/// its threads spinning through the serial end of each level).
constexpr long long parallel_work = 1 << 16;

/// Pull when the push would expand more than (n + nnz(A)) / pull_divisor edges: a pull touches
/// every vertex and at most every in-edge once per word, but reads in order and needs no atomics.
/// 4 is the GPU's divisor (msbfs.hpp). Measured with -u on two shared cores (best of 3 search
/// times, push only vs 4): p2p-Gnutella31 1024 sources 800 vs 503 ms, delaunay_n14 1192 vs
/// 714 ms, facebook_combined 24.9 vs 19.6 ms. Counted in work() (machine-independent), 2 to 8
/// are within 10% on those and on ca-HepTh, bcsstk33, power-grid; 16 pulls on luxembourg (256
/// sources, a road network) and takes 1.07e9 steps instead of 0.30e9.
constexpr long long pull_divisor = 4;

class cpu_backend final : public backend {
 public:
  explicit cpu_backend(int threads) : threads_(threads) {}

  const char* name() const override { return "cpu"; }

  void load(const host_csr<pattern>& a, bool symmetric) override {
    OPSPARSE_EXPECTS(a.rows == a.cols, "BFS needs a square adjacency matrix");
    a_ = a;
    symmetric_ = symmetric;
    has_transpose_ = false;
    at_ = host_csr<pattern>();
    words_ = -1;  // the bitmaps are laid out for another n
    queued_.assign(static_cast<std::size_t>(a_.rows), 0);
  }

  void configure(direction dir, bool keep_levels) override {
    dir_ = dir;
    keep_levels_ = keep_levels;
  }

  void start(const std::vector<index_t>& sources) override {
    const index_t b = static_cast<index_t>(sources.size());
    for (index_t s : sources)
      OPSPARSE_EXPECTS(s >= 0 && s < a_.rows, "source " + std::to_string(s) + " out of range");
    const int w_count = static_cast<int>((static_cast<long long>(b) + word_bits - 1) / word_bits);
    const std::size_t cells = static_cast<std::size_t>(a_.rows) * static_cast<std::size_t>(w_count);
    if (w_count != words_) {
      visited_.assign(cells, 0);
      front_.assign(cells, 0);
      next_.assign(cells, 0);
      words_ = w_count;
    } else {
      // Only what the last batch touched is nonzero (next_ is always clean between levels).
      for (index_t v : touched_) std::fill_n(&visited_[cell(v)], words_, word{0});
      for (index_t v : list_) std::fill_n(&front_[cell(v)], words_, word{0});
    }
    rows_ = b;
    touched_.clear();
    list_.clear();
    next_list_.clear();
    summary_.assign(static_cast<std::size_t>(b), source_summary{});
    for (index_t r = 0; r < b; ++r) {
      const index_t s = sources[r];
      if (!any_bit(visited_, s)) {  // a duplicate source shares its vertex's list entry
        list_.push_back(s);
        touched_.push_back(s);
      }
      const word bit = word{1} << (r % word_bits);
      visited_[cell(s) + r / word_bits] |= bit;
      front_[cell(s) + r / word_bits] |= bit;
      summary_[r].reached = 1;
    }
    log_vertex_.clear();
    log_level_.clear();
    log_bits_.clear();
    if (keep_levels_)
      for (index_t s : list_) record(s, 0, &visited_[cell(s)]);
    push_levels_ = pull_levels_ = 0;
  }

  offset_t advance(level_t level) override {
    if (list_.empty()) return 0;
    // The frontier's push products (what F·A multiplies, counted per source) and its sources.
    active_.assign(static_cast<std::size_t>(words_), 0);
    long long list_edges = 0;
    for (index_t v : list_) {
      const offset_t d = a_.rpt[v + 1] - a_.rpt[v];
      list_edges += d;
      work_ += words_;
      for (int w = 0; w < words_; ++w) {
        const word f = front_[cell(v) + w];
        active_[w] |= f;
        products_ += static_cast<offset_t>(__builtin_popcountll(f)) * d;
      }
    }
    const long long pull_bound = static_cast<long long>(a_.rows) + a_.nnz();
    const bool pull = dir_ == direction::pull ||
                      (dir_ == direction::automatic && list_edges * pull_divisor > pull_bound);
    last_pull_ = pull;
    if (pull) {
      pull_level();
      ++pull_levels_;
    } else {
      push_level(list_edges * words_);
      work_ += list_edges * words_;
      ++push_levels_;
    }
    const offset_t found = finish_level(level);
    for (index_t v : list_) std::fill_n(&front_[cell(v)], words_, word{0});
    work_ += static_cast<offset_t>(list_.size()) * words_;
    std::swap(front_, next_);  // next_ is now the old, cleared frontier
    std::swap(list_, next_list_);
    next_list_.clear();
    return found;
  }

  std::vector<source_summary> summarise() override { return summary_; }

  host_csr<level_t> levels() override {
    OPSPARSE_EXPECTS(keep_levels_,
                     "levels() needs configure(..., keep_levels = true) before start()");
    host_csr<level_t> v(rows_, a_.cols);
    for (index_t r = 0; r < rows_; ++r) v.rpt[r + 1] = v.rpt[r] + summary_[r].reached;
    v.col.resize(static_cast<std::size_t>(v.rpt[rows_]));
    v.val.resize(v.col.size());
    // Every entry (r, u) is in exactly one record; visiting the records by vertex fills each row
    // in column order.
    std::vector<std::size_t> order(log_vertex_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t x, std::size_t y) { return log_vertex_[x] < log_vertex_[y]; });
    std::vector<offset_t> at(v.rpt.begin(), v.rpt.end() - 1);
    for (std::size_t k : order) {
      const word* bits = &log_bits_[k * static_cast<std::size_t>(words_)];
      for (int w = 0; w < words_; ++w)
        for (word x = bits[w]; x != 0; x &= x - 1) {
          const index_t r = w * word_bits + __builtin_ctzll(x);
          v.col[at[r]] = log_vertex_[k];
          v.val[at[r]++] = log_level_[k];
        }
    }
    return v;
  }

  /// The push products of every level (F·A as msbfs.hpp writes it), whichever way it ran.
  offset_t products() const override { return products_; }
  const char* last_level_note() const override { return last_pull_ ? "pull" : "push"; }
  std::string last_batch_note() const override {
    if (pull_levels_ == 0) return "push";
    return "push " + std::to_string(push_levels_) + ", pull " + std::to_string(pull_levels_);
  }
  offset_t batch_budget() const override { return offset_t{1} << 24; }
  /// Per level: W per listed vertex (twice: counted, then cleared), W per edge of a push, W per
  /// vertex plus the in-edges read by a pull, W per vertex of the next list and 1 per new bit.
  offset_t work() const override { return work_; }

 private:
  std::size_t cell(index_t v) const {
    return static_cast<std::size_t>(v) * static_cast<std::size_t>(words_);
  }
  bool any_bit(const std::vector<word>& bits, index_t v) const {
    for (int w = 0; w < words_; ++w)
      if (bits[cell(v) + w] != 0) return true;
    return false;
  }
  int team(long long work) const {
    if (work < parallel_work) return 1;
    return threads_ > 0 ? threads_ : std::max(1, omp_get_max_threads());
  }

  void record(index_t v, level_t level, const word* bits) {
    log_vertex_.push_back(v);
    log_level_.push_back(level);
    log_bits_.insert(log_bits_.end(), bits, bits + words_);
  }

  /// next(u) |= F(v) & ¬V(u) over the out-edges of the listed v; each u with new bits joins
  /// next_list_ once.
  void push_level(long long work) {
    const int threads = team(work);
    const long long m = static_cast<long long>(list_.size());
    if (threads == 1) {
      for (long long i = 0; i < m; ++i) expand<false>(list_[i], next_list_);
      return;
    }
    gather(threads, [&](std::vector<index_t>& out) {
#pragma omp for schedule(dynamic, 64) nowait
      for (long long i = 0; i < m; ++i) expand<true>(list_[i], out);
    });
  }

  /// One vertex of a push. Shared: next(u)'s words are or-ed and queued_[u] claimed atomically,
  /// each only when it would change (most edges of a level find bits another edge already set,
  /// and a locked instruction costs several times the plain one).
  template <bool Shared>
  void expand(index_t v, std::vector<index_t>& out) {
    const word* f = &front_[cell(v)];
    for (offset_t p = a_.rpt[v]; p < a_.rpt[v + 1]; ++p) {
      const index_t u = a_.col[p];
      bool found = false;
      for (int w = 0; w < words_; ++w) {
        const word nb = f[w] & ~visited_[cell(u) + w];
        if (nb == 0) continue;
        found = true;
        word& slot = next_[cell(u) + w];
        if constexpr (Shared) {
          word now;
#pragma omp atomic read
          now = slot;
          if ((now & nb) == nb) continue;
#pragma omp atomic
          slot |= nb;
        } else {
          slot |= nb;
        }
      }
      if (!found) continue;
      unsigned char was;
      if constexpr (Shared) {
#pragma omp atomic read
        was = queued_[u];
        if (was != 0) continue;
#pragma omp atomic capture
        {
          was = queued_[u];
          queued_[u] = 1;
        }
      } else {
        was = queued_[u];
        queued_[u] = 1;
      }
      if (was == 0) out.push_back(u);
    }
  }

  /// next(u) = OR of F(v) over u's in-edges, for the words where a live source has not yet
  /// reached u; the scan of a word stops once all its wanted bits are found.
  void pull_level() {
    if (!symmetric_ && !has_transpose_) build_transpose();
    const host_csr<pattern>& t = symmetric_ ? a_ : at_;
    const long long n = a_.rows;
    const int threads = team((n + a_.nnz()) * words_);
    offset_t scanned = 0;
    gather(threads, [&](std::vector<index_t>& out) {
      offset_t mine = 0;
#pragma omp for schedule(dynamic, 1024) nowait
      for (long long u = 0; u < n; ++u) {
        bool found = false;
        for (int w = 0; w < words_; ++w) {
          const word want = active_[w] & ~visited_[cell(static_cast<index_t>(u)) + w];
          if (want == 0) continue;
          word got = 0;
          offset_t p = t.rpt[u];
          while (p < t.rpt[u + 1]) {
            got |= front_[cell(t.col[p++]) + w];
            if ((got & want) == want) break;
          }
          mine += p - t.rpt[u];
          got &= want;
          if (got == 0) continue;
          next_[cell(static_cast<index_t>(u)) + w] = got;
          found = true;
        }
        if (found) out.push_back(static_cast<index_t>(u));
      }
#pragma omp atomic
      scanned += mine;
    });
    work_ += n * words_ + scanned;
  }

  /// Runs `body(list)` on a team of `threads`, each with its own list, and appends the lists to
  /// next_list_.
  template <class Body>
  void gather(int threads, const Body& body) {
    // Cleared here, not by each thread: OpenMP may start fewer threads than asked.
    if (static_cast<int>(lists_.size()) < threads) lists_.resize(static_cast<std::size_t>(threads));
    for (auto& l : lists_) l.clear();
#pragma omp parallel num_threads(threads)
    body(lists_[static_cast<std::size_t>(omp_get_thread_num())]);
    for (const auto& l : lists_) next_list_.insert(next_list_.end(), l.begin(), l.end());
  }

  /// V |= next over next_list_, with the new bits counted per source; returns nnz(next).
  offset_t finish_level(level_t level) {
    offset_t found = 0;
    for (index_t u : next_list_) {
      queued_[u] = 0;
      bool seen = false;
      for (int w = 0; w < words_; ++w) {
        word& vis = visited_[cell(u) + w];
        seen = seen || vis != 0;
        const word nb = next_[cell(u) + w];
        vis |= nb;
        found += __builtin_popcountll(nb);
        for (word x = nb; x != 0; x &= x - 1) {
          source_summary& s = summary_[w * word_bits + __builtin_ctzll(x)];
          ++s.reached;
          s.level_sum += level;
          s.eccentricity = level;
        }
      }
      if (!seen) touched_.push_back(u);
      if (keep_levels_) record(u, level, &next_[cell(u)]);
    }
    work_ += static_cast<offset_t>(next_list_.size()) * words_ + found;
    return found;
  }

  /// Aᵀ: the pull of a directed graph reads in-edges.
  void build_transpose() {
    const cpu::scoped_threads team(threads_);
    at_ = cpu::transpose(a_);
    has_transpose_ = true;
  }

  int threads_ = 0;
  host_csr<pattern> a_, at_;
  bool symmetric_ = false, has_transpose_ = false, keep_levels_ = false;
  direction dir_ = direction::automatic;
  index_t rows_ = 0;
  int words_ = -1;
  std::vector<word> visited_, front_, next_, active_;
  std::vector<index_t> list_, next_list_, touched_;
  std::vector<std::vector<index_t>> lists_;
  std::vector<unsigned char> queued_;
  std::vector<source_summary> summary_;
  std::vector<index_t> log_vertex_;
  std::vector<level_t> log_level_;
  std::vector<word> log_bits_;
  int push_levels_ = 0, pull_levels_ = 0;
  bool last_pull_ = false;
  offset_t products_ = 0, work_ = 0;
};

}  // namespace

std::unique_ptr<backend> make_cpu_backend(int threads) {
  return std::make_unique<cpu_backend>(threads);
}

std::unique_ptr<backend> make_cpu_product_backend(int threads) {
  return std::make_unique<space_backend<cpu_space>>("cpu-products", threads);
}

}  // namespace opsparse::msbfs
