// The parallel edge-list and ABC reader (see the comment below), and its test hooks.
#include "io/reader_common.hpp"

namespace opsparse::io {
namespace internal {
namespace {

// ------------------------------------------------------------------------------------------------
// Parallel edge-list and ABC reading
// ------------------------------------------------------------------------------------------------
//
// A 200,000-vertex, 1,000,000-edge ABC file (35 MB, the MCL benchmark's input) took 0.45 s to
// read serially, most of it in the vertex numbering: every lookup of its 12 MB table missed the
// cache twice, once for the slot and once for the label it points to in the file. This reader:
//  1. cuts the file into chunks of whole lines and parses them in parallel. A line's endpoints
//     become keys (a label's hash, its first 16 bytes and where it is; or an integer id), its
//     weight a double. Each chunk numbers its distinct keys in order of first occurrence, in a
//     table that stays in cache, and groups them by the top bits of their hash (the partition).
//  2. numbers the keys of every partition in parallel, visiting the chunks in file order, in a
//     small table of its own; most labels compare by their first 16 bytes, without reading the
//     file again. A key new to its partition occurs first in the file in the chunk that offers it.
//  3. numbers the vertices: the count of such keys per chunk gives each chunk its first vertex
//     number, and within a chunk they come in order of first occurrence. This is exactly the
//     serial reader's numbering by first appearance.
//  4. builds the CSR in parallel: rows filled in any order, then sorted by (column, position in
//     the file), so that duplicates still meet in file order and keep the serial reader's maximum.
//     With read_options::symmetrize every edge u v also goes to row v as column u, and a row is
//     sorted by (column, direction, position): the entries of (u, v) in file order, then those of
//     (v, u). Their maximum so combined is symmetrize_max's, which takes max(A(u,v), A(v,u)) of the
//     combined entries, the first one on a tie: the same value and the same zero's sign. The
//     directed matrix and its transpose (16 bytes an entry, and a serial zero-fill of the
//     result's 12) are not made: mcl's mirroring took 0.92 s of the 1M-node network's 1.41 s
//     start matrix on two threads (2-core build machine).
// Errors: a chunk stops at its first bad line and records it. The first chunk with an error holds
// the file's first bad line, whose number is the lines of the chunks before it plus its line in
// the chunk; the message is the serial reader's. Every result is independent of the thread count.

/// Test hooks (detail::set_text_reader_tuning).
std::atomic<std::size_t> tuned_chunk_bytes{0};
std::atomic<bool> tuned_serial{false};

/// 256 KiB is about 7,000 lines of a protein network: 140 chunks from the 35 MB benchmark file,
/// enough for 16 threads to balance (dynamic schedule) while the per-chunk bookkeeping (an
/// offset per partition) stays negligible; a file under 256 KiB is one chunk, read serially.
constexpr std::size_t default_chunk_bytes = std::size_t(256) << 10;
/// A chunk of at most 1 GiB has fewer than 2^30 endpoints (a line has at least 4 bytes), so
/// that the chunk's numbers of its keys fit in index_t and its offsets in 32 bits.
constexpr std::size_t max_chunk_bytes = std::size_t(1) << 30;
/// Up to 2^8 partitions (a partition number is a byte): 200,000 labels make ~800 per partition,
/// whose table (16 KiB) and keys (25 KiB) stay in L1/L2 while the partition is numbered.
constexpr unsigned max_partition_bits = 8;

/// splitmix64's finaliser: every output bit depends on every input bit, so consecutive integer
/// ids spread over the slots and the top bits make fair partitions.
inline std::uint64_t mix64(std::uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

/// 64x64 -> 128-bit product folded to 64 bits: the mixing step of the label hash.
inline std::uint64_t fold_multiply(std::uint64_t a, std::uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}

/// n (1..8) bytes at p as a zero-padded little-endian word. `end` is the end of the file: when 8
/// bytes are readable (all but the file's last few) this is one unaligned load and a mask.
inline std::uint64_t load_word(const char* p, std::size_t n, const char* end) {
  std::uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (end - p >= 8) {
    std::memcpy(&w, p, 8);
    return n >= 8 ? w : w & ((std::uint64_t(1) << (8 * n)) - 1);
  }
#else
  (void)end;
#endif
  std::memcpy(&w, p, n < 8 ? n : 8);
  return w;
}

/// An ABC endpoint: a label, as the hash of its bytes, its first 16 bytes (zero-padded) and
/// where it is in the file. Labels of up to 16 bytes (P000123, YAL001C, ENSP00000354587) compare
/// on these words alone; longer ones also compare their tails in the file. 32 bytes: there are
/// two per line, and every byte of them is a page fault to pay on a large file.
struct label_key {
  std::uint64_t hash;
  std::uint64_t head[2];
  std::uint64_t where;  ///< offset in the file << length_bits | length
};
/// Limits of label_key::where; a file beyond them goes to the serial reader.
constexpr unsigned length_bits = 24;  // labels under 16 MiB
constexpr std::uint64_t max_label_length = (std::uint64_t(1) << length_bits) - 1;
constexpr std::uint64_t max_label_offset = (std::uint64_t(1) << (64 - length_bits)) - 1;  // 1 TiB

/// An edge-list endpoint: the integer id.
struct id_key {
  std::int64_t id;
};

/// What differs between ABC files and edge lists: what an endpoint is and the messages.
struct abc_format {
  using key = label_key;
  /// A line that holds a TAB is split on TABs (split_tab_fields), as mcl splits ABC lines.
  static constexpr bool tab_fields = true;
  const char* base;  ///< the file
  const char* end;
  bool nonnegative = false;                                  ///< read_options::nonnegative
  const std::function<double(double)>* transform = nullptr;  ///< read_options::weight_transform
  bool nonfinite = false;                                    ///< read_options::nonfinite_weights
  bool drop_zero = false;                                    ///< read_options::drop_zero_weights

  bool endpoint(std::string_view tok, key& k, std::string& /*error*/) const {
    const char* p = tok.data();
    const std::size_t n = tok.size();  // at least 1: tokens are non-empty
    const std::uint64_t w0 = load_word(p, n, end);
    const std::uint64_t w1 = n > 8 ? load_word(p + 8, n - 8, end) : 0;
    // Hash constants: wyhash's primes; any odd constants with mixed bits would do.
    std::uint64_t h = fold_multiply(w0 ^ 0xa0761d6478bd642fULL, w1 ^ 0xe7037ed1a0b428dbULL ^ n);
    for (std::size_t i = 16; i < n; i += 16) {
      const std::uint64_t a = load_word(p + i, n - i, end);
      const std::uint64_t b = n - i > 8 ? load_word(p + i + 8, n - i - 8, end) : 0;
      h = fold_multiply(a ^ h ^ 0x8ebc6af09c88c6e3ULL, b ^ 0x589965cc75374cc3ULL);
    }
    k.hash = mix64(h);
    k.head[0] = w0;
    k.head[1] = w1;
    // read_edges_parallel sends files with longer labels or beyond the offset limit to the
    // serial reader (fits_key).
    k.where = static_cast<std::uint64_t>(p - base) << length_bits | (n & max_label_length);
    return true;
  }
  static bool fits_key(std::string_view tok) { return tok.size() <= max_label_length; }
  std::uint64_t hash(const key& k) const { return k.hash; }
  bool equal(const key& a, const key& b) const {
    // Equal `where` lengths and heads; a tail beyond 16 bytes is compared in the file.
    const std::size_t length = static_cast<std::size_t>(a.where & max_label_length);
    return a.hash == b.hash && a.head[0] == b.head[0] && a.head[1] == b.head[1] &&
           length == (b.where & max_label_length) &&
           (length <= 16 || std::memcmp(base + (a.where >> length_bits) + 16,
                                        base + (b.where >> length_bits) + 16, length - 16) == 0);
  }
  std::string label(const key& k) const {
    const std::size_t length = static_cast<std::size_t>(k.where & max_label_length);
    if (length <= sizeof k.head) {
      // The head holds the label's bytes (load_word keeps their order): the file, visited in
      // the order of the keys, is not read again.
      char bytes[sizeof k.head];
      std::memcpy(bytes, k.head, sizeof k.head);
      return std::string(bytes, length);
    }
    return std::string(base + (k.where >> length_bits), length);
  }
  static std::string bad_shape(std::string_view line) {
    return "expected 'label<TAB>label[<TAB>weight]', found " + quote(line);
  }
  static std::string trailing(std::string_view rest) {
    return "unexpected text after 'label label [weight]': " + quote(rest);
  }
};

struct edge_list_format {
  using key = id_key;
  static constexpr bool tab_fields = false;
  bool nonnegative = false;                                  ///< read_options::nonnegative
  const std::function<double(double)>* transform = nullptr;  ///< read_options::weight_transform
  bool nonfinite = false;                                    ///< read_options::nonfinite_weights
  bool drop_zero = false;                                    ///< read_options::drop_zero_weights

  bool endpoint(std::string_view tok, key& k, std::string& error) const {
    const num_status st = parse_int64(tok, k.id);
    if (st == num_status::ok) return true;
    error = st == num_status::bad ? "expected an integer vertex id, found " + quote(tok)
                                  : "vertex id " + quote(tok) + " does not fit in 64 bits";
    return false;
  }
  static bool fits_key(std::string_view) { return true; }
  std::uint64_t hash(const key& k) const { return mix64(static_cast<std::uint64_t>(k.id)); }
  bool equal(const key& a, const key& b) const { return a.id == b.id; }
  // Canonical decimal label: "007" and "7" are the same integer id, hence one vertex.
  std::string label(const key& k) const { return std::to_string(k.id); }
  static std::string bad_shape(std::string_view line) {
    return "expected 'u v [w]', found " + quote(line);
  }
  static std::string trailing(std::string_view rest) {
    return "unexpected text after 'u v [w]': " + quote(rest);
  }
};

/// Blank (is_blank) or '\n': where a token ends. '\t' '\n' '\v' '\f' '\r' are 9..13, ' ' is 32.
inline bool ends_token(char c) {
  const unsigned u = static_cast<unsigned char>(c);
  return u <= 32 && ((std::uint64_t(1) << u) & ((std::uint64_t(1) << 32) | 0x3e00u)) != 0;
}

/// The first byte at or after p that ends a token (or `end`). Eight bytes at a time while they
/// are readable: a byte below '!' is a candidate (blanks, '\n', and control bytes that do not
/// end tokens), found with the borrow trick, exact for the lowest such byte of the word.
inline const char* token_end(const char* p, const char* end) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (end - p >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    const std::uint64_t low = (w - 0x2121212121212121ULL) & ~w & 0x8080808080808080ULL;
    if (!low) {
      p += 8;
      continue;
    }
    p += __builtin_ctzll(low) >> 3;
    if (ends_token(*p)) return p;
    ++p;
  }
#endif
  while (p < end && !ends_token(*p)) ++p;
  return p;
}

/// A piece of the file made of whole lines (only the file's last line may lack its '\n').
struct text_chunk {
  const char* begin;
  const char* end;
};

/// Cuts `text` into chunks of about `target` bytes, each ending just after a '\n'.
std::vector<text_chunk> split_lines(std::string_view text, std::size_t target) {
  std::vector<text_chunk> out;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* stop = end;
    if (static_cast<std::size_t>(end - p) > target) {
      // The chunk ends with the line that holds its target's last byte.
      const char* nl = static_cast<const char*>(
          std::memchr(p + target - 1, '\n', static_cast<std::size_t>(end - (p + target - 1))));
      stop = nl ? nl + 1 : end;
    }
    out.push_back({p, stop});
    p = stop;
  }
  return out;
}

/// Numbers distinct keys 0, 1, 2, ... in the order they are first offered. The keys are kept
/// densely in that order (what the caller needs next); the table holds only a tag of the hash
/// and the number, 8 bytes a slot, so that it stays in cache. Open addressing with linear
/// probing, load at most 1/2.
template <class Format>
class key_numbering {
 public:
  using key = typename Format::key;

