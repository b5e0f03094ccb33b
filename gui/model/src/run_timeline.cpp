#include "nimble/gui/run_timeline.h"

namespace nimble::gui {
namespace {

bool LaneHolds(LaneKind lane, ItemKind item) {
  switch (item) {
    case ItemKind::kKernel:
    case ItemKind::kMemset:
    case ItemKind::kMemcpy:
    case ItemKind::kGraphLaunch: return lane == LaneKind::kStream;
    case ItemKind::kApiCall: return lane == LaneKind::kHostApi;
    case ItemKind::kRange: return lane == LaneKind::kHostRanges;
    case ItemKind::kGap: return lane == LaneKind::kDeviceIdle;
  }
  return false;
}

}  // namespace

std::string Lane::Title() const {
  const std::string gpu = "GPU " + std::to_string(device.valid() ? device.value() : -1);
  const std::string tid = thread.valid() ? std::to_string(thread.value()) : "?";
  switch (kind) {
    case LaneKind::kDeviceIdle: return gpu + " idle";
    case LaneKind::kStream: return gpu + "  stream " + (stream.valid() ? std::to_string(stream.value()) : "?");
    case LaneKind::kHostRanges: return "Thread " + tid + "  NVTX";
    case LaneKind::kHostApi: return "Thread " + tid + "  CUDA API";
  }
  return "";
}

size_t Lane::item_count() const {
  size_t n = 0;
  for (const RowItems& row : rows) n += row.size();
  return n;
}

int32_t RunTimeline::FindLane(LaneKind kind, DeviceId device, StreamId stream, ThreadId thread) const {
  for (size_t i = 0; i < lanes.size(); ++i) {
    const Lane& l = lanes[i];
    if (l.kind != kind) continue;
    const bool gpu = kind == LaneKind::kDeviceIdle || kind == LaneKind::kStream;
    if (gpu && l.device == device && (kind == LaneKind::kDeviceIdle || l.stream == stream)) return static_cast<int32_t>(i);
    if (!gpu && l.thread == thread) return static_cast<int32_t>(i);
  }
  return -1;
}

RunTimeline::Location RunTimeline::Find(ItemRef ref) const {
  for (size_t l = 0; l < lanes.size(); ++l) {
    if (!LaneHolds(lanes[l].kind, ref.kind())) continue;
    for (size_t r = 0; r < lanes[l].rows.size(); ++r) {
      const RowItems& row = lanes[l].rows[r];
      for (size_t i = 0; i < row.size(); ++i) {
        if (row.ref(i) == ref) return {static_cast<int32_t>(l), static_cast<int32_t>(r), static_cast<int64_t>(i)};
      }
    }
  }
  return {};
}

RunTimeline::Location RunTimeline::FindApiCall(int64_t correlation) const {
  for (size_t i = 0; i < api_correlation.size(); ++i) {
    if (api_correlation[i] == correlation) return Find(ItemRef(ItemKind::kApiCall, static_cast<uint32_t>(i)));
  }
  return {};
}

RunTimeline::Location RunTimeline::FindKernelByCorrelation(int64_t correlation) const {
  for (size_t i = 0; i < kernel_correlation.size(); ++i) {
    if (kernel_correlation[i] == correlation) return Find(ItemRef(ItemKind::kKernel, static_cast<uint32_t>(i)));
  }
  return {};
}

size_t RunTimeline::bytes() const {
  size_t n = memcpys.capacity() * sizeof(CopyInfo) + memsets.capacity() * sizeof(CopyInfo) +
             graph_launches.capacity() * sizeof(GraphLaunchInfo) +
             api_correlation.capacity() * 8 + kernel_correlation.capacity() * 8 + kernel_op.capacity() * 4;
  for (const Lane& lane : lanes) {
    for (const RowItems& row : lane.rows) n += row.bytes();
    for (const RowItems& row : lane.critical) n += row.bytes();
  }
  return n;
}

}  // namespace nimble::gui
