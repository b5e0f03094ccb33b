#include "export_chrome_timeline.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace nimble::workflow {
namespace {

class TimelineBuilder {
 public:
  TimelineBuilder(const Trace& trace, const std::string& where, RunTimeline& timeline)
      : trace_(trace), where_(where), t_(timeline) {}

  Status AddGpuProcesses();
  Status AddHostProcesses();
  const std::vector<DeviceId>& devices() const { return devices_; }
  const std::vector<size_t>& device_processes() const { return device_process_; }
  size_t ProcessOf(DeviceId device) const {
    const auto it = std::lower_bound(devices_.begin(), devices_.end(), device);
    return device_process_[static_cast<size_t>(it - devices_.begin())];
  }

 private:
  template <typename Record>
  Status AddGpuRecords(const std::vector<Record>& records, SpanSource source, const char* what);
  Status Check(int64_t start_ns, int64_t end_ns, const char* what, size_t index) const;
  std::string DeviceName(DeviceId device) const;
  DeviceId SyncDevice(const SyncRecord& s) const {
    if (s.device.valid() && std::binary_search(devices_.begin(), devices_.end(), s.device)) return s.device;
    const auto it = device_of_stream_.find(s.stream.value());
    return it != device_of_stream_.end() ? it->second : devices_.front();
  }

  const Trace& trace_;
  const std::string& where_;
  RunTimeline& t_;
  std::vector<DeviceId> devices_;        // ascending
  std::vector<size_t> device_process_;   // by position in devices_
  std::map<std::pair<int32_t, int64_t>, size_t> stream_track_;  // (device, stream) → track
  std::map<int64_t, DeviceId> device_of_stream_;                 // the first device a stream id ran on
};

Status TimelineBuilder::Check(int64_t start_ns, int64_t end_ns, const char* what, size_t index) const {
  if (end_ns >= start_ns) return OkStatus();
  return DataLoss(where_ + ": the file is damaged or inconsistent: " + what + " " + std::to_string(index) +
                  " ends before it starts ([" + std::to_string(start_ns) + ", " + std::to_string(end_ns) + "] ns)");
}

std::string TimelineBuilder::DeviceName(DeviceId device) const {
  for (const DeviceInfo& d : trace_.devices) {
    if (d.id == device && d.name.valid()) {
      return "GPU " + std::to_string(device.value()) + ": " + trace_.strings.Get(d.name);
    }
  }
  return "GPU " + std::to_string(device.value());
}

template <typename Record>
Status TimelineBuilder::AddGpuRecords(const std::vector<Record>& records, SpanSource source, const char* what) {
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    NIMBLE_RETURN_IF_ERROR(Check(r.start_ns, r.end_ns, what, i));
    const size_t track = stream_track_.at({r.device.value(), r.stream.value()});
    t_.tracks[track].spans.push_back({r.start_ns, r.end_ns, source, static_cast<int64_t>(i)});
  }
  return OkStatus();
}

Status TimelineBuilder::AddGpuProcesses() {
  std::set<std::pair<int32_t, int64_t>> streams;
  std::set<DeviceId> devices;
  const auto collect = [&](const auto& records) {
    for (const auto& r : records) {
      streams.insert({r.device.value(), r.stream.value()});
      devices.insert(r.device);
    }
  };
  collect(trace_.kernels);
  collect(trace_.memcpys);
  collect(trace_.memsets);
  collect(trace_.graph_launches);
  for (const SyncRecord& s : trace_.syncs) {
    if (s.device.valid()) devices.insert(s.device);
  }
  // Event waits may carry no device: theirs is the one their stream ran on, else the first.
  if (devices.empty() && !trace_.syncs.empty()) devices.insert(DeviceId(0));
  for (const auto& [device, stream] : streams) device_of_stream_.try_emplace(stream, DeviceId(device));
  devices_.assign(devices.begin(), devices.end());
  for (DeviceId device : devices_) {
    device_process_.push_back(t_.processes.size());
    t_.processes.push_back({device.value(), DeviceName(device), true});
  }
  for (const auto& [device, stream] : streams) {
    stream_track_[{device, stream}] = t_.tracks.size();
    t_.tracks.push_back({ProcessOf(DeviceId(device)), stream, "stream " + std::to_string(stream), {}});
  }
  NIMBLE_RETURN_IF_ERROR(AddGpuRecords(trace_.kernels, SpanSource::kKernel, "kernel"));
  NIMBLE_RETURN_IF_ERROR(AddGpuRecords(trace_.memcpys, SpanSource::kMemcpy, "memory copy"));
  NIMBLE_RETURN_IF_ERROR(AddGpuRecords(trace_.memsets, SpanSource::kMemset, "memset"));
  NIMBLE_RETURN_IF_ERROR(AddGpuRecords(trace_.graph_launches, SpanSource::kGraphLaunch, "graph launch"));
  // Host threads blocked on a device: a track of the device, so it lines up with the gaps it explains.
  std::map<int32_t, size_t> sync_track;
  for (size_t i = 0; i < trace_.syncs.size(); ++i) {
    const SyncRecord& s = trace_.syncs[i];
    NIMBLE_RETURN_IF_ERROR(Check(s.start_ns, s.end_ns, "synchronization", i));
    const DeviceId device = SyncDevice(s);
    t_.sync_devices.push_back(device);
    auto [it, added] = sync_track.try_emplace(device.value(), t_.tracks.size());
    if (added) t_.tracks.push_back({ProcessOf(device), -1, "Synchronization", {}});
    t_.tracks[it->second].spans.push_back({s.start_ns, s.end_ns, SpanSource::kSync, static_cast<int64_t>(i)});
  }
  return OkStatus();
}