  explicit key_numbering(const Format& fmt) : fmt_(&fmt) {}

  /// Forgets every key, keeping the memory; sized for about `expected` keys (it grows anyway).
  void reset(std::size_t expected) {
    keys_.clear();
    std::size_t size = 16;
    while (size < 2 * expected) size *= 2;
    if (slots_.size() < size) slots_.resize(size);
    std::fill(slots_.begin(), slots_.end(), slot{0, empty});
  }

  /// The number of `k`: size() - 1 after the call when it is new.
  std::uint32_t find_or_add(const key& k) {
    const std::uint64_t h = fmt_->hash(k);
    const std::uint32_t tag = static_cast<std::uint32_t>(h >> 16);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t at = static_cast<std::size_t>(h) & mask;; at = (at + 1) & mask) {
      const slot s = slots_[at];
      if (s.number == empty) break;
      if (s.tag == tag && fmt_->equal(keys_[s.number], k)) return s.number;
    }
    const std::uint32_t number = static_cast<std::uint32_t>(keys_.size());
    keys_.push_back(k);
    place(h, number);
    if (keys_.size() * 2 > slots_.size()) grow();
    return number;
  }

  std::size_t size() const { return keys_.size(); }
  const std::vector<key>& keys() const { return keys_; }

 private:
  struct slot {
    std::uint32_t tag;
    std::uint32_t number;
  };
  static constexpr std::uint32_t empty = std::numeric_limits<std::uint32_t>::max();

