// Parts of a text graph file for readers that split it between processes (find_text_part,
// read_abc_part in opsparse/io.hpp): each process maps the file without reading it, then reads
// and parses its own part with the parallel reader.
#include "io/reader_common.hpp"

namespace opsparse::io {

using namespace internal;

namespace {

/// The first line start at or after byte `at` (data.size() when none).
std::size_t line_start_from(std::string_view data, std::size_t at) {
  if (at == 0) return 0;
  if (at >= data.size()) return data.size();
  const void* nl = std::memchr(data.data() + at - 1, '\n', data.size() - (at - 1));
  return nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - data.data()) + 1
            : data.size();
}

/// Bytes [begin, end) of part `part` of `parts`.
std::pair<std::size_t, std::size_t> part_bounds(std::string_view data, int part, int parts) {
  const auto nominal = [&](int k) {
    return static_cast<std::size_t>(static_cast<unsigned __int128>(data.size()) *
                                    static_cast<unsigned>(k) / static_cast<unsigned>(parts));
  };
  const std::size_t begin = line_start_from(data, nominal(part));
  const std::size_t end =
      part + 1 >= parts ? data.size() : line_start_from(data, nominal(part + 1));
  return {begin, std::max(begin, end)};
}

long long count_newlines(std::string_view text) {
  constexpr std::size_t block = std::size_t(1) << 20;
  const long long blocks = static_cast<long long>((text.size() + block - 1) / block);
  long long count = 0;
#pragma omp parallel for schedule(dynamic, 8) reduction(+ : count) if (blocks >= 16)
  for (long long b = 0; b < blocks; ++b) {
    const std::size_t at = static_cast<std::size_t>(b) * block;
    const std::size_t size = std::min(block, text.size() - at);
    count += std::count(text.data() + at, text.data() + at + size, '\n');
  }
  return count;
}

}  // namespace

text_part find_text_part(const std::string& path, int part, int parts) {
  OPSPARSE_EXPECTS(parts > 0 && part >= 0 && part < parts, "find_text_part: bad part");
  const file_bytes file(path, false);
  if (!file.mapped() && !file.view().empty())
    throw parse_error(path, 0, "cannot read in parts: not a regular file");
  const std::string_view data = file.view();
  const auto [begin, end] = part_bounds(data, part, parts);
  file.populate(begin, end - begin);
  text_part p;
  p.begin = begin;
  p.end = end;
  p.newlines = count_newlines(data.substr(begin, end - begin));
  p.lines = p.newlines + (end > begin && data[end - 1] != '\n' ? 1 : 0);
  p.file_bytes = data.size();
  return p;
}

labelled_graph read_abc_part(const std::string& path, const text_part& part, long long line_base,
                             const read_options& options) {
  return guard_memory(path, [&] {
    const file_bytes file(path, false);
    const std::string_view data = file.view();
    if (data.size() != part.file_bytes || part.end > data.size() || part.begin > part.end)
      throw parse_error(path, 0, "the file changed while it was read in parts");
    const std::size_t size = static_cast<std::size_t>(part.end - part.begin);
    file.populate(static_cast<std::size_t>(part.begin), size);
    const std::string_view text = data.substr(static_cast<std::size_t>(part.begin), size);
    const std::size_t nul = find_nul(text);
    if (nul < text.size()) {
      const std::string_view before = text.substr(0, nul);
      throw parse_error(
          path,
          line_base + 1 + static_cast<long long>(std::count(before.begin(), before.end(), '\n')),
          "NUL byte at byte offset " + std::to_string(part.begin + nul) +
              ": binary data, not a text file");
    }
    text_reading r;
    r.options = options;
    r.line_base = line_base;
    r.part = true;
    if (text.empty()) return labelled_graph{};
    if (use_serial_reader()) return read_abc_serial(path, text, r);
    return read_abc_parallel(path, text, options, r, read_abc_serial);
  });
}

}  // namespace opsparse::io