Status TimelineBuilder::AddHostProcesses() {
  std::map<int32_t, size_t> process_of_pid;
  std::map<int64_t, size_t> thread_track;
  const auto host_process = [&](int32_t pid) {
    auto [it, added] = process_of_pid.try_emplace(pid, t_.processes.size());
    if (added) t_.processes.push_back({pid, "Host process " + std::to_string(pid), false});
    return it->second;
  };
  const auto thread = [&](ThreadId tid, size_t process) {
    auto [it, added] = thread_track.try_emplace(tid.value(), t_.tracks.size());
    if (added) {
      const bool main = tid.value() == t_.processes[process].wanted_pid;
      const std::string name = "thread " + std::to_string(tid.value()) + (main ? " (main)" : "");
      t_.tracks.push_back({process, tid.value(), name, {}});
    }
    return it->second;
  };
  // Threads in order of id within each process, so that tracks appear sorted.
  std::vector<size_t> by_thread(trace_.api_calls.size());
  for (size_t i = 0; i < by_thread.size(); ++i) by_thread[i] = i;
  std::stable_sort(by_thread.begin(), by_thread.end(), [&](size_t a, size_t b) {
    const ApiCallRecord& x = trace_.api_calls[a];
    const ApiCallRecord& y = trace_.api_calls[b];
    return std::pair(x.process, x.thread) < std::pair(y.process, y.thread);
  });
  for (size_t i : by_thread) {
    const ApiCallRecord& a = trace_.api_calls[i];
    NIMBLE_RETURN_IF_ERROR(Check(a.start_ns, a.end_ns, "API call", i));
    const size_t track = thread(a.thread, host_process(a.process));
    t_.tracks[track].spans.push_back({a.start_ns, a.end_ns, SpanSource::kApiCall, static_cast<int64_t>(i)});
  }
  // NVTX ranges carry a thread but no process: the process the thread called CUDA from, else the first.
  for (size_t i = 0; i < trace_.ranges.size(); ++i) {
    const NvtxRange& r = trace_.ranges[i];
    NIMBLE_RETURN_IF_ERROR(Check(r.start_ns, r.end_ns, "NVTX range", i));
    auto known = thread_track.find(r.thread.value());
    size_t track = 0;
    if (known != thread_track.end()) {
      track = known->second;
    } else {
      if (process_of_pid.empty()) {
        process_of_pid[-1] = t_.processes.size();
        t_.processes.push_back({-1, "Host", false});
      }
      track = thread(r.thread, process_of_pid.begin()->second);
    }
    t_.tracks[track].spans.push_back({r.start_ns, r.end_ns, SpanSource::kRange, static_cast<int64_t>(i)});
  }
  return OkStatus();
}

}  // namespace

StatusOr<RunTimeline> BuildRunTimeline(const Trace& trace, const RunReport& report,
                                       std::span<const KernelAttribution> attribution, const std::string& where) {
  RunTimeline timeline;
  TimelineBuilder builder(trace, where, timeline);
  NIMBLE_RETURN_IF_ERROR(builder.AddHostProcesses());
  NIMBLE_RETURN_IF_ERROR(builder.AddGpuProcesses());
  AddIdleGapTracks(report, builder.device_processes(), builder.devices(), timeline);
  AddTraceCriticalPathTracks(report, builder.device_processes(), builder.devices(), timeline);
  const analysis::DeviceReport* primary = report.report.primary_device();
  if (primary != nullptr) {
    const size_t graph_process = builder.ProcessOf(primary->run.device);
    NIMBLE_RETURN_IF_ERROR(AddOpTracks(trace, report, attribution, graph_process, timeline).WithContext(where));
  }
  return timeline;
}

}  // namespace nimble::workflow
