#pragma once
// Sets of nodes 0 .. n-1 for apps/mcl's interpretation: union-find whose classes are named by
// their smallest node, a serial one (mcl's overlap split; the tests' serial interpretation uses
// it too) and one that OpenMP threads may unite in concurrently (the attractor systems), and the
// small hash set of one traversal.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "opsparse/csr.hpp"

namespace opsparse::mcl::detail {

/// Serial union-find with path halving; a root is always linked below a smaller one, so find()
/// ends at the smallest node of the class.
struct union_find {
  std::vector<index_t> parent;
  explicit union_find(index_t n) : parent(static_cast<std::size_t>(n)) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  index_t find(index_t x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }
  void unite(index_t a, index_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    parent[b] = a;
  }
};

/// Union-find that threads may unite in concurrently: a root is always linked below a smaller
/// one (by compare-and-swap), so a parent is never larger than its child, there are no cycles,
/// and find() ends at the smallest node of the class whatever the order of the unions.
class concurrent_union_find {
 public:
  concurrent_union_find(index_t n, int threads)
      : parent_(new std::atomic<index_t>[static_cast<std::size_t>(n)]) {
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (index_t v = 0; v < n; ++v) parent_[v].store(v, std::memory_order_relaxed);
  }
  index_t find(index_t x) {
    for (;;) {
      index_t p = parent_[x].load(std::memory_order_relaxed);
      if (p == x) return x;
      const index_t g = parent_[p].load(std::memory_order_relaxed);
      if (g != p) parent_[x].compare_exchange_weak(p, g, std::memory_order_relaxed);  // halving
      x = g;
    }
  }
  void unite(index_t a, index_t b) {
    for (;;) {
      a = find(a);
      b = find(b);
      if (a == b) return;
      if (b < a) std::swap(a, b);
      index_t expected = b;
      if (parent_[b].compare_exchange_strong(expected, a, std::memory_order_relaxed)) return;
    }
  }

 private:
  std::unique_ptr<std::atomic<index_t>[]> parent_;
};

/// A small set of nodes for one traversal: open addressing, cleared by the slots it used.
class node_set {
 public:
  node_set() : slot_(64, -1) {}
  /// Whether v was new.
  bool insert(index_t v) {
    if (2 * (used_.size() + 1) > slot_.size()) grow();
    const std::size_t mask = slot_.size() - 1;
    for (std::size_t at = hash(v) & mask;; at = (at + 1) & mask) {
      if (slot_[at] == v) return false;
      if (slot_[at] < 0) {
        slot_[at] = v;
        used_.push_back(at);
        return true;
      }
    }
  }
  void clear() {
    for (const std::size_t at : used_) slot_[at] = -1;
    used_.clear();
  }

 private:
  static std::size_t hash(index_t v) {
    return static_cast<std::size_t>(
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(v)) * 0x9e3779b97f4a7c15ULL) >> 32);
  }
  void grow() {
    std::vector<index_t> keys;
    keys.reserve(used_.size());
    for (const std::size_t at : used_) keys.push_back(slot_[at]);
    slot_.assign(slot_.size() * 2, -1);
    used_.clear();
    for (const index_t v : keys) insert(v);
  }
  std::vector<index_t> slot_;
  std::vector<std::size_t> used_;
};

}  // namespace opsparse::mcl::detail
