#include "nimble/workflow/calibrate.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "nimble/analysis/prediction.h"
#include "scratch_dir_test.h"

namespace nimble::workflow {
namespace {

class CalibrateWorkflowTest : public testing::ScratchDirTest {};

// The bundled Inception-v3 database holds what nimble-accelerate --db stored on an H100: the model's
// recording, and its multi-stream run with the measured latency, the replay costs and the prediction made
// then, from the kernels as recorded. The calibration rebuilds that prediction from the stored pieces.
TEST_F(CalibrateWorkflowTest, RebuildsTheStoredPredictionAndWritesACalibrationFile) {
  const std::string db = Copy("inception_v3_compare.db");
  const std::string out = Out("h100.json");
  auto result = Calibrate({{db}, out, "", /*anchor=*/false});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->device, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(result->cases.size(), 1u);
  const CalibrationCase& c = result->cases[0];
  const analysis::SharingCaseResult& f = result->fit.cases[0];
  EXPECT_EQ(c.streams, 5);
  EXPECT_EQ(c.syncs, 70);
  EXPECT_EQ(f.measured_ns, 2099647);
  EXPECT_GT(c.single_measured_ns, f.measured_ns);
  // The stored prediction came from the same kernels, schedule and costs with occupancy shares as they
  // are; it was stored in milliseconds, so within a nanosecond.
  EXPECT_LE(std::abs(f.uncalibrated_ns - c.stored_predicted_ns), 1);
  EXPECT_LE(std::abs(analysis::RelativeError(f.fitted_ns, f.measured_ns)),
            std::abs(analysis::RelativeError(f.uncalibrated_ns, f.measured_ns)));
  auto loaded = LoadCalibration(out);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(*loaded, result->fit.model);
  EXPECT_NE(loaded->source.find(out), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));
  // The H100's built-in model predicted the case as it is; no file was compared.
  ASSERT_TRUE(result->built_in.has_value());
  EXPECT_EQ(result->built_in->model, analysis::CalibratedSharing("NVIDIA H100 80GB HBM3").value());
  ASSERT_EQ(result->built_in->predicted_ns.size(), 1u);
  EXPECT_FALSE(result->compared.has_value());
  EXPECT_EQ(CalibrationToJson(*result)["built_in_model"]["dispatch"], "shared");
  // Stored before the precision was: float32 from its inputs, and the built-in model for float32 models.
  EXPECT_EQ(c.precision, analysis::Precision::kFloat32);
  EXPECT_EQ(result->precision, analysis::Precision::kFloat32);
  ASSERT_EQ(result->built_in->case_models.size(), 1u);
  EXPECT_EQ(result->built_in->case_models[0],
            analysis::CalibratedSharing("NVIDIA H100 80GB HBM3", analysis::Precision::kFloat32).value());
  EXPECT_EQ(CalibrationToJson(*result)["precision"], "float32");
  EXPECT_EQ(CalibrationToJson(*result)["cases"][0]["precision"], "float32");
  EXPECT_EQ(c.duration_scale, 1.0);
  EXPECT_EQ(CalibrationToJson(*result)["anchored"], false);
}

// By default each case's kernels are scaled to predict its own single-stream replay, stored beside it: the
// uncalibrated prediction moves by that factor's share of the replay, and the factor is reported.
TEST_F(CalibrateWorkflowTest, AnchorsEachCaseOnItsSingleStreamReplay) {
  const std::string db = Copy("inception_v3_compare.db");
  auto as_recorded = Calibrate({{db}, "", "", /*anchor=*/false});
  auto anchored = Calibrate({{db}, ""});
  ASSERT_TRUE(as_recorded.ok() && anchored.ok()) << anchored.status().ToString();
  const CalibrationCase& c = anchored->cases[0];
  EXPECT_TRUE(c.not_anchored.empty()) << c.not_anchored;
  EXPECT_GE(c.duration_scale, analysis::kMinAnchorScale);
  EXPECT_LE(c.duration_scale, analysis::kMaxAnchorScale);
  EXPECT_NE(c.duration_scale, 1.0);
  const int64_t before = as_recorded->fit.cases[0].uncalibrated_ns;
  const int64_t after = anchored->fit.cases[0].uncalibrated_ns;
  EXPECT_NE(after, before);
  EXPECT_EQ(after > before, c.duration_scale > 1);  // longer kernels, a longer replay
  const nlohmann::json j = CalibrationToJson(*anchored);
  EXPECT_EQ(j["anchored"], true);
  EXPECT_DOUBLE_EQ(j["cases"][0]["duration_scale"].get<double>(), c.duration_scale);
  EXPECT_TRUE(j["cases"][0]["not_anchored"].is_null());
}

// A calibration file compared on the same recordings predicts each case as the fit did with that model,
// and the built-in model's prediction is that of the model itself; a bad file fails before any reading.
TEST_F(CalibrateWorkflowTest, ComparesAGivenModelAsItIsWithoutFitting) {
  const std::string db = Copy("inception_v3_compare.db");
  auto first = Calibrate({{db}, Out("fit.json")});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto again = Calibrate({{db}, "", Out("fit.json")});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_TRUE(again->compared.has_value());
  EXPECT_EQ(again->compared->model, first->fit.model);
  EXPECT_EQ(again->compared->predicted_ns, std::vector<int64_t>{first->fit.cases[0].fitted_ns});
  EXPECT_EQ(CalibrationToJson(*again)["cases"][0]["compared_ns"], first->fit.cases[0].fitted_ns);
  // One case: no other case to hold it out against.
  EXPECT_TRUE(CalibrationToJson(*again)["cases"][0]["held_out_ns"].is_null());
  EXPECT_TRUE(CalibrationToJson(*again)["cases"][0]["held_out_model"].is_null());
  std::ofstream(Out("bad.json")) << "{not json";
  auto bad = Calibrate({{Out("no_such.db")}, "", Out("bad.json")});  // the file is read before any database
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(Out("bad.json")), std::string::npos) << bad.status().message();
  EXPECT_EQ(bad.status().message().find("no_such.db"), std::string::npos) << bad.status().message();
}

