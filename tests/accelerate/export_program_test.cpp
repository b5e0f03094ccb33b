// The torch.export front end on the committed fixtures (tests/accelerate/data/export, written by
// make_export_fixtures.py with torch 2.11): each program loads, its forward matches the eager outputs
// recorded at export time, its input infos match the recorded inputs, and it survives save and
// reload; each damaged or unsupported archive gives its own status code and a message that names the
// file and the problem; a bounded fuzz pass over damaged copies of the good ones. CPU only.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <cctype>

#include <algorithm>
#include <filesystem>
#include <random>

#include <unistd.h>
#include <fstream>
#include <string>
#include <vector>

#include "export_program.h"
#include "tensor_types.h"
#include "test_models.h"
#include "nimble/accelerate/model_graph.h"
#include "nimble/accelerate/model_timing.h"
#include "nimble/analysis/concurrency.h"
#include "nimble/analysis/dag.h"

namespace nimble::accelerate {
namespace {

namespace fs = std::filesystem;

fs::path DataDir() { return fs::path(NIMBLE_SOURCE_DIR) / "tests" / "accelerate" / "data" / "export"; }

struct RecordedRun {
  std::vector<at::Tensor> inputs;
  std::vector<at::Tensor> outputs;
};

// <name>.io.pt: torch.save({"inputs": [...], "outputs": [...]}).
RecordedRun ReadRecordedRun(const std::string& name) {
  std::ifstream in(DataDir() / (name + ".io.pt"), std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const c10::Dict<c10::IValue, c10::IValue> dict = torch::jit::pickle_load(bytes).toGenericDict();
  RecordedRun run;
  for (const c10::IValue& tensor : dict.at("inputs").toListRef()) run.inputs.push_back(tensor.toTensor());
  for (const c10::IValue& tensor : dict.at("outputs").toListRef()) run.outputs.push_back(tensor.toTensor());
  return run;
}

std::vector<at::Tensor> Forward(torch::jit::Module& module, const std::vector<at::Tensor>& inputs) {
  std::vector<c10::IValue> stack(inputs.begin(), inputs.end());
  const c10::IValue result = module.forward(stack);
  if (result.isTensor()) return {result.toTensor()};
  std::vector<at::Tensor> outputs;
  for (const c10::IValue& element : result.toTupleRef().elements()) outputs.push_back(element.toTensor());
  return outputs;
}

// Tolerances: the module and eager PyTorch run the same ATen kernels on the same CPU, so float32
// results agree to rounding; 1e-4 relative leaves room for a different reduction order. Half
// precision keeps about 3 significant digits.
struct Tolerance {
  double rtol;
  double atol;
};

void ExpectMatches(const std::vector<at::Tensor>& actual, const std::vector<at::Tensor>& expected, Tolerance tol,
                   const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].scalar_type(), expected[i].scalar_type()) << what << " output " << i;
    ASSERT_EQ(actual[i].sizes(), expected[i].sizes()) << what << " output " << i;
    EXPECT_TRUE(at::allclose(actual[i], expected[i], tol.rtol, tol.atol))
        << what << " output " << i << ": largest difference "
        << (actual[i].to(at::kDouble) - expected[i].to(at::kDouble)).abs().max().item<double>();
  }
}

struct GoodCase {
  const char* name;
  Tolerance tol;
  std::vector<std::string> input_names;
};

std::ostream& operator<<(std::ostream& out, const GoodCase& c) { return out << c.name; }

class GoodProgram : public ::testing::TestWithParam<GoodCase> {
 protected:
  std::string Path() const { return (DataDir() / (std::string(GetParam().name) + ".pt2")).string(); }
};

