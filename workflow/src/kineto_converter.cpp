// Event by event: which records a Kineto event becomes, and which of its fields each conversion reads.
#include "kineto_converter.h"

#include <optional>
#include <string_view>

#include "kineto_names.h"
#include "trace_file_buf.h"

namespace nimble::workflow {
namespace {

constexpr std::string_view kProfilerStepPrefix = "ProfilerStep#";

// "ProfilerStep#12": torch.profiler's marker of one step (schedule iteration).
bool IsProfilerStep(const std::string& name) {
  if (!std::string_view(name).starts_with(kProfilerStepPrefix) || name.size() == kProfilerStepPrefix.size()) return false;
  for (size_t i = kProfilerStepPrefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
  }
  return true;
}

}  // namespace

KinetoConverter::KinetoConverter(std::string path) : path_(std::move(path)) {
  cpu_op_domain_ = trace_.strings.Intern("torch.cpu_op");
  annotation_domain_ = trace_.strings.Intern("torch.user_annotation");
  profiler_step_ = trace_.strings.Intern("ProfilerStep");
}

KinetoConverter::Kind KinetoConverter::KindOf(const KinetoEvent& e) const {
  const std::string& ph = e.ph.value;
  const std::string& cat = e.cat.value;
  if (ph == "X") {
    if (cat == "kernel") return Kind::kKernel;
    if (cat == "gpu_memcpy") return Kind::kMemcpy;
    if (cat == "gpu_memset") return Kind::kMemset;
    if (cat == "cuda_runtime") return Kind::kRuntime;
    if (cat == "cuda_driver") return Kind::kDriver;
    if (cat == "cuda_sync") return Kind::kSync;
    if (cat == "cpu_op" || cat == "python_function") return Kind::kCpuOp;
    if (cat == "user_annotation") return Kind::kAnnotation;
    if (cat == "gpu_user_annotation") return Kind::kGpuAnnotation;
    if (cat == "overhead") return Kind::kOverhead;
    return Kind::kOther;
  }
  if ((ph == "s" || ph == "f") && cat == "ac2g") return Kind::kFlow;
  return Kind::kOther;
}

Status KinetoConverter::OnEvent(const KinetoEvent& e) {
  if (e.ph.state == FieldState::kWrongType) return WrongType(e, "ph", e.ph.got);
  if (!e.ph.set()) return Absent(e, "ph");
  if (e.cat.state == FieldState::kWrongType) return WrongType(e, "cat", e.cat.got);
  const Kind kind = KindOf(e);
  if (kind != Kind::kOther) return Convert(kind, e);
  if (e.ph.value == "X") {
    ++skipped_categories_[e.cat.set() ? e.cat.value : std::string("(none)")];
  } else {
    ++skipped_phases_[e.ph.value];
  }
  return OkStatus();
}

Status KinetoConverter::Convert(Kind kind, const KinetoEvent& e) {
  switch (kind) {
    case Kind::kKernel: return AddKernel(e);
    case Kind::kMemcpy: return AddCopy(e);
    case Kind::kMemset: return AddSet(e);
    case Kind::kRuntime: return AddApiCall(e, ApiKind::kRuntime);
    case Kind::kDriver: return AddApiCall(e, ApiKind::kDriver);
    case Kind::kSync: return AddSync(e);
    case Kind::kCpuOp:
    case Kind::kAnnotation:
    case Kind::kGpuAnnotation: return AddRange(e, kind);
    case Kind::kOverhead: return AddOverhead(e);
    case Kind::kFlow: return AddFlow(e);
    case Kind::kOther: break;
  }
  return OkStatus();
}

std::string KinetoConverter::Describe(const KinetoEvent& e) const {
  std::string what = e.cat.set() ? "'" + e.cat.value + "' event" : std::string("event");
  if (e.name.set()) what += " '" + e.name.value.substr(0, 80) + "'";
  return path_ + ": traceEvents[" + std::to_string(e.index) + "] (" + what + ", byte " + std::to_string(e.offset) +
         ", line " + std::to_string(TraceFileBuf::LineAt(path_, e.offset)) + ")";
}

Status KinetoConverter::WrongType(const KinetoEvent& e, const char* field, const char* got) const {
  const std::string_view f = field;
  const char* expected = f == "args.grid" || f == "args.block" ? "an array of 1 to 3 non-negative integers"
                         : f == "ph" || f == "cat" || f == "name" || f == "args.cuda_sync_kind" ? "a string"
                         : f == "ts" || f == "dur"                                               ? "a number of microseconds"
                                                                                                  : "an integer";
  return DataLoss(Describe(e) + ": field '" + field + "' is " + got + ", expected " + expected);
}

Status KinetoConverter::Absent(const KinetoEvent& e, const char* field) const {
  return DataLoss(Describe(e) + ": has no '" + field + "', which every such event of a Chrome trace has");
}

void KinetoConverter::Lacking(const KinetoEvent& e, const char* field) {
  if (lacking_++ > 0) return;
  lacking_example_ = "the first, traceEvents[" + std::to_string(e.index) + "] (a '" +
                     (e.cat.set() ? e.cat.value : std::string("?")) + "' event), has no '" + field + "'";
}

Status KinetoConverter::Require(const KinetoEvent& e, const IntField& f, const char* field) const {
  if (f.state == FieldState::kWrongType) return WrongType(e, field, f.got);
  return f.set() ? OkStatus() : Absent(e, field);
}

Status KinetoConverter::Require(const KinetoEvent& e, const TextField& f, const char* field) const {
  if (f.state == FieldState::kWrongType) return WrongType(e, field, f.got);
  return f.set() ? OkStatus() : Absent(e, field);
}

Status KinetoConverter::Check(const KinetoEvent& e,
                              std::initializer_list<std::pair<const IntField*, const char*>> fields) const {
  for (const auto& [field, name] : fields) {
    if (field->state == FieldState::kWrongType) return WrongType(e, name, field->got);
  }
  return OkStatus();
}

StatusOr<bool> KinetoConverter::Times(const KinetoEvent& e, int64_t& start_ns, int64_t& end_ns) {
  NIMBLE_RETURN_IF_ERROR(Require(e, e.ts_ns, "ts"));
  NIMBLE_RETURN_IF_ERROR(Require(e, e.dur_ns, "dur"));
  if (e.dur_ns.value < 0) {  // a value problem, not a format one: counted, skipped
    ++negative_durations_;
    return false;
  }
  start_ns = e.ts_ns.value;
  if (__builtin_add_overflow(start_ns, e.dur_ns.value, &end_ns)) return WrongType(e, "dur", "a time out of range");
  return true;
}

StatusOr<DeviceId> KinetoConverter::DeviceOf(const KinetoEvent& e) {
  // args.device, else the event's pid: Kineto draws a device's lanes in a process of that id.
  NIMBLE_RETURN_IF_ERROR(Check(e, {{&e.device, "args.device"}}));
  if (e.device.set()) return DeviceId(static_cast<int32_t>(e.device.value));
  NIMBLE_RETURN_IF_ERROR(Require(e, e.pid, "pid"));
  Lacking(e, "args.device");
  return DeviceId(static_cast<int32_t>(e.pid.value));
}

StatusOr<StreamId> KinetoConverter::StreamOf(const KinetoEvent& e) {
  // args.stream, else the tid of the lane Kineto draws it in.
  NIMBLE_RETURN_IF_ERROR(Check(e, {{&e.stream, "args.stream"}}));
  if (e.stream.set()) return StreamId(e.stream.value);
  NIMBLE_RETURN_IF_ERROR(Require(e, e.tid, "tid"));
  Lacking(e, "args.stream");
  return StreamId(e.tid.value);
}

Status KinetoConverter::AddKernel(const KinetoEvent& e) {
  KernelRecord k;
  NIMBLE_ASSIGN_OR_RETURN(const bool keep, Times(e, k.start_ns, k.end_ns));
  NIMBLE_RETURN_IF_ERROR(Require(e, e.name, "name"));
  NIMBLE_ASSIGN_OR_RETURN(k.device, DeviceOf(e));
  NIMBLE_ASSIGN_OR_RETURN(k.stream, StreamOf(e));
  NIMBLE_RETURN_IF_ERROR(Check(e, {{&e.context, "args.context"}, {&e.correlation, "args.correlation"},
                                   {&e.registers_per_thread, "args.registers per thread"},
                                   {&e.shared_memory, "args.shared memory"}, {&e.graph_node_id, "args.graph node id"},
                                   {&e.graph_id, "args.graph id"}}));
  if (e.grid.state == FieldState::kWrongType) return WrongType(e, "args.grid", e.grid.got);
  if (e.block.state == FieldState::kWrongType) return WrongType(e, "args.block", e.block.got);
  if (!keep) return OkStatus();
  if (!e.grid.set() || !e.block.set()) Lacking(e, "args.grid");
  if (e.context.set()) k.context = ContextId(e.context.value);
  if (e.correlation.set()) k.correlation = CorrelationId(e.correlation.value);  // else maybe from its flow
  if (e.grid.set()) k.grid = e.grid.value;
  if (e.block.set()) k.block = e.block.value;
  k.registers_per_thread = static_cast<int32_t>(e.registers_per_thread.value);
  // Kineto writes static + dynamic shared memory as one figure; occupancy needs only the sum.
  k.static_shared_bytes = static_cast<int32_t>(e.shared_memory.value);
  k.graph_node_id = e.graph_node_id.value;
  k.graph_id = e.graph_id.value;
  k.name = trace_.strings.Intern(e.name.value);
  k.short_name = KernelShortName(k.name);
  trace_.kernels.push_back(k);
  return OkStatus();
}

StringId KinetoConverter::KernelShortName(StringId name) {
  const auto at = static_cast<size_t>(name.value());
  if (at < short_names_.size() && short_names_[at].valid()) return short_names_[at];
  const StringId short_name = trace_.strings.Intern(ShortKernelName(trace_.strings.Get(name)));
  if (at >= short_names_.size()) short_names_.resize(at + 1);
  short_names_[at] = short_name;
  return short_name;
}

Status KinetoConverter::AddCopy(const KinetoEvent& e) {
  MemcpyRecord c;
  NIMBLE_ASSIGN_OR_RETURN(const bool keep, Times(e, c.start_ns, c.end_ns));
  NIMBLE_RETURN_IF_ERROR(Require(e, e.name, "name"));
  // Peer copies carry "inDevice" (the device that ran the copy) instead of "device".
  NIMBLE_RETURN_IF_ERROR(Check(e, {{&e.in_device, "args.inDevice"}}));
  if (e.in_device.set() && !e.device.set()) {
    c.device = DeviceId(static_cast<int32_t>(e.in_device.value));
  } else {
    NIMBLE_ASSIGN_OR_RETURN(c.device, DeviceOf(e));
  }
  NIMBLE_ASSIGN_OR_RETURN(c.stream, StreamOf(e));
  NIMBLE_RETURN_IF_ERROR(Check(e, {{&e.context, "args.context"}, {&e.correlation, "args.correlation"},
                                   {&e.bytes, "args.bytes"}, {&e.graph_node_id, "args.graph node id"}}));
  if (!keep) return OkStatus();
  if (!e.correlation.set()) Lacking(e, "args.correlation");
  if (!e.bytes.set()) Lacking(e, "args.bytes");
  if (e.context.set()) c.context = ContextId(e.context.value);
  if (e.correlation.set()) c.correlation = CorrelationId(e.correlation.value);
  c.bytes = e.bytes.value;
  c.graph_node_id = e.graph_node_id.value;
  if (const auto kinds = ParseMemcpyName(e.name.value)) {
    c.copy_kind = kinds->copy_kind, c.src_kind = kinds->src_kind, c.dst_kind = kinds->dst_kind;
  } else {
    ++unknown_copy_kinds_;
  }
  trace_.memcpys.push_back(c);
  return OkStatus();
}

Status KinetoConverter::AddSet(const KinetoEvent& e) {
  MemsetRecord m;
  NIMBLE_ASSIGN_OR_RETURN(const bool keep, Times(e, m.start_ns, m.end_ns));
  NIMBLE_RETURN_IF_ERROR(Require(e, e.name, "name"));
  NIMBLE_ASSIGN_OR_RETURN(m.device, DeviceOf(e));
  NIMBLE_ASSIGN_OR_RETURN(m.stream, StreamOf(e));
  NIMBLE_RETURN_IF_ERROR(Check(e, {{&e.context, "args.context"}, {&e.correlation, "args.correlation"},
                                   {&e.bytes, "args.bytes"}, {&e.graph_node_id, "args.graph node id"}}));
  if (!keep) return OkStatus();
  if (!e.correlation.set()) Lacking(e, "args.correlation");
  if (e.context.set()) m.context = ContextId(e.context.value);
  if (e.correlation.set()) m.correlation = CorrelationId(e.correlation.value);
  m.bytes = e.bytes.value;
  m.graph_node_id = e.graph_node_id.value;
  m.mem_kind = ParseMemsetName(e.name.value).value_or(MemoryKind::kUnknown);
  trace_.memsets.push_back(m);
  return OkStatus();
}

Status KinetoConverter::AddApiCall(const KinetoEvent& e, ApiKind kind) {
  ApiCallRecord a;
  a.kind = kind;
  NIMBLE_ASSIGN_OR_RETURN(const bool keep, Times(e, a.start_ns, a.end_ns));
  NIMBLE_RETURN_IF_ERROR(Require(e, e.name, "name"));
  NIMBLE_RETURN_IF_ERROR(Require(e, e.tid, "tid"));
  NIMBLE_RETURN_IF_ERROR(Check(e, {{&e.pid, "pid"}, {&e.correlation, "args.correlation"}, {&e.cbid, "args.cbid"},
                                   {&e.external_id, "args.External id"}}));
  if (!keep) return OkStatus();
  if (!e.correlation.set()) Lacking(e, "args.correlation");
  a.thread = ThreadId(e.tid.value);
  a.process = static_cast<int32_t>(e.pid.value);
  if (e.correlation.set()) a.correlation = CorrelationId(e.correlation.value);
  a.callback_id = static_cast<int32_t>(e.cbid.value);
  a.name = trace_.strings.Intern(e.name.value);
  trace_.api_calls.push_back(a);
  // "External id" ties the call to the torch op that made it.
  if (e.correlation.set() && e.external_id.set() && e.external_id.value != 0) {
    trace_.external_correlations.push_back(
        ExternalCorrelation{a.correlation, e.external_id.value, kTorchOpExternalKind});
  }
  return OkStatus();
}

Status KinetoConverter::AddSync(const KinetoEvent& e) {
  ++sync_events_;
  SyncRecord s;
  NIMBLE_ASSIGN_OR_RETURN(const bool keep, Times(e, s.start_ns, s.end_ns));
  NIMBLE_ASSIGN_OR_RETURN(s.device, DeviceOf(e));
  NIMBLE_RETURN_IF_ERROR(Check(e, {{&e.stream, "args.stream"}, {&e.context, "args.context"},
                                   {&e.correlation, "args.correlation"},
                                   {&e.wait_event_id, "args.wait_on_cuda_event_id"}}));
  if (e.sync_kind.state == FieldState::kWrongType) return WrongType(e, "args.cuda_sync_kind", e.sync_kind.got);
  if (!keep) return OkStatus();
  // Context-wide syncs carry stream -1 (CUPTI's invalid stream); the tid of their lane is no stream.
  if (e.stream.set() && e.stream.value >= 0) s.stream = StreamId(e.stream.value);
  if (e.context.set()) s.context = ContextId(e.context.value);
  if (e.correlation.set()) s.correlation = CorrelationId(e.correlation.value);
  s.event_id = e.wait_event_id.value;
  s.kind = ParseSyncKind(e.sync_kind.set() ? e.sync_kind.value : e.name.value);
  trace_.syncs.push_back(s);
  return OkStatus();
}

Status KinetoConverter::AddRange(const KinetoEvent& e, Kind kind) {
  NvtxRange r;
  NIMBLE_ASSIGN_OR_RETURN(const bool keep, Times(e, r.start_ns, r.end_ns));
  NIMBLE_RETURN_IF_ERROR(Require(e, e.name, "name"));
  // Host ranges nest by time on their thread; GPU annotations belong to a stream, not a thread.
  if (kind != Kind::kGpuAnnotation) {
    NIMBLE_RETURN_IF_ERROR(Require(e, e.tid, "tid"));
    r.thread = ThreadId(e.tid.value);
  }
  if (!keep) return OkStatus();
  r.domain = kind == Kind::kCpuOp ? cpu_op_domain_ : annotation_domain_;
  if (kind != Kind::kGpuAnnotation && IsProfilerStep(e.name.value)) {
    r.text = profiler_step_;
    r.domain = annotation_domain_;
    ++iterations_;
  } else {
    r.text = trace_.strings.Intern(e.name.value);
  }
  trace_.ranges.push_back(r);
  return OkStatus();
}

Status KinetoConverter::AddOverhead(const KinetoEvent& e) {
  OverheadRecord o;
  NIMBLE_ASSIGN_OR_RETURN(const bool keep, Times(e, o.start_ns, o.end_ns));
  NIMBLE_RETURN_IF_ERROR(Require(e, e.name, "name"));
  NIMBLE_RETURN_IF_ERROR(Check(e, {{&e.tid, "tid"}}));
  if (!keep) return OkStatus();
  if (e.tid.set()) o.thread = ThreadId(e.tid.value);
  o.kind = trace_.strings.Intern(e.name.value);
  trace_.overheads.push_back(o);
  return OkStatus();
}

Status KinetoConverter::AddFlow(const KinetoEvent& e) {
  NIMBLE_RETURN_IF_ERROR(Require(e, e.id, "id"));
  NIMBLE_RETURN_IF_ERROR(Require(e, e.ts_ns, "ts"));
  if (e.ph.value == "s") return OkStatus();  // the launch side: its id is the call's args.correlation
  NIMBLE_RETURN_IF_ERROR(Require(e, e.pid, "pid"));
  NIMBLE_RETURN_IF_ERROR(Require(e, e.tid, "tid"));
  flow_ends_.push_back(FlowEnd{e.pid.value, e.tid.value, e.ts_ns.value, e.id.value});
  return OkStatus();
}

Status KinetoConverter::OnDevice(const KinetoDevice& d) {
  auto check = [&](const IntField& f, const char* field) -> Status {
    if (f.state != FieldState::kWrongType) return OkStatus();
    return DataLoss(path_ + ": deviceProperties[" + std::to_string(d.index) + "] (byte " + std::to_string(d.offset) +
                    ", line " + std::to_string(TraceFileBuf::LineAt(path_, d.offset)) + "): field '" + field + "' is " +
                    f.got + ", not a number");
  };
  for (const auto& [field, name] :
       {std::pair{&d.id, "id"}, {&d.total_global_mem, "totalGlobalMem"}, {&d.compute_major, "computeMajor"},
        {&d.compute_minor, "computeMinor"}, {&d.max_threads_per_block, "maxThreadsPerBlock"},
        {&d.max_threads_per_sm, "maxThreadsPerMultiprocessor"}, {&d.regs_per_sm, "regsPerMultiprocessor"},
        {&d.shared_per_sm, "sharedMemPerMultiprocessor"}, {&d.num_sms, "numSms"}}) {
    NIMBLE_RETURN_IF_ERROR(check(*field, name));
  }
  if (d.name.state == FieldState::kWrongType) {
    return DataLoss(path_ + ": deviceProperties[" + std::to_string(d.index) + "] (byte " + std::to_string(d.offset) +
                    "): field 'name' is " + d.name.got + ", not a string");
  }
  DeviceInfo info;
  info.id = DeviceId(static_cast<int32_t>(d.id.set() ? d.id.value : d.index));
  info.name = trace_.strings.Intern(d.name.value);
  info.compute_major = static_cast<int32_t>(d.compute_major.value);
  info.compute_minor = static_cast<int32_t>(d.compute_minor.value);
  info.sm_count = static_cast<int32_t>(d.num_sms.value);
  info.max_threads_per_sm = static_cast<int32_t>(d.max_threads_per_sm.value);
  info.max_registers_per_sm = static_cast<int32_t>(d.regs_per_sm.value);
  info.max_shared_bytes_per_sm = static_cast<int32_t>(d.shared_per_sm.value);
  info.max_threads_per_block = static_cast<int32_t>(d.max_threads_per_block.value);
  info.global_memory_bytes = d.total_global_mem.value;
  // Kineto records neither the resident-block limit nor the clock: they stay 0 (unknown).
  trace_.devices.push_back(info);
  return OkStatus();
}

}  // namespace nimble::workflow
