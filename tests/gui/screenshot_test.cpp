// Runs `nimble-gui --screenshot` as a user would, on the known model run, and checks the picture: one
// separator per lane in the label column, the critical-path colour under exactly the critical-path
// kernels, each long idle gap in the colour of its cause, kernels in their op's colour; broken files
// must give exit status 1 and a message naming the file, never a crash.
#include <QImage>
#include <QProcess>

#include <filesystem>
#include <fstream>

#include "gui_test_env.h"
#include "gui_test_runs.h"
#include "nimble/gui/lane_layout.h"
#include "nimble/gui/palette.h"
#include "nimble/gui/run_loader.h"
#include "nimble/gui/timeline_painter.h"
#include "nimble/store/schema.h"

namespace nimble::gui {
namespace {

namespace fs = std::filesystem;

constexpr int kLabelWidthPx = TimelineGeometry::kLabelWidthPx;
constexpr int kRulerHeightPx = TimelineGeometry::kRulerHeightPx;

struct Result {
  int exit_code = -1;
  std::string output;
};

Result RunGui(const QStringList& args) {
  QProcess process;
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(NIMBLE_GUI_EXE, args);
  if (!process.waitForFinished(60'000)) return {-2, "timed out"};
  return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -3,
          process.readAll().toStdString()};
}

Rgb At(const QImage& image, int x, int y) {
  const QRgb p = image.pixel(x, y);
  return {static_cast<uint8_t>(qRed(p)), static_cast<uint8_t>(qGreen(p)), static_cast<uint8_t>(qBlue(p))};
}

class ScreenshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!testing::PrepareDisplay(why_not)) GTEST_SKIP() << why_not;
    dir_ = testing::MakeScratchDir("screenshot");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string PathOf(const std::string& name) const { return dir_ + "/" + name; }

  // The view range (ruler ns) used below, and the x of an absolute time in the picture.
  struct Mapping {
    double left_ns = 0;
    double ns_per_px = 1;
    int64_t align_ns = 0;
    int X(int64_t t_abs) const {
      return kLabelWidthPx + static_cast<int>(std::floor((static_cast<double>(t_abs - align_ns) - left_ns) / ns_per_px));
    }
  };