TEST_F(CalibrateWorkflowTest, ADatabaseWithoutMultiStreamRunsIsSkippedAndNoneIsAnError) {
  const std::string eager = Copy("inception_v3.db");
  auto none = Calibrate({{eager}, Out("none.json")});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(none.status().message().find(eager), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(Out("none.json")));
  auto some = Calibrate({{eager, Copy("inception_v3_compare.db")}, ""});
  ASSERT_TRUE(some.ok()) << some.status().ToString();
  ASSERT_EQ(some->skipped.size(), 1u);
  EXPECT_NE(some->skipped[0].find("no aot-multi run"), std::string::npos);
}

// Adds a metric to the multi-stream run, as a later nimble-accelerate stores it.
void StoreMultiMetric(const std::string& path, const std::string& name, double value, const std::string& unit) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  const std::string sql = "INSERT INTO metrics (runId, name, value, unit, windowIndex) SELECT runId, '" + name + "', " +
                          std::to_string(value) + ", '" + unit + "', -1 FROM runs WHERE mode = 'aot-multi'";
  EXPECT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(raw);
  sqlite3_close(raw);
}

// What nimble-accelerate stores since the precision picks the model: the multi-stream run's
// sharing_precision (0 unknown, 1 float32, 2 half).
void StorePrecision(const std::string& path, double precision) {
  StoreMultiMetric(path, "sharing_precision", precision, "enum");
}

// A capture's memset nodes, stored as their cost per replay since the prediction counts them, enter the
// rebuilt prediction once; a database stored before has none.
TEST_F(CalibrateWorkflowTest, TheStoredMemsetNodeCostEntersTheRebuiltPrediction) {
  auto before = Calibrate({{Copy("inception_v3_compare.db")}, "", "", /*anchor=*/false});
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  const std::string db = Copy("inception_v3_compare.db");
  StoreMultiMetric(db, "replay_memset_nodes_ns", 6000, "ns");
  auto after = Calibrate({{db}, "", "", /*anchor=*/false});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ASSERT_EQ(after->fit.cases.size(), 1u);
  EXPECT_EQ(after->fit.cases[0].uncalibrated_ns - before->fit.cases[0].uncalibrated_ns, 6000);
  EXPECT_EQ(after->fit.cases[0].measured_ns, before->fit.cases[0].measured_ns);
}

// A stored precision is final, "unknown" (a TF32 model) included, where the float32 inputs would say
// float32; --precision selects by it; each case gets the built-in model for it, and the JSON names the
// model each precision got. A value outside 0-2 is an error naming the run.
TEST_F(CalibrateWorkflowTest, TheStoredPrecisionIsFinal) {
  for (const auto& [stored, precision] : {std::pair{2.0, analysis::Precision::kHalf},
                                          std::pair{0.0, analysis::Precision::kUnknown}}) {
    const std::string db = Copy("inception_v3_compare.db");
    StorePrecision(db, stored);
    CalibrateOptions options{{db}, ""};
    options.precision = precision;
    auto result = Calibrate(options);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    ASSERT_EQ(result->cases.size(), 1u);
    EXPECT_EQ(result->cases[0].precision, precision);
    const analysis::SharingModel expected = analysis::CalibratedSharing("NVIDIA H100 80GB HBM3", precision).value();
    EXPECT_EQ(result->built_in->case_models[0], expected);
    const nlohmann::json j = CalibrationToJson(*result);
    EXPECT_EQ(j["cases"][0]["precision"], analysis::PrecisionName(precision));
    EXPECT_EQ(j["built_in_models"][std::string(analysis::PrecisionName(precision))]["floor"], expected.floor);
  }
  const std::string bad = Copy("inception_v3_compare.db");
  StorePrecision(bad, 7);
  auto wrong = Calibrate({{bad}, ""});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("sharing_precision 7"), std::string::npos) << wrong.status().message();
  EXPECT_NE(wrong.status().message().find(bad), std::string::npos) << wrong.status().message();
}

