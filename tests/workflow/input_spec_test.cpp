// Input shapes as users type them, and the figures the tools print, on hand-picked good and bad text.
#include "nimble/workflow/input_spec.h"

#include <gtest/gtest.h>

#include "nimble/workflow/format.h"
#include "nimble/workflow/profile_model.h"

namespace nimble::workflow {
namespace {

TEST(InputShapeTest, ParsesDimensionsJoinedByX) {
  EXPECT_EQ(*ParseShape("1x3x224x224"), (Shape{1, 3, 224, 224}));
  EXPECT_EQ(*ParseShape("7"), (Shape{7}));
  for (const char* bad : {"", "x", "1x", "x3", "1xx3", "1x0x3", "1x-3", "1,3", "1x3.5", "1X3", "1x99999999999999999999"}) {
    const Status s = ParseShape(bad).status();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << "'" << bad << "'";
    EXPECT_NE(s.message().find("1x3x224x224"), std::string::npos) << s.message();
  }
}

TEST(InputShapeTest, ShapesRoundTripThroughText) {
  const auto shapes = ParseShapes({"1x3x8x8", "2x5"});
  ASSERT_TRUE(shapes.ok());
  EXPECT_EQ(ShapesText(*shapes), "1x3x8x8,2x5");
  EXPECT_EQ(ParseShapes({"1x3", "0"}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ShapesText({}), "");
}

TEST(DefaultOutputTest, ModelStemInTheWorkingDirectory) {
  EXPECT_EQ(DefaultProfileOutput("/models/resnet50.pt"), "resnet50.nimble.db");
  EXPECT_EQ(DefaultProfileOutput("inception_v3.ts"), "inception_v3.nimble.db");
}

TEST(FormatTest, DurationsPickAUnit) {
  EXPECT_EQ(FormatDuration(950), "950 ns");
  EXPECT_EQ(FormatDuration(12'345), "12.3 us");
  EXPECT_EQ(FormatDuration(4'560'000), "4.56 ms");
  EXPECT_EQ(FormatDuration(123'000'000'000), "123 s");
  EXPECT_EQ(FormatDuration(-2'000), "-2.00 us");
  EXPECT_EQ(FormatPercent(0.4567), "45.7%");
  EXPECT_EQ(FormatFactor(1.234), "1.23x");
  EXPECT_EQ(FormatMs(1.23456), "1.235");
  EXPECT_EQ(FormatRatio(3.0, 2.0), "1.50x");
  EXPECT_EQ(FormatRatio(0.0, 2.0), "-");
}

}  // namespace
}  // namespace nimble::workflow
