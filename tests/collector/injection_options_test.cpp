// Parsing the injection library's environment, and the activity-kind names shared with the CLI.
#include "nimble/collector/injection_options.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "nimble/collector/activity_kinds.h"
#include "nimble/collector/injection_env.h"

namespace nimble::collector {
namespace {

StatusOr<InjectionOptions> Parse(const std::map<std::string, std::string>& vars) {
  return ParseInjectionOptions([&vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(InjectionOptionsTest, DefaultsToEveryKindAndImmediateCapture) {
  auto o = Parse({{env::kOutput, "/tmp/run.db"}});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->output_path, "/tmp/run.db");
  EXPECT_EQ(o->session.kinds, ActivityKindSet::All());
  EXPECT_EQ(o->session.start_delay.count(), 0);
  EXPECT_TRUE(o->session.capture_range.empty());
  EXPECT_EQ(o->session.graph_trace, GraphTrace::kNode);
  EXPECT_EQ(o->session.kernel_timestamps, KernelTimestamps::kSoftware);
  EXPECT_EQ(o->target_pid, 0);
  EXPECT_FALSE(o->simulate_cupti_failure);
}

TEST(InjectionOptionsTest, ReadsEveryOption) {
  auto o = Parse({{env::kOutput, "run.db"},
                  {env::kKinds, "kernel,nvtx"},
                  {env::kIterationRange, "iteration"},
                  {env::kStartDelayMs, "250"},
                  {env::kCaptureRange, "measure"},
                  {env::kTargetPid, "4242"},
                  {env::kKernelTimestamps, "hardware"},
                  {env::kSimulateCuptiFailure, "1"}});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_TRUE(o->session.kinds.contains(ActivityKind::kKernel));
  EXPECT_TRUE(o->session.kinds.contains(ActivityKind::kNvtx));
  EXPECT_FALSE(o->session.kinds.contains(ActivityKind::kMemcpy));
  EXPECT_EQ(o->session.iteration_range, "iteration");
  EXPECT_EQ(o->session.start_delay.count(), 250);
  EXPECT_EQ(o->session.capture_range, "measure");
  EXPECT_EQ(o->target_pid, 4242);
  EXPECT_EQ(o->session.kernel_timestamps, KernelTimestamps::kHardware);
  EXPECT_TRUE(o->simulate_cupti_failure);
}

TEST(InjectionOptionsTest, GraphLevelTraceCoversTheWholeRun) {
  auto o = Parse({{env::kOutput, "run.db"}, {env::kGraphTrace, "graph"}});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->session.graph_trace, GraphTrace::kGraph);
  EXPECT_EQ(Parse({{env::kOutput, "run.db"}, {env::kGraphTrace, "node"}})->session.graph_trace, GraphTrace::kNode);
  for (const auto& [name, value] : {std::pair{env::kCaptureRange, "measure"}, std::pair{env::kStartDelayMs, "250"}}) {
    auto gated = Parse({{env::kOutput, "run.db"}, {env::kGraphTrace, "graph"}, {name, value}});
    ASSERT_FALSE(gated.ok()) << name;
    EXPECT_NE(gated.status().message().find(name), std::string::npos) << gated.status().message();
  }
}

TEST(InjectionOptionsTest, RejectsMalformedValuesNamingTheVariable) {
  EXPECT_FALSE(Parse({}).ok());
  auto kinds = Parse({{env::kOutput, "run.db"}, {env::kKinds, "kernel,bogus"}});
  ASSERT_FALSE(kinds.ok());
  EXPECT_NE(kinds.status().message().find("bogus"), std::string::npos);
  auto delay = Parse({{env::kOutput, "run.db"}, {env::kStartDelayMs, "-5"}});
  ASSERT_FALSE(delay.ok());
  EXPECT_NE(delay.status().message().find(env::kStartDelayMs), std::string::npos);
  EXPECT_FALSE(Parse({{env::kOutput, "run.db"}, {env::kStartDelayMs, "10ms"}}).ok());
  EXPECT_FALSE(Parse({{env::kOutput, "run.db"}, {env::kTargetPid, "x"}}).ok());
  auto graph = Parse({{env::kOutput, "run.db"}, {env::kGraphTrace, "nodes"}});
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.status().message().find(env::kGraphTrace), std::string::npos);
  EXPECT_NE(graph.status().message().find("nodes"), std::string::npos);
  auto stamps = Parse({{env::kOutput, "run.db"}, {env::kKernelTimestamps, "hw"}});
  ASSERT_FALSE(stamps.ok());
  EXPECT_NE(stamps.status().message().find(env::kKernelTimestamps), std::string::npos);
  EXPECT_NE(stamps.status().message().find("'hw'"), std::string::npos);
}

TEST(ActivityKindsTest, ParsesAndPrintsNames) {
  ActivityKindSet kinds;
  std::string bad;
  ASSERT_TRUE(ParseActivityKinds("all", kinds, bad));
  EXPECT_EQ(kinds, ActivityKindSet::All());
  EXPECT_EQ(kinds.ToString(), "kernel,memcpy,memset,runtime,driver,sync,nvtx,external_correlation,overhead");
  ASSERT_TRUE(ParseActivityKinds("sync,kernel", kinds, bad));
  EXPECT_EQ(kinds.ToString(), "kernel,sync");
  EXPECT_FALSE(ParseActivityKinds("kernel,,memcpy", kinds, bad));
  EXPECT_EQ(bad, "");
  EXPECT_FALSE(ParseActivityKinds("graph", kinds, bad));
  EXPECT_EQ(bad, "graph");
  EXPECT_FALSE(ParseActivityKinds("", kinds, bad));
}

}  // namespace
}  // namespace nimble::collector
