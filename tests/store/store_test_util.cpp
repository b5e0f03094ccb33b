#include "store_test_util.h"

#include <linux/capability.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

namespace nimble::store::testing {
namespace {

namespace fs = std::filesystem;

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// An id that is invalid one time in `invalid_one_in`, so that NULL columns are exercised.
template <typename Id>
Id RandomId(std::mt19937_64& rng, int64_t max, int invalid_one_in = 8) {
  if (Uniform(rng, 0, invalid_one_in - 1) == 0) return Id();
  return Id(static_cast<typename Id::rep_type>(Uniform(rng, 0, max)));
}

StringId RandomString(std::mt19937_64& rng, StringTable& strings) {
  static const std::vector<std::string> kSpecial = {
      "", "void gemm<float, 128>(float const*, float*, int)", "ядро_κ_😀", "it's \"quoted\"; DROP TABLE runs;",
      std::string(3000, 'x')};
  if (Uniform(rng, 0, 9) == 0) return StringId();
  if (Uniform(rng, 0, 4) == 0) return strings.Intern(kSpecial[static_cast<size_t>(Uniform(rng, 0, 4))]);
  return strings.Intern("name_" + std::to_string(Uniform(rng, 0, 40)));
}

template <typename Record>
void RandomInterval(std::mt19937_64& rng, Record& r) {
  r.start_ns = Uniform(rng, -1000, int64_t{1} << 50);
  r.end_ns = r.start_ns + Uniform(rng, 0, 1'000'000);
}

template <typename Record>
void RandomGpuIds(std::mt19937_64& rng, Record& r) {
  RandomInterval(rng, r);
  r.device = RandomId<DeviceId>(rng, 7);
  r.context = RandomId<ContextId>(rng, 1 << 20);
  r.stream = RandomId<StreamId>(rng, int64_t{1} << 40);
  r.correlation = RandomId<CorrelationId>(rng, int64_t{1} << 40);
}

KernelRecord RandomKernel(std::mt19937_64& rng, StringTable& strings) {
  KernelRecord k;
  RandomGpuIds(rng, k);
  k.name = RandomString(rng, strings);
  k.short_name = RandomString(rng, strings);
  k.grid = {static_cast<int32_t>(Uniform(rng, 1, 1 << 20)), static_cast<int32_t>(Uniform(rng, 1, 65535)), 1};
  k.block = {static_cast<int32_t>(Uniform(rng, 1, 1024)), static_cast<int32_t>(Uniform(rng, 1, 4)), 2};
  k.registers_per_thread = static_cast<int32_t>(Uniform(rng, 0, 255));
  k.static_shared_bytes = static_cast<int32_t>(Uniform(rng, 0, 48 * 1024));
  k.dynamic_shared_bytes = static_cast<int32_t>(Uniform(rng, 0, 228 * 1024));
  k.graph_node_id = Uniform(rng, 0, 3) == 0 ? Uniform(rng, 1, int64_t{1} << 60) : 0;
  k.graph_id = k.graph_node_id != 0 ? Uniform(rng, 1, 100) : 0;
  return k;
}

void AddRandomCopies(std::mt19937_64& rng, int scale, Trace& t) {
  for (int i = 0; i < scale; ++i) {
    MemcpyRecord m;
    RandomGpuIds(rng, m);
    m.bytes = Uniform(rng, 0, int64_t{1} << 40);
    m.copy_kind = static_cast<CopyKind>(Uniform(rng, 0, 10));
    m.src_kind = static_cast<MemoryKind>(Uniform(rng, 0, 7));
    m.dst_kind = static_cast<MemoryKind>(Uniform(rng, 0, 7));
    m.graph_node_id = Uniform(rng, 0, 5);
    t.memcpys.push_back(m);
    MemsetRecord s;
    RandomGpuIds(rng, s);
    s.bytes = Uniform(rng, 0, int64_t{1} << 33);
    s.value = static_cast<int32_t>(Uniform(rng, -128, 255));
    s.mem_kind = static_cast<MemoryKind>(Uniform(rng, 0, 7));
    s.graph_node_id = Uniform(rng, 0, 5);
    t.memsets.push_back(s);
    SyncRecord y;
    RandomGpuIds(rng, y);
    y.kind = static_cast<SyncKind>(Uniform(rng, 0, 4));
    y.event_id = Uniform(rng, 0, 1 << 30);
    t.syncs.push_back(y);
    GraphLaunchRecord g;
    RandomGpuIds(rng, g);
    g.graph_id = Uniform(rng, 1, int64_t{1} << 32);
    t.graph_launches.push_back(g);
  }
}

void AddRandomHostRecords(std::mt19937_64& rng, int scale, Trace& t) {
  for (int i = 0; i < scale; ++i) {
    ApiCallRecord a;
    RandomInterval(rng, a);
    a.kind = static_cast<ApiKind>(Uniform(rng, 0, 1));
    a.thread = RandomId<ThreadId>(rng, 1 << 22);
    a.process = static_cast<int32_t>(Uniform(rng, 1, 1 << 22));
    a.correlation = RandomId<CorrelationId>(rng, 1 << 30);
    a.name = RandomString(rng, t.strings);
    a.callback_id = static_cast<int32_t>(Uniform(rng, 0, 400));
    a.return_value = static_cast<int32_t>(Uniform(rng, -1, 999));
    t.api_calls.push_back(a);
    NvtxRange r;
    RandomInterval(rng, r);
    if (Uniform(rng, 0, 3) == 0) r.end_ns = r.start_ns;  // a mark
    r.thread = RandomId<ThreadId>(rng, 1 << 22);
    r.text = RandomString(rng, t.strings);
    r.domain = RandomString(rng, t.strings);
    t.ranges.push_back(r);
    t.external_correlations.push_back(
        {RandomId<CorrelationId>(rng, 1 << 30), Uniform(rng, INT64_MIN / 2, INT64_MAX / 2),
         static_cast<int32_t>(Uniform(rng, 0, 5))});
    OverheadRecord o;
    RandomInterval(rng, o);
    o.thread = RandomId<ThreadId>(rng, 1 << 22);
    o.kind = RandomString(rng, t.strings);
    t.overheads.push_back(o);
  }
}

StringId Translate(StringId id, const StringTable& from, const StringTable& to) {
  if (!id.valid()) return id;
  return to.Find(from.Get(id));
}

template <typename Record, typename Fix>
void ExpectSameRecords(const char* what, const std::vector<Record>& expected, std::vector<Record> actual, Fix fix) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    fix(actual[i]);
    if (!(expected[i] == actual[i])) {
      ADD_FAILURE() << what << " " << i << " differs after the round trip";
      return;
    }
  }
}

}  // namespace