  void place(std::uint64_t h, std::uint32_t number) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t at = static_cast<std::size_t>(h) & mask;
    while (slots_[at].number != empty) at = (at + 1) & mask;
    slots_[at] = slot{static_cast<std::uint32_t>(h >> 16), number};
  }

  void grow() {
    slots_.assign(slots_.size() * 2, slot{0, empty});
    for (std::size_t i = 0; i < keys_.size(); ++i)
      place(fmt_->hash(keys_[i]), static_cast<std::uint32_t>(i));
  }

  const Format* fmt_;
  std::vector<key> keys_;
  std::vector<slot> slots_;
};

/// What one chunk holds once parsed, then numbered. Its distinct keys are numbered in the chunk
/// first (a table that stays in cache): an endpoint is then 4 bytes, and only the distinct keys,
/// about half of the endpoints of a protein network's chunk, go on to their partitions.
template <class Key>
struct chunk_edges {
  std::vector<index_t> ends;              ///< both endpoints of every edge, in file order: the
                                          ///< chunk's number of the key, later the vertex
  std::vector<double> weight;             ///< of every edge, in file order
  std::vector<Key> keys;                  ///< distinct keys grouped by partition; within one, in
                                          ///< the chunk's order (of first occurrence)
  std::vector<std::uint32_t> part_start;  ///< partitions + 1 offsets into keys
  std::vector<std::uint8_t> part;         ///< partition of every distinct key, by chunk number
  std::vector<std::uint32_t> number;      ///< of keys[i] in its partition | first_in_file
  long long lines = 0;                    ///< lines read
  long long error_line = 0;               ///< first bad line, 1-based in the chunk; 0: none
  std::string error;                      ///< what is wrong with it
  bool unfit = false;                     ///< a token too long for a key (serial reader)

