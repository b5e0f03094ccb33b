// The recording an injected process makes: a StoreSink on the output path plus a CuptiSession, and
// the one Finish() that atexit and the fatal-signal handlers race to call. Private to the library.
// Threading rule: Begin once; Finish from any thread, any number of times (the first one works).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "nimble/collector/cupti_session.h"
#include "nimble/collector/injection_options.h"
#include "nimble/collector/store_sink.h"
#include "nimble/core/status.h"

namespace nimble::collector {

class InjectedRun {
 public:
  // Opens the database, then starts CUPTI. The error's message says which of the two failed.
  static StatusOr<std::unique_ptr<InjectedRun>> Begin(const InjectionOptions& options);

  // Stops the session and commits the database. `signal_number` is 0 at a normal exit; it is
  // recorded as the "collector.status" stat.
  void Finish(int signal_number);

 private:
  InjectedRun(std::string path, std::unique_ptr<StoreSink> sink);

  std::string path_;
  std::unique_ptr<StoreSink> sink_;
  std::unique_ptr<CuptiSession> session_;
  std::atomic<bool> finished_{false};
};

// The command line of this process, from /proc/self/cmdline, arguments joined by spaces.
std::string ProcessCommandLine();

}  // namespace nimble::collector
