#pragma once
// MCL's iteration loop (mcl's mclProcess), written once over the placements of the iterate: the
// single process's backend, whose iterate is on the device, streamed through host memory or on
// the CPU (mcl_core.cpp), and the distributed layouts (mcl_dist.cpp). A placement supplies the
// step; the loop owns mcl's schedule (the initial loop at -i, the main loop at -I and its bump
// after iteration 40), the convergence test, the checkpoints and the stop on a signal.
#include <functional>
#include <string>

#include "mcl.hpp"

namespace opsparse::mcl::detail {

struct iteration_hooks {
  /// Expands the iterate, prunes it and inflates it at `inflation`; returns the chaos of the
  /// expansion (the same on every rank of a distributed run).
  std::function<double(int iteration, double inflation)> step;
  /// After each iteration, with its chaos and seconds (progress); may be empty.
  std::function<void(int iteration, double chaos, double seconds)> done;
  /// One-line notes for the user (the inflation's bump); may be empty.
  std::function<void(const std::string&)> note;
  /// Whether the run is to end after this iteration (a signal); the same answer on every rank.
  /// May be empty.
  std::function<bool()> stop;
  /// Writes a checkpoint after `iteration`; empty: no checkpoints.
  std::function<void(int iteration)> save;
  /// A checkpoint follows each iteration that took at least this long (and a stop).
  double checkpoint_seconds = 60;
};

struct iteration_outcome {
  int iterations = 0;  ///< the last iteration run (first - 1 when none)
  bool converged = false;
};

/// Iterations `first` to p.initial_loop + p.max_iter, until the chaos of an expansion is below
/// p.chaos_limit after the initial loop. Throws run_interrupted when hooks.stop says so, after
/// the iteration's checkpoint (when hooks.save is given and iterations remain).
iteration_outcome iterate(const params& p, int first, const iteration_hooks& hooks);

}  // namespace opsparse::mcl::detail
