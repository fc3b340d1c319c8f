#pragma once
// The GPU backend's face for a distributed rank (device_iterate, mcl.hpp; used by
// mcl_dist_rows.cpp): the rank's rows of the iterate handed to NCCL, the rows of X it receives
// from the other ranks as the expansion's right operand (whole, or a column block per stage of
// a staged fused expansion), and the whole expansion's decisions taken as every rank takes
// them. Member definitions of gpu_backend, included by mcl_gpu.cu after the class.

namespace opsparse::mcl {
namespace {

template <class T>
const offset_t* gpu_backend<T>::shifted_row_pointers(index_t r0, index_t r1, offset_t shift) {
  OPSPARSE_EXPECTS(0 <= r0 && r0 <= r1 && r1 <= n_, "shifted_row_pointers: bad rows");
  return shifted(m_.rpt() + r0 + 1, r1 - r0, shift);
}

/// `rows` values from `ends` plus shift, in scratch (keep_).
template <class T>
const offset_t* gpu_backend<T>::shifted(const offset_t* ends, index_t rows, offset_t shift) {
  keep_.reserve(std::max<std::size_t>(1, static_cast<std::size_t>(rows)));
  if (rows > 0)
    OPSPARSE_CUDA_TRY(cub::DeviceTransform::Transform(
        ends, keep_.data(), static_cast<long long>(rows), plus_offset{shift}, ctx_.stream()));
  return keep_.data();
}

template <class T>
typename gpu_backend<T>::arrays gpu_backend<T>::spare(offset_t nnz) {
  device_csr<T>& spare = next_.arrays();
  spare.set_shape(n_, n_, ctx_.memory());
  spare.set_nnz(nnz, ctx_.memory());
  OPSPARSE_CUDA_TRY(cudaMemsetAsync(spare.rpt(), 0, sizeof(offset_t), ctx_.stream()));
  return {spare.rpt(), spare.col(), spare.val(), nnz};
}

template <class T>
std::vector<offset_t> gpu_backend<T>::right_row_pointers(const std::vector<index_t>& rows) {
  OPSPARSE_EXPECTS(right_on_, "right_row_pointers: no right operand (multiply_by)");
  std::vector<offset_t> out(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    OPSPARSE_EXPECTS(0 <= rows[k] && rows[k] <= n_, "right_row_pointers: bad row");
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(&out[k], right_.rpt + rows[k], sizeof(offset_t),
                                      cudaMemcpyDeviceToHost, ctx_.stream()));
  }
  OPSPARSE_CUDA_TRY(cudaStreamSynchronize(ctx_.stream()));
  return out;
}

template <class T>
typename gpu_backend<T>::arrays gpu_backend<T>::spare_rows(index_t r0, index_t r1, offset_t from,
                                                           offset_t to, offset_t at) {
  OPSPARSE_EXPECTS(0 <= r0 && r0 <= r1 && r1 <= n_, "spare_rows: bad rows");
  const std::vector<offset_t> ends = right_row_pointers({r0, r1});
  const offset_t nnz = ends[1] - ends[0];
  OPSPARSE_EXPECTS(0 <= from && from <= to && to <= m_.nnz() && 0 <= at && at + (to - from) <= nnz,
                   "spare_rows: bad entries");
  const arrays s = spare(nnz);
  cudaStream_t st = ctx_.stream();
  OPSPARSE_CUDA_TRY(cub::DeviceTransform::Transform(
      right_.rpt, s.rpt, static_cast<long long>(n_) + 1, clamped_offset{ends[0], ends[1]}, st));
  const auto kept = static_cast<std::size_t>(to - from);
  if (kept > 0) {
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(s.col + at, m_.col() + from, kept * sizeof(index_t),
                                      cudaMemcpyDeviceToDevice, st));
    OPSPARSE_CUDA_TRY(cudaMemcpyAsync(s.val + at, m_.val() + from, kept * sizeof(T),
                                      cudaMemcpyDeviceToDevice, st));
  }
  note_memory("the rank's rows split anew");
  return s;
}

template <class T>
void gpu_backend<T>::use_spare() {
  // The ranks' rows are in the order their backends left them, which is the same on every
  // rank (opt_.sorted is decided from the whole X): m_sorted_ stays.
  std::swap(m_, next_.arrays());
  next_.arrays().set_nnz(0);
}

