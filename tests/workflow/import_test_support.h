// Test helpers for the import tests: whole-file reads and writes, and a brute-force pass over a Chrome
// trace's DOM (nlohmann::json with long double numbers, so 19-digit timestamps stay exact) that counts
// events per kind and takes each device's GPU active time as the plain union of its intervals — an
// independent reference for what the streaming reader and the report compute. Test-only; small files.
#pragma once

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace nimble::workflow::testing_support {

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The text of a plain or gzip file (zlib's gzread passes plain files through).
inline std::string ReadText(const std::string& path) {
  std::string text;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return text;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return text;
}

using ExactJson = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, long double>;

struct BruteForce {
  int64_t events = 0, kernels = 0, memcpys = 0, memsets = 0, syncs = 0, api_calls = 0, ranges = 0, profiler_steps = 0;
  std::map<int32_t, int64_t> active_ns;  // by device: union of kernels, memsets and device-side copies
  std::map<int32_t, int64_t> span_ns;    // first start to last end of those
  int64_t tolerance_ns = 0;

  static BruteForce Of(const std::string& path) {
    BruteForce out;
    const ExactJson doc = ExactJson::parse(ReadText(path));
    const ExactJson& events = doc.is_array() ? doc : doc.at("traceEvents");
    std::map<int32_t, std::vector<std::pair<int64_t, int64_t>>> intervals;
    auto ns = [](const ExactJson& v) { return static_cast<int64_t>(std::llround(v.get<long double>() * 1000)); };
    for (const ExactJson& e : events) {
      ++out.events;
      if (e.value("ph", "") != "X") continue;
      const std::string cat = e.value("cat", "");
      const std::string name = e.value("name", "");
      const ExactJson args = e.value("args", ExactJson::object());
      const bool device_copy = cat == "gpu_memcpy" && (name.find(" DtoD ") != std::string::npos ||
                                                       name.find(" PtoP ") != std::string::npos ||
                                                       name.find(" DtoA ") != std::string::npos ||
                                                       name.find(" AtoD ") != std::string::npos ||
                                                       name.find(" AtoA ") != std::string::npos);
      if (cat == "kernel" || cat == "gpu_memset" || device_copy) {
        const int32_t device = args.contains("device") ? args["device"].get<int32_t>() : e.at("pid").get<int32_t>();
        intervals[device].emplace_back(ns(e.at("ts")), ns(e.at("ts")) + ns(e.at("dur")));
      }
      out.kernels += cat == "kernel";
      out.memcpys += cat == "gpu_memcpy";
      out.memsets += cat == "gpu_memset";
      out.syncs += cat == "cuda_sync";
      out.api_calls += cat == "cuda_runtime" || cat == "cuda_driver";
      const bool range = cat == "cpu_op" || cat == "python_function" || cat == "user_annotation" ||
                         cat == "gpu_user_annotation";
      out.ranges += range;
      out.profiler_steps += range && cat != "gpu_user_annotation" && name.rfind("ProfilerStep#", 0) == 0;
    }
    for (auto& [device, list] : intervals) {
      std::sort(list.begin(), list.end());
      int64_t active = 0, end = INT64_MIN;
      for (const auto& [s, e] : list) {
        if (s > end) {
          active += e - s;
          end = e;
        } else if (e > end) {
          active += e - end;
          end = e;
        }
      }
      out.active_ns[device] = active;
      out.span_ns[device] = end - list.front().first;
      out.tolerance_ns += static_cast<int64_t>(list.size());
    }
    return out;
  }
};

}  // namespace nimble::workflow::testing_support
