#include "progress_printer.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace nimble::cli {

using Clock = std::chrono::steady_clock;

ProgressPrinter::ProgressPrinter(std::string tool, bool quiet)
    : tool_(std::move(tool)), quiet_(quiet), terminal_(::isatty(STDERR_FILENO) == 1), last_(Clock::now()) {}

workflow::ProgressFn ProgressPrinter::Callback() {
  return [this](const workflow::ProgressUpdate& update) { Print(update); };
}

void ProgressPrinter::Print(const workflow::ProgressUpdate& update) {
  switch (update.kind) {
    case workflow::ProgressKind::kWarning: Line(std::string(update.message)); return;
    case workflow::ProgressKind::kStep:
      if (!quiet_) Line(std::string(update.message));
      return;
    case workflow::ProgressKind::kTick:
      if (!quiet_) Bar(update);
      return;
  }
}

void ProgressPrinter::Line(const std::string& text) {
  if (bar_open_) std::cerr << "\n";
  bar_open_ = false;
  std::cerr << tool_ << ": " << text << std::endl;
  last_ = Clock::now();
}

void ProgressPrinter::Bar(const workflow::ProgressUpdate& u) {
  const bool done = u.done >= u.total;
  const std::string count = std::string(u.stage) + " " + std::to_string(u.done) + "/" + std::to_string(u.total);
  if (!terminal_) {
    if (done || Clock::now() - last_ >= std::chrono::seconds(1)) Line(count);
    return;
  }
  constexpr int kWidth = 30;
  const int filled = u.total > 0 ? static_cast<int>(kWidth * u.done / u.total) : kWidth;
  std::cerr << "\r" << tool_ << ": [" << std::string(static_cast<size_t>(filled), '#')
            << std::string(static_cast<size_t>(kWidth - filled), '.') << "] " << count << std::flush;
  bar_open_ = !done;
  if (done) std::cerr << std::endl;
  last_ = Clock::now();
}

}  // namespace nimble::cli