TEST_P(GoodProgram, LoadsAndMatchesEagerOutputs) {
  const RecordedRun run = ReadRecordedRun(GetParam().name);
  ExportProgramInfo info;
  StatusOr<torch::jit::Module> module = LoadExportProgram(Path(), c10::Device(c10::kCPU), &info);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_EQ(info.schema_major, 8);
  EXPECT_GE(info.schema_minor, 17);
  EXPECT_EQ(info.torch_version.rfind("2.11", 0), 0u) << info.torch_version;
  EXPECT_EQ(info.num_outputs, run.outputs.size());
  ASSERT_EQ(info.inputs.size(), run.inputs.size());
  for (size_t i = 0; i < run.inputs.size(); ++i) {
    EXPECT_EQ(info.inputs[i].name, GetParam().input_names.at(i));
    EXPECT_EQ(info.inputs[i].shape, run.inputs[i].sizes().vec()) << info.inputs[i].name;
    EXPECT_EQ(info.inputs[i].dtype, run.inputs[i].scalar_type()) << info.inputs[i].name;
  }
  ExpectMatches(Forward(*module, run.inputs), run.outputs, GetParam().tol, Path());
}

// What the pipeline expects of a frozen graph: self plus the user inputs, weights as constants,
// and only registered operators, list and tuple plumbing in between.
TEST_P(GoodProgram, GraphLooksFrozen) {
  StatusOr<torch::jit::Module> module = LoadExportProgram(Path(), c10::Device(c10::kCPU), nullptr);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  const auto graph = module->get_method("forward").graph();
  graph->lint();
  EXPECT_EQ(graph->inputs().size(), 1 + GetParam().input_names.size());
  size_t aten_nodes = 0;
  size_t tensor_constants = 0;
  for (const torch::jit::Node* node : graph->nodes()) {
    EXPECT_TRUE(node->blocks().empty());
    const c10::Symbol kind = node->kind();
    if (kind.is_aten()) {
      ++aten_nodes;
      EXPECT_NE(node->maybeOperator(), nullptr) << *node;
    } else if (kind == c10::prim::Constant) {
      tensor_constants += node->output()->type()->cast<c10::TensorType>() != nullptr;
    } else {
      EXPECT_TRUE(kind == c10::prim::ListConstruct || kind == c10::prim::ListUnpack ||
                  kind == c10::prim::TupleConstruct)
          << *node;
    }
  }
  EXPECT_GT(aten_nodes, 0u);
  if (std::string(GetParam().name) != "split_outputs") {
    EXPECT_GT(tensor_constants, 0u);  // weights became constants
  }
}

TEST_P(GoodProgram, SurvivesSaveAndReload) {
  const RecordedRun run = ReadRecordedRun(GetParam().name);
  StatusOr<torch::jit::Module> module = LoadExportProgram(Path(), c10::Device(c10::kCPU), nullptr);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  const fs::path saved = fs::temp_directory_path() / ("nimble_export_" + std::string(GetParam().name) + ".pt");
  module->save(saved.string());
  torch::jit::Module reloaded = torch::jit::load(saved.string());
  fs::remove(saved);
  ExpectMatches(Forward(reloaded, run.inputs), run.outputs, GetParam().tol, saved.string());
}

TEST_P(GoodProgram, IsRecognisedByContent) { EXPECT_TRUE(LooksLikeExportArchive(Path())); }

// The signature alone (no weights read) gives the inputs a command uses without --input: the shapes and
// dtypes the program was exported with.
TEST_P(GoodProgram, SignatureGivesTheRecordedInputs) {
  const RecordedRun run = ReadRecordedRun(GetParam().name);
  StatusOr<std::vector<TensorSpec>> specs = RecordedInputs(Path());
  ASSERT_TRUE(specs.ok()) << specs.status().ToString();
  ASSERT_EQ(specs->size(), run.inputs.size());
  for (size_t i = 0; i < run.inputs.size(); ++i) {
    EXPECT_EQ((*specs)[i].shape, run.inputs[i].sizes().vec());
    EXPECT_EQ(ToScalarType((*specs)[i].dtype), run.inputs[i].scalar_type());
  }
}

constexpr Tolerance kFloat32{1e-4, 1e-5};
constexpr Tolerance kHalf{1e-2, 1e-3};

