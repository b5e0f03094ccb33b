#include "nimble/core/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace nimble {
namespace {

StatusOr<int> ParsePositive(int x) {
  if (x <= 0) return InvalidArgument("x must be positive, got " + std::to_string(x));
  return x;
}

StatusOr<int> Doubled(int x) {
  NIMBLE_ASSIGN_OR_RETURN(int v, ParsePositive(x));
  return 2 * v;
}

Status CheckBoth(int a, int b) {
  NIMBLE_RETURN_IF_ERROR(ParsePositive(a).status());
  NIMBLE_RETURN_IF_ERROR(ParsePositive(b).status().WithContext("second"));
  return OkStatus();
}

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, CarriesCodeAndMessage) {
  Status s = NotFound("run.db: no run 7");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "not found: run.db: no run 7");
}

TEST(StatusTest, WithContextPrefixesMessageAndKeepsCode) {
  Status s = DataLoss("truncated").WithContext("run.db");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "run.db: truncated");
  EXPECT_TRUE(OkStatus().WithContext("x").ok());
}

TEST(StatusOrTest, ValueAndErrorPropagate) {
  auto good = Doubled(4);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 8);
  auto bad = Doubled(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("-1"), std::string::npos);
}

TEST(StatusOrTest, ReturnIfErrorStopsAtFirstFailure) {
  EXPECT_TRUE(CheckBoth(1, 2).ok());
  EXPECT_EQ(CheckBoth(0, 2).message(), "x must be positive, got 0");
  EXPECT_EQ(CheckBoth(1, 0).message(), "second: x must be positive, got 0");
}

TEST(StatusOrTest, HoldsMoveOnlyValues) {
  StatusOr<std::unique_ptr<int>> p = std::make_unique<int>(3);
  ASSERT_TRUE(p.ok());
  std::unique_ptr<int> taken = std::move(p).value();
  EXPECT_EQ(*taken, 3);
}

}  // namespace
}  // namespace nimble
