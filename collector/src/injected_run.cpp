#include "injected_run.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>

namespace nimble::collector {

std::string ProcessCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  return raw;
}

StatusOr<std::unique_ptr<InjectedRun>> InjectedRun::Begin(const InjectionOptions& options) {
  RunInfo info;
  info.command = ProcessCommandLine();
  info.model = info.command.substr(0, info.command.find(' '));
  info.mode = RunMode::kProgram;
  info.created_unix_s = static_cast<int64_t>(std::time(nullptr));
  auto sink = StoreSink::Create(options.output_path, info);
  if (!sink.ok()) return sink.status().WithContext("cannot write " + options.output_path);
  std::unique_ptr<InjectedRun> run(new InjectedRun(options.output_path, std::move(sink).value()));
  if (options.simulate_cupti_failure) {
    return Unavailable("CUPTI unavailable: simulated failure (NIMBLE_SIMULATE_CUPTI_FAILURE is set)");
  }
  auto session = CuptiSession::Start(options.session, *run->sink_);
  if (!session.ok()) return session.status().WithContext("CUPTI unavailable");
  run->session_ = std::move(session).value();
  return run;
}

InjectedRun::InjectedRun(std::string path, std::unique_ptr<StoreSink> sink)
    : path_(std::move(path)), sink_(std::move(sink)) {}

void InjectedRun::Finish(int signal_number) {
  if (finished_.exchange(true)) return;
  StatEntry status{"collector.status", signal_number, signal_number == 0 ? Severity::kInfo : Severity::kError,
                   signal_number == 0 ? "flushed at process exit"
                                      : std::string("flushed on signal ") + std::to_string(signal_number) + " (" +
                                            strsignal(signal_number) + "); the run ends there"};
  const Status s = session_->Stop({std::move(status)});
  if (!s.ok()) std::fprintf(stderr, "nimble: could not complete %s: %s\n", path_.c_str(), s.message().c_str());
}

}  // namespace nimble::collector
