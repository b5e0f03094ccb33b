#include "accelerate_command.h"

#include <algorithm>
#include <iostream>
#include <string>

#include "command.h"
#include "nimble/analysis/gpu_sharing.h"
#include "nimble/workflow/accelerate_json.h"
#include "nimble/workflow/format.h"
#include "progress_printer.h"

namespace nimble::cli {
namespace {

constexpr const char* kTool = "nimble-accelerate";
using workflow::FormatMiB;
using workflow::FormatMs;
using workflow::FormatRatio;

workflow::ModeChoice ParseMode(const std::string& mode) {
  if (mode == "single") return workflow::ModeChoice::kSingle;
  if (mode == "multi") return workflow::ModeChoice::kMulti;
  return workflow::ModeChoice::kAuto;
}

}  // namespace

void AddAccelerateOptions(CLI::App& app, AccelerateArgs& args) {
  workflow::AccelerateOptions& o = args.options;
  app.add_option("model", o.model, "model file: a torch.export program (.pt2) or TorchScript (.pt)")->required();
  app.add_option("--input", args.inputs, "input per forward argument, SHAPE[:DTYPE[:LOW..HIGH]], e.g. 1x3x224x224, 1x128:int64:0..30521, "
                 "1x3x224x224:float16 (default for a .pt2: the shapes and dtypes of its signature)");
  app.add_option("--batch-sizes", o.batch_sizes,
                 "several input shapes in one model.nimble: the --input shapes with dimension 0 set to each, e.g. "
                 "1,2,4,8; each is scheduled, captured and timed on its own, and the runners pick one by the input shape")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--bucket", args.buckets,
                 "one input shape of several in one model.nimble, its inputs separated by commas "
                 "(2x128:int64,2x128:int64); repeat for each (instead of --batch-sizes and --input)");
  app.add_option("-o,--output", o.output, "where to write the optimized runner (model.nimble)")->required();
  app.add_flag("--cuda-fusions", o.cuda_fusions,
               "use the front end's cuDNN conv+relu fusions (slower in fp32 without TF32 on the models measured)");
  app.add_flag("!--no-conv-epilogues", o.conv_epilogues,
               "keep ATen's separate bias-add, residual-add and activation kernels after each convolution "
               "(default: one kernel of Nimble's own for the three)");
  app.add_option("--memory-format", o.memory_format,
                 "the convolutions' layout: auto (channels_last for float16/bfloat16 convolutions, none depthwise; "
                 "with depthwise ones, the model's kernels recorded in both layouts and the faster kept), "
                 "contiguous (NCHW, as the file holds them), channels_last (weights converted, 4-D inputs on entry) "
                 "or measure (any model with convolutions recorded in both layouts, the faster kept)")
      ->check(CLI::IsMember({"auto", "contiguous", "channels_last", "measure"}))
      ->capture_default_str();
  app.add_flag("--tf32", o.tf32,
               "let cuDNN use TF32 for fp32 convolutions, as PyTorch does by default (all sides: baseline, "
               "capture, output check; recorded in model.nimble); default: IEEE fp32 throughout");
  app.add_option("--db", o.db, "run database (made if missing): op times from a nimble-prof run of this model, else "
                 "the model recorded into it; results and the recorded replays go there");
  app.add_option("--calibration", o.calibration,
                 "how concurrent kernels share the GPU in the multi-stream prediction: a file written by nimble-prof "
                 "calibrate (default: the calibration built in for this GPU, if any)");
  app.add_option("--dump-graphs", o.dump_graphs_dir,
                 "write each captured CUDA graph as Graphviz dot into this directory (made if missing): every "
                 "node with its type and kernel, every edge, and as closing comments the edges' dependency types (each programmatic "
                 "one by its nodes' handles); aot-single-1-streams.dot, aot-multi-N-streams[-seeded].dot, "
                 "a subdirectory bucket-K per bucket")
      ->type_name("DIR");
  app.add_flag_callback("--no-record", [&o] { o.record_kernels = false; },
               "without a --db run of this model, time each op alone for the prediction instead of recording the "
               "model's kernels with the collector (faster, less accurate)");
  app.add_option("--record-replays", o.record_replays,
                 "with --db: replays of each captured mode recorded with the collector and stored as its run, beside "
                 "the model's own recording when this call makes one, for nimble-gui and report (0: results only)")
      ->check(CLI::Range(0, 10000))
      ->capture_default_str();
  app.add_option("--iters", o.iters, "timed iterations per mode (median reported)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--max-streams", o.max_streams, "cap on multi-stream capture streams (0: no cap); streams that never "
                 "overlap share one")->check(CLI::Range(0, 1024));
  app.add_option_function<double>(
         "--memory-budget", [&o](double mib) { o.memory_budget_bytes = static_cast<int64_t>(mib * (1 << 20)); },
         "MiB the multi-stream mode may take above the weights and inputs (peak reserved of its warm-up and capture): "
         "its schedule is folded onto half as many streams until it fits, then onto the most streams that fit "
         "(bisection), else single-stream is chosen")
      ->check(CLI::PositiveNumber);
  app.add_option("--memory-ratio", o.memory_budget_ratio,
                 "the same bound as a multiple of single-stream's measured peak, e.g. 1.5 (with --memory-budget: the "
                 "smaller of the two)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--single-stream-only", o.single_stream_only, "capture the single-stream schedule only");
  app.add_flag_callback("--no-seed-pool", [&o] { o.seed_pool = false; },
                        "capture each mode once: without seeding its graph pool per stream (by default a mode "
                        "is captured again with each stream's pool seeded by one segment of the size the "
                        "allocator trace predicts it needs, and that capture is kept when its pool is smaller)");
  CLI::Option* keep = app.add_flag("--keep-cross-stream-values", o.keep_cross_stream_values,
                                   "hold every value read on another stream until the streams join instead of "
                                   "freeing it after its last reader (more memory; for comparison)");
  app.add_flag("--record-cross-stream-values", o.record_cross_stream_values,
               "free a value read on another stream after each reader with the allocator's record_stream instead of "
               "releasing it on its producer's stream once every reader is ordered before (for comparison)")
      ->excludes(keep);
  app.add_flag("--unpacked-streams", o.unpacked_streams,
               "one capture stream per chain of the assignment instead of packing chains that never overlap onto one "
               "stream (more memory; for comparison)");
  app.add_flag("--keep-memset-nodes", o.keep_memset_nodes,
               "leave the captured graphs' memset nodes as they are instead of replacing each small one with a "
               "kernel writing the same bytes (slower replays; for comparison: nimble-run always replaces them)");
  app.add_option_function<std::string>(
         "--smem-carveout", [&o](const std::string& v) { o.smem_carveout = v == "keep" ? -1 : std::stoi(v); },
         "the shared-memory carveout asked for on the captured graphs' kernels without shared memory, in percent of "
         "the most an SM offers, or keep: each kernel's own; asked of both modes, and recorded in model.nimble "
         "for nimble-run (default: the multi-stream graph instantiated both ways, 100 % kept where measured >1% faster)")
      ->check(CLI::IsMember({"keep"}) | CLI::Range(0, 100));
  app.add_flag("--cross-stream-reuse", o.cross_stream_reuse,
               "capture the multi-stream schedule on one stream with its streams as branches of the graph, ops "
               "interleaved as they run, so that the graph's memory pool reuses blocks across streams (each reuse "
               "ordered after the free); less memory, some concurrency traded for it; under a memory budget, each "
               "stream count is tried on real streams first");
  app.add_option("--branch-release-delay", o.branch_release_delay,
                 "with --cross-stream-reuse: hold each value until its stream reaches this fraction of the simulated "
                 "run past its last reader, so that its memory is reused later (more memory, fewer waits; default 0)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option_function<double>(
         "--branch-hold-max-mib", [&o](double mib) { o.branch_hold_max_bytes = static_cast<int64_t>(mib * 1024 * 1024); },
         "with --branch-release-delay: hold longer only the values of ops whose outputs take at most this many MiB "
         "(by the single-stream capture's allocator trace; default: every op's)")
      ->check(CLI::PositiveNumber);
  app.add_option_function<std::string>(
         "--branch-hold-order",
         [&o](const std::string& order) {
           o.branch_hold_order = order == "wait" ? workflow::BranchHoldOrder::kWait : workflow::BranchHoldOrder::kSize;
         },
         "with --cross-stream-reuse and a memory budget: which values its holds keep first, those costing the fewest "
         "bytes per microsecond of wait saved in a simulated run (wait, the default) or the smallest outputs (size)")
      ->check(CLI::IsMember({"size", "wait"}));
  app.add_flag("--allow-eager-fallback", o.allow_eager_fallback,
               "when the model cannot be captured, time it eagerly instead of failing");
  app.add_option("--device", o.device, "CUDA device (cuda or cuda:N)");
  app.add_option("--mode", args.mode, "schedule written to model.nimble: auto (multi-stream only when measured "
                 "faster by more than 3%), single or multi")->check(CLI::IsMember({"auto", "single", "multi"}));
  app.add_flag("--json", args.json, "print the results as JSON (the keys of the Python AccelerateReport) instead of the table");
}

