#pragma once
// ---- dense output rows in shared-memory windows ------------------------------------------------
// A row whose output covers a large part of B's columns (MCL's expansion of a dense protein
// network: 99,000 of 100,000 columns) accumulates its values in shared memory, one window of
// columns after another, instead of in a global dense array: the global accumulator made every
// product an L2 atomic on an array larger than the L2 (132 rows of 800 KB on the H100: 23 G
// products/s, measured). A window holds `window` columns' values and presence bits; each warp
// takes nonzeros of A and walks the part of their B rows that falls in the window. With B's
// rows sorted (checked on the device, b_unsorted == 0) that part is found by a 32-ary search
// and read once in all; otherwise every window walks the whole B rows and skips what lies
// outside.
//
// What happens to a finished window is the epilogue's business (window_rows_kernel's Epi):
// the engine writes the window's entries into C in column order (window_writer: rows come out
// sorted by construction); opsparse::visit_dense_rows hands windows to the caller's epilogue,
// e.g. MCL's pruning, so that the dense row never reaches device memory.
#include <cuda_runtime.h>

#include <type_traits>

#include "opsparse/detail/kernels/spgemm_kernels.cuh"

namespace opsparse::detail {

/// Sets *unsorted to 1 when a row of `rows` (CSR rpt/col) is not strictly increasing. A warp per
/// row, grid-stride. (A template only so that the header can define it in every file.)
template <class Index = index_t>
__global__ void __launch_bounds__(256)
    rows_unsorted_kernel(Index rows, const offset_t* rpt, const Index* col, unsigned* unsorted) {
  const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / 32);
  const int lane = threadIdx.x & 31;
  bool bad = false;
  for (long long r = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; r < rows;
       r += warps) {
    const offset_t lo = rpt[r], hi = rpt[r + 1];
    for (offset_t q = lo + lane; q + 1 < hi; q += 32) bad |= __ldg(col + q) >= __ldg(col + q + 1);
  }
  if (__any_sync(0xffffffffu, bad) && lane == 0) atomicOr(unsorted, 1u);
}

/// The first position in [lo, hi) of a sorted B row whose column is >= key (hi when none), found
/// by the whole warp: 32 samples a round, so a row of 1,000 entries takes two rounds.
__device__ __forceinline__ offset_t warp_lower_bound(const index_t* col, offset_t lo, offset_t hi,
                                                     index_t key, int lane) {
  constexpr unsigned full = 0xffffffffu;
  while (hi - lo > 32) {
    const offset_t step = (hi - lo + 31) / 32;
    offset_t at = lo + static_cast<offset_t>(lane) * step;
    if (at > hi - 1) at = hi - 1;
    const unsigned ge = __ballot_sync(full, __ldg(col + at) >= key);
    if (ge & 1u) return lo;                     // the first sample already reaches key
    const int first = ge ? __ffs(ge) - 1 : 32;  // samples are monotone: a suffix is set
    const offset_t nlo = lo + static_cast<offset_t>(first - 1) * step + 1;
    offset_t nhi = hi;
    if (first < 32) {
      nhi = lo + static_cast<offset_t>(first) * step;
      if (nhi > hi - 1) nhi = hi - 1;
      ++nhi;  // the sample itself may be the answer: keep it inside [nlo, nhi)
      if (nhi > hi) nhi = hi;
    }
    lo = nlo;
    hi = nhi;
  }
  const offset_t at = lo + lane;
  const unsigned ge = __ballot_sync(full, at < hi && __ldg(col + at) >= key);
  return ge ? lo + __ffs(ge) - 1 : hi;
}

/// Dynamic shared bytes of a window kernel with `window` columns of values of `value_bytes`
/// each: the values and, when `bits`, a presence bit per column.
inline std::size_t window_smem_bytes(int window, std::size_t value_bytes, bool bits = true) {
  return static_cast<std::size_t>(window) * value_bytes +
         (bits ? static_cast<std::size_t>(window / 32) * 4 : 0);
}
/// Its static shared memory besides the epilogue's: room for the compiler's own.
inline std::size_t window_static_smem_bytes() { return 64; }

