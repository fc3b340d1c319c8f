// Checkpoints of an MCL run (mcl_checkpoint.hpp).
#include "mcl_checkpoint.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "opsparse/output_file.hpp"

namespace opsparse::mcl::checkpoint {

namespace {

constexpr char magic[17] = "opsparse-mcl-ck\n";
constexpr std::uint32_t version = 1;

/// A 64-bit mix of 8-byte words (splitmix64's finaliser over a running state): fast enough for
/// the start matrix of 200M entries in a fraction of a second on a few threads.
std::uint64_t mix(std::uint64_t h, std::uint64_t w) {
  h ^= w + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace

std::uint64_t hash_chunk(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t x = 0x243f6a8885a308d3ull;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    x = mix(x, w);
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, p + i, bytes - i);
  return mix(x, tail ^ (bytes - i));
}

std::uint64_t combine_chunks(std::size_t bytes, const std::vector<std::uint64_t>& chunk_hashes) {
  std::uint64_t all = mix(0, bytes);
  for (std::uint64_t x : chunk_hashes) all = mix(all, x);
  return all;
}

std::uint64_t hash_bytes(const void* data, std::size_t bytes, int threads, std::size_t chunk) {
  const auto* p = static_cast<const unsigned char*>(data);
  const std::size_t chunks = (bytes + chunk - 1) / chunk;
  std::vector<std::uint64_t> h(chunks);
#pragma omp parallel for schedule(static) num_threads(threads) if (chunks > 1)
  for (long long c = 0; c < static_cast<long long>(chunks); ++c) {
    const std::size_t b = static_cast<std::size_t>(c) * chunk, e = std::min(bytes, b + chunk);
    h[static_cast<std::size_t>(c)] = hash_chunk(p + b, e - b);
  }
  return combine_chunks(bytes, h);
}

namespace {

template <class V>
std::uint64_t hash_vector(const std::vector<V>& v, int threads) {
  return hash_bytes(v.data(), v.size() * sizeof(V), threads);
}

std::uint64_t as_bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

template <class V>
void put(std::ostream& os, const V& v) {
  os.write(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class V>
void put_array(std::ostream& os, const std::vector<V>& v) {
  os.write(reinterpret_cast<const char*>(v.data()),
           static_cast<std::streamsize>(v.size() * sizeof(V)));
}

class reader {
 public:
  explicit reader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) fail("cannot be opened (" + std::string(std::strerror(errno)) + ")");
  }
  template <class V>
  V get() {
    V v{};
    in_.read(reinterpret_cast<char*>(&v), sizeof v);
    if (!in_) fail("is truncated");
    return v;
  }
  template <class V>
  void get_array(std::vector<V>& v, std::size_t n) {
    v.resize(n);
    in_.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * sizeof(V)));
    if (!in_) fail("is truncated");
  }
  void expect_magic() {
    char m[16];
    in_.read(m, sizeof m);
    if (!in_ || std::memcmp(m, magic, sizeof m) != 0)
      fail("is not a checkpoint of opsparse-mcl (or is damaged)");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("checkpoint " + path_ + " " + why);
  }

 private:
  std::string path_;
  std::ifstream in_;
};

}  // namespace