int RunAccelerate(AccelerateArgs& args) {
  auto shapes = workflow::ParseInputSpecs(args.inputs);
  if (!shapes.ok()) {
    PrintError(kTool, shapes.status());
    return kExitUsage;
  }
  args.options.inputs = std::move(*shapes);
  for (const std::string& text : args.buckets) {
    auto bucket = workflow::ParseBucketSpec(text);
    if (!bucket.ok()) {
      PrintError(kTool, bucket.status());
      return kExitUsage;
    }
    args.options.buckets.push_back(std::move(*bucket));
  }
  Status buckets = OkStatus();
  if (!args.options.buckets.empty() && !args.options.batch_sizes.empty()) {
    buckets = InvalidArgument("--batch-sizes and --bucket both give the buckets: use one");
  } else if (!args.options.buckets.empty() && !args.options.inputs.empty()) {
    buckets = InvalidArgument("--bucket gives every input of its bucket: leave out --input");
  } else if (!args.options.batch_sizes.empty()) {
    buckets = workflow::CheckBatchSizes(args.options.batch_sizes);  // the inputs may come from a .pt2 later
  } else {
    buckets = workflow::CheckBuckets(args.options.buckets);
  }
  if (!buckets.ok()) {
    PrintError(kTool, buckets);
    return kExitUsage;
  }
  args.options.mode = ParseMode(args.mode);
  ProgressPrinter printer(kTool, /*quiet=*/false);
  auto result = workflow::Accelerate(args.options, printer.Callback());
  if (!result.ok()) {
    PrintError(kTool, result.status());
    // No --input, and the model records none (TorchScript, dynamic shapes): a usage error.
    return result.status().message().starts_with("--input is required") ? kExitUsage : kExitFailure;
  }
  if (args.json) {
    std::cout << workflow::AccelerateResultToJson(*result).dump(2) << "\n";
    return kExitOk;
  }
  if (!result->eager_fallback_reason.empty()) {
    std::cerr << kTool << ": " << result->eager_fallback_reason << "\n"
              << kTool << ": falling back to eager execution as asked: no CUDA graph, no model.nimble written\n";
    std::cout << "libtorch (module.forward) median " << result->baseline_ms << " ms\n";
    return kExitOk;
  }
  if (result->buckets.empty()) {
    PrintAccelerateTable(*result, std::cout);
  } else {
    for (const workflow::AccelerateResult& bucket : result->buckets) {
      std::cout << "## bucket " << bucket.inputs << "\n\n";
      PrintAccelerateTable(bucket, std::cout);
      std::cout << "\n";
    }
    PrintBucketTable(*result, std::cout);
  }
  const std::vector<workflow::AccelerateResult> one = {*result};
  for (const workflow::AccelerateResult& r : result->buckets.empty() ? one : result->buckets) {
    if (r.stored_runs.empty()) continue;
    std::cout << (result->buckets.empty() ? "" : "bucket " + r.inputs + ": ") << "stored runs";
    for (size_t i = 0; i < r.stored_runs.size(); ++i) {
      std::cout << (i == 0 ? " " : " and ") << RunModeName(r.stored_runs[i]);
    }
    std::cout << " in " << args.options.db;
    for (size_t i = 0; i < r.recorded_runs.size(); ++i) {
      std::cout << (i == 0 ? " (" : " and ") << RunModeName(r.recorded_runs[i]);
      if (i + 1 == r.recorded_runs.size()) {
        std::cout << " with " << args.options.record_replays << " recorded replays; nimble-gui " << args.options.db
                  << " shows the runs one above another)";
      }
    }
    std::cout << "\n";
    if (r.eager_run >= 0) std::cout << "the model's own recording is run " << r.eager_run << " of " << args.options.db << "\n";
  }
  std::cout << "wrote " << args.options.output << "\n";
  return kExitOk;
}