/// Columns per window: as many as the block's shared memory holds (values and, when `bits`,
/// presence bits) next to `fixed` static bytes, a multiple of 32; all of B's columns when they
/// fit.
inline int window_columns(std::size_t smem_per_block_optin, std::size_t value_bytes, index_t cols,
                          std::size_t fixed, bool bits = true) {
  // The opt-in limit counts static and dynamic shared memory together.
  const std::size_t per32 = 32 * value_bytes + (bits ? 4 : 0);  // 32 columns: values, bit word
  const std::size_t room = smem_per_block_optin > fixed ? smem_per_block_optin - fixed : 0;
  const long long most = static_cast<long long>(room / std::max<std::size_t>(per32, 1)) * 32;
  const long long need = (static_cast<long long>(cols) + 31) / 32 * 32;
  return static_cast<int>(std::max<long long>(32, std::min(most, need)));
}

/// Cursors a lane keeps for the nonzeros of A its warp walks (window_rows_kernel): 2 a lane,
/// 64 a warp, 2,048 a block. A row of A with more nonzeros finds its later B rows' parts by
/// search (MCL's selection keeps rows of 1,100 to 1,400).
constexpr int window_cursor_slots = 2;

/// How a window accumulates (window_rows_kernel's Epi decides):
///   bits:  presence bits are kept (an epilogue that tells presence by the value, e.g. of
///          positive products, saves one shared atomic per entry of the row);
///   fixed: 0, or the sums are kept as 64-bit fixed-point numbers of `fixed` fraction bits (see
///          window_add_fixed): exact, order-independent sums at two native 32-bit shared
///          atomics a product, where a double's atomicAdd on shared memory is a compare-and-swap
///          loop that serves a third of a warp a round (measured on the H100).
template <bool Bits, int Fixed>
struct window_mode {
  static constexpr bool bits = Bits;
  static constexpr int fixed = Fixed;
  static_assert(Fixed >= 0 && Fixed < 63, "fixed: fraction bits of a signed 64-bit number");
  static_assert(Fixed == 0 || !Bits, "fixed-point windows tell presence by the value");
};

/// Epi::fixed_point_bits when the epilogue declares it, else 0.
template <class Epi, class = void>
struct fixed_point_bits_of : std::integral_constant<int, 0> {};
template <class Epi>
struct fixed_point_bits_of<Epi, std::void_t<decltype(Epi::fixed_point_bits)>>
    : std::integral_constant<int, Epi::fixed_point_bits> {};

/// Fixed-point windows keep each block of 32 columns as 32 low words then 32 high words (the
/// 256 bytes its 32 doubles take once converted): a warp's 32 consecutive columns fall in 32
/// distinct banks for either word.
__device__ __forceinline__ unsigned* fixed_low_word(void* vals, int x) {
  return static_cast<unsigned*>(vals) + (x & ~31) * 2 + (x & 31);
}

/// Adds p (rounded to a multiple of 2^-Fixed) to column x's 64-bit fixed-point sum: the low
/// words' atomic add returns the old word, whose wrap-around is the carry into the high word.
/// Integer sums are exact in any order (modulo 2^64: the caller promises |sum| < 2^(63-Fixed)).
template <int Fixed>
__device__ __forceinline__ void window_add_fixed(int x, double p, void* vals) {
  constexpr double scale = static_cast<double>(1ull << Fixed);  // a power of two: exact
  const auto q = static_cast<unsigned long long>(__double2ll_rn(p * scale));
  const unsigned lo = static_cast<unsigned>(q), hi = static_cast<unsigned>(q >> 32);
  unsigned* w = fixed_low_word(vals, x);
  const unsigned old = atomicAdd(w, lo);
  const unsigned high = hi + (old + lo < old ? 1u : 0u);
  if (high != 0u) atomicAdd(w + 32, high);
}

/// The window's fixed-point sums as doubles, in place, a warp a block of 32 columns.
template <int Fixed>
__device__ __forceinline__ void window_fixed_to_double(double* vals, int width, int warp,
                                                       int nwarps, int lane) {
  for (int c = warp; c * 32 < width; c += nwarps) {
    const unsigned* w = fixed_low_word(vals, c * 32 + lane);
    const unsigned long long q = (static_cast<unsigned long long>(w[32]) << 32) | w[0];
    __syncwarp();  // every lane has read its words before any double overwrites them
    constexpr double unit = 1.0 / static_cast<double>(1ull << Fixed);  // a power of two: exact
    vals[c * 32 + lane] = static_cast<double>(static_cast<long long>(q)) * unit;
  }
}

