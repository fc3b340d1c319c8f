// mcl 22-282's graph transforms (see mcl_graph_tf.hpp). Written from mcl's manual (mcxio(5)) and
// its observed results (mcxload -tf and mcl -tf on test graphs): each step works on mcl's float
// cells, node by node in index order, as mcl's does, so that ties and roundings fall as in mcl.
#include "mcl_graph_tf.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <stdexcept>

namespace opsparse::mcl {

namespace {

using graph_op = matrix_transform::graph_op;

/// One arc of a node as mcl holds it: the other end and mcl's float cell.
struct arc {
  index_t j;
  float v;
};
using arcs = std::vector<arc>;
using columns = std::vector<arcs>;  // columns[i]: node i's arcs, by index

columns to_columns(const host_csr<double>& a) {
  columns c(static_cast<std::size_t>(a.rows));
  for (index_t i = 0; i < a.rows; ++i)
    for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k)
      if (a.val[k] != 0)
        c[static_cast<std::size_t>(i)].push_back({a.col[k], static_cast<float>(a.val[k])});
  return c;
}

/// Back to this program's values: a cell of 0 stays an entry (the smallest double, 0 as a float).
void from_columns(host_csr<double>& a, const columns& c) {
  host_csr<double> out(a.rows, a.cols);
  for (std::size_t i = 0; i < c.size(); ++i) {
    for (const arc& e : c[i]) {
      out.col.push_back(e.j);
      out.val.push_back(e.v != 0 ? static_cast<double>(e.v)
                                 : std::numeric_limits<double>::denorm_min());
    }
    out.rpt[i + 1] = static_cast<offset_t>(out.col.size());
  }
  a = std::move(out);
}

columns transpose(const columns& c) {
  columns t(c.size());
  for (std::size_t i = 0; i < c.size(); ++i)
    for (const arc& e : c[i])
      t[static_cast<std::size_t>(e.j)].push_back({static_cast<index_t>(i), e.v});
  return t;
}

/// mcl's count from a float argument: k + 0.5 truncated to an unsigned integer (below -1 the
/// conversion wraps to the largest count, as on mcl's x86-64 build).
std::size_t mcl_count(double arg) {
  const double x = arg + 0.5;
  if (!(x >= 0)) return x > -1 ? 0 : std::numeric_limits<std::size_t>::max();
  if (x >= 1.8e19) return std::numeric_limits<std::size_t>::max();
  return static_cast<std::size_t>(x);
}

/// mcl's mclvKBar: the k-th largest value (KBAR_SELECT_LARGE, values >= FLT_MAX left out) or,
/// for a column that keeps more than half, the (n-k+1)-th smallest (values below -FLT_MAX left
/// out); fewer candidates than that give the last of them, none the heap's sentinel.
double k_bar(const arcs& c, std::size_t k) {
  const std::size_t n = c.size();
  const bool large = n >= 2 * k;
  const std::size_t rank = large ? k : n - k + 1;
  std::vector<float> v;
  v.reserve(n);
  for (const arc& e : c)  // NaN left out (mcl's heap places it as its comparisons fall)
    if (!std::isnan(e.v) && (large ? !(e.v >= FLT_MAX) : !(e.v < -FLT_MAX))) v.push_back(e.v);
  if (rank == 0) return FLT_MAX;  // k = 0: only the sentinel
  if (v.empty()) return large ? FLT_MAX : -FLT_MAX;
  const std::size_t r = std::min(rank, v.size());
  if (large)
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(r - 1), v.end(),
                     std::greater<float>());
  else
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(r - 1), v.end());
  return static_cast<double>(v[r - 1]);
}

void keep_if(arcs& c, const std::function<bool(float)>& keep) {
  c.erase(std::remove_if(c.begin(), c.end(), [&](const arc& e) { return !keep(e.v); }), c.end());
}

/// mcl's mclvSelectHighest: the values >= the k-th largest; when ties keep more than k, those
/// >= it times 1 + FLT_EPSILON.
void select_highest(arcs& c, std::size_t k) {
  if (c.size() <= k) return;
  const double f = k_bar(c, k);
  keep_if(c, [f](float v) { return static_cast<double>(v) >= f; });
  if (c.size() > k) {
    const double g = f * (1.0 + FLT_EPSILON);
    keep_if(c, [g](float v) { return static_cast<double>(v) >= g; });
  }
}