INSTANTIATE_TEST_SUITE_P(Fixtures, GoodProgram,
                         ::testing::Values(GoodCase{"cnn_branches", kFloat32, {"x"}},
                                           GoodCase{"cnn_core_aten", kFloat32, {"x"}},
                                           GoodCase{"transformer_block", kFloat32, {"x"}},
                                           GoodCase{"token_embedding", kFloat32, {"tokens"}},
                                           GoodCase{"two_in_two_out", kFloat32, {"x", "y"}},
                                           GoodCase{"split_outputs", kFloat32, {"x"}},
                                           GoodCase{"half_mlp", kHalf, {"x"}},
                                           GoodCase{"op_mix", kFloat32, {"x", "index"}},
                                           GoodCase{"op_mix_core_aten", kFloat32, {"x", "index"}},
                                           GoodCase{"scalar_for_tensor", kFloat32, {"x"}}),
                         [](const auto& info) { return std::string(info.param.name); });

HostTensor ToHost(const at::Tensor& tensor) {
  const at::Tensor values = tensor.to(at::kFloat).contiguous();
  HostTensor host{tensor.sizes().vec(), std::vector<float>(values.data_ptr<float>(), values.data_ptr<float>() + values.numel())};
  host.dtype = *FromScalarType(tensor.scalar_type());
  return host;
}

at::Tensor FromHost(const HostTensor& host) {
  return at::from_blob(const_cast<float*>(host.data.data()), host.shape, at::kFloat).clone();
}

// FrontEndOptions::widen_to_float32 on a float16 program: the outputs are float32 and are the program's
// computation in float32 (not its float16 outputs widened), close to the float16 ones recorded at export.
TEST(ExportProgram, AHalfPrecisionProgramWidenedComputesInFloat32) {
  const RecordedRun run = ReadRecordedRun("half_mlp");
  const std::string path = (DataDir() / "half_mlp.pt2").string();
  TensorSpec spec;
  spec.shape = run.inputs[0].sizes().vec();
  spec.dtype = DType::kFloat32;
  StatusOr<ModelGraph> widened = LoadModelGraph(path, {spec}, FrontEndOptions{.optimize = false, .widen_to_float32 = true});
  ASSERT_TRUE(widened.ok()) << widened.status().ToString();
  const std::vector<HostTensor> inputs = WidenedToFloat32({ToHost(run.inputs[0])});
  ASSERT_EQ(inputs[0].dtype, DType::kFloat32);
  StatusOr<std::vector<HostTensor>> outputs = RunOnce(widened->model, inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), 1U);
  EXPECT_EQ((*outputs)[0].dtype, DType::kFloat32);
  const at::Tensor output = FromHost((*outputs)[0]);
  EXPECT_TRUE(at::allclose(output, run.outputs[0].to(at::kFloat), 1e-2, 1e-2));
  EXPECT_FALSE(at::equal(output, output.to(at::kHalf).to(at::kFloat))) << "values a float16 computation would give";
}

// A dtype argument that names float16 names float32 once widened, and a float16 weight becomes float32:
// the module computes what its float32 twin does.
TEST(ExportProgram, WideningRewritesDtypeArgumentsAndWeights) {
  torch::jit::Module module(c10::QualifiedName("__torch__.HalfCast"));
  const at::Tensor weight = at::randn({4, 3}, at::TensorOptions().dtype(at::kFloat)).to(at::kHalf);
  module.register_parameter("weight", weight, /*is_buffer=*/false);
  // 5 is torch.float16's ScalarType, the form a dtype argument takes in the graph.
  module.define("def forward(self, x):\n  return torch.matmul(x.to(5), self.weight).to(5) * 3\n");
  const fs::path path = fs::temp_directory_path() / ("nimble_half_cast_" + std::to_string(::getpid()) + ".pt");
  module.save(path.string());
  const at::Tensor x = at::randn({2, 4});
  TensorSpec spec;
  spec.shape = {2, 4};
  StatusOr<ModelGraph> widened =
      LoadModelGraph(path.string(), {spec}, FrontEndOptions{.optimize = false, .widen_to_float32 = true});
  ASSERT_TRUE(widened.ok()) << widened.status().ToString();
  StatusOr<std::vector<HostTensor>> outputs = RunOnce(widened->model, {ToHost(x)});
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  EXPECT_EQ((*outputs)[0].dtype, DType::kFloat32);
  const at::Tensor expected = at::matmul(x, weight.to(at::kFloat)) * 3;  // x.to(float16) now keeps x as it is
  EXPECT_TRUE(at::allclose(FromHost((*outputs)[0]), expected, 1e-5, 1e-6))
      << (FromHost((*outputs)[0]) - expected).abs().max().item<double>();
  // Without widening, the same file computes in float16.
  StatusOr<ModelGraph> plain = LoadModelGraph(path.string(), {spec}, FrontEndOptions{.optimize = false});
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  StatusOr<std::vector<HostTensor>> half = RunOnce(plain->model, {ToHost(x)});
  ASSERT_TRUE(half.ok()) << half.status().ToString();
  EXPECT_EQ((*half)[0].dtype, DType::kFloat16);
  fs::remove(path);
}