/// Adds the product av * bv to column w0 + x of the window (and marks it present when the
/// mode keeps bits).
template <class S, class Mode, class VA, class VB, class T>
__device__ __forceinline__ void window_add(int x, VA av, VB bv, unsigned* bits, T* vals) {
  if constexpr (Mode::fixed > 0) {
    static_assert(S::kind == add_kind::plus && std::is_same_v<T, double>,
                  "fixed-point windows: double sums with +");
    window_add_fixed<Mode::fixed>(x, static_cast<double>(S::multiply(av, bv)), vals);
  } else if constexpr (!Mode::bits) {
    static_assert(S::kind == add_kind::plus && has_values_v<T>,
                  "presence without bits: values summed with +, absent ones the identity");
    atomic_plus(vals + x, static_cast<T>(S::multiply(av, bv)));
  } else if constexpr (has_values_v<T>) {
    const T v = S::multiply(av, bv);
    if constexpr (S::kind == add_kind::plus && std::is_floating_point_v<T>) {
      // The first addition to a column finds the identity (0) there: only it sets the
      // presence bit, one shared atomic per product instead of two.
      if (atomicAdd(vals + x, v) == S::identity()) atomicOr(bits + (x >> 5), 1u << (x & 31));
    } else {
      atomicOr(bits + (x >> 5), 1u << (x & 31));
      if constexpr (S::kind == add_kind::any)
        vals[x] = v;  // any product's value will do
      else
        accumulate<S>(vals + x, v);
    }
  } else {
    atomicOr(bits + (x >> 5), 1u << (x & 31));
  }
}

/// One window's part of B row entries [q, pe) for a sorted row: accumulates every entry below
/// w1 (all are >= w0) and returns where the part ends. The whole warp calls it.
template <class S, class Mode, class VA, class VB, class Mask, class T>
__device__ __forceinline__ offset_t window_part(const dev_csr<VB>& b, offset_t q, offset_t pe,
                                                index_t w0, index_t w1, VA av, const mask_row& mr,
                                                unsigned* bits, T* vals, int lane) {
  // Two chunks of 32 a round, both loaded before either is added: a long part (~275 entries a
  // window at 4 windows a row) costs half the dependent loads.
  for (;;) {
    const offset_t p0 = q + lane, p1 = p0 + 32;
    index_t k0 = 0, k1 = 0;
    VB v0{}, v1{};
    bool in0 = p0 < pe, in1 = p1 < pe;
    if (in0) {
      k0 = __ldg(b.col + p0);
      v0 = load_value(b.val, p0);
    }
    if (in1) {
      k1 = __ldg(b.col + p1);
      v1 = load_value(b.val, p1);
    }
    in0 = in0 && k0 < w1;
    // sorted: the lanes inside the window are a prefix of the warp
    const int n0 = __popc(__ballot_sync(0xffffffffu, in0));
    if (in0 && mask_keeps<Mask>(mr, k0)) window_add<S, Mode>(k0 - w0, av, v0, bits, vals);
    if (n0 < 32) return q + n0;
    in1 = in1 && k1 < w1;
    const int n1 = __popc(__ballot_sync(0xffffffffu, in1));
    if (in1 && mask_keeps<Mask>(mr, k1)) window_add<S, Mode>(k1 - w0, av, v1, bits, vals);
    q += 32 + n1;
    if (n1 < 32) return q;
  }
}

/// Lane src's value of a warp (the value itself for pattern).
template <class V>
__device__ __forceinline__ V shfl_value(V v, int src) {
  if constexpr (has_values_v<V>)
    return __shfl_sync(0xffffffffu, v, src);
  else
    return v;
}

/// A lane's cursor into the B row of A's nonzero j (nothing past the row's end).
template <class VA, class VB>
__device__ __forceinline__ void start_cursor(const dev_csr<VA>& a, const dev_csr<VB>& b, offset_t j,
                                             offset_t ahi, offset_t& cur, int& rem) {
  if (j < ahi) {
    const index_t k = __ldg(a.col + j);
    cur = __ldg(b.rpt + k);
    rem = static_cast<int>(__ldg(b.rpt + k + 1) - cur);
  }
}