void PrintBucketTable(const workflow::AccelerateResult& r, std::ostream& out) {
  out << "## buckets\n\n";
  out << "| inputs | libtorch ms | aot-single ms | aot-multi ms | multi vs single | predicted multi vs single | runs | "
         "capture ms (single / multi) | graph pool MiB (chosen) |\n";
  out << "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const workflow::AccelerateResult& b : r.buckets) {
    const bool multi = b.multi.captured;
    const workflow::ModeResult& chosen = b.chosen == RunMode::kAotMulti ? b.multi : b.single;
    out << "| " << b.inputs << " | " << FormatMs(b.baseline_ms) << " | " << FormatMs(b.single.median_ms) << " | "
        << (multi ? FormatMs(b.multi.median_ms) : "-") << " | "
        << (multi ? FormatRatio(b.single.median_ms, b.multi.median_ms) : "-") << " | "
        << (multi ? FormatRatio(workflow::SingleStreamReference(b), b.multi.predicted_ms) : "-") << " | "
        << RunModeName(b.chosen) << " | " << FormatMs(static_cast<double>(b.single.capture_ns) / 1e6) << " / "
        << (multi ? FormatMs(static_cast<double>(b.multi.capture_ns) / 1e6) : "-") << " | "
        << FormatMiB(chosen.graph_pool_bytes) << " |\n";
  }
  out << "\nmodel.nimble: " << r.buckets.size() << " buckets in one module, " << FormatMiB(r.artifact_bytes)
      << " MiB on disk, " << r.shared_weights << " weight tensors of later buckets stored once\n";
  out << "graph pools: " << FormatMiB(r.shared_pool_bytes) << " MiB in one shared pool, as its runners capture it ("
      << FormatMs(static_cast<double>(r.shared_capture_ns) / 1e6) << " ms for all captures), against "
      << FormatMiB(r.separate_pool_bytes) << " MiB for the buckets' captures above, a pool each\n";
}

