// Squares a small matrix with the GPU engine and compares it with the CPU engine: proves that a
// plain C++ program compiles and links against opsparse::gpu. Without a usable GPU it says why
// and exits with 77, which CTest reports as skipped (OPSPARSE_REQUIRE_GPU=1 makes that a failure).
#include <opsparse/context.hpp>
#include <opsparse/cpu/spgemm.hpp>
#include <opsparse/spgemm.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#if !OPSPARSE_HAS_GPU_ENGINE
#error "opsparse::gpu must define OPSPARSE_HAS_GPU_ENGINE"
#endif

int main() {
  std::string why;
  if (!opsparse::gpu_available(&why)) {
    const char* required = std::getenv("OPSPARSE_REQUIRE_GPU");
    if (required && std::string(required) == "1") {
      std::fprintf(stderr, "consumer_gpu: OPSPARSE_REQUIRE_GPU=1 but %s\n", why.c_str());
      return 1;
    }
    std::printf("consumer_gpu: skipped: %s\n", why.c_str());
    return 77;
  }
  try {
    opsparse::host_csr<double> a(3, 3);
    a.rpt = {0, 2, 3, 4};
    a.col = {0, 1, 2, 0};
    a.val = {1, 2, 3, 4};
    opsparse::context ctx;
    opsparse::plan plan;
    const auto da = opsparse::device_csr<double>::upload(a, ctx.stream());
    opsparse::device_csr<double> dc;
    opsparse::spgemm<opsparse::plus_times<double>>(ctx, plan, da.view(), da.view(), dc);
    const auto got = dc.download(ctx.stream());
    const auto want = opsparse::cpu::spgemm<opsparse::plus_times<double>>(a, a);
    const bool ok = got.rpt == want.rpt && got.col == want.col && got.val == want.val;
    std::printf("consumer_gpu: %s, nnz(A*A) = %lld, %s\n", ctx.device().name.c_str(),
                static_cast<long long>(got.nnz()), ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer_gpu: %s\n", e.what());
    return 1;
  }
}
