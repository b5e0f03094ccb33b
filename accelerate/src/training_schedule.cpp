// Lifting a training-mode forward into a schedulable graph, planning it and rewriting it for streams
// (training_schedule.h).
#include "training_schedule.h"

#include <ATen/ops/_foreach_add.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/loop_unrolling.h>
#include <torch/csrc/jit/passes/remove_mutation.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "graph_extractor.h"
#include "loaded_model_impl.h"
#include "nimble/analysis/dag.h"
#include "nimble/analysis/stream_plan.h"
#include "node_names.h"
#include "shape_run.h"
#include "static_shapes.h"
#include "tensor_types.h"
#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

using torch::jit::Block;
using torch::jit::Graph;
using torch::jit::Node;
using torch::jit::Value;

// Every method and function call replaced by the callee's graph as written. (torch::jit::Inline takes a
// callee's optimized graph, which, once the module has run, its executor may have left with the calls
// not inlined.)
void InlineAsWritten(Graph& graph) {
  bool inlined = true;
  while (inlined) {
    inlined = false;
    std::vector<Block*> blocks{graph.block()};
    while (!blocks.empty() && !inlined) {
      Block* block = blocks.back();
      blocks.pop_back();
      for (Node* node : block->nodes()) {
        if (node->kind() == c10::prim::CallMethod || node->kind() == c10::prim::CallFunction) {
          if (torch::jit::GraphFunction* callee = torch::jit::tryToGraphFunction(node)) {
            if (node->kind() == c10::prim::CallFunction) node->removeInput(0);  // the function itself
            torch::jit::inlineCallTo(node, callee, /*use_graph=*/true);
            inlined = true;
            break;
          }
        }
        for (Block* inner : node->blocks()) blocks.push_back(inner);
      }
    }
  }
}

// Every attribute read replaced: module objects followed, tensors made graph inputs (one per tensor),
// anything else a constant. Returns the lifted tensors in input order.
std::vector<at::Tensor> LiftAttributes(Graph& graph, const torch::jit::Module& module, const std::string& path) {
  std::unordered_map<const Value*, c10::IValue> objects{{graph.inputs()[0], module._ivalue()}};
  std::unordered_map<const c10::TensorImpl*, Value*> lifted;
  std::vector<at::Tensor> tensors;
  std::vector<Node*> reads;
  std::vector<Block*> blocks{graph.block()};
  while (!blocks.empty()) {
    Block* block = blocks.back();
    blocks.pop_back();
    for (Node* node : block->nodes()) {
      for (Block* inner : node->blocks()) blocks.push_back(inner);
      if (node->kind() == c10::prim::SetAttr) {
        throw std::runtime_error(path + ": the forward assigns a module attribute (" + DescribeNode(*node) + ")");
      }
      if (node->kind() != c10::prim::GetAttr) continue;
      const auto owner = objects.find(node->input());
      if (owner == objects.end() || !owner->second.isObject()) {
        throw std::runtime_error(path + ": an attribute read of something other than the module: " + DescribeNode(*node));
      }
      const c10::IValue value = owner->second.toObjectRef().getAttr(node->s(c10::attr::name));
      reads.push_back(node);
      if (value.isObject()) {
        objects[node->output()] = value;
      } else if (value.isTensor()) {
        const at::Tensor& tensor = value.toTensor();
        auto [it, fresh] = lifted.try_emplace(tensor.unsafeGetTensorImpl(), nullptr);
        if (fresh) {
          it->second = graph.addInput("state" + std::to_string(tensors.size()));
          it->second->setType(c10::TensorType::get());
          tensors.push_back(tensor);
        }
        node->output()->replaceAllUsesWith(it->second);
      } else {
        torch::jit::WithInsertPoint at(node);
        node->output()->replaceAllUsesWith(graph.insertConstant(value));
      }
    }
  }
  // Reads of objects are read by later reads: destroy from the last.
  for (auto it = reads.rbegin(); it != reads.rend(); ++it) {
    if (!(*it)->hasUses()) (*it)->destroy();
  }
  return tensors;
}

// A branch with no outputs where one side raises and the other does nothing: a check.
bool IsRaiseOnly(const Node& node) {
  if (node.kind() != c10::prim::If || !node.outputs().empty()) return false;
  int32_t raising = 0, empty = 0;
  for (const Block* block : node.blocks()) {
    if (block->nodes().begin() == block->nodes().end()) {
      ++empty;
      continue;
    }
    for (const Node* inner : block->nodes()) {
      if (inner->kind() == c10::prim::RaiseException) {
        ++raising;
        break;
      }
    }
  }
  return raising >= 1 && raising + empty == static_cast<int32_t>(node.blocks().size());
}

