// Helpers for the host/GPU critical path tests: a builder of small traces with API calls on host threads,
// GPU work tied to them by correlation id, and synchronization records (times in ns). Single-threaded.
#pragma once

#include <cstdint>
#include <string>

#include "nimble/core/trace.h"

namespace nimble::analysis::testing {

class HostGpuTraceBuilder {
 public:
  // An API call on `thread`; returns its correlation id (a fresh one unless `correlation` is given).
  int64_t Call(int64_t start_ns, int64_t end_ns, const std::string& name, int64_t thread = 1, int64_t correlation = -1) {
    if (correlation < 0) correlation = next_correlation_++;
    ApiCallRecord a;
    a.start_ns = start_ns;
    a.end_ns = end_ns;
    a.thread = ThreadId(thread);
    a.correlation = CorrelationId(correlation);
    a.name = trace.strings.Intern(name);
    trace.api_calls.push_back(a);
    return correlation;
  }
  size_t Kernel(int64_t start_ns, int64_t end_ns, int64_t stream, int64_t correlation, const std::string& name = "k",
                int32_t device = 0, int64_t graph_node_id = 0) {
    KernelRecord k;
    k.start_ns = start_ns;
    k.end_ns = end_ns;
    k.device = DeviceId(device);
    k.context = ContextId(1);
    k.stream = StreamId(stream);
    k.correlation = CorrelationId(correlation);
    k.short_name = trace.strings.Intern(name);
    k.name = k.short_name;
    k.graph_node_id = graph_node_id;
    trace.kernels.push_back(k);
    return trace.kernels.size() - 1;
  }
  size_t Copy(int64_t start_ns, int64_t end_ns, int64_t stream, int64_t correlation, CopyKind kind = CopyKind::kHtoD,
              int32_t device = 0) {
    MemcpyRecord c;
    c.start_ns = start_ns;
    c.end_ns = end_ns;
    c.device = DeviceId(device);
    c.context = ContextId(1);
    c.stream = StreamId(stream);
    c.correlation = CorrelationId(correlation);
    c.copy_kind = kind;
    c.bytes = 64;
    trace.memcpys.push_back(c);
    return trace.memcpys.size() - 1;
  }
  size_t Set(int64_t start_ns, int64_t end_ns, int64_t stream, int64_t correlation, int32_t device = 0) {
    MemsetRecord m;
    m.start_ns = start_ns;
    m.end_ns = end_ns;
    m.device = DeviceId(device);
    m.context = ContextId(1);
    m.stream = StreamId(stream);
    m.correlation = CorrelationId(correlation);
    trace.memsets.push_back(m);
    return trace.memsets.size() - 1;
  }
  size_t GraphLaunch(int64_t start_ns, int64_t end_ns, int64_t stream, int64_t correlation, int32_t device = 0) {
    GraphLaunchRecord g;
    g.start_ns = start_ns;
    g.end_ns = end_ns;
    g.device = DeviceId(device);
    g.context = ContextId(1);
    g.stream = StreamId(stream);
    g.correlation = CorrelationId(correlation);
    g.graph_id = 3;
    trace.graph_launches.push_back(g);
    return trace.graph_launches.size() - 1;
  }
  // A synchronization record of the call with `correlation` (its time span is that call's). The device
  // is left unrecorded, as CUPTI leaves it, unless given.
  void Sync(SyncKind kind, int64_t correlation, int64_t stream = -1, int64_t event_id = 0, int32_t device = -1) {
    SyncRecord s;
    for (const ApiCallRecord& a : trace.api_calls) {
      if (a.correlation.value() == correlation) {
        s.start_ns = a.start_ns;
        s.end_ns = a.end_ns;
      }
    }
    s.device = DeviceId(device);
    s.context = ContextId(1);
    s.stream = StreamId(stream);
    s.correlation = CorrelationId(correlation);
    s.kind = kind;
    s.event_id = event_id;
    trace.syncs.push_back(s);
  }

  Trace trace;

 private:
  int64_t next_correlation_ = 1;
};

}  // namespace nimble::analysis::testing
