#include "test_models.h"

#include <ATen/ops/randn.h>
#include <caffe2/serialize/inline_container.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/api/module.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

namespace nimble::testing {
namespace {

namespace fs = std::filesystem;

// Removes the per-process folder when the test program ends.
class TestDirCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(TestDir(), ec);
  }
};
[[maybe_unused]] ::testing::Environment* const kCleanup = ::testing::AddGlobalTestEnvironment(new TestDirCleanup);

std::string NewPath(const std::string& stem, const std::string& ext) {
  static int counter = 0;
  return TestDir() + "/" + stem + "_" + std::to_string(counter++) + ext;
}

struct Source {
  TestModel model;
  std::string code;                               // TorchScript defining forward
  std::vector<std::vector<int64_t>> parameters;   // shapes of self.w0, self.w1, ...
};

const Source kSources[] = {
    {TestModel::kChain, R"(
def forward(self, x):
    y = torch.conv2d(x, self.w0, None, [1, 1], [1, 1])
    y = torch.relu(y)
    return torch.matmul(y.view([1, -1]), self.w1)
)", {{4, 3, 3, 3}, {256, 10}}},
    {TestModel::kForkJoin, R"(
def forward(self, x):
    a = torch.conv2d(x, self.w0, None, [1, 1], [1, 1])
    b1 = torch.relu(torch.conv2d(a, self.w1, None, [1, 1], [1, 1]))
    b2 = torch.sigmoid(a)
    b3 = torch.max_pool2d(a, [3, 3], [1, 1], [1, 1])
    return torch.tanh(torch.cat([b1, b2, b3], 1))
)", {{8, 3, 3, 3}, {8, 8, 3, 3}}},
    {TestModel::kInPlaceResidual, R"(
def forward(self, x):
    y = torch.conv2d(x, self.w0, None, [1, 1], [1, 1])
    z = torch.relu(y)
    y.add_(torch.sigmoid(x))
    return z + y
)", {{3, 3, 3, 3}}},
    {TestModel::kInPlaceAfterCat, R"(
def forward(self, x):
    a = torch.relu(x)
    c = torch.cat([a, a], 0)
    a.mul_(2.0)
    return c + torch.cat([a, a], 0)
)", {}},
    {TestModel::kFoldedPlumbing, R"(
def forward(self, x):
    a = torch.relu(x)
    n = a.size(0)
    b = a.view([n, -1])
    c = b.t().unsqueeze(0).squeeze(0).contiguous()
    d = torch.flatten(a, 1)
    e = torch.dropout(d, 0.5, self.training)
    parts = torch.chunk(e, 2, 1)
    f = torch.sigmoid(parts[0])
    h = torch.tanh(c.reshape([-1]))
    return f, h
)", {}},
    {TestModel::kHostShapeMath, R"(
def forward(self, x):
    y = torch.relu(x)
    h = torch.scalar_tensor(y.size(2))
    p = torch.clamp(torch.ceil(h / 3.0) - 1, 0, 10)
    return torch.sigmoid(torch.constant_pad_nd(y, [int(p), int(p)], 0.0))
)", {}},
    {TestModel::kConvBatchNorm, R"(
def forward(self, x):
    y = torch.conv2d(x, self.w0, self.w1, [1, 1], [1, 1])
    y = torch.batch_norm(y, self.w2, self.w3, self.w4, torch.abs(self.w5), False, 0.1, 1e-5, True)
    return torch.relu(y)
)", {{4, 3, 3, 3}, {4}, {4}, {4}, {4}, {4}}},
    {TestModel::kTwoInputs, R"(
def forward(self, x, y):
    return torch.relu(x) + torch.sigmoid(y)
)", {}},
    {TestModel::kViewsOnly, R"(
def forward(self, x):
    return x.view([-1]).unsqueeze(0).transpose(0, 1)
)", {}},
    {TestModel::kDynamicIf, R"(
def forward(self, x):
    if bool(torch.sum(x) > 0):
        y = torch.relu(x)
    else:
        y = torch.sigmoid(x)
    return y
)", {}},
    {TestModel::kDynamicLoop, R"(
def forward(self, x):
    for _ in range(x.size(0)):
        x = torch.relu(x)
    return x
)", {}},
    {TestModel::kConstantIf, R"(
def forward(self, x):
    if self.use_relu:
        y = torch.relu(x)
    else:
        y = torch.sigmoid(x)
    return y * 2.0
)", {}},
    {TestModel::kConstantLoop, R"(
def forward(self, x):
    for _ in range(3):
        x = torch.relu(x) + 1.0
    return x
)", {}},
};

}  // namespace

std::string TestDir() {
  static const std::string dir = [] {
    const fs::path path = fs::temp_directory_path() / ("nimble_accelerate_test_" + std::to_string(getpid()));
    fs::create_directories(path);
    return path.string();
  }();
  return dir;
}

std::string SaveModelFromSource(const std::string& source, const std::vector<std::vector<int64_t>>& parameters) {
  torch::jit::Module module("TestModel");
  // Starts in training mode, as a model exported from Python may: the loader must switch it off.
  module.register_attribute("training", c10::BoolType::get(), true);
  module.register_attribute("use_relu", c10::BoolType::get(), true);
  for (size_t i = 0; i < parameters.size(); ++i) {
    module.register_parameter("w" + std::to_string(i), at::randn(parameters[i]), /*is_buffer=*/false);
  }
  module.define(source);
  const std::string path = NewPath("model", ".pt");
  module.save(path);
  return path;
}

std::string SaveTestModel(TestModel model) {
  for (const Source& source : kSources) {
    if (source.model == model) return SaveModelFromSource(source.code, source.parameters);
  }
  ADD_FAILURE() << "no source for test model " << static_cast<int>(model);
  return "";
}

std::string WriteRandomBytes(size_t bytes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string data(bytes, '\0');
  for (char& c : data) c = static_cast<char>(rng() & 0xff);
  const std::string path = NewPath("random", ".pt");
  std::ofstream(path, std::ios::binary) << data;
  return path;
}

std::string WriteZipHeaderThenGarbage() {
  const std::string path = NewPath("zip_garbage", ".pt");
  std::ofstream(path, std::ios::binary) << std::string("PK\x03\x04", 4) << std::string(512, 'x');
  return path;
}

std::string WriteZipWithoutModel() {
  const std::string path = NewPath("not_a_model", ".pt");
  caffe2::serialize::PyTorchStreamWriter writer(path);
  const std::string text = "weights of something else";
  writer.writeRecord("data.txt", text.data(), text.size());
  writer.writeEndOfFile();
  return path;
}

std::string WriteTruncatedModel() {
  const std::string model = SaveTestModel(TestModel::kChain);
  std::ifstream in(model, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string path = NewPath("truncated", ".pt");
  std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  return path;
}

std::string WriteEmptyFile() {
  const std::string path = NewPath("empty", ".pt");
  std::ofstream(path, std::ios::binary).flush();
  return path;
}

}  // namespace nimble::testing
