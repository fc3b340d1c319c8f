// NCCL loaded at run time (opsparse/distributed/nccl.hpp). The few types this layer passes are
// declared here as NCCL 2's ABI has them since 2.0 (nccl.h: ncclResult_t and ncclDataType_t are
// enums, ncclSuccess and ncclInt8 are 0, ncclUniqueId is 128 bytes, ncclComm_t a pointer), so that
// neither nccl.h nor libnccl is needed to build.
#include "opsparse/distributed/nccl.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "opsparse/distributed/detail/comm.hpp"
#include "opsparse/distributed/error.hpp"

namespace opsparse::dist {

namespace {

struct nccl_unique_id {
  char internal[128];
};
using nccl_result = int;      // ncclResult_t; 0 is ncclSuccess
constexpr int nccl_int8 = 0;  // ncclDataType_t ncclInt8

/// NCCL's entry points, looked up once.
struct nccl_library {
  nccl_result (*get_version)(int*) = nullptr;
  nccl_result (*get_unique_id)(nccl_unique_id*) = nullptr;
  nccl_result (*comm_init_rank)(void**, int, nccl_unique_id, int) = nullptr;
  nccl_result (*comm_destroy)(void*) = nullptr;
  const char* (*error_string)(nccl_result) = nullptr;
  nccl_result (*broadcast)(const void*, void*, std::size_t, int, int, void*,
                           CUstream_st*) = nullptr;
  nccl_result (*send)(const void*, std::size_t, int, int, void*, CUstream_st*) = nullptr;
  nccl_result (*recv)(void*, std::size_t, int, int, void*, CUstream_st*) = nullptr;
  nccl_result (*group_start)() = nullptr;
  nccl_result (*group_end)() = nullptr;
  int version = 0;
  std::string why;  ///< why it did not load ("" when it did)
};

template <class F>
bool find(void* handle, const char* name, F& f, std::string& why) {
  f = reinterpret_cast<F>(dlsym(handle, name));
  if (!f) why = std::string("no ") + name + " in NCCL";
  return f != nullptr;
}

const nccl_library& nccl() {
  static nccl_library lib;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* path = std::getenv("OPSPARSE_NCCL_LIBRARY");
    const std::string name = path && *path ? path : "libnccl.so.2";
    void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      lib.why = "NCCL could not be loaded (" + (e ? std::string(e) : name + ": not found") +
                "; OPSPARSE_NCCL_LIBRARY names another file)";
      return;
    }
    std::string why;
    const bool all = find(h, "ncclGetVersion", lib.get_version, why) &&
                     find(h, "ncclGetUniqueId", lib.get_unique_id, why) &&
                     find(h, "ncclCommInitRank", lib.comm_init_rank, why) &&
                     find(h, "ncclCommDestroy", lib.comm_destroy, why) &&
                     find(h, "ncclGetErrorString", lib.error_string, why) &&
                     find(h, "ncclBroadcast", lib.broadcast, why) &&
                     find(h, "ncclGroupStart", lib.group_start, why) &&
                     find(h, "ncclGroupEnd", lib.group_end, why);
    // Point-to-point transfers (NCCL 2.7 and later) are optional: callers ask first.
    std::string optional;
    if (!(all && find(h, "ncclSend", lib.send, optional) &&
          find(h, "ncclRecv", lib.recv, optional))) {
      lib.send = nullptr;
      lib.recv = nullptr;
    }
    if (!all || lib.get_version(&lib.version) != 0 || lib.version <= 0) {
      lib.why = all ? name + ": ncclGetVersion failed" : name + ": " + why;
      lib.version = 0;
    }
    // The handle stays open for the process: the communicators use it until they are destroyed.
  });
  return lib;
}

[[noreturn]] void throw_nccl_error(const char* call, nccl_result r, const char* file, int line) {
  const char* text = nccl().error_string ? nccl().error_string(r) : nullptr;
  throw std::runtime_error(std::string(call) + " failed: " + (text ? text : "NCCL error") + " (" +
                           std::to_string(r) + ") at " + file + ":" + std::to_string(line));
}

#define OPSPARSE_NCCL_TRY(call)                                           \
  do {                                                                    \
    const nccl_result opsparse_nccl_status_ = (call);                     \
    if (opsparse_nccl_status_ != 0)                                       \
      throw_nccl_error(#call, opsparse_nccl_status_, __FILE__, __LINE__); \
  } while (0)

}  // namespace

int nccl_version(std::string* why) {
  const nccl_library& lib = nccl();
  if (why && lib.version == 0) *why = lib.why;
  return lib.version;
}

