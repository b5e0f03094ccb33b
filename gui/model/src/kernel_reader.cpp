#include <algorithm>
#include <chrono>
#include <thread>

#include "run_ingest.h"

namespace nimble::gui {
namespace {

struct Slice {
  int64_t first = 0;
  int64_t end = 0;
  LaneSet lanes;
  Status status;
};

// Reads one slice with its own reader (a reader belongs to one thread). `on_batch` runs after each batch.
template <typename OnBatch>
Status ReadSlice(const store::TimelineReader& reader, RunId run, int64_t base_ns, bool with_correlation,
                 RunTimeline& timeline, Slice& slice, const std::atomic<bool>* cancel, OnBatch on_batch) {
  return reader.ReadKernels(run, slice.first, slice.end, with_correlation, [&](std::span<const store::TimelineRow> rows) -> Status {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return Unavailable("loading was cancelled");
    for (const store::TimelineRow& r : rows) {
      slice.lanes.Staging({LaneKind::kStream, r.device.value(), r.stream.value()})
          .Add(r.start_ns - base_ns, r.end_ns - base_ns, r.name.value(),
               ItemRef(ItemKind::kKernel, static_cast<uint32_t>(r.index)));
      // Slices write disjoint elements, so no lock is needed.
      if (with_correlation) timeline.kernel_correlation[static_cast<size_t>(r.index)] = r.correlation.value();
    }
    on_batch(static_cast<int64_t>(rows.size()));
    return OkStatus();
  });
}

}  // namespace

Status ReadKernels(const store::TimelineReader& reader, RunId run, int64_t kernel_end, int64_t base_ns, bool with_correlation,
                   const LoadOptions& options, double progress_from, double progress_to, LaneSet& lanes,
                   RunTimeline& timeline) {
  const int64_t threads =
      std::clamp<int64_t>(std::min<int64_t>(options.kernel_threads, kernel_end / std::max<int64_t>(options.min_kernels_per_thread, 1)), 1, 8);
  if (with_correlation) timeline.kernel_correlation.assign(static_cast<size_t>(kernel_end), -1);
  std::vector<Slice> slices(static_cast<size_t>(threads));
  for (int64_t i = 0; i < threads; ++i) {
    slices[static_cast<size_t>(i)].first = kernel_end * i / threads;
    slices[static_cast<size_t>(i)].end = kernel_end * (i + 1) / threads;
  }
  std::atomic<int64_t> rows_read{0};
  std::atomic<size_t> helpers_done{0};
  const auto report = [&] {
    if (!options.progress) return;
    const double done = static_cast<double>(rows_read.load()) / static_cast<double>(std::max<int64_t>(kernel_end, 1));
    options.progress(progress_from + (progress_to - progress_from) * done, "Reading kernels");
  };
  const std::string path = reader.path();  // helpers open their own readers: one reader per thread
  std::vector<std::thread> helpers;
  for (size_t i = 1; i < slices.size(); ++i) {
    helpers.emplace_back([&, i] {
      Slice& slice = slices[i];
      auto own = store::TimelineReader::Open(path);
      slice.status = own.ok() ? ReadSlice(**own, run, base_ns, with_correlation, timeline, slice, options.cancel,
                                          [&](int64_t n) { rows_read += n; })
                              : own.status();
      ++helpers_done;  // also on failure: the calling thread waits for every helper
    });
  }
  // The calling thread reads the first slice and alone reports progress, for all slices.
  const Status first_status = ReadSlice(reader, run, base_ns, with_correlation, timeline, slices[0], options.cancel,
                                        [&](int64_t n) { rows_read += n; report(); });
  // Keep the progress moving while the other slices finish.
  while (helpers_done.load() < helpers.size()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    report();
  }
  for (std::thread& t : helpers) t.join();
  NIMBLE_RETURN_IF_ERROR(first_status);
  for (Slice& slice : slices) {
    NIMBLE_RETURN_IF_ERROR(slice.status);
    lanes.Absorb(std::move(slice.lanes));
  }
  return OkStatus();
}

}  // namespace nimble::gui
