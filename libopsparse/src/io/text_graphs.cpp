// Edge lists and ABC files: the serial readers (the reference), the "n m" header rule, and
// read_edge_list, read_abc and read_graph (see opsparse/io.hpp). Files are parsed in parallel by
// parallel_text.cpp with the same results and messages.
#include "io/reader_common.hpp"
#include "opsparse/io_mcl_native.hpp"

namespace opsparse::io {
namespace internal {

/// Numbers vertex keys (64-bit ids or label views) by first appearance. Open addressing with
/// linear probing in one flat array: std::unordered_map allocates a node per vertex and spent
/// most of the time of a 100 MB edge list on cache misses.
template <class Key>
class vertex_numbering {
 public:
  vertex_numbering() : slots_(1024) {}

  /// The number of `key`, giving it the next number (and building its label) when it is new.
  template <class MakeLabel>
  index_t find_or_add(const std::string& path, long long line, const Key& key,
                      std::vector<std::string>& labels, MakeLabel make_label) {
    std::size_t mask = slots_.size() - 1;
    std::size_t at = hash(key) & mask;
    while (slots_[at].id >= 0) {
      if (slots_[at].key == key) return slots_[at].id;
      at = (at + 1) & mask;
    }
    if (labels.size() >= static_cast<std::size_t>(std::numeric_limits<index_t>::max()))
      throw parse_error(path, line,
                        "more than " + std::to_string(std::numeric_limits<index_t>::max()) +
                            " distinct vertices: vertex numbers must fit in 32 bits");
    const index_t id = static_cast<index_t>(labels.size());
    labels.push_back(make_label());
    slots_[at] = slot{key, id};
    // Keep the load at most 1/2 so that probe runs stay short.
    if (++count_ * 2 > slots_.size()) grow();
    return id;
  }

 private:
  struct slot {
    Key key{};
    index_t id = -1;
  };

  static std::size_t hash(const Key& key) {
    std::uint64_t h;
    if constexpr (std::is_same_v<Key, std::int64_t>)
      h = static_cast<std::uint64_t>(key);
    else
      h = std::hash<Key>{}(key);
    // splitmix64 finaliser: consecutive ids must not land in consecutive slots.
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return static_cast<std::size_t>(h);
  }

  void grow() {
    std::vector<slot> old(slots_.size() * 2);
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const slot& s : old) {
      if (s.id < 0) continue;
      std::size_t at = hash(s.key) & mask;
      while (slots_[at].id >= 0) at = (at + 1) & mask;
      slots_[at] = s;
    }
  }

