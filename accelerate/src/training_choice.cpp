// The choice between a training step's captures (TrainingStep::Capture): the module's forward, the
// lifted one on one stream and, where it has width, on several; the multi-stream one also instantiated
// with the shared-memory carveout (smem_carveout.h) where it is measured. Every capture is timed on the
// example batch and the fastest kept (the multi-stream one only when more than 3 % faster than the
// fastest single-stream one under kAuto); the others are destroyed, and the parameters' gradients are
// the kept one's.
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "smem_carveout.h"
#include "training_step_state.h"

namespace nimble::accelerate {
namespace {

using Clock = std::chrono::steady_clock;

// Milliseconds per step of the current capture: `n` steps on the example batch after 3, wall clock.
StatusOr<double> StepMs(TrainingStep& step, TrainingStep::State& s, int32_t n) {
  for (int32_t i = 0; i < 3; ++i) NIMBLE_RETURN_IF_ERROR(step.Step(s.inputs, s.target).status());
  c10::cuda::device_synchronize();
  const Clock::time_point start = Clock::now();
  for (int32_t i = 0; i < n; ++i) NIMBLE_RETURN_IF_ERROR(step.Step(s.inputs, s.target).status());
  c10::cuda::device_synchronize();
  return std::chrono::duration<double>(Clock::now() - start).count() * 1e3 / n;
}

// One candidate capture of the choice: the forward it runs (null: the module as written) and its timing;
// for the multi-stream one with the carveout measured, also its alternate executable's.
struct Candidate {
  std::string name;  // "module", "lifted", "multi-stream"
  std::unique_ptr<TrainingSchedule> schedule;
  StepCapture capture;
  double ms = 0;
  double alternate_ms = 0;  // with kTriedCarveout (CapturedGraph's alternate); 0: none
  std::string carveout_note = {};  // why the carveout was not measured, where it failed
};

// Warms up `c`'s forward (cuDNN's and cuBLAS's state on its streams) and captures the step with it.
Status CaptureCandidate(TrainingStep::State& s, Candidate& c) {
  s.schedule = std::move(c.schedule);
  Status status = [&]() -> Status {
    try {
      c10::cuda::CUDAStreamGuard guard(*s.stream);
      for (int32_t i = 0; i < std::max(2, s.options.warmup_steps); ++i) {
        NIMBLE_RETURN_IF_ERROR(EagerStep(s, s.inputs, s.target, /*scheduled=*/true).status());
      }
      c10::cuda::device_synchronize();
    } catch (const std::exception& e) {
      return FailedPrecondition(s.report.model_path + ": the " + c.name + " forward failed in its warm-up: " +
                                TorchMessage(e));
    }
    return CaptureGraph(s, /*scheduled=*/true);
  }();
  c.schedule = std::move(s.schedule);
  if (status.ok()) c.capture = Park(s);
  return status;
}

// With the carveout measured, the multi-stream capture's graph is given kTriedCarveout on its kernel
// nodes without shared memory and instantiated a second time, as its alternate (smem_carveout.h). The
// first executable is not touched: where this fails, the capture stays as it was and the choice says
// why. (Where each kernel's own carveout is kept, the kept cudaGraph_t's nodes still ask for
// kTriedCarveout; only the executables are replayed.)
void PrepareCarveoutAlternate(const TrainingStep::State& s, Candidate& c) {
  if (s.options.smem_carveout != kMeasureCarveout || c.capture.carveout_nodes == 0) return;
  StatusOr<int32_t> set = SetKernelCarveout(c.capture.graph->raw_cuda_graph(), kTriedCarveout);
  const Status made = set.ok() ? c.capture.graph->InstantiateAlternate() : set.status();
  if (!made.ok()) c.carveout_note = "carveout not measured: " + made.message();
}

// The module's own single-stream capture (already made) and, unless one stream is asked for or the
// forward cannot be planned (`why` says), the lifted forward on one stream and, where it has width, on
// several.
StatusOr<std::vector<Candidate>> MakeCandidates(TrainingStep::State& s, std::string* why) {
  TrainingReport& r = s.report;
  std::vector<Candidate> candidates;
  candidates.push_back(Candidate{.name = "module", .schedule = nullptr, .capture = Park(s)});
  const bool one_stream = s.options.streams == TrainingStreams::kSingle || s.options.max_streams == 1;
  for (const int32_t streams : {1, one_stream ? -1 : s.options.max_streams}) {
    if (streams < 0) break;
    StatusOr<TrainingSchedule> planned = ScheduleTrainingForward(s.module, s.inputs, r.model_path, streams);
    if (!planned.ok()) {
      *why = planned.status().message();
      break;
    }
    Candidate c{.name = streams == 1 ? "lifted" : "multi-stream",
                .schedule = std::make_unique<TrainingSchedule>(std::move(*planned)),
                .capture = {}};
    r.forward_ops = c.schedule->ops;
    r.forward_width = c.schedule->width;
    if (streams != 1) {
      r.multi_streams = c.schedule->streams;
      r.multi_syncs = c.schedule->syncs;
    }
    Status captured = CaptureCandidate(s, c);
    if (captured.ok() && streams != 1) PrepareCarveoutAlternate(s, c);
    if (!captured.ok()) {
      if (s.options.streams == TrainingStreams::kMulti && streams != 1) return captured;
      *why = c.name + " capture failed: " + captured.message();
      break;
    }
    candidates.push_back(std::move(c));
  }
  return candidates;
}

// The graph's alternate executable swapped in for a scope, whatever leaves it.
class AlternateSwapped {
 public:
  AlternateSwapped(CapturedGraph& graph, bool swap) : graph_(swap ? &graph : nullptr) {
    if (graph_ != nullptr) graph_->SwapAlternate();
  }
  ~AlternateSwapped() {
    if (graph_ != nullptr) graph_->SwapAlternate();
  }
  AlternateSwapped(const AlternateSwapped&) = delete;
  AlternateSwapped& operator=(const AlternateSwapped&) = delete;