void TempDirTest::SetUp() {
  std::string pattern = (fs::temp_directory_path() / "nimble_store_test_XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  dir_ = pattern;
}

void TempDirTest::TearDown() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::vector<std::string> TempDirTest::ListDir() const {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

RunInfo SampleRun(RunMode mode) {
  RunInfo run;
  run.model = "models/resnet50.pt";
  run.inputs = "1x3x224x224";
  run.device = "NVIDIA H100 80GB HBM3";
  run.mode = mode;
  run.command = "nimble-prof models/resnet50.pt --input 1x3x224x224 -o run.db";
  run.iterations = 20;
  run.warmup = 5;
  run.created_unix_s = 1795000000;
  return run;
}

KernelRecord MakeKernel(StringTable& strings, int64_t i, int names_count) {
  KernelRecord k;
  k.start_ns = 1'000'000 + i * 1000;
  k.end_ns = k.start_ns + 700 + (i % 13);
  k.device = DeviceId(0);
  k.context = ContextId(1);
  k.stream = StreamId(7 + i % 4);
  k.correlation = CorrelationId(100 + i);
  k.name = strings.Intern("void kernel_" + std::to_string(i % names_count) + "<float>(float const*, float*, int)");
  k.short_name = strings.Intern("kernel_" + std::to_string(i % names_count));
  k.grid = {static_cast<int32_t>(1 + i % 512), 1, 1};
  k.block = {256, 1, 1};
  k.registers_per_thread = 32;
  k.static_shared_bytes = 0;
  k.dynamic_shared_bytes = static_cast<int32_t>(i % 3) * 1024;
  return k;
}

Trace RandomTrace(std::mt19937_64& rng, int scale) {
  Trace t;
  const int devices = static_cast<int>(Uniform(rng, 0, 2));
  for (int d = 0; d < devices; ++d) {
    DeviceInfo info{DeviceId(d), t.strings.Intern("GPU " + std::to_string(d)), 9, 0, 132, 2048, 32, 65536,
                    233472, 1024, int64_t{80} << 30, 1980000};
    t.devices.push_back(info);
  }
  for (int i = 0; i < 2 * scale; ++i) t.kernels.push_back(RandomKernel(rng, t.strings));
  AddRandomCopies(rng, scale, t);
  AddRandomHostRecords(rng, scale, t);
  return t;
}

RandomResults MakeRandomResults(std::mt19937_64& rng, int ops, int64_t kernels) {
  RandomResults r;
  for (int i = 0; i < ops; ++i) {
    r.graph.ops.push_back({OpId(i), "op_" + std::to_string(i), i % 2 ? "aten::conv2d" : "aten::relu",
                           "[1," + std::to_string(i) + ",56,56]", Uniform(rng, 0, 1'000'000)});
  }
  for (int i = 0; i < ops; ++i) {
    for (int j = i + 1; j < ops; ++j) {
      if (Uniform(rng, 0, 3) == 0) r.graph.edges.push_back({OpId(i), OpId(j), static_cast<EdgeKind>(Uniform(rng, 0, 1))});
    }
  }
  for (int64_t k = 0; k < kernels; ++k) {
    if (ops > 0) r.attribution.push_back({OpId(static_cast<int32_t>(Uniform(rng, 0, ops - 1))), KernelIndex(k)});
  }
  r.assignment.num_streams = static_cast<int32_t>(Uniform(rng, 1, 6));
  for (int i = 0; i < ops; ++i) r.assignment.op_stream.push_back(StreamId(Uniform(rng, 0, r.assignment.num_streams - 1)));
  for (const OpEdge& e : r.graph.edges) {
    if (r.assignment.op_stream[static_cast<size_t>(e.src.value())] != r.assignment.op_stream[static_cast<size_t>(e.dst.value())]) {
      r.assignment.syncs.push_back(e);
    }
  }
  std::uniform_real_distribution<double> real(-1e12, 1e12);
  const RunMode modes[] = {RunMode::kProgram, RunMode::kEager, RunMode::kAotSingle, RunMode::kAotMulti};
  const Severity severities[] = {Severity::kInfo, Severity::kWarning, Severity::kError};
  for (int i = 0; i < 5; ++i) {
    r.metrics.push_back({"metric_" + std::to_string(i % 3), real(rng), i % 2 ? "ns" : "ratio", static_cast<int32_t>(i - 1)});
    r.speedups.push_back({modes[Uniform(rng, 0, 3)], real(rng), real(rng), real(rng)});
    r.stats.push_back({"stat_" + std::to_string(i), Uniform(rng, -5, 1 << 30), severities[Uniform(rng, 0, 2)],
                       "description " + std::to_string(i)});
  }
  return r;
}

void ExpectSameTrace(const Trace& expected, const Trace& actual) {
  const StringTable& from = actual.strings;
  const StringTable& to = expected.strings;
  auto tr = [&](StringId id) { return Translate(id, from, to); };
  ExpectSameRecords("device", expected.devices, actual.devices, [&](DeviceInfo& d) { d.name = tr(d.name); });
  ExpectSameRecords("kernel", expected.kernels, actual.kernels, [&](KernelRecord& k) {
    k.name = tr(k.name);
    k.short_name = tr(k.short_name);
  });
  ExpectSameRecords("memcpy", expected.memcpys, actual.memcpys, [](MemcpyRecord&) {});
  ExpectSameRecords("memset", expected.memsets, actual.memsets, [](MemsetRecord&) {});
  ExpectSameRecords("sync", expected.syncs, actual.syncs, [](SyncRecord&) {});
  ExpectSameRecords("api call", expected.api_calls, actual.api_calls, [&](ApiCallRecord& a) { a.name = tr(a.name); });
  ExpectSameRecords("nvtx range", expected.ranges, actual.ranges, [&](NvtxRange& r) {
    r.text = tr(r.text);
    r.domain = tr(r.domain);
  });
  ExpectSameRecords("external correlation", expected.external_correlations, actual.external_correlations,
                    [](ExternalCorrelation&) {});
  ExpectSameRecords("overhead", expected.overheads, actual.overheads, [&](OverheadRecord& o) { o.kind = tr(o.kind); });
  ExpectSameRecords("graph launch", expected.graph_launches, actual.graph_launches, [](GraphLaunchRecord&) {});
}

std::string RunWithoutPermissionOverride(const std::function<std::string()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    close(fds[0]);
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct caps[2]{};
    std::string result;
    if (syscall(SYS_capget, &header, caps) != 0) result = "capget failed";
    for (int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER}) {
      caps[cap / 32].effective &= ~(1u << (cap % 32));
      caps[cap / 32].permitted &= ~(1u << (cap % 32));
    }
    if (result.empty() && syscall(SYS_capset, &header, caps) != 0) result = "capset failed";
    if (result.empty()) result = body();
    (void)!write(fds[1], result.data(), result.size());
    _exit(0);
  }
  close(fds[1]);
  std::string result;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) result.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "child crashed: " + result;
  return result;
}

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFileBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace nimble::store::testing