template <class T>
std::vector<offset_t> gpu_backend<T>::row_products_prefix() {
  // expansion_blocks() counted and scanned them into products_
  std::vector<offset_t> prefix(static_cast<std::size_t>(n_) + 1, 0);
  if (n_ == 0) return prefix;
  cudaStream_t s = ctx_.stream();
  OPSPARSE_CUDA_TRY(cudaMemcpyAsync(prefix.data(), products_.data(),
                                    prefix.size() * sizeof(offset_t), cudaMemcpyDeviceToHost, s));
  OPSPARSE_CUDA_TRY(cudaStreamSynchronize(s));
  return prefix;
}

template <class T>
void gpu_backend<T>::multiply_by(const arrays* b, bool sorted) {
  right_on_ = b != nullptr;
  if (b) right_ = *b;
  right_sorted_ = sorted;
}

template <class T>
typename gpu_backend<T>::arrays gpu_backend<T>::right_buffer(offset_t nnz) {
  b_.set_shape(n_, n_, ctx_.memory());
  b_.set_nnz(nnz, ctx_.memory());
  OPSPARSE_CUDA_TRY(cudaMemsetAsync(b_.rpt(), 0, sizeof(offset_t), ctx_.stream()));
  note_memory("the rank's operand received");
  return {b_.rpt(), b_.col(), b_.val(), nnz};
}

template <class T>
void gpu_backend<T>::release_right_buffer() {
  right_on_ = false;
  b_ = device_csr<T>();
  piece_ = device_csr<T>();
  settle_memory();
}

template <class T>
offset_t gpu_backend<T>::products() {
  if (n_ == 0) return 0;
  row_products(ctx_, m_.view(), right(), products_.data());
  return sum_capped(ctx_, products_.data(), n_, std::numeric_limits<offset_t>::max(), bound_, cub_);
}

template <class T>
typename gpu_backend<T>::arrays gpu_backend<T>::column_piece(index_t r0, index_t r1, index_t c0,
                                                             index_t c1) {
  OPSPARSE_EXPECTS(0 <= r0 && r0 <= r1 && r1 <= n_ && 0 <= c0 && c0 <= c1 && c1 <= n_,
                   "column_piece: bad rows or columns");
  csr_view<T> a = m_.view();
  a.rows = r1 - r0;
  a.rpt = m_.rpt() + r0;
  select(ctx_, a, in_columns<T>{c0, c1}, piece_);
  return {piece_.rpt(), piece_.col(), piece_.val(), piece_.nnz()};
}

template <class T>
const offset_t* gpu_backend<T>::piece_row_ends(offset_t shift) {
  return shifted(piece_.rpt() + 1, piece_.rows(), shift);
}

template <class T>
void gpu_backend<T>::expand_stage(index_t r0, index_t r1, const prune_rule& rule, const arrays& b,
                                  index_t c0, index_t c1, bool first, bool last) {
  OPSPARSE_EXPECTS(fused_, "expand_stage: the expansion is not fused (expansion_blocks)");
  if (first) expand(r0, r1);
  OPSPARSE_EXPECTS(r0 == r0_ && r1 == r1_, "expand_stage: the rows of the stages differ");
  const csr_view<T> bv = square_view(b);
  visit_stage stage;
  stage.first_col = c0;
  stage.last_col = c1;
  stage.first = first;
  stage.last = last;
  if (r1 > r0 && !visit_fused(rule, bv, stage))
    throw std::runtime_error(
        "a row's candidates overflowed the staged expansion's scratch (ties of a size that "
        "only a run without -S and -R leaves)");
}

template <class T>
csr_view<T> gpu_backend<T>::right() {
  return right_on_ ? square_view(right_) : m_.view();
}

template <class T>
csr_view<T> gpu_backend<T>::square_view(const arrays& a) const {
  csr_view<T> v;
  v.rows = v.cols = n_;
  v.nnz = a.nnz;
  v.rpt = a.rpt;
  v.col = a.col;
  v.val = a.val;
  return v;
}

}  // namespace
}  // namespace opsparse::mcl