bool has_arc(const arcs& c, index_t j) {
  const auto it =
      std::lower_bound(c.begin(), c.end(), j, [](const arc& e, index_t x) { return e.j < x; });
  return it != c.end() && it->j == j;
}

/// mcl's mclxMergeTranspose: every arc i->j becomes op(i->j, j->i), a missing arc 0, and a
/// result of 0 no arc.
void merge_transpose(columns& c, const std::function<float(float, float)>& op) {
  const columns t = transpose(c);
  for (std::size_t i = 0; i < c.size(); ++i) {
    const arcs& l = c[i];
    const arcs& r = t[i];
    arcs out;
    std::size_t p = 0, q = 0;
    while (p < l.size() || q < r.size()) {
      const index_t jl = p < l.size() ? l[p].j : std::numeric_limits<index_t>::max();
      const index_t jr = q < r.size() ? r[q].j : std::numeric_limits<index_t>::max();
      const index_t j = std::min(jl, jr);
      const float a = jl == j ? l[p++].v : 0.0f;
      const float b = jr == j ? r[q++].v : 0.0f;
      const float x = op(a, b);
      if (x != 0) out.push_back({j, x});
    }
    c[i] = std::move(out);
  }
}

/// mcl's mclxAdjustLoops with mclxLoopCBremove: a node with a loop loses it, and its arcs of
/// value 0 with it.
void remove_loops(columns& c) {
  for (std::size_t i = 0; i < c.size(); ++i)
    if (has_arc(c[i], static_cast<index_t>(i)))
      c[i].erase(
          std::remove_if(c[i].begin(), c[i].end(),
                         [&](const arc& e) { return e.j == static_cast<index_t>(i) || e.v == 0; }),
          c[i].end());
}

/// mclxAdjustLoops with mclxLoopCBmax: every node's loop is its heaviest arc (the old loop
/// counted as 0), 1 when that is 0 or there is none.
void max_loops(columns& c) {
  for (std::size_t i = 0; i < c.size(); ++i) {
    arcs& v = c[i];
    const index_t self = static_cast<index_t>(i);
    double m = -FLT_MAX;
    for (const arc& e : v) m = std::max(m, e.j == self ? 0.0 : static_cast<double>(e.v));
    const float loop = !v.empty() && m != 0 ? static_cast<float>(m) : 1.0f;
    const auto it =
        std::lower_bound(v.begin(), v.end(), self, [](const arc& e, index_t x) { return e.j < x; });
    if (it != v.end() && it->j == self)
      it->v = loop;
    else
      v.insert(it, {self, loop});
  }
}

void knn(columns& c, double arg, graph_op op) {
  if (arg == 0) return;  // mcl: "if (val)"
  const std::size_t k = mcl_count(arg);
  for (arcs& v : c) select_highest(v, k);
  if (op == graph_op::knnj) {
    merge_transpose(c, [](float a, float b) { return a > b ? a : b; });
  } else if (op == graph_op::knn) {
    // An arc stays when its reverse survived the selection too; then every 0 goes.
    std::vector<arcs> kept(c.size());
    for (std::size_t i = 0; i < c.size(); ++i)
      for (const arc& e : c[i])
        if (e.v != 0 && has_arc(c[static_cast<std::size_t>(e.j)], static_cast<index_t>(i)))
          kept[i].push_back(e);
    c = std::move(kept);
  }
}

