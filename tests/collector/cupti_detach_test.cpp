// DetachCupti where no CUDA driver is loaded (this test process never loads one) and where the user
// keeps CUPTI attached: the stat says what happened and why, and nothing is detached.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cupti_detach.h"

namespace nimble::collector {
namespace {

TEST(CuptiDetachTest, WithoutADriverItSaysCuptiStaysAttachedAndWhy) {
  ::unsetenv("NIMBLE_CUPTI_DETACH");
  const StatEntry stat = DetachCupti();
  EXPECT_EQ(stat.name, "collector.cupti_left_attached");
  EXPECT_EQ(stat.value, 1);
  EXPECT_EQ(stat.severity, Severity::kWarning);
  EXPECT_NE(stat.description.find("the CUDA driver is not loaded"), std::string::npos) << stat.description;
}

TEST(CuptiDetachTest, KeptAttachedOnRequestIsNotAProblem) {
  ::setenv("NIMBLE_CUPTI_DETACH", "0", 1);
  const StatEntry stat = DetachCupti();
  ::unsetenv("NIMBLE_CUPTI_DETACH");
  EXPECT_EQ(stat.value, 1);
  EXPECT_EQ(stat.severity, Severity::kInfo);
  EXPECT_NE(stat.description.find("NIMBLE_CUPTI_DETACH=0"), std::string::npos) << stat.description;
}

}  // namespace
}  // namespace nimble::collector