/// A lane's two cursor slots for A's nonzeros j0 and j0 + stride: the cursors into their B
/// rows and A's values.
template <class VA, class VB>
__device__ __forceinline__ void start_slots(const dev_csr<VA>& a, const dev_csr<VB>& b, offset_t j0,
                                            offset_t ahi, offset_t stride, offset_t& cur0,
                                            int& rem0, VA& av0, offset_t& cur1, int& rem1,
                                            VA& av1) {
  const offset_t j1 = j0 + stride;
  start_cursor(a, b, j0, ahi, cur0, rem0);
  start_cursor(a, b, j1, ahi, cur1, rem1);
  if (j0 < ahi) av0 = load_value(a.val, j0);
  if (j1 < ahi) av1 = load_value(a.val, j1);
}

/// A window's values to the semiring's identity and its presence bits (if kept) to 0, by the
/// block (the caller's barrier follows).
template <class S, class Mode, class T>
__device__ __forceinline__ void clear_window(T* vals, unsigned* bits, int window, int tid) {
  if constexpr (Mode::bits)
    for (int w = tid; w < window / 32; w += dense_block) bits[w] = 0u;
  if constexpr (has_values_v<T> && S::kind != add_kind::any)
    for (int k = tid; k < window; k += dense_block) vals[k] = S::identity();
}

/// A warp's steps [t, steps) of a window beyond its cursors: the nonzeros first + nwarps·t of A.
/// Sorted B rows: the window's part found by a search; unsorted: every window walks the whole
/// B row and keeps what falls inside.
template <class S, class Mode, class VA, class VB, class Mask, class T>
__device__ __forceinline__ void window_steps_after(const dev_csr<VA>& a, const dev_csr<VB>& b,
                                                   offset_t first, int nwarps, int t, int steps,
                                                   bool sorted_b, index_t w0, index_t w1,
                                                   const mask_row& mr, unsigned* bits, T* vals,
                                                   int lane) {
  for (; t < steps; ++t) {
    const offset_t j = first + static_cast<offset_t>(nwarps) * t;
    const VA av = load_value(a.val, j);
    const index_t k = __ldg(a.col + j);
    const offset_t pe = __ldg(b.rpt + k + 1);
    if (sorted_b) {
      const offset_t q =
          w0 == 0 ? __ldg(b.rpt + k) : warp_lower_bound(b.col, __ldg(b.rpt + k), pe, w0, lane);
      window_part<S, Mode, VA, VB, Mask>(b, q, pe, w0, w1, av, mr, bits, vals, lane);
      continue;
    }
    for (offset_t p = __ldg(b.rpt + k) + lane; __any_sync(0xffffffffu, p < pe); p += 32) {
      if (p >= pe) continue;
      const index_t key = __ldg(b.col + p);
      if (key < w0 || key >= w1 || !mask_keeps<Mask>(mr, key)) continue;
      window_add<S, Mode>(key - w0, av, load_value(b.val, p), bits, vals);
    }
  }
}

/// A lane's walk of its own cursor through one window: adds the entries of its B row below w1
/// (all are >= w0) and leaves the cursor at the first one past the window. Two entries a round,
/// both loaded before either is added (the walk is a chain of dependent loads).
template <class S, class Mode, class VA, class VB, class Mask, class T>
__device__ __forceinline__ void lane_window_part(const dev_csr<VB>& b, offset_t& cur, int& rem,
                                                 VA av, index_t w0, index_t w1, const mask_row& mr,
                                                 unsigned* bits, T* vals) {
  while (rem > 0) {
    const bool two = rem > 1;
    const index_t k0 = __ldg(b.col + cur);
    const index_t k1 = two ? __ldg(b.col + cur + 1) : w1;
    const VB v0 = load_value(b.val, cur);
    VB v1{};
    if (two) v1 = load_value(b.val, cur + 1);
    if (k0 >= w1) return;
    if (mask_keeps<Mask>(mr, k0)) window_add<S, Mode>(k0 - w0, av, v0, bits, vals);
    ++cur;
    --rem;
    if (k1 >= w1) return;
    if (mask_keeps<Mask>(mr, k1)) window_add<S, Mode>(k1 - w0, av, v1, bits, vals);
    ++cur;
    --rem;
  }
}

// The cursor of step `step` (held by lane step % 32 in slot step / 32) and the first 32
// entries of its part, in window_rows_kernel (a macro: a lambda capturing the cursors would put
// them in memory; the names are the kernel's).
#define OPSPARSE_WINDOW_FETCH(step, q, pe, key, bv)               \
  do {                                                            \
    const bool second_ = ((step) >> 5) != 0;                      \
    q = __shfl_sync(full, second_ ? cur1 : cur0, (step)&31);      \
    pe = q + __shfl_sync(full, second_ ? rem1 : rem0, (step)&31); \
    if (q + lane < pe) {                                          \
      key = __ldg(b.col + q + lane);                              \
      bv = load_value(b.val, q + lane);                           \
    }                                                             \
  } while (0)

