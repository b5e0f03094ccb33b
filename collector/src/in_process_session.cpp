#include "nimble/collector/in_process_session.h"

#include <cupti.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "cupti_check.h"
#include "nimble/collector/cupti_session.h"
#include "nimble/collector/trace_sink.h"

namespace nimble::collector {
namespace {

static_assert(kPushedCorrelationKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
              "the public constant must name the kind that PushExternalId pushes");
constexpr CUpti_ExternalCorrelationKind kKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;

// A second libcupti would keep its own activity buffers and callbacks: the records of the framework's
// copy would never reach this session. One file, mapped once, is the only safe state.
Status CheckSingleCupti(const std::vector<std::string>& mapped, std::vector<StatEntry>& stats) {
  if (mapped.size() > 1) {
    std::string list;
    for (const std::string& path : mapped) list += (list.empty() ? "" : ", ") + path;
    return FailedPrecondition("two copies of libcupti are loaded in this process (" + list +
                              "); the collector must use the one the framework loaded");
  }
  stats.push_back(StatEntry{"collector.cupti_library", static_cast<int64_t>(mapped.size()), Severity::kInfo,
                            mapped.empty() ? "no libcupti mapped at start" : mapped.front()});
  return OkStatus();
}

}  // namespace

struct InProcessSession::Impl {
  TraceSink sink;
  std::unique_ptr<CuptiSession> session;
  std::vector<StatEntry> start_stats;
  bool stopped = false;
};

InProcessSession::InProcessSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

InProcessSession::~InProcessSession() {
  if (impl_ != nullptr && impl_->session != nullptr && !impl_->stopped) (void)impl_->session->Stop();
}

StatusOr<std::unique_ptr<InProcessSession>> InProcessSession::Start(InProcessOptions options) {
  auto impl = std::make_unique<Impl>();
  NIMBLE_RETURN_IF_ERROR(CheckSingleCupti(MappedCuptiLibraries(), impl->start_stats));
  SessionOptions session_options;
  session_options.kinds = options.kinds;
  session_options.buffer_bytes = options.buffer_bytes;
  session_options.max_buffers = options.max_buffers;
  session_options.detach_at_stop = true;  // the process goes on to time its own work
  auto session = CuptiSession::Start(std::move(session_options), impl->sink);
  if (!session.ok()) return session.status().WithContext("starting the in-process CUPTI session");
  impl->session = std::move(session).value();
  return std::unique_ptr<InProcessSession>(new InProcessSession(std::move(impl)));
}

Status InProcessSession::PushExternalId(uint64_t external_id) {
  if (external_id == 0) return InvalidArgument("external correlation id 0 is reserved");
  NIMBLE_CUPTI_RETURN_IF_ERROR(cuptiActivityPushExternalCorrelationId(kKind, external_id));
  return OkStatus();
}

Status InProcessSession::PopExternalId() {
  uint64_t popped = 0;
  NIMBLE_CUPTI_RETURN_IF_ERROR(cuptiActivityPopExternalCorrelationId(kKind, &popped));
  return OkStatus();
}

StatusOr<int64_t> InProcessSession::NowNs() const {
  uint64_t now = 0;
  NIMBLE_CUPTI_RETURN_IF_ERROR(cuptiGetTimestamp(&now));
  return static_cast<int64_t>(now);
}

StatusOr<InProcessRecording> InProcessSession::Stop(std::vector<StatEntry> extra) {
  if (impl_->stopped) return FailedPrecondition("the in-process session was stopped already");
  impl_->stopped = true;
  extra.insert(extra.end(), impl_->start_stats.begin(), impl_->start_stats.end());
  NIMBLE_RETURN_IF_ERROR(impl_->session->Stop(std::move(extra)).WithContext("stopping the in-process session"));
  if (!impl_->sink.finished()) return Internal("the in-process session stopped without finishing its trace");
  InProcessRecording recording;
  recording.trace = impl_->sink.trace();
  recording.stats = impl_->sink.summary().stats;
  return recording;
}

std::vector<std::string> InProcessSession::MappedCuptiLibraries() {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> paths;
  std::string line;
  while (std::getline(maps, line)) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::filesystem::path path = line.substr(slash);
    if (!path.filename().string().starts_with("libcupti.so")) continue;
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::canonical(path, ec);
    paths.insert(ec ? path.string() : canonical.string());
  }
  return {paths.begin(), paths.end()};
}

}  // namespace nimble::collector
