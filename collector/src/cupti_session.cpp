#include "nimble/collector/cupti_session.h"

#include <cstdlib>

#include "capture_gate.h"
#include "cupti_check.h"
#include "cupti_detach.h"
#include "nimble/collector/device_properties.h"

namespace nimble::collector {
namespace {

// CUPTI's buffer callbacks take no user pointer, so they reach the active session through this one
// file-local pointer. The mutex keeps a session from being destroyed under a running callback.
std::mutex g_session_mu;
CuptiSession* g_session = nullptr;
bool g_callbacks_registered = false;  // guarded by g_session_mu; a detach forgets them

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;  // as many records as fit
  std::lock_guard lock(g_session_mu);
  if (g_session == nullptr) {
    *buffer = nullptr;
    *size = 0;
    return;
  }
  g_session->OnBufferRequested(buffer, size);
}

void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_bytes) {
  std::lock_guard lock(g_session_mu);
  if (g_session == nullptr) {
    std::free(buffer);  // a late buffer of a session that is gone; its pool no longer owns it
    return;
  }
  g_session->OnBufferCompleted(buffer, valid_bytes);
}

// The session's one CUPTI callback subscriber: NVTX ranges go to the capture gate, the driver's end of
// initialisation resolves a pending request for hardware kernel timestamps.
void CUPTIAPI OnCallback(void* self, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  auto* session = static_cast<CuptiSession*>(self);
  if (domain == CUPTI_CB_DOMAIN_NVTX) {
    session->OnNvtxCallback(cbid, data);
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CU_INIT_FINISHED) {
    session->OnDriverInitialized();
  }
}

struct KindMapping {
  ActivityKind kind;
  CUpti_ActivityKind cupti;
};
// GRAPH_TRACE is not a kind of its own: SessionOptions::graph_trace turns it on, and it then replaces
// the per-node records of graph launches.
constexpr KindMapping kKindMap[] = {
    {ActivityKind::kKernel, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
    {ActivityKind::kMemcpy, CUPTI_ACTIVITY_KIND_MEMCPY},
    {ActivityKind::kMemset, CUPTI_ACTIVITY_KIND_MEMSET},
    {ActivityKind::kRuntime, CUPTI_ACTIVITY_KIND_RUNTIME},
    {ActivityKind::kDriver, CUPTI_ACTIVITY_KIND_DRIVER},
    {ActivityKind::kSync, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION},
    {ActivityKind::kExternalCorrelation, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION},
    {ActivityKind::kOverhead, CUPTI_ACTIVITY_KIND_OVERHEAD},
};

Status RegisterCallbacksOnce() {
  std::lock_guard lock(g_session_mu);
  if (g_callbacks_registered) return OkStatus();
  NIMBLE_CUPTI_RETURN_IF_ERROR(cuptiActivityRegisterCallbacks(&BufferRequested, &BufferCompleted));
  g_callbacks_registered = true;
  return OkStatus();
}

}  // namespace

CuptiSession::CuptiSession(SessionOptions options, RecordSink& sink)
    : options_(std::move(options)),
      pool_(options_.buffer_bytes, options_.max_buffers),
      pipeline_(sink, pool_, ConverterOptions{options_.iteration_range}) {}

StatusOr<std::unique_ptr<CuptiSession>> CuptiSession::Start(SessionOptions options, RecordSink& sink) {
  if (options.kinds.empty()) return InvalidArgument("no activity kinds selected");
  std::unique_ptr<CuptiSession> session(new CuptiSession(std::move(options), sink));
  if (Status s = session->Begin(); !s.ok()) {
    {
      std::lock_guard lock(g_session_mu);
      if (g_session == session.get()) g_session = nullptr;
    }
    if (session->gate_ != nullptr) session->gate_->Stop();  // first: no range callback is then mid-switch
    session->Unsubscribe();
    if (session->EndHardwareRequest()) (void)cuptiActivityEnableHWTrace(0);  // best effort
    (void)session->SetGatedKinds(false);  // best effort: the session failed already
    session->stopped_ = true;             // nothing to finish: the sink is discarded uncommitted
    return s;
  }
  return session;
}

