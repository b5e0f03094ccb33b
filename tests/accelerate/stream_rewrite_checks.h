// Helpers of the stream-rewrite tests (stream_rewrite_test.cpp, stream_rewrite_freeing_test.cpp): counting
// the nimble:: operators in IR text, and CheckSchedule, which rewrites a model, checks the operators
// inserted, round-trips it through a model.nimble and compares its outputs with the frozen model's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nimble/accelerate/host_tensor.h"
#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/stream_rewrite.h"

namespace nimble::accelerate::rewrite_checks {

int Count(const std::string& text, const std::string& needle);
// How often the assignment's stream changes along `order` (empty: op order), each a nimble::set_stream.
int StreamChanges(const StreamAssignment& assignment, const std::vector<int32_t>& order = {});
std::vector<HostTensor> Inputs(const std::vector<std::vector<int64_t>>& shapes, uint64_t seed);
RewriteOptions Freeing(CrossStreamFree how);
// Rewrites `model` with `assignment`, checks the inserted operators, saves and reloads the result
// and compares outputs with the frozen model's. Returns the rewrite (no model on failure).
ScheduledModel CheckSchedule(const ModelGraph& model, const std::vector<std::vector<int64_t>>& shapes,
                             const StreamAssignment& assignment, const RewriteOptions& options = {});
// CheckSchedule with Algorithm 1's assignment, capped at `max_streams`. Returns its stream count.
int32_t CheckRewrite(const std::string& path, const std::vector<std::vector<int64_t>>& shapes, int32_t max_streams);
// relu, tanh, sigmoid, add, mul with tanh on a side stream: relu's tensor crosses to it and back.
inline constexpr const char* kSideTanh = R"(
def forward(self, x):
    a = torch.relu(x)
    b = torch.tanh(a)
    c = torch.sigmoid(x)
    d = b + c
    return d * 2.0
)";

// kSideTanh's five ops with tanh on stream 1: a sync into it and one back.
StreamAssignment SideTanhAssignment();
// The first line of the IR text that contains `needle`, or "".
std::string LineWith(const std::string& text, const std::string& needle);

}  // namespace nimble::accelerate::rewrite_checks