// Only the cases of the precision asked for are fitted; the others are skipped saying what they are.
TEST_F(CalibrateWorkflowTest, APrecisionFitsOnlyItsOwnCases) {
  const std::string db = Copy("inception_v3_compare.db");
  CalibrateOptions half{{db}, Out("half.json")};
  half.precision = analysis::Precision::kHalf;
  auto none = Calibrate(half);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(none.status().message().find("a float32 model, not half"), std::string::npos) << none.status().message();
  EXPECT_FALSE(std::filesystem::exists(Out("half.json")));
  CalibrateOptions float32{{db}, Out("float32.json")};
  float32.precision = analysis::Precision::kFloat32;
  auto fitted = Calibrate(float32);
  ASSERT_TRUE(fitted.ok()) << fitted.status().ToString();
  EXPECT_EQ(fitted->cases.size(), 1u);
  EXPECT_NE(fitted->fit.model.source.find(", float32)"), std::string::npos) << fitted->fit.model.source;
  auto loaded = LoadCalibration(Out("float32.json"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_NE(loaded->source.find("(NVIDIA H100 80GB HBM3, float32)"), std::string::npos) << loaded->source;
}

TEST_F(CalibrateWorkflowTest, BadCalibrationFilesNameTheFileAndTheFault) {
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(Out(name)) << text;
    return Out(name);
  };
  struct Case {
    std::string text;
    std::string says;
  };
  const Case cases[] = {
      {"{not json", "not a JSON object"},
      {R"({"kind": "something else", "format": 1})", "not a calibration file"},
      {R"({"kind": 5, "format": 1})", "not a calibration file"},
      {R"({"kind": "nimble-sharing-calibration", "format": 7, "model": {"floor": 0.1, "exponent": 0.5}})", "format 7"},
      {R"({"kind": "nimble-sharing-calibration", "format": 1, "model": {"floor": "x", "exponent": 0.5}})", "needs numbers"},
      {R"({"kind": "nimble-sharing-calibration", "format": 1, "model": {"floor": 1.5, "exponent": 0.5}})", "must lie in"},
      {R"({"kind": "nimble-sharing-calibration", "format": 1, "model": {"floor": 0.1, "exponent": 0}})", "must lie in"},
      {R"({"kind": "nimble-sharing-calibration", "format": 2, "model": {"floor": 0.1, "exponent": 0.5}})", "dispatch"},
      {R"({"kind": "nimble-sharing-calibration", "format": 2,
           "model": {"floor": 0.1, "exponent": 0.5, "dispatch": "fifo"}})", "\"shared\" or \"in-order\", not \"fifo\""},
      {R"({"kind": "nimble-sharing-calibration", "format": 1,
           "model": {"floor": 0.1, "exponent": 0.5, "dispatch": "in-order"}})", "format 1 has no \"dispatch\""},
      {R"({"kind": "nimble-sharing-calibration", "format": 4294967298, "model": {"floor": 0.1, "exponent": 0.5}})",
       "format 4294967298"},
      {R"({"kind": "nimble-sharing-calibration", "format": 2,
           "model": {"floor": 0.1, "exponent": 0.5, "dispatch": "in-order", "crowding": 0.5, "knee": 0.4}})",
       "format 2 has no \"crowding\""},
      {R"({"kind": "nimble-sharing-calibration", "format": 3,
           "model": {"floor": 0.1, "exponent": 0.5, "dispatch": "in-order", "crowding": 0.5}})", "\"crowding\" and \"knee\""},
      {R"({"kind": "nimble-sharing-calibration", "format": 3,
           "model": {"floor": 0.1, "exponent": 0.5, "dispatch": "in-order", "crowding": -1, "knee": 0.4}})", "must lie in [0, 10]"},
      {R"({"kind": "nimble-sharing-calibration", "format": 3,
           "model": {"floor": 0.1, "exponent": 0.5, "dispatch": "in-order", "crowding": 1e30, "knee": 0.4}})", "must lie in [0, 10]"},
      {R"({"kind": "nimble-sharing-calibration", "format": 3,
           "model": {"floor": 0.1, "exponent": 0.5, "dispatch": "in-order", "crowding": 0.5, "knee": 1.5}})", "\"knee\" in [0, 1]"},
      {R"({"kind": "nimble-sharing-calibration", "format": 3, "precision": "bfloat16",
           "model": {"floor": 0.1, "exponent": 0.5, "dispatch": "in-order", "crowding": 0, "knee": 0}})", "not \"bfloat16\""},
      {R"({"kind": "nimble-sharing-calibration", "format": 3, "precision": 2,
           "model": {"floor": 0.1, "exponent": 0.5, "dispatch": "in-order", "crowding": 0, "knee": 0}})", "\"precision\" must be"},
  };
  int i = 0;
  for (const Case& c : cases) {
    const std::string path = write("bad" + std::to_string(i++) + ".json", c.text);
    auto loaded = LoadCalibration(path);
    ASSERT_FALSE(loaded.ok()) << c.text;
    EXPECT_NE(loaded.status().message().find(path), std::string::npos) << loaded.status().message();
    EXPECT_NE(loaded.status().message().find(c.says), std::string::npos) << loaded.status().message();
  }
  EXPECT_EQ(LoadCalibration(Out("missing.json")).status().code(), StatusCode::kNotFound);
  auto crowded = LoadCalibration(write("crowded.json", R"({"kind": "nimble-sharing-calibration", "format": 3,
      "model": {"floor": 0.05, "exponent": 1, "dispatch": "in-order", "crowding": 0.5, "knee": 0.4}})"));
  ASSERT_TRUE(crowded.ok()) << crowded.status().ToString();
  EXPECT_DOUBLE_EQ(crowded->crowding, 0.5);
  EXPECT_DOUBLE_EQ(crowded->knee, 0.4);
}