TEST(ExportProgram, RecordedInputsNeedAProgramWithStaticShapes) {
  const std::string torchscript = nimble::testing::SaveTestModel(nimble::testing::TestModel::kForkJoin);
  StatusOr<std::vector<TensorSpec>> none = RecordedInputs(torchscript);
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(none.status().message().find(torchscript), std::string::npos) << none.status().message();
  EXPECT_NE(none.status().message().find("--input"), std::string::npos) << none.status().message();
  EXPECT_EQ(RecordedInputs("/nonexistent/model.pt2").status().code(), StatusCode::kInvalidArgument);
}

TEST(ExportProgram, RecognisesOnlyExportArchives) {
  EXPECT_FALSE(LooksLikeExportArchive((DataDir() / "cnn_branches.io.pt").string()));  // torch.save zip
  EXPECT_FALSE(LooksLikeExportArchive((DataDir() / "bad" / "truncated.pt2").string()));
  EXPECT_FALSE(LooksLikeExportArchive((DataDir() / "bad" / "no_model_json.pt2").string()));
  EXPECT_FALSE(LooksLikeExportArchive((DataDir() / "missing.pt2").string()));
  EXPECT_FALSE(LooksLikeExportArchive(DataDir().string()));
  // A TorchScript archive, whatever its extension.
  torch::jit::Module scripted(c10::QualifiedName("__torch__.Plain"));
  scripted.define("def forward(self, x):\n  return x + 1\n");
  const fs::path script = fs::temp_directory_path() / "nimble_export_plain.pt2";
  scripted.save(script.string());
  EXPECT_FALSE(LooksLikeExportArchive(script.string()));
  fs::remove(script);
}

struct BadCase {
  const char* file;
  StatusCode code;
  std::vector<std::string> message_parts;
};

std::ostream& operator<<(std::ostream& out, const BadCase& c) { return out << c.file; }