  /// Calls f(j, i) for every distinct key in the chunk's order, j being its chunk number and i
  /// its position in keys: each partition's keys are in that order, so a cursor per partition
  /// follows them.
  template <class F>
  void in_chunk_order(F&& f) const {
    std::vector<std::uint32_t> cursor(part_start.begin(), part_start.end() - 1);
    for (std::size_t j = 0; j < part.size(); ++j) f(j, cursor[part[j]]++);
  }
};

/// Flag in chunk_edges::number: the key's first occurrence in the file is in this chunk.
constexpr std::uint32_t first_in_file = std::uint32_t(1) << 31;

/// Where the line that holds q ends: its '\n', or `end`.
inline const char* line_end(const char* q, const char* end) {
  const char* nl =
      static_cast<const char*>(std::memchr(q, '\n', static_cast<std::size_t>(end - q)));
  return nl ? nl : end;
}

/// A data line's fields: up to three tokens, and the text after a third one.
struct line_fields {
  std::string_view tok[3];
  int ntok = 0;
  std::string_view extra;
};

/// Splits the data line that starts at line_begin (p: its first byte that is not blank) into
/// fields as the serial reader does: a line that holds a TAB on TABs (Format::tab_fields), any
/// other on blanks. Returns where the line ends (its '\n', or `end`).
template <class Format>
inline const char* split_fields(const char* const line_begin, const char* p, const char* const end,
                                line_fields& f) {
  if constexpr (Format::tab_fields) {
    const char* const stop = line_end(line_begin, end);
    const std::string_view whole(line_begin, static_cast<std::size_t>(stop - line_begin));
    if (whole.find('\t') != std::string_view::npos) {
      split_tab_fields(whole, f.tok, f.ntok, f.extra);
      return stop;
    }
  }
  for (;;) {
    const char* const t = p;
    p = token_end(p, end);
    f.tok[f.ntok++] = std::string_view(t, static_cast<std::size_t>(p - t));
    while (p < end && is_blank(*p)) ++p;
    if (p == end || *p == '\n' || f.ntok == 3) break;
  }
  // p is at the end of the line, or at a fourth token.
  if (p < end && *p != '\n') {
    const char* const stop = line_end(p, end);
    f.extra = std::string_view(p, static_cast<std::size_t>(stop - p));
    p = stop;
  }
  return p;
}

