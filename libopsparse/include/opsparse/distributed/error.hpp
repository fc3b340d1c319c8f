#pragma once
// Errors of the distributed layer, as the library's CUDA checks: OPSPARSE_MPI_TRY(call) throws
// opsparse::dist::mpi_error naming the call, MPI's error string, the file and the line. The
// communicators a dist::grid creates return errors (MPI_ERRORS_RETURN) instead of aborting, so
// that these checks see them.
#include <stdexcept>
#include <string>

namespace opsparse::dist {

/// An MPI call failed. what(): "MPI_Bcast(...) failed: MPI_ERR_TRUNCATE: message truncated at
/// file:line".
class mpi_error : public std::runtime_error {
 public:
  mpi_error(const std::string& call, int code, const char* file, int line);
  int code() const noexcept { return code_; }

 private:
  int code_;
};

namespace detail {
[[noreturn]] void throw_mpi_error(const char* call, int code, const char* file, int line);
}  // namespace detail
}  // namespace opsparse::dist

#define OPSPARSE_MPI_TRY(call)                                                                    \
  do {                                                                                            \
    const int opsparse_mpi_status_ = (call);                                                      \
    if (opsparse_mpi_status_ != 0)                                                                \
      ::opsparse::dist::detail::throw_mpi_error(#call, opsparse_mpi_status_, __FILE__, __LINE__); \
  } while (0)