bool nccl_usable(MPI_Comm comm, int device, std::string* why) {
  int rank = 0, size = 1;
  OPSPARSE_MPI_TRY(MPI_Comm_rank(comm, &rank));
  OPSPARSE_MPI_TRY(MPI_Comm_size(comm, &size));
  std::string mine;
  const char* env = std::getenv("OPSPARSE_NCCL");
  if (env && std::strcmp(env, "0") == 0) mine = "OPSPARSE_NCCL=0";
  if (mine.empty() && nccl_version(&mine) > 0) mine.clear();
  // The devices of this node's ranks: NCCL refuses two ranks on one device.
  MPI_Comm node = MPI_COMM_NULL;
  OPSPARSE_MPI_TRY(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int on_node = 1;
  int got = MPI_Comm_size(node, &on_node);
  std::vector<int> devices(static_cast<std::size_t>(on_node), -1);
  if (got == MPI_SUCCESS)
    got = MPI_Allgather(&device, 1, MPI_INT, devices.data(), 1, MPI_INT, node);
  MPI_Comm_free(&node);
  OPSPARSE_MPI_TRY(got);
  if (mine.empty()) {
    std::sort(devices.begin(), devices.end());
    if (std::adjacent_find(devices.begin(), devices.end()) != devices.end())
      mine = "ranks share a GPU on a node (" + std::to_string(on_node) + " ranks on rank " +
             std::to_string(rank) + "'s node)";
  }
  int first = mine.empty() ? size : rank;  // the lowest rank that says no speaks for all
  OPSPARSE_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return true;
  std::string reason = rank == first ? mine : std::string();
  detail::bcast_string(reason, first, comm);
  if (why) *why = "rank " + std::to_string(first) + ": " + reason;
  return false;
}

nccl_comm::nccl_comm(MPI_Comm comm) {
  OPSPARSE_MPI_TRY(MPI_Comm_rank(comm, &rank_));
  OPSPARSE_MPI_TRY(MPI_Comm_size(comm, &size_));
  // NVLink multicast off unless the caller's environment chose (docs/design.md).
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  const nccl_library& lib = nccl();
  nccl_unique_id id{};
  std::exception_ptr error;
  try {
    if (lib.version == 0) throw std::runtime_error(lib.why);
    if (rank_ == 0) OPSPARSE_NCCL_TRY(lib.get_unique_id(&id));
  } catch (...) {
    error = std::current_exception();
  }
  detail::agree_on_failure(error, "making the NCCL communicator's id", comm);
  detail::bcast_bytes(&id, sizeof id, 0, comm);
  try {
    OPSPARSE_NCCL_TRY(lib.comm_init_rank(&comm_, size_, id, rank_));
  } catch (...) {
    error = std::current_exception();
    comm_ = nullptr;
  }
  try {
    detail::agree_on_failure(error, "making the NCCL communicator", comm);
  } catch (...) {
    release();
    throw;
  }
}

nccl_comm::~nccl_comm() { release(); }

nccl_comm::nccl_comm(nccl_comm&& other) noexcept { *this = std::move(other); }

nccl_comm& nccl_comm::operator=(nccl_comm&& other) noexcept {
  if (this != &other) {
    release();
    comm_ = std::exchange(other.comm_, nullptr);
    rank_ = other.rank_;
    size_ = other.size_;
  }
  return *this;
}

void nccl_comm::release() noexcept {
  if (comm_ && nccl().comm_destroy) nccl().comm_destroy(comm_);
  comm_ = nullptr;
}

void nccl_comm::allgatherv(const void* send, void* recv, const std::vector<std::size_t>& bytes,
                           CUstream_st* stream) {
  if (static_cast<int>(bytes.size()) != size_)
    throw std::invalid_argument("nccl_comm::allgatherv: " + std::to_string(bytes.size()) +
                                " counts for " + std::to_string(size_) + " ranks");
  const nccl_library& lib = nccl();
  char* out = static_cast<char*>(recv);
  OPSPARSE_NCCL_TRY(lib.group_start());
  std::size_t at = 0;
  nccl_result status = 0;
  for (int r = 0; r < size_ && status == 0; ++r) {
    // The root's own data land in recv too (NCCL copies sendbuff to its recvbuff).
    if (bytes[static_cast<std::size_t>(r)] > 0)
      status = lib.broadcast(r == rank_ ? send : out + at, out + at,
                             bytes[static_cast<std::size_t>(r)], nccl_int8, r, comm_, stream);
    at += bytes[static_cast<std::size_t>(r)];
  }
  // The group is closed whatever happened inside it.
  const nccl_result ended = lib.group_end();
  OPSPARSE_NCCL_TRY(status);
  OPSPARSE_NCCL_TRY(ended);
}

void nccl_comm::broadcast(const void* send, void* recv, std::size_t bytes, int root,
                          CUstream_st* stream) {
  if (root < 0 || root >= size_)
    throw std::invalid_argument("nccl_comm::broadcast: root " + std::to_string(root) + " of " +
                                std::to_string(size_) + " ranks");
  std::vector<std::size_t> each(static_cast<std::size_t>(size_), 0);
  each[static_cast<std::size_t>(root)] = bytes;  // root's part starts at recv
  allgatherv(send, recv, each, stream);
}

bool nccl_comm::has_point_to_point() { return nccl().send && nccl().recv; }

void nccl_comm::exchange(const std::vector<transfer>& sends, const std::vector<transfer>& receives,
                         CUstream_st* stream) {
  for (const auto* list : {&sends, &receives})
    for (const transfer& t : *list)
      if (t.peer < 0 || t.peer >= size_ || t.peer == rank_)
        throw std::invalid_argument("nccl_comm::exchange: peer " + std::to_string(t.peer) +
                                    " of rank " + std::to_string(rank_) + " among " +
                                    std::to_string(size_));
  const nccl_library& lib = nccl();
  if (!has_point_to_point())
    throw std::runtime_error("nccl_comm::exchange: this NCCL has no ncclSend/ncclRecv (2.7+)");
  OPSPARSE_NCCL_TRY(lib.group_start());
  nccl_result status = 0;
  for (const transfer& t : sends)
    if (status == 0 && t.bytes > 0)
      status = lib.send(t.data, t.bytes, nccl_int8, t.peer, comm_, stream);
  for (const transfer& t : receives)
    if (status == 0 && t.bytes > 0)
      status = lib.recv(t.data, t.bytes, nccl_int8, t.peer, comm_, stream);
  const nccl_result ended = lib.group_end();
  OPSPARSE_NCCL_TRY(status);
  OPSPARSE_NCCL_TRY(ended);
}

}  // namespace opsparse::dist
