// The one way a loaded model.nimble becomes a captured graph, shared by Runner and TensorRunner: the
// float32 precision the outputs were checked with is set first (cuBLAS and cuDNN pick their math when
// the kernels are launched, i.e. at capture), then the capture. Private to accelerate/src.
#pragma once

#include <memory>
#include <string>

#include "nimble/accelerate/aot_graph.h"
#include "nimble/accelerate/artifact.h"
#include "nimble/accelerate/runner.h"
#include "nimble/core/status.h"

namespace nimble::accelerate {

StatusOr<std::unique_ptr<AotGraph>> CaptureArtifact(const LoadedArtifact& artifact, const std::string& path,
                                                    const RunnerOptions& options);

}  // namespace nimble::accelerate
