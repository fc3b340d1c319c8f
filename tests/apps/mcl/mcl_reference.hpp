#pragma once
// The serial interpretation of a limit matrix as apps/mcl had it before it was parallelised
// (mcl's mclDag + mclInterpret + clmEnstrict + revsize sort, one thread, straightforward data
// structures): the oracle that mcl::interpret must equal, cluster for cluster and in the same
// order, on any limit and thread count.
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "core/mcl.hpp"
#include "core/node_sets.hpp"
#include "opsparse/error.hpp"

namespace opsparse::mcl::test {

namespace reference_detail {

// The union-find is a plain data structure, not what is tested: the library's serial one.
using union_find = opsparse::mcl::detail::union_find;

/// mcl's revsize order: more members first, equal sizes by their sorted member lists
/// (mclvSizeRevCmp, which falls back to mclvLexCmp).
inline bool revsize_less(const std::vector<index_t>& a, const std::vector<index_t>& b) {
  if (a.size() != b.size()) return a.size() > b.size();
  return a < b;
}

/// Groups nodes by union-find class (classes in order of their smallest node).
inline std::vector<std::vector<index_t>> classes_of(union_find& uf,
                                                    const std::vector<char>& member) {
  const index_t n = static_cast<index_t>(uf.parent.size());
  std::vector<index_t> id(static_cast<std::size_t>(n), -1);
  std::vector<std::vector<index_t>> out;
  for (index_t v = 0; v < n; ++v) {
    if (!member[v]) continue;
    const index_t root = uf.find(v);
    if (id[root] < 0) {
      id[root] = static_cast<index_t>(out.size());
      out.emplace_back();
    }
    out[id[root]].push_back(v);
  }
  return out;
}

}  // namespace reference_detail

template <class T>
clustering interpret_reference(const host_csr<T>& limit, overlap_mode mode) {
  OPSPARSE_EXPECTS(limit.rows == limit.cols, "interpret: the limit matrix must be square");
  const index_t n = limit.rows;

  // 1. The DAG (mclDag with mcl's interpretation weights 0.999 / 0.001 / delta 0.01), made
  //    stochastic and thinned to values >= 1/(n+1) per row (mclProcess does both).
  std::vector<offset_t> drpt(static_cast<std::size_t>(n) + 1, 0);
  std::vector<index_t> dcol;
  dcol.reserve(static_cast<std::size_t>(limit.nnz()));
  std::vector<std::pair<index_t, T>> kept;
  for (index_t d = 0; d < n; ++d) {
    double selfval = 0, maxval = 0;
    bool any = false;
    for (offset_t k = limit.rpt[d]; k < limit.rpt[d + 1]; ++k) {
      const double v = static_cast<double>(limit.val[k]);
      if (limit.col[k] == d) selfval = v;
      if (!any || v > maxval) maxval = v;
      any = true;
    }
    const double bar = selfval < maxval ? 0.999 * selfval + 0.001 * maxval : selfval / 1.01;
    kept.clear();
    double sum = 0;
    for (offset_t k = limit.rpt[d]; k < limit.rpt[d + 1]; ++k)
      if (static_cast<double>(limit.val[k]) >= bar) {
        kept.emplace_back(limit.col[k], limit.val[k]);
        sum += static_cast<double>(limit.val[k]);
      }
    // Renormalised in T as mcl stores its (float) values, then thinned.
    const double thin = 1.0 / (static_cast<double>(kept.size()) + 1.0);
    for (const auto& e : kept) {
      const T v = sum != 0 ? static_cast<T>(static_cast<double>(e.second) / sum) : e.second;
      if (static_cast<double>(v) >= thin) dcol.push_back(e.first);
    }
    drpt[d + 1] = static_cast<offset_t>(dcol.size());
  }

  // 2. Attractors keep their loop; attractor systems are the connected components of the DAG
  //    restricted to attractors, made undirected.
  std::vector<char> attractor(static_cast<std::size_t>(n), 0);
  for (index_t d = 0; d < n; ++d)
    for (offset_t k = drpt[d]; k < drpt[d + 1]; ++k)
      if (dcol[k] == d) attractor[d] = 1;
  clustering out;
  reference_detail::union_find uf(n);
  for (index_t d = 0; d < n; ++d) {
    if (!attractor[d]) continue;
    ++out.attractors;
    for (offset_t k = drpt[d]; k < drpt[d + 1]; ++k)
      if (attractor[dcol[k]]) uf.unite(d, dcol[k]);
  }
  std::vector<std::vector<index_t>> systems = reference_detail::classes_of(uf, attractor);
  // Cluster ids follow mcl's component order (clmUGraphComponents sorts by revsize); the cut
  // overlap mode keeps a node in its lowest-numbered cluster, so the order matters.
  std::sort(systems.begin(), systems.end(), reference_detail::revsize_less);
  std::vector<index_t> system_of(static_cast<std::size_t>(n), -1);
  for (std::size_t c = 0; c < systems.size(); ++c)
    for (index_t v : systems[c]) system_of[v] = static_cast<index_t>(c);

  // 3. Every other node joins the systems of all attractors it reaches through the DAG; a node
  //    that reaches none is missing: clmEnstrict collects those into one extra cluster, numbered
  //    after the systems. Memberships as one flat list (node d's are member[member_start[d] ..
  //    member_start[d + 1]), sorted): a vector per node cost 200,000 allocations at 200,000
  //    nodes, a fifth of the interpretation.
  const index_t missing_cluster = static_cast<index_t>(systems.size());
  std::vector<offset_t> member_start(static_cast<std::size_t>(n) + 1, 0);
  std::vector<index_t> member;
  member.reserve(static_cast<std::size_t>(n));
  {
    std::vector<index_t> seen(static_cast<std::size_t>(n), -1);
    std::vector<index_t> stack;
    for (index_t d = 0; d < n; ++d) {
      const std::size_t first = member.size();
      if (attractor[d]) {
        member.push_back(system_of[d]);
      } else {
        stack.clear();
        for (offset_t k = drpt[d]; k < drpt[d + 1]; ++k)
          if (seen[dcol[k]] != d) {
            seen[dcol[k]] = d;
            stack.push_back(dcol[k]);
          }
        while (!stack.empty()) {
          const index_t v = stack.back();
          stack.pop_back();
          if (attractor[v]) member.push_back(system_of[v]);
          for (offset_t k = drpt[v]; k < drpt[v + 1]; ++k)
            if (seen[dcol[k]] != d) {
              seen[dcol[k]] = d;
              stack.push_back(dcol[k]);
            }
        }
        std::sort(member.begin() + static_cast<std::ptrdiff_t>(first), member.end());
        member.erase(std::unique(member.begin() + static_cast<std::ptrdiff_t>(first), member.end()),
                     member.end());
        if (member.size() == first) {
          member.push_back(missing_cluster);
          ++out.missing;
        }
      }
      out.overlap += member.size() - first - 1;
      member_start[static_cast<std::size_t>(d) + 1] = static_cast<offset_t>(member.size());
    }
  }
  const auto first_member = [&](index_t d) { return member.data() + member_start[d]; };
  const auto last_member = [&](index_t d) { return member.data() + member_start[d + 1]; };

  // 4. clmEnstrict: overlap is cut, kept or split.
  const index_t n_clusters = missing_cluster + (out.missing ? 1 : 0);
  std::vector<std::vector<index_t>> clusters;
  if (mode == overlap_mode::split && out.overlap) {
    // clm_split_overlap: nodes unique to a cluster form one group; the nodes shared by any two
    // clusters form one group; groups that share a node merge.
    reference_detail::union_find g(n);
    std::vector<index_t> unique_rep(static_cast<std::size_t>(n_clusters), -1);
    std::map<std::pair<index_t, index_t>, index_t> meet_rep;
    for (index_t d = 0; d < n; ++d) {
      const index_t* const m = first_member(d);
      const std::ptrdiff_t size = last_member(d) - m;
      if (size == 1) {
        index_t& rep = unique_rep[m[0]];
        if (rep < 0)
          rep = d;
        else
          g.unite(rep, d);
        continue;
      }
      for (std::ptrdiff_t a = 0; a < size; ++a)
        for (std::ptrdiff_t b = a + 1; b < size; ++b) {
          auto it = meet_rep.emplace(std::make_pair(m[a], m[b]), d).first;
          g.unite(it->second, d);
        }
    }
    clusters = reference_detail::classes_of(g, std::vector<char>(static_cast<std::size_t>(n), 1));
  } else {
    // Sized first: one allocation per cluster.
    const bool keep = mode == overlap_mode::keep;
    std::vector<std::size_t> size(static_cast<std::size_t>(n_clusters), 0);
    for (index_t d = 0; d < n; ++d) {
      if (keep) {
        for (const index_t* c = first_member(d); c < last_member(d); ++c) ++size[*c];
      } else {
        ++size[*first_member(d)];
      }
    }
    clusters.resize(static_cast<std::size_t>(n_clusters));
    for (index_t c = 0; c < n_clusters; ++c) clusters[c].reserve(size[c]);
    for (index_t d = 0; d < n; ++d) {
      if (keep) {
        for (const index_t* c = first_member(d); c < last_member(d); ++c) clusters[*c].push_back(d);
      } else {
        clusters[*first_member(d)].push_back(d);  // cut: the lowest-numbered cluster wins
      }
    }
  }
  clusters.erase(
      std::remove_if(clusters.begin(), clusters.end(), [](const auto& c) { return c.empty(); }),
      clusters.end());
  std::sort(clusters.begin(), clusters.end(), reference_detail::revsize_less);
  out.clusters = std::move(clusters);
  return out;
}

}  // namespace opsparse::mcl::test
