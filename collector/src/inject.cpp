// libnimble_inject.so: loaded by the CUDA driver into an unmodified program through
// CUDA_INJECTION64_PATH, it records the whole run into the database NIMBLE_OUTPUT names, flushing at
// exit and on fatal signals. If it cannot record, it says why on stderr and the program runs unprofiled.
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "injected_run.h"
#include "nimble/collector/injection_options.h"

namespace {

using nimble::collector::InjectedRun;

// Leaked on purpose: it must outlive every atexit handler and any late signal.
InjectedRun* g_run = nullptr;
// A child forked without exec inherits g_run and the handlers, but must not touch the parent's database.
pid_t g_recording_pid = 0;

constexpr std::array<int, 6> kFatalSignals = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGTERM, SIGINT};
std::array<struct sigaction, NSIG> g_previous{};
// A flush that hangs inside a crashed process must not keep it alive.
constexpr unsigned kSignalFlushTimeoutS = 30;

void FinishAtExit() {
  if (getpid() == g_recording_pid) g_run->Finish(0);
}

void OnFatalSignal(int signal_number) {
  if (getpid() == g_recording_pid) {
    alarm(kSignalFlushTimeoutS);
    g_run->Finish(signal_number);
  }
  // Hand the signal to whoever had it before (usually the default action: terminate, maybe core).
  sigaction(signal_number, &g_previous[static_cast<size_t>(signal_number)], nullptr);
  raise(signal_number);
}

void InstallHandlers() {
  std::atexit(&FinishAtExit);
  for (int sig : kFatalSignals) {
    struct sigaction action {};
    action.sa_handler = &OnFatalSignal;
    sigemptyset(&action.sa_mask);
    if (sigaction(sig, &action, &g_previous[static_cast<size_t>(sig)]) != 0) {
      std::perror("nimble: sigaction");
    }
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::atomic<bool> initialized{false};
  if (initialized.exchange(true)) return 1;
  auto options = nimble::collector::ParseInjectionOptions([](const char* name) { return std::getenv(name); });
  if (!options.ok()) {
    std::fprintf(stderr, "nimble: not recording: %s\n", options.status().message().c_str());
    return 1;
  }
  // Only the process `nimble-prof record` launched records; children it forks run unprofiled.
  if (options->target_pid != 0 && options->target_pid != static_cast<int64_t>(getpid())) return 1;
  auto run = InjectedRun::Begin(*options);
  if (!run.ok()) {
    std::fprintf(stderr, "nimble: %s; the program runs unprofiled\n", run.status().message().c_str());
    return 1;
  }
  g_run = std::move(run).value().release();
  g_recording_pid = getpid();
  // Registered after CUPTI started, so this atexit handler runs before CUPTI's and CUDA's own.
  InstallHandlers();
  return 1;
}