Status CuptiSession::Begin() {
  {
    std::lock_guard lock(g_session_mu);
    if (g_session != nullptr) return FailedPrecondition("another CUPTI session is active in this process");
  }
  // OS thread ids, so that API records and NVTX ranges name the same threads as the rest of the system.
  NIMBLE_CUPTI_RETURN_IF_ERROR(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM));
  NIMBLE_RETURN_IF_ERROR(RegisterCallbacksOnce());
  pipeline_.Start();
  {
    std::lock_guard lock(g_session_mu);
    g_session = this;
  }
  if (options_.kinds.contains(ActivityKind::kNvtx)) {
    // Markers are always on: the ranges that delimit a capture are part of the record too.
    NIMBLE_CUPTI_RETURN_IF_ERROR(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER));
  }
  gate_ = std::make_unique<CaptureGate>(options_.start_delay, options_.capture_range,
                                        [this](bool capturing) { OnCaptureChange(capturing); });
  if (gate_->capturing_at_start()) NIMBLE_RETURN_IF_ERROR(SetGatedKinds(true));
  if (gate_->watches_ranges()) NIMBLE_RETURN_IF_ERROR(Subscribe(/*nvtx_ranges=*/true, /*driver_init=*/false));
  if (options_.kernel_timestamps == KernelTimestamps::kHardware) {
    // Asked after the kinds are enabled. Before the driver has initialised (always so in the injection
    // library, which the driver loads from cuInit) CUPTI cannot answer yet: ask again when it has.
    {
      std::lock_guard lock(hardware_mu_);
      hardware_ = HardwareTimestamps::kPending;
    }
    if (!ResolveHardwareTimestamps()) {
      if (Status s = Subscribe(/*nvtx_ranges=*/false, /*driver_init=*/true); !s.ok()) {
        std::lock_guard lock(hardware_mu_);
        hardware_ = HardwareTimestamps::kRefused;
        hardware_refusal_ = s.message();
      } else {
        (void)ResolveHardwareTimestamps();  // the driver may have finished initialising on another thread meanwhile
      }
    }
  }
  return gate_->Start();
}

Status CuptiSession::Subscribe(bool nvtx_ranges, bool driver_init) {
  if (subscriber_ == nullptr) {
    CUpti_SubscriberHandle handle = nullptr;
    NIMBLE_CUPTI_RETURN_IF_ERROR(cuptiSubscribe(&handle, &OnCallback, this));
    subscriber_ = handle;
  }
  if (nvtx_ranges) {
    for (CUpti_CallbackId cbid : CaptureGate::RangeCallbacks()) {
      NIMBLE_CUPTI_RETURN_IF_ERROR(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_NVTX, cbid));
    }
  }
  if (driver_init) {
    NIMBLE_CUPTI_RETURN_IF_ERROR(
        cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CU_INIT_FINISHED));
  }
  return OkStatus();
}

void CuptiSession::Unsubscribe() {
  if (subscriber_ == nullptr) return;
  // A failure leaves callbacks armed: the gate ignores them once stopped, and a late driver
  // initialisation finds the request closed (EndHardwareRequest).
  if (CUptiResult r = cuptiUnsubscribe(subscriber_); r != CUPTI_SUCCESS) {
    NoteError(CuptiError(r, "cuptiUnsubscribe(subscriber)"));
  }
  subscriber_ = nullptr;
}

void CuptiSession::OnNvtxCallback(uint32_t cbid, const void* data) {
  if (gate_ != nullptr) gate_->OnNvtx(cbid, static_cast<const CUpti_NvtxData*>(data));
}

void CuptiSession::OnDriverInitialized() { (void)ResolveHardwareTimestamps(); }

