// What the ahead-of-time GPU tests share: the skip without a device, the three-branch test model, and
// a capture of a model on a stream assignment.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "nimble/accelerate/aot_graph.h"
#include "nimble/accelerate/cuda_devices.h"
#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/stream_rewrite.h"
#include "nimble/core/schedule.h"

namespace nimble::accelerate {

#define SKIP_WITHOUT_GPU() \
  if (CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device"

// Three independent chains of six small convolutions, joined at the end.
inline constexpr const char* kThreeBranches = R"(
def forward(self, x):
    a = x
    b = x
    c = x
    for i in range(6):
        a = torch.relu(torch.conv2d(a, self.w0, None, [1, 1], [1, 1]))
        b = torch.relu(torch.conv2d(b, self.w1, None, [1, 1], [1, 1]))
        c = torch.relu(torch.conv2d(c, self.w2, None, [1, 1], [1, 1]))
    return a + b + c
)";

inline FrontEndOptions OnGpu() {
  FrontEndOptions options;
  options.device = "cuda";
  return options;
}

struct Captured {
  ScheduledModel scheduled;
  std::unique_ptr<AotGraph> graph;
};

inline Captured Capture(const ModelGraph& model, const StreamAssignment& assignment) {
  Captured captured;
  StatusOr<ScheduledModel> scheduled = RewriteForStreams(model.model, model.graph, assignment);
  EXPECT_TRUE(scheduled.ok()) << scheduled.status().ToString();
  if (!scheduled.ok()) return captured;
  captured.scheduled = std::move(*scheduled);
  StatusOr<std::unique_ptr<AotGraph>> graph = AotGraph::Capture(captured.scheduled.model);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  if (graph.ok()) captured.graph = std::move(*graph);
  return captured;
}

}  // namespace nimble::accelerate