/// The rows `rows[0..n_rows)` of A·B (rows == nullptr: rows 0..n_rows-1) in columns
/// [first_col, cols) (B has no entry left of first_col: the cursors start at its rows' first
/// entries), one block of
/// dense_block threads a row, grid-stride. Each window's values and presence bits (unless
/// Epi::presence_bits is false: then only values, summed with +) are complete
/// when epi.window() is called (by the whole block, between barriers); absent columns hold the
/// semiring's identity. With `lane_walk` each lane walks its cursors' parts alone instead of the
/// warp walking one part at a time: for wide products, whose windows hold a few entries of each
/// B row (dense_rows_options::lane_walk). Epi provides a `shared_storage` type (its static
/// shared memory) and
/// block-wide begin_row(storage, row), window(storage, row, w0, width, vals, bits) and
/// end_row(storage, row); windows come in increasing column order.
template <class S, class VA, class VB, class Mask, class Epi>
__global__ void __launch_bounds__(dense_block, 1)
    window_rows_kernel(const index_t* rows, index_t n_rows, dev_csr<VA> a, dev_csr<VB> b,
                       index_t first_col, index_t cols, int window, const unsigned* b_unsorted,
                       bool lane_walk, Mask mask, Epi epi) {
  using T = typename S::value_type;
  constexpr unsigned full = 0xffffffffu;
  extern __shared__ __align__(16) unsigned char smem_w[];
  T* vals = reinterpret_cast<T*>(smem_w);  // window * sizeof(T) bytes (none for pattern)
  unsigned* bits = reinterpret_cast<unsigned*>(smem_w + (has_values_v<T> ? window * sizeof(T) : 0));
  __shared__ typename Epi::shared_storage epi_smem;
  using Mode = window_mode<Epi::presence_bits, fixed_point_bits_of<Epi>::value>;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = dense_block / 32;
  // Read once: the flag was set by rows_unsorted_kernel earlier on the stream.
  const bool sorted_b = *b_unsorted == 0u;
  for (index_t r = blockIdx.x; r < n_rows; r += gridDim.x) {
    const index_t row = rows ? rows[r] : r;
    const offset_t alo = a.rpt[row], ahi = a.rpt[row + 1];
    const mask_row mr = load_mask_row(mask, row);
    epi.begin_row(epi_smem, row);
    __syncthreads();  // the epilogue's row state is set (a row may have no window: 0 columns)
    // The warp's t-th nonzero of A is alo + warp + nwarps * t; lane t % 32 keeps its cursor in
    // slot t / 32: where the next window's part of its B row starts, and how much of the row
    // is left from there. A step then needs no load before B's (a.col, then B's row pointers,
    // an L2 access for long B: measured 61G products/s at 36 windows a row before).
    // Two slots as plain scalars (an array was placed in local memory).
    static_assert(window_cursor_slots == 2, "the cursor slots are cur0/rem0 and cur1/rem1");
    // The slots hold A's values too: loaded once a row, not once a window (a step's first
    // load was A's value, a quarter of the kernel's stall samples at 36 windows a row).
    offset_t cur0 = 0, cur1 = 0;
    int rem0 = 0, rem1 = 0;
    VA av0{}, av1{};
    start_slots(a, b, alo + warp + static_cast<offset_t>(nwarps) * lane, ahi,
                static_cast<offset_t>(nwarps) * 32, cur0, rem0, av0, cur1, rem1, av1);
    for (index_t w0 = first_col; w0 < cols; w0 += window) {
      const index_t w1 = cols - w0 > window ? w0 + window : cols;
      clear_window<S, Mode>(vals, bits, window, tid);
      __syncthreads();
      const offset_t nnz_a = ahi - alo;
      const int steps = nnz_a > warp ? static_cast<int>((nnz_a - warp + nwarps - 1) / nwarps) : 0;
      int t = 0;
      if (sorted_b && lane_walk) {
        // Lane l walks steps l and 32 + l, the nonzeros its slots hold.
        const int cursor_steps = min(steps, window_cursor_slots * 32);
        if (lane < cursor_steps)
          lane_window_part<S, Mode, VA, VB, Mask>(b, cur0, rem0, av0, w0, w1, mr, bits, vals);
        if (32 + lane < cursor_steps)
          lane_window_part<S, Mode, VA, VB, Mask>(b, cur1, rem1, av1, w0, w1, mr, bits, vals);
        t = cursor_steps;
      } else if (sorted_b) {
        // The steps with cursors, two deep: the next step's first 32 entries of B are loaded
        // before this step's are added, so that a warp has two B loads in flight, not one (a
        // step is often a single load: ~30 entries a window at 36 windows a row).
        const int cursor_steps = min(steps, window_cursor_slots * 32);
        offset_t q = 0, pe = 0;
        index_t key = 0;
        VB bv{};
        if (cursor_steps > 0) OPSPARSE_WINDOW_FETCH(0, q, pe, key, bv);
        for (; t < cursor_steps; ++t) {
          const VA av = shfl_value((t >> 5) ? av1 : av0, t & 31);
          offset_t qn = 0, pen = 0;
          index_t keyn = 0;
          VB bvn{};
          if (t + 1 < cursor_steps) OPSPARSE_WINDOW_FETCH(t + 1, qn, pen, keyn, bvn);
          const bool in = q + lane < pe && key < w1;
          const int n = __popc(__ballot_sync(full, in));  // sorted: a prefix of the warp
          if (in && mask_keeps<Mask>(mr, key)) window_add<S, Mode>(key - w0, av, bv, bits, vals);
          offset_t qe = q + n;
          if (n == 32)
            qe = window_part<S, Mode, VA, VB, Mask>(b, qe, pe, w0, w1, av, mr, bits, vals, lane);
          if (lane == (t & 31)) {
            if (t >> 5) {
              cur1 = qe;
              rem1 = static_cast<int>(pe - qe);
            } else {
              cur0 = qe;
              rem0 = static_cast<int>(pe - qe);
            }
          }
          q = qn;
          pe = pen;
          key = keyn;
          bv = bvn;
        }
#undef OPSPARSE_WINDOW_FETCH
      }
      window_steps_after<S, Mode, VA, VB, Mask>(a, b, alo + warp, nwarps, t, steps, sorted_b, w0,
                                                w1, mr, bits, vals, lane);
      __syncthreads();
      if constexpr (Mode::fixed > 0) {
        window_fixed_to_double<Mode::fixed>(vals, static_cast<int>(w1 - w0), warp, nwarps, lane);
        __syncthreads();
      }
      epi.window(epi_smem, row, w0, static_cast<int>(w1 - w0), vals, bits);
      __syncthreads();  // the epilogue has read the window
    }
    epi.end_row(epi_smem, row);
    __syncthreads();
  }
}

