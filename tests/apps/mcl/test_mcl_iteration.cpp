// apps/mcl's iteration loop (mcl_iteration.hpp), which every placement of the iterate runs: the
// schedule of inflations (-l at -i, then -I raised by 0.1% from iteration 40), the convergence
// test (not in the initial loop), the checkpoints (after slow iterations and on a stop, never
// after the last) and the stop itself, driven by a scripted step.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/mcl.hpp"
#include "core/mcl_detail.hpp"
#include "core/mcl_iteration.hpp"

namespace {

using namespace opsparse::mcl;

/// A step that returns the chaos values it is given, one an iteration, and records what the
/// loop passed it.
struct scripted {
  std::vector<double> chaos;
  std::vector<int> iterations;
  std::vector<double> inflations;
  detail::iteration_hooks hooks() {
    detail::iteration_hooks h;
    h.step = [this](int it, double inflation) {
      iterations.push_back(it);
      inflations.push_back(inflation);
      return chaos.at(iterations.size() - 1);
    };
    return h;
  }
};

TEST(MclIteration, StopsAtTheFirstChaosBelowTheLimitAfterTheInitialLoop) {
  params p;
  p.initial_loop = 2;
  p.initial_inflation = 3.0;
  p.inflation = 1.4;
  scripted s{{0.0, 0.0, 0.5, 0.01, 1e-5, 0.5}};
  std::vector<int> reported;
  detail::iteration_hooks h = s.hooks();
  h.done = [&](int it, double chaos, double seconds) {
    reported.push_back(it);
    EXPECT_EQ(chaos, s.chaos.at(it - 1));
    EXPECT_GE(seconds, 0.0);
  };
  const detail::iteration_outcome o = detail::iterate(p, 1, h);
  // Iterations 1 and 2 (initial loop) have chaos 0 and go on; iteration 5 converges.
  EXPECT_TRUE(o.converged);
  EXPECT_EQ(o.iterations, 5);
  EXPECT_EQ(s.iterations, (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(reported, s.iterations);
  EXPECT_EQ(s.inflations[0], detail::mcl_float(3.0));
  EXPECT_EQ(s.inflations[1], detail::mcl_float(3.0));
  EXPECT_EQ(s.inflations[2], detail::mcl_float(1.4));
}

TEST(MclIteration, EndsUnconvergedAfterTheMainLoopAndBumpsTheInflation) {
  params p;
  p.max_iter = 43;
  scripted s{std::vector<double>(43, 1.0)};
  std::vector<std::string> notes;
  detail::iteration_hooks h = s.hooks();
  h.note = [&](const std::string& line) { notes.push_back(line); };
  const detail::iteration_outcome o = detail::iterate(p, 1, h);
  EXPECT_FALSE(o.converged);
  EXPECT_EQ(o.iterations, 43);
  EXPECT_EQ(s.inflations[39], detail::mcl_float(2.0));  // iteration 40
  EXPECT_DOUBLE_EQ(s.inflations[40], detail::mcl_float(2.0) * 1.001);
  EXPECT_DOUBLE_EQ(s.inflations[42], detail::mcl_float(2.0) * 1.001 * 1.001 * 1.001);
  ASSERT_EQ(notes.size(), 3u);  // iterations 41 to 43
  EXPECT_NE(notes[0].find("inflation bumped to 2.0020"), std::string::npos) << notes[0];
}

TEST(MclIteration, ResumesAtTheGivenIteration) {
  params p;
  p.initial_loop = 3;
  scripted s{{0.0, 0.0}};
  const detail::iteration_outcome o = detail::iterate(p, 3, s.hooks());
  // Iteration 3 is the initial loop's last (no test); iteration 4 converges.
  EXPECT_EQ(s.iterations, (std::vector<int>{3, 4}));
  EXPECT_EQ(o.iterations, 4);
  EXPECT_TRUE(o.converged);
}

TEST(MclIteration, ChecksPointsAfterSlowIterationsButNotTheLast) {
  params p;
  p.max_iter = 3;
  scripted s{{1.0, 1.0, 1.0}};
  std::vector<int> saved;
  detail::iteration_hooks h = s.hooks();
  h.save = [&](int it) { saved.push_back(it); };
  h.checkpoint_seconds = 0;  // every iteration is slow enough
  detail::iterate(p, 1, h);
  EXPECT_EQ(saved, (std::vector<int>{1, 2}));
  saved.clear();
  s.iterations.clear();
  h.checkpoint_seconds = 1e9;  // none is
  detail::iterate(p, 1, h);
  EXPECT_TRUE(saved.empty());
}

TEST(MclIteration, AStopEndsTheRunAfterItsIterationAndItsCheckpoint) {
  params p;
  scripted s{{1.0, 1.0, 1.0, 1.0}};
  std::vector<int> saved;
  detail::iteration_hooks h = s.hooks();
  h.save = [&](int it) { saved.push_back(it); };
  h.stop = [&] { return s.iterations.size() == 2; };
  try {
    detail::iterate(p, 1, h);
    FAIL() << "the stop was not obeyed";
  } catch (const run_interrupted& e) {
    EXPECT_EQ(e.iteration, 2);
    EXPECT_TRUE(e.checkpointed);
  }
  EXPECT_EQ(saved, (std::vector<int>{2}));
  EXPECT_EQ(s.iterations.size(), 2u);
  // Without a checkpoint folder the stop says nothing was saved.
  s.iterations.clear();
  h.save = nullptr;
  try {
    detail::iterate(p, 1, h);
    FAIL() << "the stop was not obeyed";
  } catch (const run_interrupted& e) {
    EXPECT_EQ(e.iteration, 2);
    EXPECT_FALSE(e.checkpointed);
  }
}

}  // namespace
