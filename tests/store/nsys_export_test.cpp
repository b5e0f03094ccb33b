// ReadNsysExport and LooksLikeNsysExport on SCHEMA-SYNTHETIC exports (make_nsys_fixture.h): files
// written to the published Nsight Systems export schema, not recorded by nsys. Every mapped field,
// missing tables, versions, impossible rows and files that are not exports.
#include "nimble/store/nsys_export.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "make_nsys_fixture.h"
#include "nsys_test_util.h"
#include "store_test_util.h"

namespace nimble::store {
namespace {

using testing::ExecSql;
using testing::FindStat;
using testing::NsysFixture;
using testing::SampleNsysFixture;

class NsysExportSchemaSyntheticTest : public testing::NsysFixtureTest {
 protected:
  ImportedTrace Read(const std::string& path) {
    StatusOr<ImportedTrace> got = ReadNsysExport(path);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? std::move(got).value() : ImportedTrace{};
  }
};

std::vector<const StatEntry*> Warnings(const ImportedTrace& t) {
  std::vector<const StatEntry*> out;
  for (const StatEntry& s : t.stats) {
    if (s.severity != Severity::kInfo) out.push_back(&s);
  }
  return out;
}

TEST_F(NsysExportSchemaSyntheticTest, SampleReadsEveryMappedField) {
  const NsysFixture f = SampleNsysFixture();
  const std::string path = Write(f);
  EXPECT_TRUE(LooksLikeNsysExport(path));
  const ImportedTrace got = Read(path);
  testing::ExpectSameTrace(f.trace, got.trace);
  EXPECT_EQ(got.source_format, "nsys-sqlite");
  EXPECT_EQ(got.run.model, path);
  EXPECT_EQ(got.run.mode, RunMode::kProgram);
  EXPECT_EQ(got.run.device, f.trace.strings.Get(f.trace.devices.at(0).name));
  EXPECT_EQ(got.run.created_unix_s, f.session_start_utc_ns / 1'000'000'000);
  EXPECT_EQ(got.iteration_range, "");  // nsys marks no iterations; the report detects the repeating range
  for (const StatEntry* w : Warnings(got)) ADD_FAILURE() << "unexpected warning " << w->name << ": " << w->description;
  const StatEntry* version = FindStat(got, "import.nsys_schema_version");
  ASSERT_NE(version, nullptr);
  EXPECT_NE(version->description.find(f.schema_version), std::string::npos) << version->description;
  EXPECT_NE(version->description.find(f.product_version), std::string::npos) << version->description;
}

// What the sample is meant to exercise, checked on what was read: the round trip above could pass on
// a sample that lacks it.
TEST_F(NsysExportSchemaSyntheticTest, SampleHasTheRunShapesTheAnalysisNeeds) {
  const ImportedTrace got = Read(Write(SampleNsysFixture()));
  const Trace& t = got.trace;
  std::set<int64_t> plain_streams;
  std::set<int64_t> graph_ids;
  std::map<int64_t, std::string> call_of;
  for (const ApiCallRecord& a : t.api_calls) call_of[a.correlation.value()] = t.strings.Get(a.name);
  for (const KernelRecord& k : t.kernels) {
    if (k.graph_id == 0) plain_streams.insert(k.stream.value());
    else graph_ids.insert(k.graph_id);
    ASSERT_TRUE(call_of.count(k.correlation.value())) << t.strings.Get(k.short_name);
    const std::string& launch = call_of[k.correlation.value()];
    EXPECT_EQ(launch.rfind(k.graph_id == 0 ? "cudaLaunchKernel" : "cudaGraphLaunch", 0), 0u) << launch;
  }
  EXPECT_EQ(plain_streams.size(), 2u);
  EXPECT_EQ(graph_ids.size(), 1u);
  EXPECT_EQ(std::count_if(t.kernels.begin(), t.kernels.end(), [](const KernelRecord& k) { return k.graph_id != 0; }), 2);
  ASSERT_EQ(t.memcpys.size(), 1u);
  EXPECT_EQ(t.memcpys[0].copy_kind, CopyKind::kHtoD);
  ASSERT_EQ(t.memsets.size(), 1u);
  ASSERT_EQ(t.syncs.size(), 1u);
  EXPECT_EQ(t.syncs[0].kind, SyncKind::kStreamSynchronize);
  EXPECT_TRUE(t.syncs[0].stream.valid());
  int iterations = 0;
  for (const NvtxRange& r : t.ranges) {
    if (t.strings.Get(r.text) == "iteration" && t.strings.Get(r.domain) == "train" && r.end_ns > r.start_ns) ++iterations;
  }
  EXPECT_EQ(iterations, 3);
  EXPECT_TRUE(std::any_of(t.ranges.begin(), t.ranges.end(), [](const NvtxRange& r) { return r.start_ns == r.end_ns; }));
  EXPECT_TRUE(std::any_of(t.api_calls.begin(), t.api_calls.end(),
                          [](const ApiCallRecord& a) { return a.kind == ApiKind::kDriver; }));
  EXPECT_TRUE(std::any_of(t.api_calls.begin(), t.api_calls.end(),
                          [](const ApiCallRecord& a) { return a.return_value != 0; }));
}

TEST_F(NsysExportSchemaSyntheticTest, RandomExportsReadBackExactly) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const NsysFixture f = testing::RandomNsysFixture(rng, static_cast<int>(rng() % 12));
    const std::string path = Write(f, "random_" + std::to_string(seed) + "_schema_synthetic.sqlite");
    const ImportedTrace got = Read(path);
    testing::ExpectSameTrace(f.trace, got.trace);
    for (const StatEntry& s : got.stats) EXPECT_EQ(s.name.find("import.skipped"), std::string::npos) << s.description;
  }
}

TEST_F(NsysExportSchemaSyntheticTest, EachMissingTableIsAWarningAndNothingIsInvented) {
  const NsysFixture full = SampleNsysFixture();
  const ImportedTrace all = Read(Write(full, "full_schema_synthetic.sqlite"));
  struct Case {
    const char* table;
    const char* stat;
  };
  for (const Case& c : {Case{"CUPTI_ACTIVITY_KIND_KERNEL", "import.no_kernels"},
                        Case{"CUPTI_ACTIVITY_KIND_MEMCPY", "import.no_memcpys"},
                        Case{"CUPTI_ACTIVITY_KIND_MEMSET", "import.no_memsets"},
                        Case{"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "import.no_syncs"},
                        Case{"CUPTI_ACTIVITY_KIND_RUNTIME", "import.no_api_calls"},
                        Case{"NVTX_EVENTS", "import.no_nvtx"}, Case{"TARGET_INFO_GPU", "import.no_device_properties"}}) {
    SCOPED_TRACE(c.table);
    NsysFixture f = full;
    f.omit_tables = {c.table};
    const ImportedTrace got = Read(Write(f, std::string(c.table) + "_schema_synthetic.sqlite"));
    const StatEntry* stat = FindStat(got, c.stat);
    ASSERT_NE(stat, nullptr);
    EXPECT_EQ(stat->severity, Severity::kWarning);
    EXPECT_NE(stat->description.find(c.table), std::string::npos) << stat->description;
    const std::vector<const StatEntry*> warnings = Warnings(got);
    EXPECT_EQ(warnings.size(), 1u) << warnings.back()->name;
    // The table's records are absent and every other kind is whole.
    const Trace& a = all.trace;
    const Trace& t = got.trace;
    const bool kernels = std::string(c.table) == "CUPTI_ACTIVITY_KIND_KERNEL";
    EXPECT_EQ(t.kernels.size(), kernels ? 0 : a.kernels.size());
    EXPECT_EQ(t.memcpys.size(), std::string(c.table) == "CUPTI_ACTIVITY_KIND_MEMCPY" ? 0 : a.memcpys.size());
    EXPECT_EQ(t.memsets.size(), std::string(c.table) == "CUPTI_ACTIVITY_KIND_MEMSET" ? 0 : a.memsets.size());
    EXPECT_EQ(t.syncs.size(), std::string(c.table) == "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" ? 0 : a.syncs.size());
    EXPECT_EQ(t.api_calls.size(), std::string(c.table) == "CUPTI_ACTIVITY_KIND_RUNTIME" ? 0 : a.api_calls.size());
    EXPECT_EQ(t.ranges.size(), std::string(c.table) == "NVTX_EVENTS" ? 0 : a.ranges.size());
    EXPECT_EQ(t.devices.size(), std::string(c.table) == "TARGET_INFO_GPU" ? 0 : a.devices.size());
    EXPECT_EQ(got.run.device, std::string(c.table) == "TARGET_INFO_GPU" ? "" : all.run.device);
  }
}

TEST_F(NsysExportSchemaSyntheticTest, KnownSchemaVersionsAreRead) {
  for (const char* version : {"3.1.7", "3.15.1", "3.20.7", "3.23.2", "3.24.14", "3.28.1", "3.28.40", "3.12"}) {
    SCOPED_TRACE(version);
    NsysFixture f = SampleNsysFixture();
    f.schema_version = version;
    const ImportedTrace got = Read(Write(f, std::string("v") + version + "_schema_synthetic.sqlite"));
    EXPECT_EQ(got.trace.kernels.size(), f.trace.kernels.size());
  }
  NsysFixture legacy = SampleNsysFixture();  // before 2024 the metadata table was EXPORT_META_DATA
  legacy.meta_table = testing::MetaTable::kExportMetaData;
  legacy.schema_version = "3.1.7";
  testing::ExpectSameTrace(legacy.trace, Read(Write(legacy, "legacy_schema_synthetic.sqlite")).trace);
}

TEST_F(NsysExportSchemaSyntheticTest, UnknownSchemaVersionsAreRefusedNamingFoundAndKnown) {
  const std::string known = std::to_string(kNsysSchemaMajor) + "." + std::to_string(kNsysSchemaMinorMin) + " to " +
                            std::to_string(kNsysSchemaMajor) + "." + std::to_string(kNsysSchemaMinorMax);
  const std::string too_new = "3." + std::to_string(kNsysSchemaMinorMax + 1) + ".0";
  const std::string too_old = "3." + std::to_string(kNsysSchemaMinorMin - 1) + ".9";
  int i = 0;
  for (const std::string& version : {too_new, too_old, std::string("4.0.0"), std::string("2.14.1"),
                                     std::string("three"), std::string("3"), std::string("3.x.1"),
                                     std::string("3.24.14.2"), std::string("-3.1.0")}) {
    SCOPED_TRACE(version);
    NsysFixture f = SampleNsysFixture();
    f.schema_version = version;
    const std::string path = Write(f, "bad_version_" + std::to_string(i++) + "_schema_synthetic.sqlite");
    EXPECT_TRUE(LooksLikeNsysExport(path));  // an export all the same: the reader says why it refuses it
    const Status s = ReadNsysExport(path).status();
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
    EXPECT_EQ(s.message().rfind(path + ": ", 0), 0u) << s.message();
    EXPECT_NE(s.message().find(version), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(known), std::string::npos) << s.message();
  }
  NsysFixture no_row = SampleNsysFixture();
  no_row.schema_version = "";
  NsysFixture no_table = SampleNsysFixture();
  no_table.meta_table = testing::MetaTable::kNone;
  for (const auto& [f, phrase] : {std::pair{no_row, "no EXPORT_SCHEMA_VERSION"}, std::pair{no_table, "too old"}}) {
    SCOPED_TRACE(phrase);
    const std::string path = Write(f, "no_version_" + std::to_string(i++) + "_schema_synthetic.sqlite");
    const Status s = ReadNsysExport(path).status();
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
    EXPECT_EQ(s.message().rfind(path + ": ", 0), 0u) << s.message();
    EXPECT_NE(s.message().find(phrase), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(known), std::string::npos) << s.message();
  }
}

TEST_F(NsysExportSchemaSyntheticTest, MissingRequiredColumnIsAnErrorNamingTableAndColumn) {
  const std::string path = Write(SampleNsysFixture());
  ExecSql(path, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN shortName");
  const Status s = ReadNsysExport(path).status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_EQ(s.message().rfind(path + ": ", 0), 0u) << s.message();
  EXPECT_NE(s.message().find("CUPTI_ACTIVITY_KIND_KERNEL"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("shortName"), std::string::npos) << s.message();
}

TEST_F(NsysExportSchemaSyntheticTest, ColumnsOlderSchemasLackReadAsAbsent) {
  const NsysFixture f = SampleNsysFixture();
  const std::string path = Write(f);
  for (const char* sql : {"ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN graphId",
                          "ALTER TABLE TARGET_INFO_GPU DROP COLUMN cuDevice",
                          "ALTER TABLE TARGET_INFO_GPU DROP COLUMN smCount"}) {
    ExecSql(path, sql);
  }
  const ImportedTrace got = Read(path);
  ASSERT_EQ(got.trace.kernels.size(), f.trace.kernels.size());
  for (const KernelRecord& k : got.trace.kernels) EXPECT_EQ(k.graph_id, 0);
  ASSERT_EQ(got.trace.devices.size(), 1u);
  // Without cuDevice the device is known by nsys' own GPU id (the fixture's is the ordinal + 100).
  EXPECT_EQ(got.trace.devices[0].id, DeviceId(f.trace.devices[0].id.value() + 100));
  EXPECT_EQ(got.trace.devices[0].sm_count, 0);
  const StatEntry* incomplete = FindStat(got, "import.incomplete_device_properties");
  ASSERT_NE(incomplete, nullptr);
  EXPECT_EQ(incomplete->severity, Severity::kWarning);
  EXPECT_NE(incomplete->description.find("smCount"), std::string::npos) << incomplete->description;
}

}  // namespace
}  // namespace nimble::store