// Host arithmetic only: no tensor in or out, nothing raised, no side effect and nothing written (a list
// filled by aten::append, say), in every nested block.
bool IsHostArithmetic(const Block& block) {
  for (const Node* node : block.nodes()) {
    if (node->kind() == c10::prim::RaiseException || node->hasSideEffects()) return false;
    if (const c10::FunctionSchema* schema = node->maybeSchema()) {
      for (const c10::Argument& arg : schema->arguments()) {
        if (arg.alias_info() != nullptr && arg.alias_info()->isWrite()) return false;
      }
    }
    for (const Value* v : node->inputs()) {
      if (ContainsTensor(v->type())) return false;
    }
    for (const Value* v : node->outputs()) {
      if (ContainsTensor(v->type())) return false;
    }
    for (const Block* inner : node->blocks()) {
      if (!IsHostArithmetic(*inner)) return false;
    }
  }
  return true;
}

// Batch norm's batch-size check (training_schedule.h): the raise-only branch, then the loops that only
// fed it. Returns how many nodes went.
int32_t DropShapeChecks(Graph& graph) {
  int32_t dropped = 0;
  for (auto it = graph.nodes().begin(); it != graph.nodes().end();) {
    Node* node = *it++;
    if (IsRaiseOnly(*node)) {
      node->destroy();
      ++dropped;
    }
  }
  torch::jit::EliminateDeadCode(graph.block());
  std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    Node* node = *it;
    if (node->kind() != c10::prim::Loop || node->hasUses()) continue;
    if (std::all_of(node->blocks().begin(), node->blocks().end(), [](const Block* b) { return IsHostArithmetic(*b); })) {
      node->destroy();
      ++dropped;
    }
  }
  torch::jit::EliminateDeadCode(graph.block());
  return dropped;
}

// Batch norm's step counters: `state.add_(n)` on a lifted tensor that no other node reads (momentum is
// fixed, so nothing reads the count), with constant integers. Alias analysis takes every graph input for
// a possible alias of every other, so such a write would be ordered against every op that reads a weight,
// and the forward would have no width left. Nothing else reads these tensors, so the increments are taken
// out of the graph and made after the forward, one multi-tensor add per amount. Returns them.
std::vector<std::pair<size_t, int64_t>> HoistCounterIncrements(Graph& graph, size_t first_state) {
  std::vector<std::pair<size_t, int64_t>> increments;
  for (auto it = graph.nodes().begin(); it != graph.nodes().end();) {
    Node* node = *it++;
    if (node->kind() != c10::aten::add_ || node->inputs().size() != 3 || node->output()->hasUses()) continue;
    const Value* target = node->input(0);
    if (target->node()->kind() != c10::prim::Param || target->offset() < first_state || target->uses().size() != 1) {
      continue;
    }
    const auto other = torch::jit::toIValue(node->input(1));
    const auto alpha = torch::jit::toIValue(node->input(2));
    if (!other || !alpha || !other->isInt() || !alpha->isInt()) continue;
    increments.emplace_back(target->offset() - first_state, other->toInt() * alpha->toInt());
    node->destroy();
  }
  return increments;
}

std::string RemainingControlFlow(const Graph& graph) {
  for (const Node* node : graph.nodes()) {
    if (!node->blocks().empty()) return DescribeNode(*node);
  }
  return "";
}

