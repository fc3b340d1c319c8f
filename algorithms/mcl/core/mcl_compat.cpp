// mcl 22-282's transform language, native cluster output and command-line comment (see
// mcl_compat.hpp). Written from mcl's manual pages and its observed output.
#include "mcl_compat.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <stdexcept>

#include "mcl_detail.hpp"
#include "opsparse/io_mcl_native.hpp"

namespace opsparse::mcl {

namespace {
std::string trim(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return std::string();
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}
/// mcl's value as its steps read it: a float (pval), promoted to double.
double cell(double v) { return static_cast<double>(detail::to_float(v)); }
}  // namespace

double float_entry(double v) {
  const double c = cell(v);
  return c != 0 ? c : v;
}

double abc_weight(double w) { return w <= FLT_MAX ? w : 1.0; }

const char* value_transform::supported() {
  return "gq(f) gt(f) lq(f) lt(f) ceil(f) floor(f) mul(f) add(f) pow(f) "
         "scale(f) abs() acos() "
         "log(b) neglog(b) exp(b)";
}

value_transform value_transform::parse(const std::string& spec) {
  value_transform t;
  std::size_t pos = 0;
  const std::string s = spec;
  if (!trim(s).empty() && trim(s).back() == ',')
    throw std::invalid_argument("an empty step in '" + spec +
                                "' (steps are separated by one "
                                "comma, none before the first or after the last)");
  while (pos < s.size()) {
    std::size_t end = s.find(',', pos);
    // A comma inside parentheses does not occur in these steps: split on every comma.
    if (end == std::string::npos) end = s.size();
    const std::string item = trim(s.substr(pos, end - pos));
    pos = end + 1;
    // An empty step between, before or after commas is refused, as mcl refuses it (a blank
    // or empty spec is no transform at all).
    if (item.empty()) {
      if (trim(s).empty()) break;
      throw std::invalid_argument("an empty step in '" + spec +
                                  "' (steps are separated by one "
                                  "comma, none before the first or after the last)");
    }
    if (item[0] == '#' || item[0] == '@')
      throw std::invalid_argument("graph transform '" + item + "' in '" + spec +
                                  "' is not supported (supported: " + supported() + ")");
    const std::size_t open = item.find('(');
    if (open == std::string::npos || item.back() != ')')
      throw std::invalid_argument("'" + item + "' in '" + spec +
                                  "' is not a transform: expected name(number), one of " +
                                  supported());
    const std::string name = trim(item.substr(0, open));
    const std::string arg = trim(item.substr(open + 1, item.size() - open - 2));
    static const std::pair<const char*, op> names[] = {
        {"gq", op::gq},       {"gt", op::gt},       {"lq", op::lq},         {"lt", op::lt},
        {"ceil", op::ceil},   {"floor", op::floor}, {"mul", op::mul},       {"add", op::add},
        {"pow", op::pow},     {"log", op::log},     {"neglog", op::neglog}, {"exp", op::exp},
        {"scale", op::scale}, {"abs", op::abs},     {"acos", op::acos}};
    const auto it = std::find_if(std::begin(names), std::end(names),
                                 [&](const auto& n) { return name == n.first; });
    if (it == std::end(names))
      throw std::invalid_argument("unknown transform '" + name + "' in '" + spec +
                                  "' (supported: " + supported() + ")");
    // mcl's steps without a number: these take 0 (base e for log, neglog and exp).
    const bool optional = it->second == op::log || it->second == op::neglog ||
                          it->second == op::exp || it->second == op::abs || it->second == op::acos;
    double v = 0;
    if (arg.empty()) {
      if (!optional) throw std::invalid_argument("transform '" + name + "' needs a value");
    } else {
      char* e = nullptr;
      v = std::strtod(arg.c_str(), &e);
      // As mcl: the number as a float (1e300 and inf are infinity, nan is NaN there too).
      if (e != arg.c_str() + arg.size())
        throw std::invalid_argument("transform '" + name + "': '" + arg + "' is not a number");
    }
    t.steps_.push_back({it->second, cell(v)});
  }
  return t;
}

void value_transform::append(const value_transform& next) {
  steps_.insert(steps_.end(), next.steps_.begin(), next.steps_.end());
}

namespace {
/// mcl 22-282's fltxLog: log_base(x) for x > 0 (base 0: e), -FLT_MAX for 0, and 0 for a negative x,
/// a negative base or NaN (so log(-1) removes every value, as in mcl).
double mcl_log(double x, double base) {
  if (base > 0 && x > 0) return std::log(x) / std::log(base);
  if (base == 0 && x > 0) return std::log(x);
  if (x == 0) return -static_cast<double>(FLT_MAX);
  return 0.0;
}
}  // namespace

double value_transform::operator()(double v) const {
  // mcl's mclpUnary: the value in double, each step reading it as a float.
  double val = cell(v);
  for (const step& s : steps_) {
    const double x = cell(val), f = s.arg;
    switch (s.o) {
      case op::gq: val = x >= f ? x : 0; break;
      case op::gt: val = x > f ? x : 0; break;
      case op::lq: val = x <= f ? x : 0; break;
      case op::lt: val = x < f ? x : 0; break;
      case op::ceil: val = x > f ? f : x; break;
      case op::floor: val = x < f ? f : x; break;
      case op::mul: val = x * f; break;
      case op::add: val = x + f; break;
      case op::pow: val = std::pow(x, f); break;
      case op::scale: val = f != 0 ? x / f : 0; break;
      case op::abs: val = x > 0 ? x : -x; break;
      case op::acos: val = std::acos(x > 1.0 ? 1.0 : x < -1.0 ? -1.0 : x); break;
      case op::log: val = mcl_log(x, f); break;
      case op::neglog: val = -mcl_log(x, f); break;
      case op::exp: val = f != 0 ? std::pow(f, x) : std::exp(x); break;
    }
    // A value a threshold removes is gone; after other steps a 0 goes on (mul(0),add(1) is 1).
    if (val == 0 && (s.o == op::gq || s.o == op::gt || s.o == op::lq || s.o == op::lt)) return 0;
  }
  return val == 0 ? 0.0 : float_entry(val);
}

double neg_log_weight(double w, double base) {
  const double ln = w > 0 ? std::log(w) : -static_cast<double>(FLT_MAX);
  return -ln / std::log(base);
}

void drop_loops_as_mcl(host_csr<double>& a, index_t first) {
  offset_t out = 0;
  for (index_t i = 0; i < a.rows; ++i) {
    const offset_t b = a.rpt[i], e = a.rpt[i + 1];
    a.rpt[i] = out;
    bool loop = false;
    for (offset_t k = b; k < e; ++k) loop = loop || (a.col[k] == first + i && a.val[k] != 0);
    for (offset_t k = b; k < e; ++k) {
      if (loop && (a.col[k] == first + i || detail::to_float(a.val[k]) == 0.0f)) continue;
      a.col[out] = a.col[k];
      a.val[out++] = a.val[k];
    }
  }
  a.rpt[a.rows] = out;
  a.col.resize(static_cast<std::size_t>(out));
  a.val.resize(static_cast<std::size_t>(out));
}

void transform_values(host_csr<double>& a, const value_transform& tf) {
  if (tf.empty()) return;
  host_csr<double> out(a.rows, a.cols);
  out.col.reserve(a.col.size());
  out.val.reserve(a.val.size());
  for (index_t i = 0; i < a.rows; ++i) {
    for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k) {
      if (a.val[k] == 0) continue;  // a weight of 0 is no entry for mcl: -tf never sees it
      const double v = tf(a.val[k]);
      if (v == 0) continue;
      out.col.push_back(a.col[k]);
      out.val.push_back(v);
    }
    out.rpt[i + 1] = static_cast<offset_t>(out.col.size());
  }
  a = std::move(out);
}