// The multi-stream graph's carveout where both ways were measured (Session::KeepFasterCarveout).
void PrintCarveout(const workflow::AccelerateResult& r, std::ostream& out) {
  const workflow::ModeResult& m = r.multi;
  if (m.carveout_alternate_ms <= 0) return;
  auto carveout = [&](int32_t percent) {
    return percent < 0 ? std::string("each kernel's own")
                       : std::to_string(percent) + " % on its " + std::to_string(m.carveout_nodes) +
                             " kernels without shared memory";
  };
  out << "shared-memory carveout of the multi-stream graph: " << carveout(m.smem_carveout) << " (" << FormatMs(m.median_ms)
      << " ms), kept against " << carveout(m.carveout_alternate) << " (" << FormatMs(m.carveout_alternate_ms)
      << " ms; a carveout is kept only where more than 1% faster)\n";
}

// The captures' graph pools (predicted, seeded), branch capture, memset nodes and carveout, a line each
// where any.
void PrintCaptureDetails(const workflow::AccelerateResult& r, std::ostream& out) {
  std::string predicted;
  for (const workflow::ModeResult* mode : {&r.single, &r.multi}) {
    if (!mode->captured || mode->predicted_graph_pool_bytes < 0) continue;
    int64_t own_peaks = 0;
    for (const auto& stream : mode->predicted_pool_streams) own_peaks += stream.peak_allocated_bytes;
    predicted += std::string(predicted.empty() ? "" : "; ") + std::string(RunModeName(mode->mode)) + " " +
                 FormatMiB(mode->predicted_graph_pool_bytes) + " MiB (measured " + FormatMiB(mode->graph_pool_bytes) +
                 "), in use at most " + FormatMiB(mode->predicted_pool_peak_allocated_bytes) + " MiB at once";
    if (mode->predicted_pool_streams.size() > 1) {
      predicted += ", " + FormatMiB(own_peaks) + " MiB as the sum of each stream's own peak";
    }
  }
  if (!predicted.empty()) out << "graph pool predicted from the single-stream capture's allocator requests: " << predicted << "\n";
  if (r.multi.captured && !r.multi.pool_seed_bytes.empty()) {
    const auto seeded = std::count_if(r.multi.pool_seed_bytes.begin(), r.multi.pool_seed_bytes.end(), [](int64_t b) { return b > 0; });
    if (r.multi.branch_capture) {
      out << "multi-stream pool seeded on its one capture stream: " << FormatMiB(r.multi.graph_pool_bytes) << " MiB";
    } else {
      out << "multi-stream pool seeded on " << seeded << " of " << r.multi.schedule.num_streams << " streams: "
          << FormatMiB(r.multi.graph_pool_bytes) << " MiB";
    }
    if (r.multi.unseeded_graph_pool_bytes >= 0) {
      // The unseeded capture has the carveout the seeded one was captured with: where the seeded one's
      // measured alternate was kept, the seeded time to compare is the other executable's.
      const bool kept_alternate = r.multi.carveout_alternate_ms > 0 && r.multi.carveout_alternate < 0;
      const double seeded_ms = kept_alternate ? r.multi.carveout_alternate_ms : r.multi.median_ms;
      out << " against " << FormatMiB(r.multi.unseeded_graph_pool_bytes) << " MiB captured unseeded (replay "
          << FormatMs(seeded_ms) << " against " << FormatMs(r.multi.unseeded_median_ms) << " ms)";
    } else {
      out << (r.multi.branch_capture ? " (the memory budget's trials hold its unseeded capture too)"
                                     : " (the memory budget's trials were captured seeded)");
    }
    out << "\n";
  }
  if (r.multi.captured && r.multi.branch_capture) {
    out << "multi-stream captured on one stream, its " << r.multi.schedule.num_streams << " streams as branches of the graph"
        << (r.multi.branch_interleaved ? " (ops interleaved)" : " (ops in graph order)") << ": " << r.multi.reused_blocks
        << " allocations reused memory freed on another branch, ordered after it by " << r.multi.hazard_edges
        << " added dependencies";
    if (r.multi.delayed_values > 0) {
      out << "; " << r.multi.delayed_values << " values held longer";
      if (r.multi.branch_hold_max_bytes > 0) out << " (ops whose outputs take up to " << FormatMiB(r.multi.branch_hold_max_bytes) << " MiB)";
      if (r.multi.branch_hold_max_bytes_per_us > 0) {
        out << " (those costing up to " << static_cast<int64_t>(r.multi.branch_hold_max_bytes_per_us / 1024)
            << " KiB per us of wait saved)";
      }
    }
    out << " (its prediction simulates real streams, without those dependencies)\n";
  }
  const workflow::ModeResult& memsets = r.single.captured ? r.single : r.multi;
  if (memsets.memset_nodes_replaced > 0 || memsets.memset_nodes_kept > 0) {
    out << "memset nodes in the captured graph: " << memsets.memset_nodes_replaced << " run as kernels, "
        << memsets.memset_nodes_kept << " left as memsets\n";
  }
  PrintCarveout(r, out);
}