/// mcl's mclgCeilNB: the nodes with more than k arcs, most arcs first (then by index), each
/// keeping its k heaviest; an arc dropped so loses its reverse.
void ceil_neighbours(columns& c, double arg) {
  const std::size_t k = mcl_count(arg);
  std::vector<std::pair<std::size_t, std::size_t>> hubs;  // (arcs, node)
  for (std::size_t i = 0; i < c.size(); ++i)
    if (!c[i].empty() && static_cast<double>(c[i].size()) > static_cast<double>(k) + 0.5)
      hubs.push_back({c[i].size(), i});
  std::sort(hubs.begin(), hubs.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (const auto& h : hubs) {
    arcs& hub = c[h.second];
    const arcs before = hub;
    select_highest(hub, k);
    for (const arc& e : before) {
      if (e.v == 0 || has_arc(hub, e.j)) continue;  // mcl's difference drops the zeros
      arcs& tgt = c[static_cast<std::size_t>(e.j)];
      const auto it = std::lower_bound(tgt.begin(), tgt.end(), static_cast<index_t>(h.second),
                                       [](const arc& x, index_t y) { return x.j < y; });
      if (it != tgt.end() && it->j == static_cast<index_t>(h.second)) tgt.erase(it);
    }
  }
}

/// mcl's mclxCompose(G, G) `arg` times in a row: every product column summed in double, in the
/// order of its factors, each product a float cell; sums of 0 stay entries.
void step(columns& c, double arg) {
  const std::size_t times = mcl_count(arg);
  for (std::size_t t = 0; t < times; ++t) {
    columns out(c.size());
    std::vector<double> acc(c.size(), 0);
    std::vector<char> seen(c.size(), 0);
    std::vector<index_t> touched;
    for (std::size_t i = 0; i < c.size(); ++i) {
      touched.clear();
      for (const arc& f : c[i])
        for (const arc& e : c[static_cast<std::size_t>(f.j)]) {
          const std::size_t d = static_cast<std::size_t>(e.j);
          if (!seen[d]) {
            seen[d] = 1;
            acc[d] = 0;
            touched.push_back(e.j);
          }
          acc[d] += static_cast<double>(f.v) * static_cast<double>(e.v);
        }
      std::sort(touched.begin(), touched.end());
      for (index_t d : touched) {
        out[i].push_back({d, static_cast<float>(acc[static_cast<std::size_t>(d)])});
        seen[static_cast<std::size_t>(d)] = 0;
      }
    }
    c = std::move(out);
  }
}

/// mcl's mclvPowSum(v, 2): each square rounded to a float, summed in double.
double sum_of_squares(const arcs& v) {
  double s = 0;
  for (const arc& e : v) s += static_cast<float>(std::pow(static_cast<double>(e.v), 2.0));
  return s;
}

/// mcl's mclxPerturb (symmetric, not random): node by node, each arc to a smaller index times
/// 1 + FLT_EPSILON radius cos, and the reverse arc set to the result.
void tug(columns& c, double radius) {
  std::vector<float> sosq(c.size());  // held in a float vector there, multiplied as floats
  for (std::size_t i = 0; i < c.size(); ++i) sosq[i] = static_cast<float>(sum_of_squares(c[i]));
  for (std::size_t i = 0; i < c.size(); ++i) {
    for (std::size_t p = 0; p < c[i].size() && c[i][p].j < static_cast<index_t>(i); ++p) {
      const std::size_t w = static_cast<std::size_t>(c[i][p].j);
      const double nom = std::sqrt(static_cast<double>(sosq[w] * sosq[i]));
      double in = 0;
      std::size_t x = 0, y = 0;
      while (x < c[w].size() && y < c[i].size()) {  // mclvIn: float products summed in double
        if (c[w][x].j < c[i][y].j)
          ++x;
        else if (c[w][x].j > c[i][y].j)
          ++y;
        else
          in += static_cast<double>(c[w][x++].v * c[i][y++].v);
      }
      const double fraction = nom != 0 ? in / nom : 0.0;
      const double perturb = 1.0 + FLT_EPSILON * radius * fraction;
      c[i][p].v = static_cast<float>(static_cast<double>(c[i][p].v) * perturb);
      arcs& wv = c[w];
      const index_t self = static_cast<index_t>(i);
      const auto it = std::lower_bound(wv.begin(), wv.end(), self,
                                       [](const arc& e, index_t z) { return e.j < z; });
      if (it != wv.end() && it->j == self)
        it->v = c[i][p].v;
      else
        wv.insert(it, {self, c[i][p].v});
    }
  }
}

/// mcl's mclxILS: loops removed; node by node, each arc to a node of smaller or equal index gets
/// the sum of log 2 / log deg over the common neighbours (with nonzero cells on both sides, as
/// they stand then); then the larger of the two arcs of each pair.
void ils(columns& c) {
  remove_loops(c);
  for (std::size_t i = 0; i < c.size(); ++i) {
    arcs& v = c[i];
    for (std::size_t p = 0; p < v.size() && v[p].j <= static_cast<index_t>(i); ++p) {
      const arcs& vj = c[static_cast<std::size_t>(v[p].j)];
      double sum = 0;
      std::size_t x = 0, y = 0;
      while (x < v.size() && y < vj.size()) {
        if (v[x].j < vj[y].j) {
          ++x;
        } else if (v[x].j > vj[y].j) {
          ++y;
        } else {
          const std::size_t deg = c[static_cast<std::size_t>(v[x].j)].size();
          if (v[x].v != 0 && vj[y].v != 0 && deg > 1)
            sum += std::log(2.0) / std::log(static_cast<double>(deg));
          ++x;
          ++y;
        }
      }
      v[p].v = static_cast<float>(sum);
    }
  }
  merge_transpose(c, [](float a, float b) { return a > b ? a : b; });
  for (std::size_t i = 0; i < c.size(); ++i)  // mcl scales the loops by 0: none are left
    for (arc& e : c[i])
      if (e.j == static_cast<index_t>(i)) e.v = 0;
}

/// mcl's tf_ssq: a node keeps its arcs above f * (sum of squares - loop^2) / (sum - loop).
void ssq(columns& c, double f) {
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double sq = sum_of_squares(c[i]);
    double sum = 0, self = 0;
    for (const arc& e : c[i]) {
      sum += static_cast<double>(e.v);
      if (e.j == static_cast<index_t>(i)) self = static_cast<double>(e.v);
    }
    if (sum - self == 0) continue;
    const double bar = f * (sq - self * self) / (sum - self);
    keep_if(c[i], [bar](float v) { return static_cast<double>(v) > bar; });
  }
}

