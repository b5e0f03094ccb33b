// The environment through which `nimble-prof record` configures the injection library inside the
// profiled program. Header-only and free of CUPTI: the launcher is built even without CUDA.
// Constants only; no threading concerns.
#pragma once

namespace nimble::collector::env {

inline constexpr const char* kOutput = "NIMBLE_OUTPUT";                  // run database path (required)
inline constexpr const char* kKinds = "NIMBLE_KINDS";                    // "kernel,memcpy,..." or "all"
inline constexpr const char* kIterationRange = "NIMBLE_ITERATION_RANGE";  // NVTX range name per iteration
inline constexpr const char* kStartDelayMs = "NIMBLE_START_DELAY_MS";    // capture starts after this delay
inline constexpr const char* kCaptureRange = "NIMBLE_CAPTURE_RANGE";     // capture only inside this NVTX range
inline constexpr const char* kGraphTrace = "NIMBLE_GRAPH_TRACE";         // "node" (default) or "graph"
inline constexpr const char* kKernelTimestamps = "NIMBLE_KERNEL_TIMESTAMPS";  // "software" (default) or "hardware"
inline constexpr const char* kTargetPid = "NIMBLE_TARGET_PID";           // only this process records
inline constexpr const char* kSimulateCuptiFailure = "NIMBLE_SIMULATE_CUPTI_FAILURE";  // tests the fallback

// Set by the launcher; read by the CUDA driver and by NVTX.
inline constexpr const char* kCudaInjection = "CUDA_INJECTION64_PATH";
inline constexpr const char* kNvtxInjection = "NVTX_INJECTION64_PATH";

}  // namespace nimble::collector::env