std::string file_in(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

std::uint64_t fingerprint_of(long long rows, long long cols, std::uint64_t rpt_hash,
                             std::uint64_t col_hash, std::uint64_t val_hash, const params& p,
                             precision prec) {
  std::uint64_t h = mix(0, static_cast<std::uint64_t>(rows));
  h = mix(h, static_cast<std::uint64_t>(cols));
  h = mix(h, rpt_hash);
  h = mix(h, col_hash);
  h = mix(h, val_hash);
  for (double x :
       {p.inflation, static_cast<double>(p.prune), static_cast<double>(p.select),
        static_cast<double>(p.recover), static_cast<double>(p.pct), static_cast<double>(p.max_iter),
        p.chaos_limit, static_cast<double>(p.initial_loop), p.initial_inflation})
    h = mix(h, as_bits(x));
  return mix(h, prec == precision::float32 ? 4 : 8);
}

std::uint64_t fingerprint(const host_csr<double>& start, const params& p, precision prec,
                          int threads) {
  if (threads <= 0) threads = omp_get_max_threads();
  return fingerprint_of(start.rows, start.cols, hash_vector(start.rpt, threads),
                        hash_vector(start.col, threads), hash_vector(start.val, threads), p, prec);
}

template <class T>
void write(const std::string& dir, std::uint64_t fp, const state<T>& s, const std::string& name) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("checkpoint folder " + dir + " cannot be made: " + ec.message());
  io::output_file out(file_in(dir, name));
  std::ostream& os = out.stream();
  const host_csr<T>& x = s.iterate;
  os.write(magic, 16);
  put(os, version);
  put(os, static_cast<std::uint32_t>(sizeof(T)));
  put(os, fp);
  put(os, static_cast<std::int64_t>(s.iteration));
  put(os, static_cast<std::int64_t>(s.rows_sorted ? 1 : 0));
  put(os, static_cast<std::int64_t>(x.rows));
  put(os, static_cast<std::int64_t>(x.nnz()));
  put_array(os, x.rpt);
  put_array(os, x.col);
  put_array(os, x.val);
  os.write(magic, 16);
  out.commit();
}

template <class T>
state<T> read(const std::string& dir, std::uint64_t fp, const std::string& name) {
  const std::string path = file_in(dir, name);
  reader in(path);
  in.expect_magic();
  if (in.get<std::uint32_t>() != version) in.fail("was written by another version of opsparse-mcl");
  const auto cell = in.get<std::uint32_t>();
  if (cell != sizeof(T))
    in.fail(std::string("holds ") + (cell == 4 ? "float" : "double") +
            " cells, and this run uses " + (sizeof(T) == 4 ? "float" : "double") +
            " (--precision)");
  if (in.get<std::uint64_t>() != fp)
    in.fail(
        "was written for another input or other options (the graph, -I, -P, -S, -R, -pct, "
        "--max-iter, -tf, -c, -pi and the loops must be the same as when it was written)");
  state<T> s;
  s.iteration = static_cast<int>(in.get<std::int64_t>());
  s.rows_sorted = in.get<std::int64_t>() != 0;
  const auto rows = in.get<std::int64_t>();
  const auto nnz = in.get<std::int64_t>();
  if (s.iteration < 1 || rows < 0 || nnz < 0) in.fail("is damaged (bad header)");
  s.iterate = host_csr<T>(static_cast<index_t>(rows), static_cast<index_t>(rows));
  in.get_array(s.iterate.rpt, static_cast<std::size_t>(rows) + 1);
  in.get_array(s.iterate.col, static_cast<std::size_t>(nnz));
  in.get_array(s.iterate.val, static_cast<std::size_t>(nnz));
  in.expect_magic();
  // A CSR matrix whose rows may be in any order (the GPU keeps some iterates unsorted).
  const host_csr<T>& x = s.iterate;
  if (x.rpt.front() != 0 || x.rpt.back() != nnz) in.fail("is damaged (row pointers)");
  for (std::size_t i = 0; i + 1 < x.rpt.size(); ++i)
    if (x.rpt[i] > x.rpt[i + 1]) in.fail("is damaged (row pointers decrease)");
  for (index_t c : x.col)
    if (c < 0 || c >= x.cols) in.fail("is damaged (a column out of range)");
  return s;
}

template void write<float>(const std::string&, std::uint64_t, const state<float>&,
                           const std::string&);
template void write<double>(const std::string&, std::uint64_t, const state<double>&,
                            const std::string&);
template state<float> read<float>(const std::string&, std::uint64_t, const std::string&);
template state<double> read<double>(const std::string&, std::uint64_t, const std::string&);

}  // namespace opsparse::mcl::checkpoint