/// mcl's mclxNormSelf: a node's arcs divided by its loop (its heaviest arc without one).
void norm_self(columns& c) {
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i].empty()) continue;
    double m = -FLT_MAX;
    bool loop = false;
    for (const arc& e : c[i]) {
      if (e.j == static_cast<index_t>(i)) {
        m = e.v;
        loop = true;
        break;
      }
      m = std::max(m, static_cast<double>(e.v));
    }
    if (!loop)
      for (const arc& e : c[i]) m = std::max(m, static_cast<double>(e.v));
    for (arc& e : c[i]) e.v = static_cast<float>(static_cast<double>(e.v) / m);
  }
}

using pair_rule = bool (*)(float, float, float);
pair_rule pair_rule_of(graph_op op) {
  switch (op) {
    case graph_op::arcmaxgq: return [](float l, float r, float f) { return l >= f || r >= f; };
    case graph_op::arcmaxgt: return [](float l, float r, float f) { return l > f || r > f; };
    case graph_op::arcmaxlq: return [](float l, float r, float f) { return l <= f || r <= f; };
    case graph_op::arcmaxlt: return [](float l, float r, float f) { return l < f || r < f; };
    case graph_op::arcmingq: return [](float l, float r, float f) { return l >= f && r >= f; };
    case graph_op::arcmingt: return [](float l, float r, float f) { return l > f && r > f; };
    case graph_op::arcminlq: return [](float l, float r, float f) { return l <= f && r <= f; };
    case graph_op::arcminlt: return [](float l, float r, float f) { return l < f && r < f; };
    case graph_op::arcdiffgq:
      return [](float l, float r, float f) { return l - r >= f || r - l >= f; };
    case graph_op::arcdiffgt:
      return [](float l, float r, float f) { return l - r > f || r - l > f; };
    case graph_op::arcdifflq:
      return [](float l, float r, float f) { return l - r <= f || r - l <= f; };
    default: return [](float l, float r, float f) { return l - r < f || r - l < f; };
  }
}

