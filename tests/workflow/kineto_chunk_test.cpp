// The parallel import's chunk parser (simdjson) against the streaming SAX read it stands in for: the
// same sink calls, field by field (set, absent, or of the wrong type with the same words), for every
// kind of JSON value in every field Nimble reads; and, over damaged texts, never accepting what the SAX
// read refuses nor reading it differently.
#include "kineto_chunk.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "import_test_support.h"
#include "kineto_converter.h"
#include "kineto_parallel.h"
#include "kineto_sax.h"
#include "trace_file_buf.h"

namespace nimble::workflow {
namespace {

const std::string kData = std::string(NIMBLE_SOURCE_DIR) + "/tests/workflow/data/kineto/";

std::string Show(const char* name, FieldState state, const std::string& value, const char* got) {
  const std::string v =
      state == FieldState::kSet ? value : state == FieldState::kWrongType ? "!" + std::string(got) : "-";
  return std::string(name) + "=" + v + " ";
}
std::string Show(const char* name, const IntField& f) { return Show(name, f.state, std::to_string(f.value), f.got); }
std::string Show(const char* name, const TextField& f) { return Show(name, f.state, "'" + f.value + "'", f.got); }
std::string Show(const char* name, const DimField& f) {
  const std::string v = std::to_string(f.value.x) + "," + std::to_string(f.value.y) + "," + std::to_string(f.value.z);
  return Show(name, f.state, v, f.got) + "#" + std::to_string(f.count) + " ";
}

// Every call, written out (offsets left out: the SAX read of a file has them, a chunk in memory does not).
class RecordingSink : public KinetoEventSink {
 public:
  Status OnEvent(const KinetoEvent& e) override {
    calls.push_back("event " + std::to_string(e.index) + ": " + Show("ph", e.ph) + Show("cat", e.cat) +
                    Show("name", e.name) + Show("bp", e.bp) + Show("pid", e.pid) + Show("tid", e.tid) +
                    Show("ts", e.ts_ns) + Show("dur", e.dur_ns) + Show("id", e.id) + Show("device", e.device) +
                    Show("context", e.context) + Show("stream", e.stream) + Show("corr", e.correlation) +
                    Show("regs", e.registers_per_thread) + Show("smem", e.shared_memory) +
                    Show("node", e.graph_node_id) + Show("graph", e.graph_id) + Show("ext", e.external_id) +
                    Show("cbid", e.cbid) + Show("bytes", e.bytes) + Show("wait", e.wait_event_id) +
                    Show("indev", e.in_device) + Show("grid", e.grid) + Show("block", e.block) +
                    Show("sync", e.sync_kind));
    return Status();
  }
  Status OnDevice(const KinetoDevice& d) override {
    calls.push_back("device " + std::to_string(d.index) + ": " + Show("name", d.name) + Show("id", d.id) +
                    Show("mem", d.total_global_mem) + Show("major", d.compute_major) +
                    Show("minor", d.compute_minor) + Show("tpb", d.max_threads_per_block) +
                    Show("tpsm", d.max_threads_per_sm) + Show("regs", d.regs_per_sm) +
                    Show("smem", d.shared_per_sm) + Show("sms", d.num_sms));
    return Status();
  }
  void OnBaseTime(int64_t base_ns) override { calls.push_back("base " + std::to_string(base_ns)); }

