// How a workflow tells its caller what it is doing while it runs: the start of each step, ticks of a
// counted step (iterations, replays) and warnings. The CLI draws lines or a progress bar from it; the
// Python package forwards it. Called on the workflow's own thread; an empty function is fine.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace nimble::workflow {

enum class ProgressKind {
  kStep,     // a step starts; `message` says what it does
  kTick,     // `done` of `total` units of the current step are done (`stage` names the unit)
  kWarning,  // something the user should know; the work goes on
};

struct ProgressUpdate {
  ProgressKind kind = ProgressKind::kStep;
  std::string_view stage;    // "iteration", "warmup", ... for ticks
  std::string_view message;  // a whole sentence for steps and warnings
  int64_t done = 0;
  int64_t total = 0;
};

using ProgressFn = std::function<void(const ProgressUpdate&)>;

// Sends updates to a ProgressFn that may be empty.
class Progress {
 public:
  explicit Progress(ProgressFn fn) : fn_(std::move(fn)) {}
  void Step(const std::string& message) const { Send({ProgressKind::kStep, {}, message, 0, 0}); }
  void Tick(std::string_view stage, int64_t done, int64_t total) const {
    Send({ProgressKind::kTick, stage, {}, done, total});
  }
  void Warning(const std::string& message) const { Send({ProgressKind::kWarning, {}, message, 0, 0}); }

 private:
  void Send(const ProgressUpdate& update) const {
    if (fn_) fn_(update);
  }
  ProgressFn fn_;
};

}  // namespace nimble::workflow