// CUPTI is called outside hardware_mu_: the driver-initialisation callback holds CUPTI's own locks
// when it gets here.
bool CuptiSession::ResolveHardwareTimestamps() {
  {
    std::lock_guard lock(hardware_mu_);
    if (hardware_ != HardwareTimestamps::kPending) return true;
  }
  const CUptiResult r = cuptiActivityEnableHWTrace(1);
  bool undo = false;
  {
    std::lock_guard lock(hardware_mu_);
    if (hardware_ == HardwareTimestamps::kPending) {
      if (r == CUPTI_SUCCESS) {
        hardware_ = HardwareTimestamps::kOn;
      } else if (r != CUPTI_ERROR_NOT_INITIALIZED) {
        hardware_ = HardwareTimestamps::kRefused;
        hardware_refusal_ = CuptiError(r, "cuptiActivityEnableHWTrace(1)").message();
        if (r == CUPTI_ERROR_NOT_SUPPORTED) {
          hardware_refusal_ += " (no hardware event system for kernels here: CUPTI 13.0 has it on Blackwell GPUs only)";
        }
      }
    } else {
      undo = r == CUPTI_SUCCESS && hardware_ != HardwareTimestamps::kOn;  // Stop() closed the request meanwhile
    }
    if (!undo) return hardware_ != HardwareTimestamps::kPending;
  }
  (void)cuptiActivityEnableHWTrace(0);  // best effort: the stats already say software
  return true;
}

bool CuptiSession::EndHardwareRequest() {
  std::lock_guard lock(hardware_mu_);
  if (hardware_ == HardwareTimestamps::kPending) {
    hardware_ = HardwareTimestamps::kRefused;
    hardware_refusal_ = "the CUDA driver did not finish initialising while the session ran";
  }
  return hardware_ == HardwareTimestamps::kOn;
}

void CuptiSession::AddTimestampStats(std::vector<StatEntry>& extra) {
  std::lock_guard lock(hardware_mu_);
  const bool on = hardware_ == HardwareTimestamps::kOn;
  extra.push_back(StatEntry{"collector.kernel_timestamps", on ? 1 : 0, Severity::kInfo,
                            on ? "1: kernel timestamps from the GPU's hardware event system"
                               : "0: kernel timestamps from CUPTI's software instrumentation"});
  if (hardware_ == HardwareTimestamps::kRefused) {
    extra.push_back(StatEntry{"collector.hardware_timestamps_refused", 1, Severity::kWarning,
                              "hardware kernel timestamps were requested but not switched on: " + hardware_refusal_ +
                                  "; kernels carry software timestamps"});
  }
}

Status CuptiSession::SetGatedKinds(bool enable) {
  // A kind CUPTI refuses is counted (cupti_errors) and the others still run; only when every kind
  // failed is the session unusable.
  int selected = 0, failed = 0;
  Status first;
  for (const KindMapping& m : kKindMap) {
    if (!options_.kinds.contains(m.kind)) continue;
    ++selected;
    const CUptiResult r = enable ? cuptiActivityEnable(m.cupti) : cuptiActivityDisable(m.cupti);
    if (r == CUPTI_SUCCESS) continue;
    ++failed;
    const std::string call = std::string(enable ? "cuptiActivityEnable(" : "cuptiActivityDisable(") +
                             std::to_string(static_cast<int>(m.cupti)) + ")";
    const Status s = CuptiError(r, call.c_str());
    NoteError(s);
    if (first.ok()) first = s;
  }
  if (options_.graph_trace == GraphTrace::kGraph) {
    // Failing this one would silently bring back per-node records: at the start it fails the session.
    // It is switched only at the start and the stop: switched on from an NVTX range callback it
    // crashed the program, so the options refuse a capture window with it (injection_options.cpp).
    const CUptiResult r = enable ? cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE)
                                 : cuptiActivityDisable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
    if (r != CUPTI_SUCCESS) {
      const Status s = CuptiError(r, enable ? "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE)"
                                            : "cuptiActivityDisable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE)");
      NoteError(s);
      kinds_enabled_ = enable;
      return s;
    }
  }
  kinds_enabled_ = enable;
  return selected > 0 && failed == selected ? first : OkStatus();
}

