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

TEST(InputShapeTest, SpecsRoundTripThroughText) {
  const auto specs = ParseInputSpecs({"1x3x8x8", "2x5"});
  ASSERT_TRUE(specs.ok());
  EXPECT_EQ(TensorSpecsText(*specs), "1x3x8x8,2x5");
  EXPECT_EQ(ParseInputSpecs({"1x3", "0"}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TensorSpecsText({}), "");
  for (const char* text : {"1x128:int64", "1x128:int64:0..30521", "1x3x224x224:float16", "2x8:bfloat16",
                           "1x128:bool", "4:int32:-5..5"}) {
    const auto spec = ParseInputSpec(text);
    ASSERT_TRUE(spec.ok()) << text << ": " << spec.status().message();
    EXPECT_EQ(TensorSpecText(*spec), text);
  }
}

TEST(InputShapeTest, DtypesAndRanges) {
  const auto ids = ParseInputSpec("1x128:long:0..50256");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids->shape, (Shape{1, 128}));
  EXPECT_EQ(ids->dtype, DType::kInt64);
  EXPECT_EQ(ids->low, 0);
  EXPECT_EQ(ids->high, 50256);
  EXPECT_EQ(ParseInputSpec("2x3:half")->dtype, DType::kFloat16);
  EXPECT_EQ(ParseInputSpec("2x3:bf16")->dtype, DType::kBFloat16);
  EXPECT_EQ(ParseInputSpec("2x3:fp32")->dtype, DType::kFloat32);
  EXPECT_EQ(TensorSpecText(*ParseInputSpec("2x3:fp32")), "2x3");
  const std::pair<const char*, const char*> bad[] = {
      {"1x128:int8", "unknown dtype 'int8'"},        {"1x128:", "unknown dtype ''"},
      {"1x128:float16:0..3", "int64 and int32"},     {"1x128:bool:0..1", "int64 and int32"},
      {"1x128:int64:5..2", "LOW <= HIGH"},          {"1x128:int64:0-9", "LOW..HIGH"},
      {"1x128:int64:..9", "LOW..HIGH"},             {"0x128:int64", "positive dimensions"},
  };
  for (const auto& [text, why] : bad) {
    const Status s = ParseInputSpec(text).status();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(s.message().find(why), std::string::npos) << text << ": " << s.message();
    EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
  }
}

TEST(InputSpecTest, BucketsFromBatchSizesOrGivenWhole) {
  const std::vector<TensorSpec> inputs = {*ParseInputSpec("1x128:int64:0..999"), *ParseInputSpec("1x128:bool")};
  StatusOr<std::vector<std::vector<TensorSpec>>> buckets = BatchBuckets(inputs, {1, 8});
  ASSERT_TRUE(buckets.ok()) << buckets.status().ToString();
  ASSERT_EQ(buckets->size(), 2u);
  EXPECT_EQ(TensorSpecsText((*buckets)[1]), "8x128:int64:0..999,8x128:bool");
  EXPECT_EQ((*buckets)[0], inputs);
  EXPECT_NE(BatchBuckets(inputs, {2, 2}).status().message().find("2 is given twice"), std::string::npos);
  EXPECT_EQ(BatchBuckets(inputs, {0}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(BatchBuckets({TensorSpec{}}, {2}).status().message().find("no dimensions"), std::string::npos);

  StatusOr<std::vector<TensorSpec>> bucket = ParseBucketSpec("4x128:int64,4x128:bool");
  ASSERT_TRUE(bucket.ok()) << bucket.status().ToString();
  EXPECT_EQ(TensorSpecsText(*bucket), "4x128:int64,4x128:bool");
  const Status bad = ParseBucketSpec("4x128,").status();
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("bucket '4x128,'"), std::string::npos) << bad.message();
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
  EXPECT_EQ(FormatMiB(431095808), "411.1");
  EXPECT_EQ(FormatMiB(0), "0.0");
  EXPECT_EQ(FormatRatio(3.0, 2.0), "1.50x");
  EXPECT_EQ(FormatRatio(0.0, 2.0), "-");
}

}  // namespace
}  // namespace nimble::workflow