/// The edge of a data line's fields, checked as the serial reader checks it: its endpoints' keys
/// and its weight, or false with the serial reader's message in `error`. Sets `unfit` when an
/// endpoint is too long for a key.
template <class Format>
inline bool parse_edge(const Format& fmt, const line_fields& f, const char* const line_begin,
                       const char* const end, typename Format::key (&ends)[2], double& w,
                       std::string& error, bool& unfit) {
  if (f.ntok < 2) {
    error = Format::bad_shape(std::string_view(
        line_begin, static_cast<std::size_t>(line_end(line_begin, end) - line_begin)));
    return false;
  }
  for (int e = 0; e < 2; ++e) {
    if (!Format::fits_key(f.tok[e])) unfit = true;
    if (!fmt.endpoint(f.tok[e], ends[e], error)) return false;
  }
  if (!parse_weight(f.ntok == 3 ? f.tok[2] : std::string_view(), w, error, fmt.nonnegative,
                    fmt.transform, fmt.nonfinite))
    return false;
  if (!f.extra.empty()) {
    error = Format::trailing(f.extra);
    return false;
  }
  return true;
}

/// Counting sort of a chunk's distinct keys (`keys`, by the chunk's number) by partition into
/// out.keys, out.part and out.part_start; stable, so each partition's keys stay in the chunk's
/// order.
template <class Format>
void group_keys_by_partition(const Format& fmt, const std::vector<typename Format::key>& keys,
                             unsigned part_bits, chunk_edges<typename Format::key>& out) {
  const std::size_t parts = std::size_t(1) << part_bits;
  out.part.resize(keys.size());
  out.part_start.assign(parts + 1, 0);
  for (std::size_t j = 0; j < keys.size(); ++j) {
    const std::uint8_t q =
        part_bits ? static_cast<std::uint8_t>(fmt.hash(keys[j]) >> (64 - part_bits)) : 0;
    out.part[j] = q;
    ++out.part_start[q + 1u];
  }
  for (std::size_t q = 0; q < parts; ++q) out.part_start[q + 1] += out.part_start[q];
  out.keys.resize(keys.size());
  out.in_chunk_order([&](std::size_t j, std::uint32_t i) { out.keys[i] = keys[j]; });
  out.number.resize(keys.size());
}

/// Parses one chunk as the serial reader parses its lines (same checks in the same order),
/// numbering its distinct keys in `local` (the calling thread's), then groups them by partition.
template <class Format>
void parse_chunk(const Format& fmt, const text_chunk& chunk, unsigned part_bits,
                 key_numbering<Format>& local, chunk_edges<typename Format::key>& out) {
  using key = typename Format::key;
  // A line has at least 4 bytes ("a b\n"); a protein network's about 35.
  const std::size_t bytes = static_cast<std::size_t>(chunk.end - chunk.begin);
  local.reset(bytes / 32);
  out.ends.reserve(bytes / 16 + 2);
  out.weight.reserve(bytes / 32 + 1);
  const char* p = chunk.begin;
  const char* const end = chunk.end;
  long long line = 0;
  std::string error;
  while (p < end) {
    ++line;
    const char* const line_begin = p;
    while (p < end && is_blank(*p)) ++p;
    if (p == end) break;
    if (*p == '\n') {  // blank line
      ++p;
      continue;
    }
    // A comment (ABC too: see read_abc_serial). No NUL byte gets here (file_bytes).
    if (*p == '#') {
      const char* stop = line_end(p, end);
      p = stop == end ? end : stop + 1;
      continue;
    }
    line_fields f;
    p = split_fields<Format>(line_begin, p, end, f);
    key ends[2]{};
    double w = 1.0;
    if (!parse_edge(fmt, f, line_begin, end, ends, w, error, out.unfit)) {
      out.lines = line;
      out.error_line = line;
      out.error = std::move(error);
      return;
    }
    const auto a = static_cast<index_t>(local.find_or_add(ends[0]));
    const auto b = static_cast<index_t>(local.find_or_add(ends[1]));
    if (!(w == 0 && fmt.drop_zero)) {  // read_options::drop_zero_weights: the vertices only
      out.ends.push_back(a);
      out.ends.push_back(b);
      out.weight.push_back(w);
    }
    if (p < end) ++p;  // the '\n'
  }
  out.lines = line;
  group_keys_by_partition(fmt, local.keys(), part_bits, out);
}

