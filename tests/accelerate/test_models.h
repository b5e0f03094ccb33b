// Small TorchScript models the tests build and save themselves (no model file lives in the
// repository), and files that are not models, for the bad-input tests. Every call writes a new file
// under a per-process temporary folder, removed when the test program ends. Call from one thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nimble::testing {

enum class TestModel {
  kChain,            // conv2d -> relu -> view (folded) -> matmul; input [1,3,8,8]
  kForkJoin,         // conv2d, then conv2d+relu | sigmoid | max_pool2d, cat, tanh; input [1,3,8,8]
  kInPlaceResidual,  // y = conv(x); z = relu(y); y.add_(sigmoid(x)); z + y; input [1,3,8,8]
  kInPlaceAfterCat,  // a = relu(x); c = cat([a, a]); a.mul_(2.0); c + a; input [2,3]
  kFoldedPlumbing,   // relu feeding views, size(), flatten, dropout, chunk and a real copy; input [2,3,4]
  kHostShapeMath,    // padding computed from x.size() with 0-dim tensor ops, as traced models do
  kConvBatchNorm,    // conv2d -> batch_norm -> relu; the batch norm folds only when optimizing
  kTwoInputs,        // relu(x) + sigmoid(y); inputs [2,3] and [2,3]
  kViewsOnly,        // only views of the input: no op launches GPU work
  kDynamicIf,        // branches on the sum of the input
  kDynamicLoop,      // loops input.size(0) times: a trip count TorchScript cannot fold
  kConstantIf,       // branches on a bool attribute, a constant once frozen
  kConstantLoop,     // loops range(3): unrolled
};

std::string SaveTestModel(TestModel model);

// A model from TorchScript source: `source` defines forward, which may use self.w0, self.w1, ...:
// random tensors of the shapes in `parameters`, and self.training (the loader must turn it off).
std::string SaveModelFromSource(const std::string& source, const std::vector<std::vector<int64_t>>& parameters);

std::string WriteRandomBytes(size_t bytes, uint32_t seed);
std::string WriteZipHeaderThenGarbage();
std::string WriteZipWithoutModel();           // a valid zip archive holding no TorchScript module
std::string WriteTruncatedModel();            // the first half of a valid model file
std::string WriteEmptyFile();
std::string TestDir();

}  // namespace nimble::testing