void CuptiSession::OnCaptureChange(bool capturing) {
  (void)SetGatedKinds(capturing);  // failures are counted inside
}

void CuptiSession::OnBufferRequested(uint8_t** buffer, size_t* size) {
  *buffer = pool_.Acquire();
  *size = *buffer != nullptr ? pool_.buffer_bytes() : 0;
}

void CuptiSession::OnBufferCompleted(uint8_t* buffer, size_t valid_bytes) {
  CountDropped();
  if (buffer == nullptr) return;
  pipeline_.Submit(buffer, valid_bytes);
}

void CuptiSession::CountDropped() {
  size_t dropped = 0;
  const CUptiResult r = cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped);
  if (r == CUPTI_SUCCESS) {
    cupti_dropped_ += static_cast<int64_t>(dropped);
  } else {
    NoteError(CuptiError(r, "cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped)"));
  }
}

void CuptiSession::NoteError(const Status& status) {
  std::lock_guard lock(error_mu_);
  ++cupti_errors_;
  if (first_error_.empty()) first_error_ = status.message();
}

Status CuptiSession::Stop(std::vector<StatEntry> extra) {
  std::lock_guard stop_lock(stop_mu_);
  if (stopped_) return stop_status_;
  stopped_ = true;
  // The gate first: once it stopped, no NVTX callback is inside a switch of the kinds. Then the
  // subscriber, and a request still waiting for the driver is closed.
  if (gate_ != nullptr) gate_->Stop();
  Unsubscribe();
  const bool hardware_on = EndHardwareRequest();
  // Disable first so nothing new is recorded while the flush runs; work already issued still completes.
  if (kinds_enabled_) (void)SetGatedKinds(false);  // failures are counted inside
  if (options_.kinds.contains(ActivityKind::kNvtx)) {
    if (CUptiResult r = cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MARKER); r != CUPTI_SUCCESS) {
      NoteError(CuptiError(r, "cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MARKER)"));
    }
  }
  if (CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); r != CUPTI_SUCCESS) {
    NoteError(CuptiError(r, "cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)"));
  }
  CountDropped();
  if (hardware_on) {  // the process's next session starts from software timestamps again
    if (CUptiResult r = cuptiActivityEnableHWTrace(0); r != CUPTI_SUCCESS) {
      NoteError(CuptiError(r, "cuptiActivityEnableHWTrace(0)"));
    }
  }
  AddTimestampStats(extra);
  {
    std::lock_guard lock(g_session_mu);  // every buffer is back: no callback may reach us now
    if (g_session == this) g_session = nullptr;
  }
  std::vector<DeviceDescription> devices;
  if (auto read = ReadDeviceProperties(); read.ok()) {
    devices = std::move(read).value();
  } else {
    extra.push_back(StatEntry{"collector.device_query_failed", 1, Severity::kWarning, read.status().message()});
  }
  if (options_.detach_at_stop) {  // outside g_session_mu: finalizing may hand back a buffer
    extra.push_back(DetachCupti());
    if (extra.back().value == 0) {
      std::lock_guard lock(g_session_mu);
      g_callbacks_registered = false;
    }
  }
  CollectorStats buffer_stats;
  buffer_stats.buffers_refused = pool_.refused();
  buffer_stats.peak_buffers_outstanding = pool_.peak_outstanding();
  buffer_stats.cupti_dropped_records = cupti_dropped_.load();
  {
    std::lock_guard lock(error_mu_);
    extra.push_back(StatEntry{"collector.cupti_errors", cupti_errors_,
                              cupti_errors_ == 0 ? Severity::kInfo : Severity::kError,
                              cupti_errors_ == 0 ? "failed CUPTI calls during the session" : first_error_});
  }
  stop_status_ = pipeline_.Finish(buffer_stats, std::move(extra), std::move(devices));
  return stop_status_;
}

CuptiSession::~CuptiSession() { (void)Stop(); }

}  // namespace nimble::collector