class BadProgram : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadProgram, FailsWithItsOwnStatus) {
  const std::string path = (DataDir() / GetParam().file).string();
  ExportProgramInfo info;
  StatusOr<torch::jit::Module> module = LoadExportProgram(path, c10::Device(c10::kCPU), &info);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), GetParam().code) << module.status().ToString();
  EXPECT_NE(module.status().message().find(path), std::string::npos) << module.status().message();
  for (const std::string& part : GetParam().message_parts) {
    EXPECT_NE(module.status().message().find(part), std::string::npos)
        << "'" << part << "' missing from: " << module.status().message();
  }
  EXPECT_EQ(module.status().message().find('\n'), std::string::npos) << module.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, BadProgram,
    ::testing::Values(
        BadCase{"bad/truncated.pt2", StatusCode::kDataLoss, {"corrupt or truncated", "central directory"}},
        BadCase{"bad/future_schema.pt2", StatusCode::kFailedPrecondition, {"schema version 99.0", "supported: 8.x"}},
        BadCase{"bad/unknown_op.pt2", StatusCode::kNotFound,
                {"torch.ops.aten.nimble_no_such_op.default", "aten::nimble_no_such_op", "operator registry"}},
        BadCase{"bad/cond.pt2", StatusCode::kUnimplemented, {"torch.ops.higher_order.cond", "higher-order operator"}},
        BadCase{"bad/buffer_mutation.pt2", StatusCode::kUnimplemented,
                {"torch.ops.aten.add_.Tensor", "buffer 'calls'", "in place"}},
        BadCase{"bad/buffer_mutation_functional.pt2", StatusCode::kUnimplemented,
                {"buffer 'calls'", "buffer_mutation"}},
        BadCase{"bad/malformed_json.pt2", StatusCode::kDataLoss, {"models/model.json", "not valid JSON"}},
        BadCase{"bad/no_model_json.pt2", StatusCode::kDataLoss, {"no serialized program"}},
        BadCase{"cnn_branches.io.pt", StatusCode::kFailedPrecondition, {"not a torch.export program"}},
        BadCase{"missing.pt2", StatusCode::kNotFound, {"missing.pt2: no such file"}}),
    [](const auto& info) {
      std::string name = fs::path(info.param.file).stem().string();
      for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name + (fs::path(info.param.file).extension() == ".pt" ? "_torch_save" : "");
    });

// The schema version is reported even when the program is refused for it.
TEST(ExportProgram, ReportsTheSchemaVersionItRefuses) {
  ExportProgramInfo info;
  const auto module = LoadExportProgram((DataDir() / "bad" / "future_schema.pt2").string(), c10::Device(c10::kCPU),
                                        &info);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(info.schema_major, 99);
  EXPECT_EQ(info.schema_minor, 0);
}

}  // namespace
}  // namespace nimble::accelerate