  std::vector<std::string> calls;
};

struct Both {
  Status sax, chunk;
  std::vector<std::string> sax_calls, chunk_calls;
};

Both ReadBoth(const std::string& text) {
  Both both;
  const std::string path = ::testing::TempDir() + "kineto_chunk_" + std::to_string(::getpid()) + ".json";
  testing_support::WriteBytes(path, text);
  RecordingSink sax_sink, chunk_sink;
  auto buf = TraceFileBuf::Open(path);
  if (buf.ok()) {
    both.sax = ReadKinetoEvents(**buf, path, sax_sink).status();
  } else {
    both.sax = buf.status();
  }
  std::remove(path.c_str());
  std::string copy = text;
  both.chunk = ReadKinetoEventChunk(copy, path, 0, chunk_sink).status();
  both.sax_calls = std::move(sax_sink.calls);
  both.chunk_calls = std::move(chunk_sink.calls);
  return both;
}

// JSON values of every kind the parsers tell apart, for every field.
const std::vector<std::string> kValues = {
    "7", "-3", "0", "-0", "7.0", "-0.0", "7.5", "1e3", "1.5E-3", "123456789012.345678", "9223372036854775807",
    "-9223372036854775808", "9223372036854775808", "18446744073709551615", "\"12\"", "\"-12\"", "\"x\"", "\"-\"",
    "\"\"", "\"a\\\"b\\\\c\\u00e9\\n\\u0000\"", "null", "true", "false", "{}", "{\"a\":[1,{\"b\":null}]}", "[]",
    "[1]", "[1,2,3]", "[1,2,3,4]", "[-1]", "[2147483647,0]", "[2147483648]", "[1.0,2]", "[1.5]", "[1,\"2\"]",
    "[[1]]", "[{}]", "[null,true]", "[18446744073709551615]", "\"9223372036854775807\"",
    "\"9223372036854775808\"", "\"-9223372036854775808\"", "\"-9223372036854775809\"", "\"9999999999999999999\""};

std::string EventsText() {
  std::string events;
  auto add = [&](const std::string& e) { events += (events.empty() ? "" : ",\n") + e; };
  const char* event_keys[] = {"ph", "cat", "name", "pid", "tid", "ts", "dur", "id", "bp", "args", "other"};
  const char* arg_keys[] = {"device", "context", "stream", "correlation", "registers per thread", "shared memory",
                            "grid", "block", "graph node id", "graph id", "External id", "cbid", "bytes",
                            "wait_on_cuda_event_id", "inDevice", "cuda_sync_kind", "Input Dims"};
  for (const std::string& v : kValues) {
    for (const char* k : event_keys) add("{\"cat\":\"kernel\",\"" + std::string(k) + "\":" + v + "}");
    for (const char* k : arg_keys) add("{\"ph\":\"X\",\"args\":{\"" + std::string(k) + "\":" + v + "}}");
  }
  // Keys written with escapes, repeated keys, repeated dims, and a whole event as torch.profiler writes it.
  add("{\"n\\u0061me\":\"escaped key\",\"p\\u0068\":\"X\"}");
  add("{\"ph\":\"X\",\"ph\":\"B\",\"ts\":1,\"ts\":2.5}");
  add("{\"ph\":\"X\",\"args\":{\"grid\":[1,2],\"grid\":[3]}}");
  add("{\"ph\":\"X\",\"args\":{\"grid\":[1,2],\"grid\":[3,4]}}");
  add("{\"ph\":\"X\",\"args\":{\"grid\":[1,2],\"grid\":5}}");
  add("{\"ph\":\"X\",\"args\":{\"grid\":[1,2]},\"args\":{\"block\":[4]}}");
  add("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void gemm<float>(int)\", \"pid\": 0, \"tid\": 7,\n"
      "  \"ts\": 198093000123.456, \"dur\": 4.25,\n  \"args\": {\"External id\": 5, \"device\": 0, \"stream\": 7,"
      " \"correlation\": 12, \"registers per thread\": 32, \"shared memory\": 0, \"grid\": [1, 2, 1],"
      " \"block\": [128, 1, 1], \"est. achieved occupancy %\": 12}}");
  return events;
}

std::string DevicesText() {
  std::string devices;
  const char* keys[] = {"id", "name", "totalGlobalMem", "computeMajor", "computeMinor", "maxThreadsPerBlock",
                        "maxThreadsPerMultiprocessor", "regsPerMultiprocessor", "sharedMemPerMultiprocessor",
                        "numSms", "other"};
  for (const std::string& v : kValues) {
    for (const char* k : keys) devices += std::string(devices.empty() ? "" : ",") + "{\"" + k + "\":" + v + "}";
  }
  return devices;
}

TEST(KinetoChunkTest, ReadsEveryKindOfValueInEveryFieldAsTheSaxReadDoes) {
  const std::string text = "{\"schemaVersion\": 1, \"deviceProperties\": [" + DevicesText() +
                           "],\n\"traceEvents\": [" + EventsText() +
                           "],\n\"nested\": {\"traceEvents\": [1]}, \"baseTimeNanoseconds\": 1700000000000000000}";
  const Both both = ReadBoth(text);
  ASSERT_TRUE(both.sax.ok()) << both.sax.ToString();
  ASSERT_TRUE(both.chunk.ok()) << both.chunk.ToString();
  ASSERT_EQ(both.chunk_calls.size(), both.sax_calls.size());
  EXPECT_GT(both.sax_calls.size(), 1500u);
  for (size_t i = 0; i < both.sax_calls.size(); ++i) EXPECT_EQ(both.chunk_calls[i], both.sax_calls[i]);
  // A bare array of events, as a chunk of the parallel read is.
  const Both bare = ReadBoth("[" + EventsText() + "]");
  ASSERT_TRUE(bare.chunk.ok()) << bare.chunk.ToString();
  EXPECT_EQ(bare.chunk_calls, bare.sax_calls);
}

// Layouts the SAX read refuses: the chunk parser refuses them too.
TEST(KinetoChunkTest, RefusesWhatTheSaxReadRefuses) {
  for (const std::string text :
       {"{\"traceEvents\": {}}", "{\"traceEvents\": [1]}", "{\"traceEvents\": [[]]}", "{\"traceEvents\": 3}",
        "{\"deviceProperties\": [2], \"traceEvents\": []}", "{\"deviceProperties\": {}, \"traceEvents\": []}",
        "{\"baseTimeNanoseconds\": \"5\", \"traceEvents\": []}", "{\"baseTimeNanoseconds\": 5.5, \"traceEvents\": []}",
        "{\"baseTimeNanoseconds\": 18446744073709551615, \"traceEvents\": []}", "[{\"ph\": \"X\"}] [",
        "[{\"ph\": \"X\"}]]", "[{\"ph\": tru}]", "[{\"other\": nul}]", "[{\"other\": [1,}]", "[{\"other\": 01}]",
        "[{\"other\": 1.}]", "[{\"other\": \"\\x\"}]", "[{\"other\": \"\\ud800\"}]", "[{\"other\": \"a\x01\"}]",
        "[{\"other\": \"\xff\"}]", "[{\"a\" 1}]", "[{\"a\":1,}]", "[{\"a\":{\"b\":[1}]}]", "5", "\"x\"",
        "[{\"other\": -}]", "[{\"other\": 1e}]"}) {
    SCOPED_TRACE(text);
    const Both both = ReadBoth(text);
    EXPECT_FALSE(both.sax.ok());
    EXPECT_FALSE(both.chunk.ok());
  }
}

// A value nested far deeper than any trace's: the chunk parser (which recurses per level) refuses it
// without exhausting its stack, and the SAX read (iterative) reads the event.
TEST(KinetoChunkTest, DeepNestingIsRefusedNotRecursedInto) {
  const int depth = 200000;
  const std::string text = "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"other\":" + std::string(depth, '[') +
                           std::string(depth, ']') + ",\"name\":\"deep\"}]";
  const Both both = ReadBoth(text);
  EXPECT_TRUE(both.sax.ok()) << both.sax.ToString();
  EXPECT_EQ(both.sax_calls.size(), 1u);
  EXPECT_FALSE(both.chunk.ok());
  EXPECT_NE(both.chunk.message().find("nested deeper"), std::string::npos) << both.chunk.ToString();
}

// Damaged copies of a real trace: whatever the chunk parser accepts, the SAX read accepts and reads the
// same; and it accepts most of what the SAX read does (it is the fast path, not a refusal).
TEST(KinetoChunkTest, DamagedTracesAreNeverReadDifferently) {
  const std::string fixture = testing_support::ReadBytes(kData + "profiler_steps.json");
  ASSERT_FALSE(fixture.empty());
  std::mt19937 rng(20261127);
  const std::string alphabet = "{}[]\",:\\ 0123456789.eE+-tfnulrsax\x01\x7f\xc3\xa9\xff";
  int sax_ok = 0, chunk_ok = 0;
  for (int round = 0; round < 1500; ++round) {
    std::string text = fixture;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % text.size();
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0: text[at] = c; break;
        case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c); break;
        default: text.erase(at, 1 + rng() % 4); break;
      }
    }
    const Both both = ReadBoth(text);
    sax_ok += both.sax.ok();
    chunk_ok += both.chunk.ok();
    if (both.chunk.ok()) {
      ASSERT_TRUE(both.sax.ok()) << "round " << round << ": the chunk parser accepted what the SAX read refuses: "
                                 << both.sax.ToString() << "\n" << text;
      ASSERT_EQ(both.chunk_calls, both.sax_calls) << "round " << round << "\n" << text;
    }
  }
  EXPECT_GT(sax_ok, 100);
  EXPECT_GE(chunk_ok, sax_ok * 9 / 10);
}

// The fixtures are read by the parallel path itself, not by the sequential read it falls back to.
TEST(KinetoChunkTest, TheParallelPathReadsTheFixtures) {
  for (const std::string name : {"profiler_steps.json", "profiler_steps.json.gz", "cuda_graph.json"}) {
    SCOPED_TRACE(name);
    KinetoConverter parallel(kData + name);
    int64_t events = 0;
    EXPECT_TRUE(ReadKinetoInParallel(kData + name, 4, parallel, events));
    EXPECT_GT(events, 0);
  }
}

}  // namespace
}  // namespace nimble::workflow