/// One entry of a row being assembled: `edge` is the line's position among the file's edges,
/// with `mirrored` set on the entry made for column u of row v from the edge u v.
struct row_entry {
  index_t col;
  std::uint32_t edge;
  double val;
};
/// Below the file's 2^30 edges (2^31 endpoints go to the serial reader): the top bit is free.
constexpr std::uint32_t mirrored = std::uint32_t(1) << 31;

/// The adjacency from the numbered edges of all chunks (see step 4 above); frees the chunks.
/// Duplicates keep the maximum, combined in file order as in assemble() (which decides between
/// 0 and -0); `mirror`: every edge in both directions, as symmetrize_max (step 4 above).
template <class Key>
host_csr<double> assemble_edges(index_t n, std::vector<chunk_edges<Key>>& chunks, bool mirror) {
  const std::size_t nchunks = chunks.size();
  std::vector<std::uint32_t> edge_base(nchunks + 1, 0);
  for (std::size_t c = 0; c < nchunks; ++c)
    edge_base[c + 1] = edge_base[c] + static_cast<std::uint32_t>(chunks[c].weight.size());
  const bool parallel_rows = edge_base[nchunks] >= parallel_rows_min_entries;

  // Rows in file order.
  std::vector<offset_t> start;
  const std::unique_ptr<row_entry[]> entries = group_by_row<row_entry>(
      n, nchunks,
      [&](std::size_t c, auto&& emit) {
        const std::vector<index_t>& v = chunks[c].ends;
        const std::vector<double>& w = chunks[c].weight;
        for (std::size_t e = 0; e < w.size(); ++e) {
          const index_t a = v[2 * e], b = v[2 * e + 1];
          const std::uint32_t edge = edge_base[c] + static_cast<std::uint32_t>(e);
          emit(a, row_entry{b, edge, w[e]});
          // A loop's mirror is itself: max(A(u,u), A(u,u)) changes nothing.
          if (mirror && a != b) emit(b, row_entry{a, edge | mirrored, w[e]});
        }
      },
      start);
  parallel_for(nchunks, [&](std::size_t c) { chunks[c] = chunk_edges<Key>(); });

  // Sort every row by (column, position in the file) and combine its duplicates in place.
  host_csr<double> m(n, n);
  const auto before = [](const row_entry& a, const row_entry& b) {
    return a.col < b.col || (a.col == b.col && a.edge < b.edge);
  };
#pragma omp parallel for schedule(dynamic, 1024) if (parallel_rows)
  for (index_t r = 0; r < n; ++r) {
    row_entry* const first = entries.get() + start[static_cast<std::size_t>(r)];
    row_entry* const last = entries.get() + start[static_cast<std::size_t>(r) + 1];
    if (last - first <= 16) {  // most rows: insertion sort
      for (row_entry* i = first + 1; i < last; ++i)
        for (row_entry* j = i; j > first && before(*j, *(j - 1)); --j) std::swap(*j, *(j - 1));
    } else {
      std::sort(first, last, before);
    }
    row_entry* out = first;
    for (const row_entry* i = first; i < last; ++i) {
      if (out > first && (out - 1)->col == i->col) {
        combine_max((out - 1)->val, i->val);
        continue;
      }
      *out++ = *i;
    }
    m.rpt[static_cast<std::size_t>(r) + 1] = out - first;
  }
  for (std::size_t r = 0; r < static_cast<std::size_t>(n); ++r) m.rpt[r + 1] += m.rpt[r];
  m.col.resize(static_cast<std::size_t>(m.rpt.back()));
  m.val.resize(static_cast<std::size_t>(m.rpt.back()));
#pragma omp parallel for schedule(dynamic, 1024) if (parallel_rows)
  for (index_t r = 0; r < n; ++r) {
    const row_entry* in = entries.get() + start[static_cast<std::size_t>(r)];
    for (offset_t k = m.rpt[r]; k < m.rpt[r + 1]; ++k, ++in) {
      m.col[static_cast<std::size_t>(k)] = in->col;
      m.val[static_cast<std::size_t>(k)] = in->val;
    }
  }
  return m;
}