// Damaged copies of a calibration file (bytes flipped, cut, repeated) load cleanly or fail naming the file,
// never with an exception or a model outside its bounds.
TEST_F(CalibrateWorkflowTest, DamagedCalibrationFilesLoadOrFailNamingTheFile) {
  const std::string good = R"({"format": 2, "kind": "nimble-sharing-calibration", "device": "NVIDIA H200",
    "model": {"floor": 0.25, "exponent": 0.65, "dispatch": "in-order"}, "cases": [], "skipped": []})";
  std::mt19937_64 rng(20261128);
  const std::string path = Out("mutant.json");
  int loaded = 0;
  int failed = 0;
  for (int i = 0; i < 600; ++i) {
    std::string text = good;
    for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
      const size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0: text[at] = static_cast<char>(rng() % 256); break;                 // flip a byte
        case 1: text.resize(at); break;                                            // cut the file
        case 2: text.insert(at, text.substr(at, 1 + rng() % 12)); break;           // repeat a piece
        default: text[at] = "{}[]\":,0.-e9"[rng() % 12]; break;                  // a structural character
      }
      if (text.empty()) text = "{";
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    auto model = LoadCalibration(path);
    if (model.ok()) {
      ++loaded;
      EXPECT_TRUE(model->floor >= 0 && model->floor <= 1 && model->exponent > 0 && model->exponent <= 1) << text;
    } else {
      ++failed;
      EXPECT_NE(model.status().message().find(path), std::string::npos) << text << "\n" << model.status().message();
    }
  }
  // Both outcomes occur, or the run means little.
  EXPECT_GT(loaded, 8);
  EXPECT_GT(failed, 200);
}

// Format 1 files, written before the model named its dispatch, read as shared; format 2 names it.
TEST_F(CalibrateWorkflowTest, ReadsBothFormatsAndTheirDispatch) {
  const std::string v1 = Out("v1.json");
  std::ofstream(v1) << R"({"kind": "nimble-sharing-calibration", "format": 1, "model": {"floor": 0.3, "exponent": 0.9}})";
  auto old = LoadCalibration(v1);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(*old, (analysis::SharingModel{0.3, 0.9, "", analysis::Dispatch::kShared}));
  const std::string v2 = Out("v2.json");
  std::ofstream(v2) << R"({"kind": "nimble-sharing-calibration", "format": 2,
                          "model": {"floor": 0.25, "exponent": 0.65, "dispatch": "in-order"}})";
  auto now = LoadCalibration(v2);
  ASSERT_TRUE(now.ok()) << now.status().ToString();
  EXPECT_EQ(*now, (analysis::SharingModel{0.25, 0.65, "", analysis::Dispatch::kInOrder}));
}

}  // namespace
}  // namespace nimble::workflow
