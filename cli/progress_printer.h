// Draws a workflow's progress on stderr: one line per step and per warning ("nimble-prof: ..."),
// and for counted steps a bar redrawn in place on a terminal, or at most one line a second when
// stderr is a file or a pipe. One thread (the workflow's).
#pragma once

#include <chrono>
#include <string>

#include "nimble/workflow/progress.h"

namespace nimble::cli {

class ProgressPrinter {
 public:
  // quiet: steps and ticks are not printed; warnings still are.
  ProgressPrinter(std::string tool, bool quiet);
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;

  // A callback bound to this printer, which must outlive the workflow call.
  workflow::ProgressFn Callback();
  void Print(const workflow::ProgressUpdate& update);

 private:
  void Line(const std::string& text);
  void Bar(const workflow::ProgressUpdate& update);

  std::string tool_;
  bool quiet_;
  bool terminal_;
  bool bar_open_ = false;  // a bar is drawn and its line not yet ended
  std::chrono::steady_clock::time_point last_;
};

}  // namespace nimble::cli