std::size_t chunk_bytes() {
  const std::size_t tuned = tuned_chunk_bytes.load(std::memory_order_relaxed);
  return tuned ? std::min(tuned, max_chunk_bytes) : default_chunk_bytes;
}

/// Step 1: parses every chunk (see parse_chunk). A chunk after one with a bad line is skipped:
/// only the first bad line counts.
template <class Format>
std::vector<chunk_edges<typename Format::key>> parse_chunks(const Format& fmt,
                                                            const std::vector<text_chunk>& pieces,
                                                            unsigned part_bits) {
  const std::size_t nchunks = pieces.size();
  std::vector<chunk_edges<typename Format::key>> chunks(nchunks);
  std::vector<key_numbering<Format>> local(static_cast<std::size_t>(omp_get_max_threads()),
                                           key_numbering<Format>(fmt));
  std::atomic<std::size_t> first_bad{nchunks};
  parallel_for(nchunks, [&](std::size_t c) {
    if (c > first_bad.load(std::memory_order_relaxed)) return;
    parse_chunk(fmt, pieces[c], part_bits, local[static_cast<std::size_t>(omp_get_thread_num())],
                chunks[c]);
    if (chunks[c].error_line == 0) return;
    std::size_t seen = first_bad.load();
    while (c < seen && !first_bad.compare_exchange_weak(seen, c)) {
    }
  });
  return chunks;
}

/// Step 2: numbers every partition's keys, chunk after chunk, and flags first occurrences.
/// Returns the number of distinct keys per partition.
template <class Format>
std::vector<std::uint32_t> number_partitions(const Format& fmt,
                                             std::vector<chunk_edges<typename Format::key>>& chunks,
                                             std::size_t parts) {
  std::vector<std::uint32_t> distinct(parts, 0);
  parallel_for(parts, [&](std::size_t q) {
    std::size_t offered = 0;
    for (const auto& ch : chunks) offered += ch.part_start[q + 1] - ch.part_start[q];
    key_numbering<Format> table(fmt);
    // A protein network's chunk offers a vertex to its partition ~5 times; the table grows
    // when that guess is low.
    table.reset(offered / 4);
    for (auto& ch : chunks)
      for (std::uint32_t i = ch.part_start[q]; i < ch.part_start[q + 1]; ++i) {
        const std::size_t before = table.size();
        const std::uint32_t l = table.find_or_add(ch.keys[i]);
        ch.number[i] = table.size() > before ? (l | first_in_file) : l;
      }
    distinct[q] = static_cast<std::uint32_t>(table.size());
  });
  return distinct;
}

/// Step 3: vertex numbers by first occurrence. Counts the first occurrences of every chunk, then
/// numbers them in the chunk's order (of first occurrence), labelling them on the way, and
/// turns every chunk's endpoints into vertices (freeing its keys). Returns the labels.
template <class Format>
std::vector<std::string> number_vertices(const Format& fmt,
                                         std::vector<chunk_edges<typename Format::key>>& chunks,
                                         const std::vector<std::uint32_t>& distinct) {
  const std::size_t nchunks = chunks.size();
  std::vector<index_t> numbered(nchunks + 1, 0);
  parallel_for(nchunks, [&](std::size_t c) {
    index_t count = 0;
    for (const std::uint32_t l : chunks[c].number) count += (l & first_in_file) != 0;
    numbered[c + 1] = count;
  });
  for (std::size_t c = 0; c < nchunks; ++c) numbered[c + 1] += numbered[c];
  std::vector<std::string> labels(static_cast<std::size_t>(numbered[nchunks]));
  std::vector<std::vector<index_t>> vertex_of(distinct.size());  // by partition, then number in it
  parallel_for(distinct.size(), [&](std::size_t q) { vertex_of[q].resize(distinct[q]); });
  parallel_for(nchunks, [&](std::size_t c) {
    const auto& ch = chunks[c];
    index_t next = numbered[c];
    ch.in_chunk_order([&](std::size_t j, std::uint32_t i) {
      const std::uint32_t l = ch.number[i];
      if (!(l & first_in_file)) return;
      vertex_of[ch.part[j]][l & ~first_in_file] = next;
      labels[static_cast<std::size_t>(next++)] = fmt.label(ch.keys[i]);
    });
  });
  parallel_for(nchunks, [&](std::size_t c) {
    auto& ch = chunks[c];
    std::vector<index_t> vertex(ch.part.size());  // by the chunk's number
    ch.in_chunk_order([&](std::size_t j, std::uint32_t i) {
      vertex[j] = vertex_of[ch.part[j]][ch.number[i] & ~first_in_file];
    });
    for (index_t& e : ch.ends) e = vertex[static_cast<std::size_t>(e)];
    ch.keys = {};
    ch.part = {};
    ch.number = {};
  });
  return labels;
}