/// The engine's epilogue: each window's entries are written into C in column order (each
/// thread owns a run of bit words), so that rows come out sorted with no sort.
template <class T>
struct window_writer {
  static constexpr bool presence_bits = true;
  dev_out<T> c;
  struct shared_storage {
    typename dense_scan::TempStorage scan;
    offset_t out;  ///< where the row's next entry goes
  };
  __device__ void begin_row(shared_storage& s, index_t row) const {
    if (threadIdx.x == 0) s.out = c.rpt[row];  // read after the kernel's next barrier
  }
  __device__ void window(shared_storage& s, index_t, index_t w0, int width, const T* vals,
                         const unsigned* bits) const {
    const int words = (width + 31) / 32;
    const int chunk = (words + dense_block - 1) / dense_block;
    const int cw0 = threadIdx.x * chunk, cw1 = min(words, cw0 + chunk);
    int count = 0;
    for (int w = cw0; w < cw1; ++w) count += __popc(bits[w]);
    int pos, total;
    dense_scan(s.scan).ExclusiveSum(count, pos, total);
    const offset_t base = s.out + pos;
    int e = 0;
    for (int w = cw0; w < cw1; ++w)
      for (unsigned m = bits[w]; m; m &= m - 1) {
        const int x = w * 32 + __ffs(m) - 1;
        c.col[base + e] = w0 + x;
        if constexpr (has_values_v<T>) c.val[base + e] = vals[x];
        ++e;
      }
    __syncthreads();  // every thread has read s.out
    if (threadIdx.x == 0) s.out += total;
  }
  __device__ void end_row(shared_storage&, index_t) const {}
};

}  // namespace opsparse::detail