std::string command_line_comment(const char* program, int argc, const char* const* argv) {
  std::string s = std::string("# cline: ") + program;
  for (int i = 1; i < argc; ++i) {
    s += ' ';
    if (i == 1) {
      s += argv[i];
    } else {
      s += '"';
      s += argv[i];
      s += '"';
    }
  }
  return s;
}

void write_native_clusters(std::ostream& os, const clustering& c, index_t nodes,
                           const std::string& cline, const std::vector<std::int64_t>* node_ids) {
  host_csr<pattern> m(static_cast<index_t>(c.clusters.size()), nodes);
  for (std::size_t k = 0; k < c.clusters.size(); ++k) {
    std::vector<index_t> members = c.clusters[k];
    std::sort(members.begin(), members.end());
    m.col.insert(m.col.end(), members.begin(), members.end());
    m.rpt[k + 1] = static_cast<offset_t>(m.col.size());
  }
  if (!cline.empty()) os << cline << '\n';
  io::write_mcl_native(os, m, node_ids, nullptr);
}

void sort_clusters(clustering& c, const std::string& mode) {
  auto& v = c.clusters;
  for (auto& x : v) std::sort(x.begin(), x.end());
  if (mode == "revsize") {
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return a.size() != b.size() ? a.size() > b.size() : a < b;
    });
  } else if (mode == "size") {
    // mcl's size order is revsize reversed: smallest first, equal sizes by their members
    // from the last.
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return a.size() != b.size() ? a.size() < b.size() : b < a;
    });
  } else if (mode == "lex") {
    std::stable_sort(v.begin(), v.end());
  } else {
    throw std::invalid_argument("-sort expects revsize, size or lex, not '" + mode + "'");
  }
}

bool split_disconnected(clustering& c, const host_csr<double>& start) {
  const std::size_t n = static_cast<std::size_t>(start.rows);
  // mcl's scratch: a node taken by a part stays taken for every later cluster.
  std::vector<char> taken(n, 0);
  // Membership of the cluster at hand and the part each member went to, stamped per cluster.
  std::vector<std::size_t> member(n, 0), assigned(n, 0);
  std::vector<std::vector<index_t>> parts;
  std::vector<index_t> stack;
  for (std::size_t k = 0; k < c.clusters.size(); ++k) {
    const std::size_t stamp = k + 1;
    std::vector<index_t> nodes = c.clusters[k];
    std::sort(nodes.begin(), nodes.end());
    for (index_t v : nodes) member[static_cast<std::size_t>(v)] = stamp;
    for (index_t d : nodes) {
      if (assigned[static_cast<std::size_t>(d)] == stamp) continue;
      std::vector<index_t> part{d};
      taken[static_cast<std::size_t>(d)] = 1;
      stack.assign(1, d);
      while (!stack.empty()) {
        const index_t v = stack.back();
        stack.pop_back();
        for (offset_t e = start.rpt[v]; e < start.rpt[v + 1]; ++e) {
          const std::size_t w = static_cast<std::size_t>(start.col[e]);
          if (member[w] != stamp || taken[w]) continue;
          taken[w] = 1;
          part.push_back(start.col[e]);
          stack.push_back(start.col[e]);
        }
      }
      for (index_t v : part) assigned[static_cast<std::size_t>(v)] = stamp;
      std::sort(part.begin(), part.end());
      parts.push_back(std::move(part));
    }
  }
  if (parts.size() == c.clusters.size()) return false;
  c.clusters = std::move(parts);
  sort_clusters(c, "revsize");
  return true;
}

}  // namespace opsparse::mcl