/// The steps that combine each arc with its reverse (mcl's mclxMergeTranspose and ...3).
bool merge_step(columns& c, graph_op op, double arg) {
  switch (op) {
    case graph_op::add: merge_transpose(c, [](float a, float b) { return a + b; }); return true;
    case graph_op::max:
      merge_transpose(c, [](float a, float b) { return a > b ? a : b; });
      return true;
    case graph_op::min:
      merge_transpose(c, [](float a, float b) { return a < b ? a : b; });
      return true;
    case graph_op::mul: merge_transpose(c, [](float a, float b) { return a * b; }); return true;
    case graph_op::arcsub: merge_transpose(c, [](float a, float b) { return a - b; }); return true;
    case graph_op::arcmax:
      merge_transpose(c,
                      [](float a, float b) { return a != 0 && b != 0 ? (a >= b ? a : 0.0f) : a; });
      return true;
    case graph_op::arcmaxgq:
    case graph_op::arcmaxgt:
    case graph_op::arcmaxlq:
    case graph_op::arcmaxlt:
    case graph_op::arcmingq:
    case graph_op::arcmingt:
    case graph_op::arcminlq:
    case graph_op::arcminlt:
    case graph_op::arcdiffgq:
    case graph_op::arcdiffgt:
    case graph_op::arcdifflq:
    case graph_op::arcdifflt: {
      const pair_rule keep = pair_rule_of(op);
      const float f = static_cast<float>(arg);
      merge_transpose(c, [keep, f](float a, float b) { return keep(a, b, f) ? a : 0.0f; });
      return true;
    }
    default: return false;
  }
}

}  // namespace

void apply_graph_step(host_csr<double>& a, graph_op op, double arg) {
  if (op == graph_op::thread || op == graph_op::shuffle) return;
  columns c = to_columns(a);
  if (!merge_step(c, op, arg)) {
    switch (op) {
      case graph_op::knn:
      case graph_op::knnj:
      case graph_op::rank: knn(c, arg, op); break;
      case graph_op::ceilnb: ceil_neighbours(c, arg); break;
      case graph_op::selfrm: remove_loops(c); break;
      case graph_op::selfmax: max_loops(c); break;
      case graph_op::normself: norm_self(c); break;
      case graph_op::transpose: c = transpose(c); break;
      case graph_op::step: step(c, arg); break;
      case graph_op::qt: {
        const double q = arg < 0 ? 0.0 : arg > 1 ? 1.0 : arg;
        for (arcs& v : c)
          select_highest(v, static_cast<std::size_t>(q * static_cast<double>(v.size()) + 0.5));
        break;
      }
      case graph_op::ssq: ssq(c, arg); break;
      case graph_op::tug: tug(c, arg); break;
      case graph_op::ils: ils(c); break;
      default: break;
    }
  }
  from_columns(a, c);
}

