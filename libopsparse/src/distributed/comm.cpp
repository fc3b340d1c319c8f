// Byte transfers of the distributed layer, in messages of at most 1 GiB (MPI counts are int).
#include "opsparse/distributed/detail/comm.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "opsparse/error.hpp"

#include "opsparse/distributed/error.hpp"

namespace opsparse::dist::detail {

namespace {
constexpr std::size_t max_message = std::size_t(1) << 30;

int piece(std::size_t bytes, std::size_t done) {
  return static_cast<int>(std::min(max_message, bytes - done));
}
}  // namespace

void bcast_bytes(void* data, std::size_t bytes, int root, MPI_Comm comm) {
  char* p = static_cast<char*>(data);
  for (std::size_t done = 0; done < bytes; done += max_message)
    OPSPARSE_MPI_TRY(MPI_Bcast(p + done, piece(bytes, done), MPI_BYTE, root, comm));
}

void send_bytes(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm) {
  const char* p = static_cast<const char*>(data);
  for (std::size_t done = 0; done < bytes; done += max_message)
    OPSPARSE_MPI_TRY(MPI_Send(p + done, piece(bytes, done), MPI_BYTE, dest, tag, comm));
}

void recv_bytes(void* data, std::size_t bytes, int source, int tag, MPI_Comm comm) {
  char* p = static_cast<char*>(data);
  for (std::size_t done = 0; done < bytes; done += max_message)
    OPSPARSE_MPI_TRY(
        MPI_Recv(p + done, piece(bytes, done), MPI_BYTE, source, tag, comm, MPI_STATUS_IGNORE));
}

exchanged_bytes exchange_bytes(const char* data, const std::vector<std::size_t>& offset,
                               MPI_Comm comm) {
  int size = 0;
  OPSPARSE_MPI_TRY(MPI_Comm_size(comm, &size));
  OPSPARSE_EXPECTS(offset.size() == static_cast<std::size_t>(size) + 1,
                   "exchange_bytes: an offset a rank and one more");
  std::vector<std::uint64_t> out(static_cast<std::size_t>(size)), in(out.size());
  for (int d = 0; d < size; ++d) out[d] = offset[d + 1] - offset[d];
  OPSPARSE_MPI_TRY(MPI_Alltoall(out.data(), 1, MPI_UINT64_T, in.data(), 1, MPI_UINT64_T, comm));
  exchanged_bytes r;
  r.offset.assign(static_cast<std::size_t>(size) + 1, 0);
  for (int s = 0; s < size; ++s) r.offset[s + 1] = r.offset[s] + static_cast<std::size_t>(in[s]);
  r.data.resize(r.offset.back());
  std::vector<MPI_Request> requests;
  for (int s = 0; s < size; ++s)
    for (std::size_t done = 0; done < in[s]; done += max_message) {
      requests.emplace_back();
      OPSPARSE_MPI_TRY(MPI_Irecv(r.data.data() + r.offset[s] + done, piece(in[s], done), MPI_BYTE,
                                 s, 0, comm, &requests.back()));
    }
  for (int d = 0; d < size; ++d)
    for (std::size_t done = 0; done < out[d]; done += max_message) {
      requests.emplace_back();
      OPSPARSE_MPI_TRY(MPI_Isend(data + offset[d] + done, piece(out[d], done), MPI_BYTE, d, 0, comm,
                                 &requests.back()));
    }
  OPSPARSE_MPI_TRY(
      MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  return r;
}

void bcast_string(std::string& text, int root, MPI_Comm comm) {
  std::uint64_t size = text.size();
  bcast_bytes(&size, sizeof size, root, comm);
  text.resize(static_cast<std::size_t>(size));
  bcast_bytes(text.data(), text.size(), root, comm);
}

void agree_on_failure(const std::exception_ptr& error, const char* what, MPI_Comm comm) {
  int rank = 0, size = 0;
  OPSPARSE_MPI_TRY(MPI_Comm_rank(comm, &rank));
  OPSPARSE_MPI_TRY(MPI_Comm_size(comm, &size));
  int first = error ? rank : size;  // the lowest failing rank speaks for all
  OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return;
  int argument = 0;  // an argument check (std::invalid_argument) stays one on every rank
  std::string message;
  if (rank == first) {
    try {
      std::rethrow_exception(error);
    } catch (const std::invalid_argument& e) {
      argument = 1;
      message = e.what();
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
      message = "an exception that is not a std::exception";
    }
  }
  bcast_bytes(&argument, sizeof argument, first, comm);
  bcast_string(message, first, comm);
  if (error) std::rethrow_exception(error);
  const std::string text =
      std::string(what) + " failed on rank " + std::to_string(first) + ": " + message;
  if (argument) throw std::invalid_argument(text);
  throw std::runtime_error(text);
}

}  // namespace opsparse::dist::detail
