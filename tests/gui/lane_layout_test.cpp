// Row heights that fill the view: a few lanes grow to the height there is, within their limits; many
// lanes keep the compact heights; the layout built with them is exactly as tall.
#include "nimble/gui/lane_layout.h"

#include <gtest/gtest.h>

#include <random>

namespace nimble::gui {
namespace {

RunTimeline Lanes(int idle, int stream_rows, int host_rows) {
  RunTimeline t;
  const auto add = [&](LaneKind kind, int rows) {
    Lane& lane = t.lanes.emplace_back();
    lane.kind = kind;
    lane.rows.resize(static_cast<size_t>(rows));
  };
  for (int i = 0; i < idle; ++i) add(LaneKind::kDeviceIdle, 1);
  for (int i = 0; i < stream_rows; ++i) add(LaneKind::kStream, 1);
  if (host_rows > 0) add(LaneKind::kHostRanges, host_rows);
  return t;
}

TEST(LaneLayoutFitTest, AFewLanesFillTheView) {
  const RunTimeline t = Lanes(1, 1, 3);  // the bundled Inception-v3 run: idle, one stream, NVTX and API rows
  const RunTimeline* runs[] = {&t};
  const LayoutHeights base;
  const LayoutHeights h = FitHeights(runs, false, 120);
  EXPECT_GT(h.gpu_row_px, base.gpu_row_px);
  EXPECT_GE(h.idle_px, base.idle_px);
  EXPECT_GE(h.host_row_px, base.host_row_px);
  const int32_t height = LaidOutHeight(runs, false, h);
  EXPECT_LE(height, 120);
  EXPECT_GT(height, 120 - 5);
  LaneLayout layout;
  layout.Build(runs, false, h);
  EXPECT_EQ(layout.height_px(), height);
  // With room to spare the rows stop at their limits rather than grow without end.
  const LayoutHeights tall = FitHeights(runs, false, 5000);
  EXPECT_EQ(tall.gpu_row_px, 2 * base.gpu_row_px);
  EXPECT_EQ(tall.idle_px, 6 * base.idle_px);
  EXPECT_EQ(tall.host_row_px, 24);
  EXPECT_EQ(tall.header_px, base.header_px);
}

TEST(LaneLayoutFitTest, ManyLanesKeepTheCompactHeights) {
  const RunTimeline t = Lanes(2, 16, 40);
  const RunTimeline* runs[] = {&t, &t};
  const LayoutHeights h = FitHeights(runs, true, 900);
  const LayoutHeights base;
  EXPECT_EQ(h.gpu_row_px, base.gpu_row_px);
  EXPECT_EQ(h.idle_px, base.idle_px);
  EXPECT_EQ(h.host_row_px, base.host_row_px);
}

TEST(LaneLayoutFitTest, FillsWithinOneStepOnRandomRuns) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    const int idle = static_cast<int>(rng() % 3);
    const int streams = static_cast<int>(rng() % 6);
    const int host = static_cast<int>(rng() % 8);
    const RunTimeline t = Lanes(idle, streams, host);
    const RunTimeline* runs[] = {&t};
    const bool headers = rng() % 2 == 0;
    const auto available = static_cast<int32_t>(rng() % 900);
    const LayoutHeights base;
    const LayoutHeights h = FitHeights(runs, headers, available);
    SCOPED_TRACE(testing::Message() << idle << " idle, " << streams << " streams, " << host << " host rows, " << available);
    EXPECT_GE(h.gpu_row_px, base.gpu_row_px);
    EXPECT_GE(h.idle_px, base.idle_px);
    EXPECT_GE(h.host_row_px, base.host_row_px);
    EXPECT_LE(h.gpu_row_px, 2 * base.gpu_row_px);
    const int32_t compact = LaidOutHeight(runs, headers, base);
    const int32_t fitted = LaidOutHeight(runs, headers, h);
    if (compact >= available) {
      EXPECT_EQ(fitted, compact);
      continue;
    }
    EXPECT_LE(fitted, available);
    const bool at_limits = h.gpu_row_px == 2 * base.gpu_row_px && h.idle_px == 6 * base.idle_px && h.host_row_px == 24;
    // Short of the height by less than one more pixel on every row, unless every row is at its limit.
    const int rows = idle + streams + std::max(host, host > 0 ? 1 : 0);
    if (!at_limits) {
      EXPECT_LT(available - fitted, std::max(rows, 1) * 2);
    }
  }
}

}  // namespace
}  // namespace nimble::gui
