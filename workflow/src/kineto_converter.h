// Turns the events of a torch.profiler (Kineto) trace into Nimble records as they stream in, then, at
// Finish(), shifts them to the trace's base time, recovers correlation ids from launch flows, counts
// kernels whose launch is missing and what else the source lacks (data warnings, "import.*"), and builds
// the run row. For the events Nimble converts, a field of the wrong JSON type, or a field the Chrome trace
// format gives every such event (ph, ts, dur, name, pid/tid, a flow's id) missing, is an error naming the
// file, the event and the field; a missing Kineto argument (device, stream, correlation, grid, bytes)
// keeps the event with what it has and counts a warning. Nothing is invented.
// One thread; Finish() once.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kineto_event.h"
#include "kineto_sax.h"
#include "nimble/core/imported_trace.h"
#include "nimble/core/status.h"

namespace nimble::workflow {

// ExternalCorrelation::external_kind of torch op ids ("External id"): CUPTI's CUSTOM0 kind, the one
// Kineto pushes op ids with.
inline constexpr int32_t kTorchOpExternalKind = 3;

class KinetoConverter : public KinetoEventSink {
 public:
  explicit KinetoConverter(std::string path);

  Status OnEvent(const KinetoEvent& event) override;
  Status OnDevice(const KinetoDevice& device) override;
  void OnBaseTime(int64_t base_ns) override { base_ns_ = base_ns, has_base_ = true; }

  // Takes over what `part` converted from later events of the same file (a chunk read on another
  // thread): its records, with string ids moved to this table, after this one's; its counts and flows.
  void Absorb(KinetoConverter&& part);

  // The trace, with `events_read` events for the stats.
  StatusOr<ImportedTrace> Finish(int64_t events_read);

 private:
  struct FlowEnd {  // an "ac2g" flow's "f" end: where it binds and the launch's correlation id
    int64_t pid, tid, ts_ns, id;
  };
  enum class Kind { kKernel, kMemcpy, kMemset, kRuntime, kDriver, kSync, kCpuOp, kAnnotation, kGpuAnnotation,
                    kOverhead, kFlow, kOther };

  Kind KindOf(const KinetoEvent& e) const;
  Status Convert(Kind kind, const KinetoEvent& e);
  Status AddKernel(const KinetoEvent& e);
  Status AddCopy(const KinetoEvent& e);
  Status AddSet(const KinetoEvent& e);
  Status AddApiCall(const KinetoEvent& e, ApiKind kind);
  Status AddSync(const KinetoEvent& e);
  Status AddRange(const KinetoEvent& e, Kind kind);
  Status AddOverhead(const KinetoEvent& e);
  Status AddFlow(const KinetoEvent& e);

  // "file: traceEvents[12] ('kernel' event 'foo', byte 345, line 20)", for messages.
  std::string Describe(const KinetoEvent& e) const;
  Status WrongType(const KinetoEvent& e, const char* field, const char* got) const;
  Status Absent(const KinetoEvent& e, const char* field) const;
  // A field the Chrome trace format gives every such event: an error when absent or of the wrong type.
  Status Require(const KinetoEvent& e, const IntField& f, const char* field) const;
  Status Require(const KinetoEvent& e, const TextField& f, const char* field) const;
  // Optional fields the conversion reads: an error only when one has the wrong type.
  Status Check(const KinetoEvent& e, std::initializer_list<std::pair<const IntField*, const char*>> fields) const;
  // A field Kineto usually writes is missing: the event is kept with what it has, and counted.
  void Lacking(const KinetoEvent& e, const char* field);
  // Start and end of an "X" event; false (skipped, counted) when dur < 0.
  StatusOr<bool> Times(const KinetoEvent& e, int64_t& start_ns, int64_t& end_ns);
  // A GPU record's device (args.device, else pid) and stream (args.stream, else tid).
  StatusOr<DeviceId> DeviceOf(const KinetoEvent& e);
  StatusOr<StreamId> StreamOf(const KinetoEvent& e);
  StringId KernelShortName(StringId name);

  // Finish() steps.
  Status ShiftToBaseTime();
  void RecoverCorrelations();
  void CountUnlaunched();
  void AddStats(int64_t events_read);
  void SortRecords();
  RunInfo MakeRun() const;
  void Stat(const std::string& name, int64_t value, Severity severity, const std::string& description);

  std::string path_;
  Trace trace_;
  std::vector<StatEntry> stats_;
  int64_t base_ns_ = 0;
  bool has_base_ = false;
  StringId cpu_op_domain_, annotation_domain_, profiler_step_;
  std::vector<StringId> short_names_;  // by kernel name id; invalid until computed

  std::vector<FlowEnd> flow_ends_;
  int64_t iterations_ = 0;
  int64_t sync_events_ = 0;
  int64_t kernels_from_flows_ = 0;
  int64_t unlaunched_kernels_ = 0;
  int64_t negative_durations_ = 0;
  int64_t unknown_copy_kinds_ = 0;
  int64_t lacking_ = 0;
  std::string lacking_example_;
  std::map<std::string, int64_t> skipped_categories_;
  std::map<std::string, int64_t> skipped_phases_;
};

}  // namespace nimble::workflow