StatusOr<std::vector<TensorSpec>> Specs(const std::vector<at::Tensor>& tensors, const std::string& path) {
  std::vector<TensorSpec> specs;
  for (const at::Tensor& t : tensors) {
    const std::optional<DType> dtype = FromScalarType(t.scalar_type());
    if (!dtype) {
      return FailedPrecondition(path + ": a tensor of dtype " + std::string(c10::toString(t.scalar_type())) +
                                " in the forward, which the stream plan does not take");
    }
    TensorSpec spec;
    spec.shape = t.sizes().vec();
    spec.dtype = *dtype;
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace

StatusOr<TrainingSchedule> ScheduleTrainingForward(const torch::jit::Module& module,
                                                   const std::vector<at::Tensor>& example_inputs,
                                                   const std::string& path, int32_t max_streams) {
  auto impl = std::make_shared<LoadedModel::Impl>();
  impl->path = path;
  impl->device = example_inputs.at(0).device().str();
  impl->module = module;
  TrainingSchedule schedule;
  try {
    std::shared_ptr<Graph> graph = module.get_method("forward").graph()->copy();
    if (graph->inputs().size() != 1 + example_inputs.size()) {
      return FailedPrecondition(path + ": the forward takes " + std::to_string(graph->inputs().size() - 1) +
                                " arguments and " + std::to_string(example_inputs.size()) +
                                " example inputs were given: the planned forward passes each one");
    }
    InlineAsWritten(*graph);
    schedule.state = LiftAttributes(*graph, module, path);
    torch::jit::ConstantPropagation(graph);
    DropShapeChecks(*graph);
    torch::jit::UnrollConstantLoops(graph);
    torch::jit::ConstantPropagation(graph);
    torch::jit::RemoveListMutation(graph);
    torch::jit::EliminateDeadCode(graph);
    for (const auto& [index, amount] : HoistCounterIncrements(*graph, 1 + example_inputs.size())) {
      if (index >= schedule.state.size()) throw std::runtime_error("a step counter outside the lifted state");
      std::vector<at::Tensor>* group = nullptr;
      for (auto& [n, tensors] : schedule.increments) {
        if (n == amount) group = &tensors;
      }
      if (group == nullptr) group = &schedule.increments.emplace_back(amount, std::vector<at::Tensor>{}).second;
      group->push_back(schedule.state[index]);
    }
    if (const std::string flow = RemainingControlFlow(*graph); !flow.empty()) {
      return FailedPrecondition(path + ": the training forward keeps control flow at " + flow +
                                ": the multi-stream forward needs a straight-line graph");
    }
    impl->graph = graph;
  } catch (const std::exception& e) {
    return FailedPrecondition(path + ": the training forward cannot be planned on streams: " + TorchMessage(e));
  }
  std::vector<at::Tensor> graph_inputs = example_inputs;
  graph_inputs.insert(graph_inputs.end(), schedule.state.begin(), schedule.state.end());
  NIMBLE_ASSIGN_OR_RETURN(impl->inputs, Specs(graph_inputs, path));
  std::unordered_set<const c10::StorageImpl*> storages;
  impl->distinct_inputs = true;
  for (const at::Tensor& t : graph_inputs) {
    if (!t.has_storage() || !storages.insert(t.storage().unsafeGetStorageImpl()).second) impl->distinct_inputs = false;
  }
  NIMBLE_ASSIGN_OR_RETURN(ShapeRun run, RunForShapes(*impl));
  NIMBLE_ASSIGN_OR_RETURN(const int32_t folded, FoldShapeQueries(*impl, run));
  if (folded > 0) {
    NIMBLE_ASSIGN_OR_RETURN(run, RunForShapes(*impl));
  }
  NIMBLE_ASSIGN_OR_RETURN(const OpGraph ops, ExtractOpGraph(*impl, run));
  schedule.ops = static_cast<int32_t>(ops.ops.size());
  NIMBLE_ASSIGN_OR_RETURN(const analysis::Dag dag, analysis::Dag::FromOpGraph(ops));
  analysis::PlanOptions plan_options;
  plan_options.max_streams = max_streams;
  const analysis::StreamPlan plan = analysis::PlanStreams(dag, plan_options);
  schedule.width = plan.concurrency.width;
  const StreamAssignment& assignment = max_streams == 1 ? plan.single : plan.multi;
  schedule.streams = assignment.num_streams;
  schedule.syncs = static_cast<int32_t>(assignment.syncs.size());
  if (max_streams != 1 && plan.multi.num_streams < 2) {
    return FailedPrecondition(path + ": the training forward has no width to run on several streams (" +
                              std::to_string(schedule.ops) + " ops, logical concurrency " +
                              std::to_string(schedule.width) + ")");
  }
  RewriteOptions rewrite;
  rewrite.cross_stream_free = CrossStreamFree::kAfterLastReader;
  NIMBLE_ASSIGN_OR_RETURN(schedule.scheduled, RewriteForStreams(LoadedModel(impl), ops, assignment, rewrite));
  const c10::Device device = example_inputs[0].device();
  if (!device.is_cuda()) return schedule;  // no streams: the operators do nothing, the forward runs as planned
  NIMBLE_ASSIGN_OR_RETURN(schedule.context,
                          StreamContext::Create(device.has_index() ? device.index() : c10::cuda::current_device(),
                                                schedule.streams, schedule.scheduled.summary.num_events));
  return schedule;
}

c10::IValue RunScheduledForward(TrainingSchedule& schedule, const std::vector<at::Tensor>& inputs) {
  torch::jit::GraphOptimizerEnabledGuard eager_autograd(false);
  std::vector<c10::IValue> args(inputs.begin(), inputs.end());
  args.insert(args.end(), schedule.state.begin(), schedule.state.end());
  StreamContextScope scope(schedule.context.get());
  try {
    c10::IValue out = schedule.scheduled.model.impl().module.forward(std::move(args));
    for (auto& [amount, tensors] : schedule.increments) at::_foreach_add_(tensors, c10::Scalar(amount));
    return out;
  } catch (...) {
    if (schedule.context != nullptr) schedule.context->Abort();
    throw;
  }
}

void JoinSideStreams(TrainingSchedule& schedule) {
  if (schedule.context != nullptr) schedule.context->JoinSideStreams();
}

}  // namespace nimble::accelerate