namespace nimble::accelerate {
namespace {

// The same front end as a .pt: LoadModelGraph tells the .pt2 by its content, folds batch norm into the
// convolutions (OptimizeFrozenGraph, as freezing does for TorchScript), drops the exporter's metadata
// asserts, and extracts the two branches of the CNN as parallel ops.
TEST(ExportFrontEndTest, CnnBecomesAnOpGraphWithBatchNormFolded) {
  const std::string path = (DataDir() / "cnn_branches.pt2").string();
  StatusOr<ModelGraph> optimized = LoadModelGraph(path, {{2, 3, 8, 8}});
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  StatusOr<ModelGraph> plain = LoadModelGraph(path, {{2, 3, 8, 8}}, FrontEndOptions{.optimize = false});
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  auto count = [](const ModelGraph& m, std::string_view fragment) {
    int n = 0;
    for (const Op& op : m.graph.ops) n += op.kind.find(fragment) != std::string::npos ? 1 : 0;
    return n;
  };
  EXPECT_EQ(count(*plain, "batch_norm"), 3);
  EXPECT_EQ(count(*optimized, "batch_norm"), 0);
  EXPECT_EQ(count(*optimized, "aten::conv"), 3);
  EXPECT_EQ(count(*optimized, "conv_epilogue"), 3);  // bias and relu after each, one kernel
  EXPECT_EQ(count(*optimized, "assert"), 0);
  StatusOr<analysis::Dag> dag = analysis::Dag::FromOpGraph(optimized->graph);
  ASSERT_TRUE(dag.ok());
  EXPECT_EQ(analysis::ComputeConcurrency(*dag).width, 2);
  EXPECT_EQ(optimized->model.inputs(), Float32Specs({{2, 3, 8, 8}}));
}

// A program's weights are constants of its graph too, so its convolutions take the memory format asked
// for, in the exporter's aten::conv2d and in core ATen's aten::convolution alike.
TEST(ExportFrontEndTest, ConvolutionsGoChannelsLastWhenAsked) {
  for (const char* name : {"cnn_branches.pt2", "cnn_core_aten.pt2"}) {
    const std::string path = (DataDir() / name).string();
    StatusOr<ModelGraph> nhwc =
        LoadModelGraph(path, {{2, 3, 8, 8}}, FrontEndOptions{.memory_format = MemoryFormat::kChannelsLast});
    ASSERT_TRUE(nhwc.ok()) << nhwc.status().message();
    EXPECT_TRUE(nhwc->channels_last) << name;
    EXPECT_EQ(nhwc->graph.ops.front().kind, "aten::contiguous") << name;
    StatusOr<ModelGraph> automatic = LoadModelGraph(path, {{2, 3, 8, 8}});  // float32: contiguous
    ASSERT_TRUE(automatic.ok()) << automatic.status().message();
    EXPECT_FALSE(automatic->channels_last) << name;
  }
}

TEST(ExportFrontEndTest, TokenIdsGoInAsInt64) {
  const TensorSpec ids{.shape = {2, 6}, .dtype = DType::kInt64, .low = 0, .high = 19};
  StatusOr<ModelGraph> model = LoadModelGraph((DataDir() / "token_embedding.pt2").string(), {ids});
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_GT(model->graph.ops.size(), 2U);
  // Float ids would not index an embedding: the shape run says which node failed.
  StatusOr<ModelGraph> floats = LoadModelGraph((DataDir() / "token_embedding.pt2").string(), {{2, 6}});
  ASSERT_FALSE(floats.ok());
  EXPECT_EQ(floats.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(floats.status().message().find("token_embedding.pt2"), std::string::npos) << floats.status().message();
}

TEST(ExportFrontEndTest, DamagedProgramIsRefusedByTheFrontEnd) {
  const Status status = LoadModelGraph((DataDir() / "bad" / "truncated.pt2").string(), {{2, 3, 8, 8}}).status();
  EXPECT_EQ(status.code(), StatusCode::kDataLoss) << status.message();
  EXPECT_NE(status.message().find("truncated.pt2"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace nimble::accelerate

namespace nimble::accelerate {
namespace {

// A bounded fuzz pass over the reader: every good fixture with random byte flips, truncations and zeroed
// runs (seeded, so a failure reproduces). Whatever the damage, the reader returns a Status and never an
// Internal one, or loads (a flip in a weight's bytes changes a value, not the structure).
TEST(ExportProgramFuzzTest, DamagedArchivesGiveAStatusNeverACrash) {
  const fs::path dir = fs::temp_directory_path() / ("nimble_pt2_fuzz_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::mt19937_64 rng(18);
  int tried = 0;
  for (const char* name : {"cnn_branches", "transformer_block", "token_embedding", "split_outputs", "half_mlp"}) {
    std::ifstream in(DataDir() / (std::string(name) + ".pt2"), std::ios::binary);
    const std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(original.size(), 64U) << name;
    for (int trial = 0; trial < 40; ++trial, ++tried) {
      std::string bytes = original;
      std::uniform_int_distribution<size_t> at(0, bytes.size() - 1);
      switch (trial % 3) {
        case 0:
          for (int k = 0; k < 1 + trial % 7; ++k) bytes[at(rng)] ^= static_cast<char>(1 + rng() % 255);
          break;
        case 1: bytes.resize(at(rng)); break;
        default: {
          const size_t start = at(rng);
          std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(start),
                    bytes.begin() + static_cast<std::ptrdiff_t>(std::min(bytes.size(), start + 64)), '\0');
        }
      }
      const fs::path path = dir / (std::string(name) + "_" + std::to_string(trial) + ".pt2");
      std::ofstream(path, std::ios::binary) << bytes;
      StatusOr<torch::jit::Module> loaded = LoadExportProgram(path.string(), c10::Device("cpu"), nullptr);
      if (!loaded.ok()) {
        EXPECT_NE(loaded.status().code(), StatusCode::kInternal) << path << ": " << loaded.status().message();
        EXPECT_NE(loaded.status().message().find(path.filename().string()), std::string::npos)
            << loaded.status().message();
      }
      fs::remove(path);
    }
  }
  fs::remove_all(dir);
  EXPECT_EQ(tried, 200);
}

}  // namespace
}  // namespace nimble::accelerate