namespace {

std::string trim_blanks(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return std::string();
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

/// A graph step's name (after '#' or '@'), what it does without a number (mcl's defaults) and
/// whether this program refuses it.
struct graph_name {
  const char* name;
  graph_op op;
  double nought;  ///< the number of name(): NAN when mcl requires one
  const char* refused = nullptr;
};

const graph_name graph_names[] = {
    {"knn", graph_op::knn, NAN},
    {"knnj", graph_op::knnj, NAN},
    {"rank", graph_op::rank, NAN},
    {"ceilnb", graph_op::ceilnb, NAN},
    {"ils", graph_op::ils, 0},
    {"add", graph_op::add, 0},
    {"max", graph_op::max, 0},
    {"min", graph_op::min, 0},
    {"mul", graph_op::mul, 0},
    {"arcmax", graph_op::arcmax, 0},
    {"arcsub", graph_op::arcsub, 0},
    {"arcmaxgq", graph_op::arcmaxgq, NAN},
    {"arcmaxgt", graph_op::arcmaxgt, NAN},
    {"arcmaxlq", graph_op::arcmaxlq, NAN},
    {"arcmaxlt", graph_op::arcmaxlt, NAN},
    {"arcmingq", graph_op::arcmingq, NAN},
    {"arcmingt", graph_op::arcmingt, NAN},
    {"arcmimlq", graph_op::arcminlq, NAN},
    {"arcminlt", graph_op::arcminlt, NAN},
    {"arcdiffgq", graph_op::arcdiffgq, NAN},
    {"arcdiffgt", graph_op::arcdiffgt, NAN},
    {"arcdifflq", graph_op::arcdifflq, NAN},
    {"arcdifflt", graph_op::arcdifflt, NAN},
    {"selfrm", graph_op::selfrm, 0},
    {"selfmax", graph_op::selfmax, 0},
    {"normself", graph_op::normself, 0},
    {"tp", graph_op::transpose, 0},
    {"rev", graph_op::transpose, 0},
    {"step", graph_op::step, 2},
    {"qt", graph_op::qt, NAN},
    {"ssq", graph_op::ssq, NAN},
    {"tug", graph_op::tug, 1000},
    {"hread", graph_op::thread, NAN},
    {"shuffle", graph_op::shuffle, NAN},
    {"shrug", graph_op::tug, 1000, "it perturbs the weights at random"},
    {"mcl", graph_op::knn, NAN, "it clusters inside the transform"},
    {"symmcl", graph_op::knn, NAN, "it clusters inside the transform"}};

}  // namespace

const char* matrix_transform::graph_supported() {
  return "#knn(k) #knnj(k) #rank(k) #ceilnb(k) #add() #max() #min() #mul() #arcmax() "
         "#arcsub() #arcmaxgq(f) #arcmaxgt(f) #arcmaxlq(f) #arcmaxlt(f) #arcmingq(f) "
         "#arcmingt(f) #arcmimlq(f) #arcminlt(f) #arcdiffgq(f) #arcdiffgt(f) #arcdifflq(f) "
         "#arcdifflt(f) #selfrm() #selfmax() #normself() #tp() #rev() #step(k) #qt(q) #ssq(f) "
         "#tug(f) #ils() #hread(n) #shuffle(n)";
}

matrix_transform matrix_transform::parse(const std::string& spec) {
  matrix_transform t;
  const std::string all = trim_blanks(spec);
  if (all.empty()) return t;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    std::size_t end = spec.find(',', pos);
    if (end == std::string::npos) end = spec.size();
    const std::string item = trim_blanks(spec.substr(pos, end - pos));
    pos = end + 1;
    if (item.empty())
      throw std::invalid_argument("an empty step in '" + spec +
                                  "' (steps are separated by one comma, none before the first "
                                  "or after the last)");
    if (item[0] != '#' && item[0] != '@') {
      const value_transform v = value_transform::parse(item);
      if (!t.stages_.empty() && !t.stages_.back().graph)
        t.stages_.back().values.append(v);
      else
        t.stages_.push_back({false, v, graph_op::knn, 0, item});
      continue;
    }
    const std::size_t open = item.find('(');
    if (open == std::string::npos || item.back() != ')')
      throw std::invalid_argument("'" + item + "' in '" + spec +
                                  "' is not a transform: expected #name(number)");
    const std::string name = trim_blanks(item.substr(1, open - 1));
    const std::string arg = trim_blanks(item.substr(open + 1, item.size() - open - 2));
    const auto it = std::find_if(std::begin(graph_names), std::end(graph_names),
                                 [&](const graph_name& g) { return name == g.name; });
    if (it == std::end(graph_names))
      throw std::invalid_argument(
          "unknown graph transform '" + item.substr(0, open) + "' in '" + spec + "'" +
          (name == "thread"     ? std::string(" (mcl 22-282 spells it #hread)")
           : name == "arcminlq" ? std::string(" (mcl 22-282 spells it #arcmimlq)")
                                : " (supported: " + std::string(graph_supported()) + ")"));
    if (it->refused)
      throw std::invalid_argument("graph transform '" + item +
                                  "' is not supported: " + it->refused);
    double v = it->nought;
    if (!arg.empty()) {
      char* e = nullptr;
      v = std::strtod(arg.c_str(), &e);
      if (e != arg.c_str() + arg.size())
        throw std::invalid_argument("transform '" + item + "': '" + arg + "' is not a number");
    } else if (std::isnan(v)) {
      throw std::invalid_argument("transform '" + item + "' needs a value");
    }
    v = static_cast<double>(static_cast<float>(v));  // mcl holds it as a float
    if (it->op == graph_op::step && mcl_count(v) > 30)
      throw std::invalid_argument("transform '" + item +
                                  "': the graph would be squared more than 30 times");
    t.stages_.push_back({true, value_transform(), it->op, v, item});
  }
  return t;
}

value_transform matrix_transform::value_steps() const {
  value_transform v;
  for (const stage& s : stages_)
    if (!s.graph) v.append(s.values);
  return v;
}

std::vector<std::string> matrix_transform::graph_steps() const {
  std::vector<std::string> names;
  for (const stage& s : stages_)
    if (s.graph) names.push_back(s.text);
  return names;
}

void matrix_transform::apply(host_csr<double>& a) const {
  for (const stage& s : stages_) {
    if (s.graph)
      apply_graph_step(a, s.op, s.arg);
    else
      transform_values(a, s.values);
  }
}

}  // namespace opsparse::mcl
