// What the export tests check in a Chrome trace file, read back with nlohmann-json: the fields each
// phase needs, nesting of complete events per thread, flow pairs and where they bind, metadata names,
// and the figures the tests compare with the run (kernels, idle time per device, events per category).
// Test helper; one thread.
#pragma once

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace nimble::workflow::testing {

// The bytes of a file, inflated when it is gzip; "" when it cannot be read.
inline std::string ReadTraceBytes(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");  // reads plain files as they are
  if (file == nullptr) return {};
  std::string out;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
  gzclose(file);
  return out;
}

inline int64_t Ns(const nlohmann::json& micros) { return std::llround(micros.get<double>() * 1000.0); }

struct ChromeTraceCheck {
  std::vector<std::string> problems;  // empty when the trace is well formed
  int64_t base_time_ns = 0;
  std::map<std::string, int64_t> count_by_category;  // complete events
  std::map<std::string, int64_t> ns_by_category;
  std::map<int64_t, int64_t> idle_ns_by_device;      // "gpu_idle" events, by their "device" arg
  std::set<int64_t> kernel_correlations;
  int64_t gpu_work_off_stream_tid = 0;  // GPU work whose tid is not its stream (Kineto's convention)
  std::set<int64_t> api_tids;           // tids of CUDA API calls
  int64_t flows = 0;
  std::set<int64_t> pids;
};

class ChromeTraceChecker {
 public:
  ChromeTraceCheck Run(const nlohmann::json& trace) {
    if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array()) {
      out_.problems.push_back("no traceEvents array");
      return out_;
    }
    if (!trace.contains("baseTimeNanoseconds") || !trace["baseTimeNanoseconds"].is_number_integer()) {
      out_.problems.push_back("no integer baseTimeNanoseconds");
    } else {
      out_.base_time_ns = trace["baseTimeNanoseconds"].get<int64_t>();
    }
    for (const nlohmann::json& e : trace["traceEvents"]) Event(e);
    CheckThreads();
    CheckFlows();
    return out_;
  }

 private:
  using Thread = std::pair<int64_t, int64_t>;  // pid, tid

  void Problem(const std::string& what, const nlohmann::json& e) {
    if (out_.problems.size() < 20) out_.problems.push_back(what + ": " + e.dump().substr(0, 300));
  }

  void Event(const nlohmann::json& e) {
    if (!e.contains("pid") || !e["pid"].is_number_integer() || !e.contains("tid") || !e["tid"].is_number_integer()) {
      return Problem("no integer pid and tid", e);
    }
    const Thread thread{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()};
    out_.pids.insert(thread.first);
    const std::string ph = e.value("ph", "");
    const bool named = e.contains("name") && e["name"].is_string();
    if (ph == "X") return Complete(e, thread, named);
    if (ph == "M") return Metadata(e, thread, named ? e["name"].get<std::string>() : "");
    if (ph != "s" && ph != "f") return Problem("unexpected phase", e);
    if (!named || !e.contains("cat") || !e.contains("id") || !e["id"].is_number_integer() || !e.contains("ts") ||
        (ph == "f" && e.value("bp", "") != "e")) {
      return Problem("flow event without name, cat, id, ts (or bp:e on its end)", e);
    }
    flow_ends_[e["id"].get<int64_t>()].push_back({ph[0], e});
  }

  void Complete(const nlohmann::json& e, const Thread& thread, bool named) {
    if (!named || !e.contains("cat") || !e["cat"].is_string() || !e.contains("ts") || !e["ts"].is_number() ||
        !e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0 || !e.contains("args") ||
        !e["args"].is_object()) {
      return Problem("complete event without name, cat, ts, dur >= 0 or args", e);
    }
    const std::string cat = e["cat"];
    const int64_t start = Ns(e["ts"]), dur = Ns(e["dur"]);
    slices_[thread].push_back({start, start + dur});
    out_.count_by_category[cat] += 1;
    out_.ns_by_category[cat] += dur;
    const nlohmann::json& args = e["args"];
    const bool gpu = cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
    if (gpu && !(args.contains("device") && args.contains("stream") && args.contains("correlation"))) {
      Problem("GPU work without device, stream and correlation", e);
    }
    if (!gpu && cat != "cuda_graph" && args.contains("stream")) Problem("a stream arg outside GPU work", e);
    if (cat == "kernel") out_.kernel_correlations.insert(args.value("correlation", int64_t{-1}));
    if (gpu && args.value("stream", int64_t{-1}) != thread.second) ++out_.gpu_work_off_stream_tid;
    if (cat == "cuda_runtime" || cat == "cuda_driver") out_.api_tids.insert(thread.second);
    if (cat == "gpu_idle") out_.idle_ns_by_device[args.value("device", int64_t{-1})] += dur;
  }

  void Metadata(const nlohmann::json& e, const Thread& thread, const std::string& name) {
    const nlohmann::json args = e.value("args", nlohmann::json::object());
    const bool is_name = name == "process_name" || name == "thread_name";
    const bool is_sort = name == "process_sort_index" || name == "thread_sort_index";
    if ((is_name && !(args.contains("name") && args["name"].is_string())) ||
        (is_sort && !(args.contains("sort_index") && args["sort_index"].is_number_integer())) ||
        (!is_name && !is_sort)) {
      Problem("metadata event without its arg", e);
    }
    if (name == "process_name") named_processes_.insert(thread.first);
    if (name == "thread_name") named_threads_.insert(thread);
  }

  // Every thread with events is named, and its complete events nest (viewer order, then a stack).
  void CheckThreads() {
    for (auto& [thread, spans] : slices_) {
      const std::string where = "pid " + std::to_string(thread.first) + " tid " + std::to_string(thread.second);
      if (!named_threads_.count(thread)) out_.problems.push_back("thread without a name: " + where);
      if (!named_processes_.count(thread.first)) out_.problems.push_back("process without a name: " + where);
      std::sort(spans.begin(), spans.end(),
                [](auto a, auto b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
      std::vector<int64_t> open;
      for (const auto& [start, end] : spans) {
        while (!open.empty() && open.back() <= start) open.pop_back();
        if (!open.empty() && open.back() < end) {
          out_.problems.push_back("events cross on " + where);
          break;
        }
        open.push_back(end);
      }
    }
  }

  // Each flow id: one start, then one end, each inside a complete event of its thread (where it binds).
  void CheckFlows() {
    const auto binds = [&](const nlohmann::json& e) {
      const auto it = slices_.find({e["pid"].get<int64_t>(), e["tid"].get<int64_t>()});
      const int64_t ts = Ns(e["ts"]);
      return it != slices_.end() &&
             std::any_of(it->second.begin(), it->second.end(), [&](auto s) { return s.first <= ts && ts <= s.second; });
    };
    for (const auto& [id, ends] : flow_ends_) {
      if (ends.size() != 2 || ends[0].first != 's' || ends[1].first != 'f') {
        out_.problems.push_back("flow " + std::to_string(id) + " is not one start followed by one end");
      } else if (!binds(ends[0].second) || !binds(ends[1].second)) {
        out_.problems.push_back("flow " + std::to_string(id) + " binds to no event");
      } else {
        ++out_.flows;
      }
    }
  }

  ChromeTraceCheck out_;
  std::map<Thread, std::vector<std::pair<int64_t, int64_t>>> slices_;
  std::map<int64_t, std::vector<std::pair<char, nlohmann::json>>> flow_ends_;
  std::set<Thread> named_threads_;
  std::set<int64_t> named_processes_;
};

inline ChromeTraceCheck CheckChromeTrace(const nlohmann::json& trace) { return ChromeTraceChecker().Run(trace); }

}  // namespace nimble::workflow::testing