  std::vector<slot> slots_;
  std::size_t count_ = 0;
};

labelled_graph finish_graph(const std::string& path, const line_reader& lines, triples<double>& t,
                            std::vector<std::string> labels, text_reading& r) {
  if (t.row.empty() && labels.empty() && r.part) return labelled_graph{};
  if (t.row.empty() && labels.empty())  // (edges of weight 0 dropped leave their vertices)
    throw parse_error(path, 0,
                      "no edges found (" + std::to_string(r.line_base + lines.line_no()) +
                          " lines, all blank or comments)");
  r.edge_lines = static_cast<long long>(t.row.size());
  const index_t n = static_cast<index_t>(labels.size());
  labelled_graph g;
  g.adj = assemble(path, n, n, t, combine_max, "");
  if (r.options.symmetrize) g.adj = symmetrize_max(g.adj);
  g.labels = std::move(labels);
  return g;
}

/// The serial readers' loop: every line that is neither blank nor a '#' comment goes to
/// parse_line(line, line number, labels, triples), which numbers its endpoints as vertices
/// (labels) and pushes its edge; then the graph. `bytes_per_edge` sizes the first reservation.
template <class ParseLine>
labelled_graph read_lines_serial(const std::string& path, std::string_view data, text_reading& r,
                                 std::size_t bytes_per_edge, ParseLine&& parse_line) {
  line_reader lines(data);
  std::vector<std::string> labels;
  triples<double> t;
  t.reserve(data.size() / bytes_per_edge);
  std::string_view line;
  while (lines.next(line)) {
    // mcl has no comment syntax; '#' lines are skipped in ABC files anyway since a header line
    // is far more likely than a label that starts with '#'.
    const char c = first_char(line);
    if (c == '\0' || c == '#') continue;
    parse_line(line, r.line_base + lines.line_no(), labels, t);
  }
  return finish_graph(path, lines, t, std::move(labels), r);
}

/// The serial readers: the reference that the parallel ones below must agree with (their tests
/// compare the two), and the reader for files too large for the parallel numbering.
labelled_graph read_edge_list_serial(const std::string& path, std::string_view data,
                                     text_reading& r) {
  if (data.empty()) throw parse_error(path, 0, "file is empty (expected 'u v [w]' lines)");
  vertex_numbering<std::int64_t> ids;
  const auto parse_line = [&](std::string_view line, long long ln, std::vector<std::string>& labels,
                              triples<double>& t) {
    tokenizer tk(line);
    std::string_view tok[3];
    int ntok = 0;
    for (std::string_view x; ntok < 3 && tk.next(x);) tok[ntok++] = x;
    if (ntok < 2) throw parse_error(path, ln, "expected 'u v [w]', found " + quote(line));
    index_t ends[2];
    for (int e = 0; e < 2; ++e) {
      std::int64_t id = 0;
      const num_status st = parse_int64(tok[e], id);
      if (st == num_status::bad)
        throw parse_error(path, ln, "expected an integer vertex id, found " + quote(tok[e]));
      if (st == num_status::out_of_range)
        throw parse_error(path, ln, "vertex id " + quote(tok[e]) + " does not fit in 64 bits");
      // Canonical decimal label: "007" and "7" are the same integer id, hence one vertex.
      ends[e] = ids.find_or_add(path, ln, id, labels, [id] { return std::to_string(id); });
    }
    const double w = edge_weight(path, ln, ntok == 3 ? tok[2] : std::string_view(), r.options);
    if (const std::string_view extra = tk.rest(); !extra.empty())
      throw parse_error(path, ln, "unexpected text after 'u v [w]': " + quote(extra));
    if (!(w == 0 && r.options.drop_zero_weights)) t.push(ends[0], ends[1], w);
  };
  return read_lines_serial(path, data, r, 8, parse_line);
}

labelled_graph read_abc_serial(const std::string& path, std::string_view data, text_reading& r) {
  if (data.empty()) throw parse_error(path, 0, "file is empty (expected 'a<TAB>b[<TAB>w]' lines)");
  // Keys view into `data`, which outlives the map.
  vertex_numbering<std::string_view> ids;
  const auto parse_line = [&](std::string_view line, long long ln, std::vector<std::string>& labels,
                              triples<double>& t) {
    std::string_view tok[3];
    int ntok = 0;
    std::string_view extra;
    if (line.find('\t') != std::string_view::npos) {
      split_tab_fields(line, tok, ntok, extra);
    } else {
      tokenizer tk(line);
      for (std::string_view x; ntok < 3 && tk.next(x);) tok[ntok++] = x;
      extra = tk.rest();
    }
    if (ntok < 2)
      throw parse_error(path, ln, "expected 'label<TAB>label[<TAB>weight]', found " + quote(line));
    const std::string_view la = tok[0], lb = tok[1];
    const index_t a = ids.find_or_add(path, ln, la, labels, [la] { return std::string(la); });
    const index_t b = ids.find_or_add(path, ln, lb, labels, [lb] { return std::string(lb); });
    const double w = edge_weight(path, ln, ntok == 3 ? tok[2] : std::string_view(), r.options);
    if (!extra.empty())
      throw parse_error(path, ln, "unexpected text after 'label label [weight]': " + quote(extra));
    if (!(w == 0 && r.options.drop_zero_weights)) t.push(a, b, w);
  };
  return read_lines_serial(path, data, r, 16, parse_line);
}

namespace {

/// The first data line of an edge list when it could be an "n m" header: two non-negative
/// integers and nothing else. `next` is the offset of the text after it.
struct edge_list_header {
  std::size_t next = 0;
  long long line = 0;
  std::int64_t n = 0, m = 0;
};

bool header_candidate(std::string_view data, edge_list_header& h) {
  line_reader lines(data);
  std::string_view line;
  while (lines.next(line)) {
    const char c = first_char(line);
    if (c == '\0' || c == '#') continue;
    tokenizer tk(line);
    std::string_view a, b, more;
    if (!tk.next(a) || !tk.next(b) || tk.next(more)) return false;
    if (parse_int64(a, h.n) != num_status::ok || parse_int64(b, h.m) != num_status::ok || h.n < 0 ||
        h.m < 0)
      return false;
    h.line = lines.line_no();
    h.next = data.size() - lines.bytes_left();
    return true;
  }
  return false;
}

/// Every vertex id (the labels of an edge list) in [0, n]: 0-based or 1-based ids of n vertices.
bool ids_within(const std::vector<std::string>& labels, std::int64_t n) {
  for (const std::string& l : labels) {
    std::int64_t id = 0;
    if (parse_int64(l, id) != num_status::ok || id < 0 || id > n) return false;
  }
  return true;
}

std::string lower_extension(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace
}  // namespace internal

using namespace internal;

labelled_graph read_edge_list(const std::string& path, const read_options& options) {
  return guard_memory(path, [&] {
    const file_bytes file(path);
    const std::string_view data = file.view();
    if (data.empty()) throw parse_error(path, 0, "file is empty (expected 'u v [w]' lines)");
    const auto read = [&](std::string_view text, text_reading& r) {
      if (use_serial_reader()) return read_edge_list_serial(path, text, r);
      return read_edge_list_parallel(path, text, options, r, read_edge_list_serial);
    };
    text_reading whole;
    whole.options = options;
    labelled_graph g = read(data, whole);
    // The "n m" header (io.hpp): decided after a first reading, which counts the edge lines,
    // so that a file without one is read once.
    edge_list_header h;
    if (!header_candidate(data, h) || whole.edge_lines - 1 != h.m) return g;
    if (h.m == 0)
      throw parse_error(path, 0,
                        "no edges found (the header 'n m' on line " + std::to_string(h.line) +
                            " announces 0 edges)");
    text_reading rest;
    rest.options = options;
    rest.line_base = h.line;
    labelled_graph after = read(data.substr(h.next), rest);
    return ids_within(after.labels, h.n) ? after : g;
  });
}

labelled_graph read_abc(const std::string& path, const read_options& options) {
  return guard_memory(path, [&] {
    const file_bytes file(path);
    const std::string_view data = file.view();
    if (data.empty())
      throw parse_error(path, 0, "file is empty (expected 'a<TAB>b[<TAB>w]' lines)");
    text_reading r;
    r.options = options;
    if (use_serial_reader()) return read_abc_serial(path, data, r);
    return read_abc_parallel(path, data, options, r, read_abc_serial);
  });
}

labelled_graph read_graph(const std::string& path, file_format format,
                          const read_options& options) {
  if (format == file_format::automatic) {
    const std::string ext = lower_extension(path);
    format = looks_like_mcl_native(path) ? file_format::mcl_native
             : ext == ".mtx"             ? file_format::matrix_market
             : ext == ".abc"             ? file_format::abc
                                         : file_format::edge_list;
  }
  switch (format) {
    case file_format::abc: return read_abc(path, options);  // they mirror as they read
    case file_format::edge_list: return read_edge_list(path, options);
    case file_format::mcl_native:
    case file_format::matrix_market:
    case file_format::automatic: break;
  }
  return guard_memory(path, [&] {
    labelled_graph g;
    if (format == file_format::mcl_native) {
      g = read_mcl_native_graph(path, options);
    } else {
      g.adj = read_matrix_market_graph(path, options);
      g.labels.reserve(static_cast<std::size_t>(g.adj.rows));
      for (index_t i = 0; i < g.adj.rows; ++i) g.labels.push_back(std::to_string(i + 1));
    }
    if (options.symmetrize) g.adj = symmetrize_max(g.adj);
    return g;
  });
}

}  // namespace opsparse::io
