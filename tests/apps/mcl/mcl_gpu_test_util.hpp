#pragma once
// What the MCL GPU suites share: skipping without a usable GPU (failing instead when
// OPSPARSE_REQUIRE_GPU=1, as on the GPU machine).
#include <gtest/gtest.h>

#include <string>

#include "opsparse/context.hpp"
#include "test_support.hpp"

#define REQUIRE_GPU()                                                   \
  do {                                                                  \
    std::string why_;                                                   \
    if (!opsparse::gpu_available(&why_)) {                              \
      if (opsparse::test::gpu_required())                               \
        FAIL() << "OPSPARSE_REQUIRE_GPU=1 but no usable GPU: " << why_; \
      GTEST_SKIP() << "no usable GPU: " << why_;                        \
    }                                                                   \
  } while (0)
