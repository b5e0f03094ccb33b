// Builds the scheduled module: copies the frozen forward graph, inserts the nimble:: stream and event
// operators around the op nodes (ops are numbered in node order, so one forward walk places them),
// and wraps the graph in a new module of its own class so it can be saved.
#include "nimble/accelerate/stream_rewrite.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/alias_analysis.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "loaded_model_impl.h"
#include "stream_context.h"
#include "tensor_types.h"
#include "torch_errors.h"

namespace nimble::accelerate {
namespace {

using torch::jit::Graph;
using torch::jit::Node;
using torch::jit::Value;

Node* InsertNimbleNode(Graph& graph, const char* kind, std::vector<Value*> inputs) {
  Node* node = graph.create(c10::Symbol::fromQualString(kind), inputs, 0);
  return graph.insertNode(node);
}

void InsertIntOp(Graph& graph, const char* kind, int64_t value) {
  Value* constant = graph.insertConstant(c10::IValue(value));
  InsertNimbleNode(graph, kind, {constant});
}

// Ops of the copy, by op id, found through each op node's position in the top block.
std::vector<Node*> MapOpNodes(const Graph& original, Graph& copy, const std::vector<Node*>& op_nodes) {
  std::unordered_map<const Node*, size_t> position;
  size_t index = 0;
  for (const Node* node : original.nodes()) position[node] = index++;
  std::vector<Node*> copy_nodes;
  for (Node* node : copy.nodes()) copy_nodes.push_back(node);
  std::vector<Node*> mapped;
  for (const Node* node : op_nodes) mapped.push_back(copy_nodes[position.at(node)]);
  return mapped;
}

// The op outputs that hold tensors (a tensor, or a list, tuple or optional of them, as
// aten::broadcast_tensors returns).
std::vector<Value*> TensorOutputs(Node* node) {
  std::vector<Value*> values;
  for (Value* output : node->outputs()) {
    if (ContainsTensor(output->type())) values.push_back(output);
  }
  return values;
}

// Each data edge whose ends run on different streams: (producer, reader).
std::vector<std::pair<size_t, size_t>> CrossStreamReads(const OpGraph& graph, const StreamAssignment& assignment) {
  std::vector<std::pair<size_t, size_t>> reads;
  for (const OpEdge& edge : graph.edges) {
    if (edge.kind == EdgeKind::kData && assignment.op_stream[edge.src.value()] != assignment.op_stream[edge.dst.value()]) {
      reads.emplace_back(static_cast<size_t>(edge.src.value()), static_cast<size_t>(edge.dst.value()));
    }
  }
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  return reads;
}

// Keeping every value that crossed streams alive to the join: their memory is never reused within
// the run (the interpreter would free a list once its last element was taken out of it, hence the
// whole outputs are kept).
std::vector<Value*> ValuesKeptToJoin(const std::vector<std::pair<size_t, size_t>>& reads,
                                      const std::vector<Node*>& nodes) {
  std::vector<uint8_t> keep(nodes.size(), 0);
  for (const auto& [src, dst] : reads) keep[src] = 1;
  std::vector<Value*> values;
  for (size_t op = 0; op < keep.size(); ++op) {
    if (keep[op] == 0) continue;
    for (Value* output : TensorOutputs(nodes[op])) values.push_back(output);
  }
  return values;
}

// Freeing them after their last reader instead: right after each cross-stream reader,
// nimble::record_stream marks the producer's tensors as used on the reader's stream, so that the
// caching allocator reuses their blocks only once that stream's work is ordered before the new user
// (by an event in eager runs, by the capture's dependencies in a capture). Values that may share memory
// with the graph's inputs, its constants (the weights) or its outputs are left alone: the run never
// frees them, and a block marked with a side stream must not be freed after that stream is gone (the
// allocator would record an event on it), which those outlive.
int32_t InsertRecordStreams(Graph& graph, const std::vector<std::pair<size_t, size_t>>& reads,
                            const std::vector<Node*>& nodes) {
  torch::jit::AliasDb alias_db(graph.shared_from_this());
  std::vector<Value*> outliving(graph.inputs().begin(), graph.inputs().end());
  outliving.insert(outliving.end(), graph.outputs().begin(), graph.outputs().end());
  for (Node* node : graph.nodes()) {
    if (node->kind() == c10::prim::Constant && ContainsTensor(node->output()->type())) outliving.push_back(node->output());
  }
  std::vector<std::pair<Node*, Value*>> records;
  for (const auto& [src, dst] : reads) {
    for (Value* value : TensorOutputs(nodes[src])) {
      if (!alias_db.mayContainAlias(value, outliving)) records.emplace_back(nodes[dst], value);
    }
  }
  for (const auto& [reader, value] : records) {
    torch::jit::WithInsertPoint guard(reader->next());
    InsertNimbleNode(graph, "nimble::record_stream", {value});
  }
  return static_cast<int32_t>(records.size());
}

// The walk: set_stream where the stream changes, waits before and records after the sync ends.
RewriteSummary InsertStreamOps(Graph& graph, const OpGraph& ops, const StreamAssignment& assignment,
                               const std::vector<Node*>& nodes, const RewriteOptions& options) {
  RewriteSummary summary;
  summary.num_streams = assignment.num_streams;
  summary.num_events = static_cast<int32_t>(assignment.syncs.size());
  std::vector<std::vector<int64_t>> waits(nodes.size()), records(nodes.size());
  for (size_t e = 0; e < assignment.syncs.size(); ++e) {
    records[static_cast<size_t>(assignment.syncs[e].src.value())].push_back(static_cast<int64_t>(e));
    waits[static_cast<size_t>(assignment.syncs[e].dst.value())].push_back(static_cast<int64_t>(e));
  }
  {
    torch::jit::WithInsertPoint guard(graph.block()->nodes().front());
    InsertNimbleNode(graph, "nimble::fork_streams", {});
  }
  int32_t current = 0;
  for (size_t op = 0; op < nodes.size(); ++op) {
    const auto stream = static_cast<int32_t>(assignment.op_stream[op].value());
    {
      torch::jit::WithInsertPoint guard(nodes[op]);
      if (stream != current) {
        InsertIntOp(graph, "nimble::set_stream", stream);
        ++summary.set_stream_nodes;
        current = stream;
      }
      for (int64_t event : waits[op]) InsertIntOp(graph, "nimble::wait_event", event);
      summary.wait_nodes += static_cast<int32_t>(waits[op].size());
    }
    torch::jit::WithInsertPoint guard(nodes[op]->next());
    for (int64_t event : records[op]) InsertIntOp(graph, "nimble::record_event", event);
    summary.record_nodes += static_cast<int32_t>(records[op].size());
  }
  const std::vector<std::pair<size_t, size_t>> reads = CrossStreamReads(ops, assignment);
  std::vector<Value*> keep;
  if (options.cross_stream_free == CrossStreamFree::kAtJoin) {
    keep = ValuesKeptToJoin(reads, nodes);
  } else {
    summary.recorded_values = InsertRecordStreams(graph, reads, nodes);
  }
  summary.kept_values = static_cast<int32_t>(keep.size());
  torch::jit::WithInsertPoint guard(graph.return_node());
  // Any[]: one list holds tensors and lists or tuples of them alike.
  Node* list = graph.insertNode(graph.createList(c10::AnyType::get(), keep));
  InsertNimbleNode(graph, "nimble::join_streams", {list->output()});
  return summary;
}

// A module of a fresh class whose forward is `graph`; the graph's self input takes the new type.
torch::jit::Module WrapInModule(const std::shared_ptr<Graph>& graph) {
  auto unit = std::make_shared<torch::jit::CompilationUnit>();
  torch::jit::Module module(c10::QualifiedName("__torch__.nimble.ScheduledModel"), unit, /*shouldMangle=*/true);
  graph->inputs()[0]->setType(module.type());
  torch::jit::Function* forward =
      unit->create_function(c10::QualifiedName(*module.type()->name(), "forward"), graph);
  module.type()->addMethod(forward);
  return module;
}

Status CheckAssignment(const LoadedModel::Impl& impl, const OpGraph& graph, const StreamAssignment& assignment) {
  if (impl.op_nodes.size() != graph.ops.size() || assignment.op_stream.size() != graph.ops.size()) {
    return InvalidArgument(impl.path + ": stream assignment covers " + std::to_string(assignment.op_stream.size()) +
                           " ops, the graph has " + std::to_string(graph.ops.size()));
  }
  for (const OpEdge& sync : assignment.syncs) {
    if (sync.src.value() >= sync.dst.value()) return InvalidArgument(impl.path + ": a sync points backwards");
  }
  if (impl.graph->inputs().empty() || impl.graph->inputs()[0]->hasUses()) {
    return FailedPrecondition(impl.path + ": the frozen forward still reads module attributes; cannot schedule it");
  }
  return OkStatus();
}

}  // namespace

StatusOr<ScheduledModel> RewriteForStreams(const LoadedModel& frozen, const OpGraph& graph,
                                           const StreamAssignment& assignment, const RewriteOptions& options) {
  RegisterNimbleOps();
  if (frozen.empty()) return InvalidArgument("stream rewrite: no model");
  const LoadedModel::Impl& impl = frozen.impl();
  NIMBLE_RETURN_IF_ERROR(CheckAssignment(impl, graph, assignment));
  try {
    auto copy = impl.graph->copy();
    std::vector<Node*> nodes = MapOpNodes(*impl.graph, *copy, impl.op_nodes);
    ScheduledModel result;
    result.summary = InsertStreamOps(*copy, graph, assignment, nodes, options);
    copy->lint();
    auto scheduled = std::make_shared<LoadedModel::Impl>();
    scheduled->path = impl.path;
    scheduled->device = impl.device;
    scheduled->module = WrapInModule(copy);
    scheduled->graph = copy;
    scheduled->inputs = impl.inputs;
    scheduled->op_nodes = std::move(nodes);
    result.model = LoadedModel(std::move(scheduled));
    return result;
  } catch (const std::exception& e) {
    return Internal(impl.path + ": stream rewrite failed: " + TorchMessage(e));
  }
}

}  // namespace nimble::accelerate
