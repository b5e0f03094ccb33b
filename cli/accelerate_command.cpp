// nimble-accelerate's steps, each a function returning Status; RunAccelerate strings them together
// and turns the first failure into a message and exit code.
#include "accelerate_command.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "accelerate_inputs.h"
#include "accelerate_plan.h"
#include "accelerate_report.h"
#include "accelerate_session.h"
#include "nimble/accelerate/capturability.h"
#include "nimble/accelerate/cuda_devices.h"

namespace nimble::cli {
namespace {

constexpr const char* kTool = "nimble-accelerate";

Status CheckArgs(const AccelerateArgs& args) {
  std::error_code error;
  if (!std::filesystem::exists(args.model, error)) return NotFound(args.model + ": no such file");
  if (CudaDeviceCount() == 0) {
    return Unavailable("no CUDA device: ahead-of-time capture needs a GPU, and this machine has none "
                       "(nimble-prof report still works on recorded runs)");
  }
  return OkStatus();
}

// Refused ops end the run unless the user asked for the eager fallback, which times libtorch only.
int HandleUncapturable(const AccelerateArgs& args, Session& session, const Status& refusal) {
  if (!args.allow_eager_fallback) {
    PrintError(kTool, refusal);
    std::cerr << kTool << ": (--allow-eager-fallback times the model with libtorch instead; no model.nimble)\n";
    return kAotExitFailure;
  }
  std::cerr << kTool << ": " << refusal.message() << "\n"
            << kTool << ": falling back to eager execution as asked: no CUDA graph, no model.nimble written\n";
  auto baseline = session.TimeBaseline(args.iters);
  if (!baseline.ok()) return PrintError(kTool, baseline.status());
  std::cout << "libtorch (module.forward) median " << *baseline << " ms\n";
  return kAotExitOk;
}

}  // namespace

void AddAccelerateOptions(CLI::App& app, AccelerateArgs& args) {
  app.add_option("model", args.model, "TorchScript model file (model.pt)")->required();
  app.add_option("--input", args.inputs, "input shape per forward argument, e.g. 1x3x224x224")->required();
  app.add_option("-o,--output", args.output, "where to write the optimized runner (model.nimble)")->required();
  app.add_flag("--cuda-fusions", args.cuda_fusions,
               "use the front end's cuDNN conv+relu fusions (slower in fp32 without TF32 on the models measured)");
  app.add_flag("--tf32", args.tf32,
               "let cuDNN use TF32 for fp32 convolutions, as PyTorch does by default (all sides: baseline, "
               "capture, output check; recorded in model.nimble); default: IEEE fp32 throughout");
  app.add_option("--db", args.db, "run database: op times from a nimble-prof run of this model, and where results go");
  app.add_option("--iters", args.iters, "timed iterations per mode (median reported)")->check(CLI::Range(1, 100000));
  app.add_option("--max-streams", args.max_streams, "cap on capture streams (0: no cap)")->check(CLI::Range(0, 1024));
  app.add_flag("--single-stream-only", args.single_stream_only, "capture the single-stream schedule only");
  app.add_flag("--allow-eager-fallback", args.allow_eager_fallback,
               "when the model cannot be captured, time it eagerly instead of failing");
  app.add_option("--device", args.device, "CUDA device (cuda or cuda:N)");
  app.add_option("--mode", args.mode, "schedule written to model.nimble: auto (multi-stream only when measured "
                 "faster by more than 3%), single or multi")->check(CLI::IsMember({"auto", "single", "multi"}));
}

int RunAccelerate(const AccelerateArgs& args) {
  auto shapes = ParseShapes(args.inputs);
  if (!shapes.ok()) {
    PrintError(kTool, shapes.status());
    return kAotExitUsage;
  }
  if (Status status = CheckArgs(args); !status.ok()) return PrintError(kTool, status);
  Session session(args, *shapes);
  if (Status status = session.Load(); !status.ok()) return PrintError(kTool, status);
  if (Status capturable = CheckCapturable(session.model().model); !capturable.ok()) {
    return HandleUncapturable(args, session, capturable);
  }
  if (Status status = session.PlanAndCapture(); !status.ok()) return PrintError(kTool, status);
  if (Status status = session.CheckOutputs(); !status.ok()) return PrintError(kTool, status);
  if (Status status = session.Measure(); !status.ok()) return PrintError(kTool, status);
  if (Status status = session.Predict(); !status.ok()) return PrintError(kTool, status);
  session.Choose();
  PrintTable(session.result(), std::cout);
  if (!args.db.empty()) {
    if (Status status = StoreResults(args.db, session.result(), session.model().graph); !status.ok()) {
      return PrintError(kTool, status);
    }
    std::cout << "stored runs aot-single" << (session.result().multi.captured ? " and aot-multi" : "") << " in "
              << args.db << "\n";
  }
  if (Status status = session.Save(); !status.ok()) return PrintError(kTool, status);
  std::cout << "wrote " << args.output << "\n";
  return kAotExitOk;
}

}  // namespace nimble::cli