/// The parallel reader (see above); `serial` reads files beyond its limits.
template <class Format>
labelled_graph read_edges_parallel(const std::string& path, std::string_view data,
                                   const Format& fmt, text_reading& r,
                                   labelled_graph (*serial)(const std::string&, std::string_view,
                                                            text_reading&)) {
  using key = typename Format::key;
  std::string_view text = data;
  if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.remove_prefix(3);
  const std::vector<text_chunk> pieces = split_lines(text, chunk_bytes());
  // About one partition per chunk: enough of them to keep every thread busy, each a fraction
  // of the labels.
  unsigned part_bits = 0;
  while (part_bits < max_partition_bits && (std::size_t(2) << part_bits) <= pieces.size())
    ++part_bits;

  std::vector<chunk_edges<key>> chunks = parse_chunks(fmt, pieces, part_bits);
  long long lines = 0;
  std::size_t endpoints = 0, keys = 0;
  bool unfit = false;
  for (const chunk_edges<key>& ch : chunks) {
    if (ch.error_line) throw parse_error(path, r.line_base + lines + ch.error_line, ch.error);
    lines += ch.lines;
    endpoints += ch.ends.size();
    keys += ch.keys.size();
    unfit = unfit || ch.unfit;
  }
  if (endpoints == 0 && keys == 0 && r.part) return labelled_graph{host_csr<double>(0, 0), {}};
  if (endpoints == 0 && keys == 0)  // (edges of weight 0 dropped leave their vertices)
    throw parse_error(path, 0,
                      "no edges found (" + std::to_string(r.line_base + lines) +
                          " lines, all blank or comments)");
  if (unfit || data.size() > max_label_offset ||
      endpoints > static_cast<std::size_t>(std::numeric_limits<index_t>::max())) {
    // Beyond the keys' limits, or 2^31 endpoints: perhaps more vertices than index_t numbers,
    // and the serial reader stops at the exact line where they run out.
    chunks = {};
    return serial(path, data, r);
  }
  r.edge_lines = static_cast<long long>(endpoints / 2);

  const std::vector<std::uint32_t> distinct =
      number_partitions(fmt, chunks, std::size_t(1) << part_bits);
  std::vector<std::string> labels = number_vertices(fmt, chunks, distinct);
  labelled_graph g;  // step 4
  g.adj = assemble_edges(static_cast<index_t>(labels.size()), chunks, r.options.symmetrize);
  g.labels = std::move(labels);
  return g;
}

}  // namespace

bool use_serial_reader() { return tuned_serial.load(std::memory_order_relaxed); }

labelled_graph read_edge_list_parallel(const std::string& path, std::string_view data,
                                       const read_options& options, text_reading& r,
                                       serial_reader serial) {
  edge_list_format fmt;
  fmt.nonnegative = options.nonnegative;
  fmt.transform = &options.weight_transform;
  fmt.nonfinite = options.nonfinite_weights;
  fmt.drop_zero = options.drop_zero_weights;
  return read_edges_parallel(path, data, fmt, r, serial);
}

labelled_graph read_abc_parallel(const std::string& path, std::string_view data,
                                 const read_options& options, text_reading& r,
                                 serial_reader serial) {
  abc_format fmt{data.data(), data.data() + data.size()};
  fmt.nonnegative = options.nonnegative;
  fmt.transform = &options.weight_transform;
  fmt.nonfinite = options.nonfinite_weights;
  fmt.drop_zero = options.drop_zero_weights;
  return read_edges_parallel(path, data, fmt, r, serial);
}

}  // namespace internal

namespace detail {
text_reader_tuning set_text_reader_tuning(const text_reader_tuning& t) {
  text_reader_tuning old;
  old.chunk_bytes = internal::tuned_chunk_bytes.exchange(t.chunk_bytes);
  old.serial = internal::tuned_serial.exchange(t.serial);
  return old;
}
}  // namespace detail

}  // namespace opsparse::io