  std::string dir_;
};

// The rows as the view lays them out in a picture `height_px` tall: grown to fill it (FitHeights).
LaneLayout LayoutFor(const LoadedRun& run, int height_px) {
  const RunTimeline* timelines[] = {&run.timeline};
  LaneLayout layout;
  layout.Build(timelines, false, FitHeights(timelines, false, height_px - kRulerHeightPx));
  return layout;
}

// Picture y of the middle of a device's idle-gap strip (the bottom of its idle row) and of the
// critical-path band of a stream row.
int IdleStripY(const LayoutRow& row) { return kRulerHeightPx + row.y_px + row.height_px - TimelineGeometry::kIdleStripPx / 2; }
int BandY(const LayoutRow& row) { return kRulerHeightPx + row.y_px + TimelineGeometry::BandTop(row.height_px) + 1; }

TEST_F(ScreenshotTest, DrawsLanesCriticalPathAndGapsOfTheModelRun) {
  const std::string db = PathOf("model.db");
  const std::string png = PathOf("model.png");
  const testing::ModelRunFacts facts = testing::WriteModelRun(db);
  Mapping m;
  m.align_ns = facts.iterations[0].start_ns;  // the ruler's 0: the first iteration
  const double left = static_cast<double>(facts.first_ns - m.align_ns) - 20'000;
  const double right = static_cast<double>(facts.last_ns - m.align_ns) + 20'000;
  const Result r = RunGui({"--screenshot", QString::fromStdString(png), QString::fromStdString(db), "--timeline-only",
                           "--size", "1500x700", "--range", QString("%1:%2").arg(left, 0, 'f', 0).arg(right, 0, 'f', 0)});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  QImage image(QString::fromStdString(png));
  ASSERT_FALSE(image.isNull());
  m.left_ns = left;
  m.ns_per_px = (right - left) / (image.width() - kLabelWidthPx);

  // Lanes: one separator line each in the label column.
  int separators = 0;
  for (int y = kRulerHeightPx; y < image.height(); ++y) separators += At(image, 5, y) == kLaneSeparatorRgb;
  EXPECT_EQ(separators, facts.lanes);

  // Where each row is, from the loaded run's layout (itself unit-tested).
  auto loaded = LoadRun(db, RunId(1));
  ASSERT_TRUE(loaded.ok());
  const LaneLayout layout = LayoutFor(*loaded, image.height());
  EXPECT_GT(layout.Find(0, 1, 0)->height_px, LayoutHeights().gpu_row_px) << "five lanes grow to fill 700 px";
  const int idle_y = IdleStripY(*layout.Find(0, 0, 0));
  const int main_y = kRulerHeightPx + layout.Find(0, 1, 0)->y_px;  // stream 7
  const int main_band = BandY(*layout.Find(0, 1, 0));
  const int side_band = BandY(*layout.Find(0, 2, 0));               // stream 8

  for (const testing::KnownInterval& k : facts.critical_kernels) {
    const int x = (m.X(k.start_ns) + m.X(k.end_ns - 1)) / 2;
    EXPECT_EQ(At(image, x, main_band), kCriticalPathRgb) << "critical kernel at x " << x;
  }
  int side_critical = 0;
  for (int x = kLabelWidthPx; x < image.width(); ++x) side_critical += At(image, x, side_band) == kCriticalPathRgb;
  EXPECT_EQ(side_critical, 0) << "the side branches are not on the critical path";
  for (const testing::KnownGap& g : facts.long_gaps) {
    const int x = (m.X(g.interval.start_ns) + m.X(g.interval.end_ns - 1)) / 2;
    EXPECT_EQ(At(image, x, idle_y), GapCauseColor(g.cause)) << "gap at x " << x;
  }
  // The stem convolution is drawn in its op kind's colour.
  const int stem_x = (m.X(facts.critical_kernels[0].start_ns) + m.X(facts.critical_kernels[0].end_ns - 1)) / 2;
  EXPECT_EQ(At(image, stem_x, main_y + 4), ColorForName("aten::conv2d"));
  // Above the gaps, the busy chart: full where a kernel runs, empty in a long gap.
  const LayoutRow& idle_row = *layout.Find(0, 0, 0);
  const int chart_y = kRulerHeightPx + idle_row.y_px + (idle_row.height_px - TimelineGeometry::kIdleStripPx) / 2;
  EXPECT_EQ(At(image, stem_x, chart_y), kBusyRgb);
  const testing::KnownGap& gap = facts.long_gaps.front();
  EXPECT_NE(At(image, (m.X(gap.interval.start_ns) + m.X(gap.interval.end_ns - 1)) / 2, chart_y), kBusyRgb);
}

// The recorded Inception-v3 run bundled for GPU-less machines (samples/recorded): what a user opens
// first. One stream lane; its critical path is drawn under many kernels of the iteration shown, and
// most of the idle lane is the colour of host-launched-late gaps.
TEST_F(ScreenshotTest, DrawsTheRecordedInceptionRunWithItsCriticalPath) {
  const std::string db = PathOf("inception_v3.db");
  fs::copy_file(std::string(NIMBLE_SOURCE_DIR) + "/samples/recorded/inception_v3.db", db);
  const std::string png = PathOf("inception.png");
  const Result r = RunGui({"--screenshot", QString::fromStdString(png), QString::fromStdString(db), "--timeline-only",
                           "--size", "1500x400", "--iteration", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  QImage image(QString::fromStdString(png));
  ASSERT_FALSE(image.isNull());

  auto loaded = LoadRun(db, RunId(1));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const LaneLayout layout = LayoutFor(*loaded, image.height());
  int separators = 0;
  for (int y = kRulerHeightPx; y < image.height(); ++y) separators += At(image, 5, y) == kLaneSeparatorRgb;
  EXPECT_EQ(separators, static_cast<int>(layout.lane_count()));

  const int idle_y = IdleStripY(*layout.Find(0, 0, 0));
  const int band_y = BandY(*layout.Find(0, 1, 0));
  int critical_px = 0;
  int host_late_px = 0;
  for (int x = kLabelWidthPx; x < image.width(); ++x) {
    critical_px += At(image, x, band_y) == kCriticalPathRgb;
    host_late_px += At(image, x, idle_y) == GapCauseColor(analysis::GapCause::kHostLaunchLate);
  }
  const int width_px = image.width() - kLabelWidthPx;
  EXPECT_GT(critical_px, width_px / 20) << "the critical path (62 of 120 ops) is highlighted";
  EXPECT_GT(host_late_px, width_px / 4) << "eager Inception-v3 idles mostly because the host launches late";
}

TEST_F(ScreenshotTest, CompareModeStacksTheRuns) {
  const std::string db = PathOf("compare.db");
  const std::string png = PathOf("compare.png");
  testing::WriteModelRun(db);
  testing::AppendAcceleratedRun(db);
  const Result r = RunGui({"--screenshot", QString::fromStdString(png), QString::fromStdString(db), "--size", "1500x900"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  QImage image(QString::fromStdString(png));
  ASSERT_FALSE(image.isNull());
  // Somewhere in the window both runs' lanes are listed: 5 + 5 separators in one column of labels.
  int best = 0;
  for (int x = 0; x < image.width(); x += 50) {
    int separators = 0;
    for (int y = 0; y < image.height(); ++y) separators += At(image, x, y) == kLaneSeparatorRgb && At(image, x + 1, y) == kLaneSeparatorRgb;
    best = std::max(best, separators);
  }
  EXPECT_GE(best, 10);
}

TEST_F(ScreenshotTest, BrokenDatabasesFailWithAMessage) {
  const std::string empty = PathOf("empty.db");
  std::ofstream(empty).close();
  const std::string garbage = PathOf("garbage.db");
  std::ofstream(garbage) << std::string(4096, 'z');
  const std::string newer = PathOf("newer.db");
  testing::WriteModelRun(newer);
  {
    std::fstream f(newer, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(60);  // PRAGMA user_version in the SQLite header
    const char version[4] = {0, 0, 0, 42};
    f.write(version, 4);
  }
  const std::string no_runs = PathOf("no_runs.db");
  ASSERT_TRUE(store::CreateDatabaseAtVersion(no_runs, store::kSchemaVersion).ok());
  const std::pair<std::string, std::string> cases[] = {{empty, "empty"},
                                                       {garbage, "not a SQLite database"},
                                                       {newer, "newer"},
                                                       {PathOf("absent.db"), "no such file"},
                                                       {no_runs, "holds no run"},
                                                       {dir_, "is a directory"}};
  for (const auto& [db, words] : cases) {
    const std::string png = db + ".png";
    const Result r = RunGui({"--screenshot", QString::fromStdString(png), QString::fromStdString(db)});
    EXPECT_EQ(r.exit_code, 1) << db << ": " << r.output;
    EXPECT_NE(r.output.find(db), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(words), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(png));
  }
  const Result usage = RunGui({"--screenshot", QString::fromStdString(PathOf("x.png")), "--range", "9:3",
                               QString::fromStdString(newer)});
  EXPECT_EQ(usage.exit_code, 2) << usage.output;
}

// Named on the command line of the interactive viewer, a file it cannot open ends it with status 1 and a
// message, as nimble-prof does, rather than leaving an empty window behind a message box.
TEST_F(ScreenshotTest, TheWindowExitsWithStatusOneOnAFileItCannotOpen) {
  const std::string garbage = PathOf("garbage.db");
  std::ofstream(garbage) << std::string(4096, 'z');
  const std::pair<std::string, std::string> cases[] = {{garbage, "not a SQLite database"}, {dir_, "is a directory"}};
  for (const auto& [path, words] : cases) {
    const Result r = RunGui({QString::fromStdString(path)});
    EXPECT_EQ(r.exit_code, 1) << path << ": " << r.output;
    EXPECT_NE(r.output.find(path), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(words), std::string::npos) << r.output;
  }
}

TEST_F(ScreenshotTest, AnIterationBeyondTheRunWarnsWithTheCount) {
  const std::string db = PathOf("model.db");
  testing::WriteModelRun(db);
  const Result r = RunGui({"--screenshot", QString::fromStdString(PathOf("x.png")), QString::fromStdString(db),
                           "--iteration", "99", "--timeline-only"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--iteration 99: the run has 3 iterations (1 to 3); showing iteration 3"), std::string::npos)
      << r.output;
  const Result fine = RunGui({"--screenshot", QString::fromStdString(PathOf("y.png")), QString::fromStdString(db),
                              "--iteration", "2", "--timeline-only"});
  EXPECT_EQ(fine.exit_code, 0) << fine.output;
  EXPECT_EQ(fine.output.find("warning"), std::string::npos) << fine.output;
}

}  // namespace
}  // namespace nimble::gui