 private:
  CapturedGraph* graph_;
};

// Times every candidate in two rounds of `choice_steps`, the faster round kept; a capture with an
// alternate executable is timed both ways in each round, the first way alternating between rounds.
Status TimeCandidates(TrainingStep& step, TrainingStep::State& s, std::vector<Candidate>& candidates) {
  const int32_t n = std::max(1, s.options.choice_steps);
  for (int32_t round = 0; round < 2; ++round) {
    for (Candidate& c : candidates) {
      Unpark(s, std::move(c.capture));
      const int32_t ways = s.graph->has_alternate() ? 2 : 1;
      for (int32_t way = 0; way < ways; ++way) {
        const bool alternate = ways == 2 && (way == 0) == (round == 1);
        StatusOr<double> ms = [&] {
          AlternateSwapped swapped(*s.graph, alternate);
          return StepMs(step, s, n);
        }();
        if (!ms.ok()) {
          c.capture = Park(s);
          return ms.status();
        }
        double& slot = alternate ? c.alternate_ms : c.ms;
        slot = round == 0 ? *ms : std::min(slot, *ms);
      }
      c.capture = Park(s);
    }
  }
  return OkStatus();
}

// The multi-stream capture keeps its alternate (kTriedCarveout) only where more than kMinCarveoutGain
// faster; the other executable goes, and its time is reported.
void KeepFasterCarveout(TrainingStep::State& s, Candidate& multi) {
  if (!multi.capture.graph->has_alternate()) return;
  if (multi.alternate_ms < multi.ms * (1.0 - kMinCarveoutGain)) {
    multi.capture.graph->SwapAlternate();
    multi.capture.carveout = kTriedCarveout;
    std::swap(multi.ms, multi.alternate_ms);
  }
  multi.capture.graph->DropAlternate();
  s.report.carveout_other_ms = multi.alternate_ms;
}

// The fastest single-stream candidate, or the multi-stream one where TrainingStreams asks for it or
// (kAuto) it is more than 3 % faster; `choice` says every candidate's time and why.
size_t PickCandidate(TrainingStep::State& s, const std::vector<Candidate>& candidates, bool one_stream,
                     const std::string& why, std::string* choice) {
  TrainingReport& r = s.report;
  size_t single = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].name != "multi-stream" && candidates[i].ms < candidates[single].ms) single = i;
  }
  r.single_ms = candidates[single].ms;
  char text[200];
  std::snprintf(text, sizeof text, "%s forward on one stream %.3f ms", candidates[single].name.c_str(),
                candidates[single].ms);
  *choice = text;
  for (const Candidate& c : candidates) {
    if (&c == &candidates[single]) continue;
    std::snprintf(text, sizeof text, ", %s %.3f ms", c.name == "multi-stream" ? "multi-stream" : (c.name + " forward").c_str(), c.ms);
    *choice += text;
    if (!c.carveout_note.empty()) *choice += " (" + c.carveout_note + ")";
    if (c.alternate_ms > 0) {
      std::snprintf(text, sizeof text, " (carveout %s; %.3f ms %s)",
                    c.capture.carveout == kKeepCarveout ? "each kernel's own" : "100 %", c.alternate_ms,
                    c.capture.carveout == kKeepCarveout ? "with 100 %" : "with each kernel's own");
      *choice += text;
    }
  }
  if (candidates.back().name != "multi-stream") {
    *choice += one_stream && why.empty() ? ": one stream, as asked" : ": one stream (" + why + ")";
    return single;
  }
  r.multi_ms = candidates.back().ms;
  if (s.options.streams == TrainingStreams::kMulti || r.multi_ms < r.single_ms * 0.97) {
    *choice += ": multi-stream kept";
    return candidates.size() - 1;
  }
  *choice += ": multi-stream not more than 3 % faster, so one stream";
  return single;
}

}  // namespace

// With the module's own single-stream capture made (which also shows the step never syncs with the host,
// what dropping batch norm's checks relies on, training_schedule.h): the candidates made, timed and
// one kept, its schedule and gradients the state's; the others are destroyed.
Status ChooseCapture(TrainingStep& step, TrainingStep::State& s) {
  TrainingReport& r = s.report;
  std::string why;
  NIMBLE_ASSIGN_OR_RETURN(std::vector<Candidate> candidates, MakeCandidates(s, &why));
  NIMBLE_RETURN_IF_ERROR(TimeCandidates(step, s, candidates));
  c10::cuda::device_synchronize();  // the captures and executables not kept go below
  if (candidates.back().name == "multi-stream") {
    KeepFasterCarveout(s, candidates.back());
    r.multi_smem_carveout = candidates.back().capture.carveout;
  }
  const bool one_stream = s.options.streams == TrainingStreams::kSingle || s.options.max_streams == 1;
  std::string choice;
  Candidate& chosen = candidates[PickCandidate(s, candidates, one_stream, why, &choice)];
  Unpark(s, std::move(chosen.capture));
  s.schedule = std::move(chosen.schedule);
  r.mode = chosen.name == "multi-stream" ? "aot-multi" : "aot-single";
  r.streams = s.schedule != nullptr ? s.schedule->streams : 1;
  r.syncs = s.schedule != nullptr ? s.schedule->syncs : 0;
  r.forward = chosen.name == "module" ? "module" : "lifted";
  r.choice = choice;
  candidates.clear();  // the device is idle: the other graphs and their memory can go
  return OkStatus();
}

}  // namespace nimble::accelerate