void PrintAccelerateTable(const workflow::AccelerateResult& r, std::ostream& out) {
  out << "model " << r.model << " (" << r.inputs << ") on " << r.device << ": " << r.num_ops << " ops"
      << (r.channels_last ? " (convolutions channels_last)" : "") << ", " << r.width_streams
      << " chains (streams of the assignment), |E'| " << r.reduced_edges << ", |M| " << r.matched_edges << "\nprediction: " << r.op_time_source << "; replay costs "
      << workflow::ReplayCostsText(r.replay_costs) << ", " << r.replay_cost_source << "; GPU sharing "
      << analysis::SharingModelText(r.replay_costs.sharing) << "\n";
  if (!r.anchor_text.empty()) out << r.anchor_text << "\n";
  out << "\n";
  out << "| mode | measured ms | predicted ms | vs libtorch | streams | syncs | max rel err | peak MiB alloc / reserved | graph pool MiB |\n";
  out << "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  out << "| libtorch (module.forward) | " << FormatMs(r.baseline_ms) << " | " << FormatMs(r.predicted_eager_ms)
      << " | 1.00x | 1 | 0 | - | " << FormatMiB(r.baseline_peak_allocated_bytes) << " / "
      << FormatMiB(r.baseline_peak_reserved_bytes) << " | - |\n";
  for (const workflow::ModeResult* mode : {&r.single, &r.multi}) {
    if (!mode->captured) continue;
    out << "| " << RunModeName(mode->mode) << " | " << FormatMs(mode->median_ms) << " | "
        << FormatMs(mode->predicted_ms) << " | " << FormatRatio(r.baseline_ms, mode->median_ms) << " | "
        << mode->schedule.num_streams << " | " << mode->schedule.syncs.size() << " | " << mode->max_rel_error << " | "
        << FormatMiB(mode->peak_allocated_bytes) << " / " << FormatMiB(mode->peak_memory_bytes) << " | "
        << FormatMiB(mode->graph_pool_bytes) << " |\n";
  }
  out << "\nmulti-stream vs single-stream: measured " << FormatRatio(r.single.median_ms, r.multi.median_ms)
      << ", predicted " << FormatRatio(workflow::SingleStreamReference(r), r.multi.predicted_ms)
      << (r.multi.predicted_unanchored_ms >= 0 ? " (against the measured single-stream replay it is anchored on)" : "")
      << "\n";
  out << "max rel err: against the frozen graph the captures came from, run by libtorch";
  if (!r.output_reference.empty()) {
    out << "; against " << r.output_reference << ":";
    for (const workflow::ModeResult* mode : {&r.single, &r.multi}) {
      if (mode->captured) out << " " << RunModeName(mode->mode) << " " << mode->max_rel_error_unmodified;
    }
  }
  if (r.unmodified_error_float32 >= 0) {
    out << "; against it computed in float32:";
    for (const workflow::ModeResult* mode : {&r.single, &r.multi}) {
      if (mode->captured && mode->max_rel_error_float32 >= 0) {
        out << " " << RunModeName(mode->mode) << " " << mode->max_rel_error_float32;
      }
    }
    out << ", the file's model at its dtype " << r.unmodified_error_float32;
  }
  out << "\n";
  out << "memory above the weights and inputs; peaks of warm-up and capture (AoT) or of the forward (libtorch)\n";
  PrintCaptureDetails(r, out);
  out << "preparation (assignment + rewrite + capture): " << FormatMs(static_cast<double>(r.prep_ns) / 1e6) << " ms\n";
  if (!r.memory_choice.empty()) out << r.memory_choice << "\n";
  out << "model.nimble runs " << RunModeName(r.chosen) << ": " << r.choice_reason << "\n";
  for (const std::string& line : workflow::Diagnose(r)) out << "prediction off by more than 15%: " << line << "\n";
}

}  // namespace nimble::cli
