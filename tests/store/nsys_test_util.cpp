#include "nsys_test_util.h"

#include <gtest/gtest.h>

#include <memory>

#include "sqlite_db.h"

namespace nimble::store::testing {
namespace {

template <typename Id>
bool IdOk(Id id) {
  return !id.valid() || id.value() >= 0;
}

bool StringOk(const Trace& t, StringId id) {
  return !id.valid() || (id.value() >= 0 && static_cast<size_t>(id.value()) < t.strings.size());
}

template <typename Record>
std::string CheckGpu(const char* kind, const std::vector<Record>& records) {
  for (const Record& r : records) {
    if (r.end_ns < r.start_ns) return std::string(kind) + " ends before it starts";
    if (!IdOk(r.device) || !IdOk(r.context) || !IdOk(r.stream) || !IdOk(r.correlation)) {
      return std::string(kind) + " has a negative id";
    }
  }
  return "";
}

}  // namespace

void ExecSql(const std::string& path, const std::string& sql) {
  auto db = Database::Open(path, OpenMode::kCreate);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  const Status s = (*db)->Exec(sql);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE((*db)->Close().ok());
}

const StatEntry* FindStat(const ImportedTrace& trace, const std::string& name) {
  for (const StatEntry& s : trace.stats) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string CheckTraceInvariants(const Trace& t) {
  for (const std::string& problem : {CheckGpu("kernel", t.kernels), CheckGpu("memcpy", t.memcpys),
                                     CheckGpu("memset", t.memsets), CheckGpu("sync", t.syncs),
                                     CheckGpu("graph launch", t.graph_launches)}) {
    if (!problem.empty()) return problem;
  }
  for (const KernelRecord& k : t.kernels) {
    if (!StringOk(t, k.name) || !StringOk(t, k.short_name)) return "kernel name out of the string table";
    if (k.grid.x < 1 || k.grid.y < 1 || k.grid.z < 1 || k.block.x < 1 || k.block.y < 1 || k.block.z < 1) {
      return "kernel with an empty grid or block";
    }
    if (k.registers_per_thread < 0 || k.static_shared_bytes < 0 || k.dynamic_shared_bytes < 0) {
      return "kernel with negative resources";
    }
  }
  for (const MemcpyRecord& m : t.memcpys) {
    if (m.bytes < 0) return "memcpy of negative size";
  }
  for (const ApiCallRecord& a : t.api_calls) {
    if (a.end_ns < a.start_ns) return "API call ends before it starts";
    if (!StringOk(t, a.name) || !a.name.valid()) return "API call without a name";
    if (!IdOk(a.thread) || !IdOk(a.correlation)) return "API call with a negative id";
  }
  for (const NvtxRange& r : t.ranges) {
    if (r.end_ns < r.start_ns) return "NVTX range ends before it starts";
    if (!StringOk(t, r.text) || !StringOk(t, r.domain)) return "NVTX text out of the string table";
  }
  for (const DeviceInfo& d : t.devices) {
    if (!d.id.valid() || d.id.value() < 0 || !StringOk(t, d.name)) return "device with a bad id or name";
  }
  return "";
}

}  // namespace nimble::store::testing
