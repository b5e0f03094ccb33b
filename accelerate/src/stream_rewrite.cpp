// Builds the scheduled module: copies the frozen forward graph, inserts the nimble:: stream and event
// operators around the op nodes (ops are numbered in node order, so one forward walk places them),
// and wraps the graph in a new module of its own class so it can be saved.
#include "nimble/accelerate/stream_rewrite.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/alias_analysis.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <unordered_map>
#include <unordered_set>
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

// Values whose memory the run never frees, or frees only after the side streams are gone: the graph's
// inputs, its outputs and its constants (the weights).
std::vector<Value*> OutlivingValues(Graph& graph) {
  std::vector<Value*> outliving(graph.inputs().begin(), graph.inputs().end());
  outliving.insert(outliving.end(), graph.outputs().begin(), graph.outputs().end());
  for (Node* node : graph.nodes()) {
    if (node->kind() == c10::prim::Constant && ContainsTensor(node->output()->type())) outliving.push_back(node->output());
  }
  return outliving;
}

// Freeing them after their last reader instead: right after each cross-stream reader,
// nimble::record_stream marks the producer's tensors as used on the reader's stream, so that the
// caching allocator reuses their blocks only once that stream's work is ordered before the new user
// (by an event in eager runs, by the capture's dependencies in a capture). Values that may share memory
// with the graph's inputs, its constants (the weights) or its outputs are left alone: the run never
// frees them, and a block marked with a side stream must not be freed after that stream is gone (the
// allocator would record an event on it), which those outlive.
// `alias_db` describes the graph before any nimble::release or record_stream is inserted: those take
// Any and so make their arguments wildcards, which may alias the outliving values.
int32_t InsertRecordStreams(Graph& graph, torch::jit::AliasDb& alias_db,
                            const std::vector<std::pair<size_t, size_t>>& reads, const std::vector<Node*>& nodes) {
  const std::vector<Value*> outliving = OutlivingValues(graph);
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

// Whether `value` (an output of nodes[producer]) holds memory of its own that nothing else may share
// from its producer to `release`: not a view of the producer's inputs, and no value made in between
// (a reader's view, an in-place result, an element taken out of a list) may alias it. Containers built
// around it (a list for aten::cat) hold it without sharing its memory beyond their own last use, which
// comes before the release.
bool OwnsItsMemory(torch::jit::AliasDb& alias_db, Value* value, Node* producer, Node* release,
                   const std::vector<Value*>& outliving) {
  if (alias_db.mayContainAlias(value, outliving)) return false;
  for (Value* input : producer->inputs()) {
    if (ContainsTensor(input->type()) && alias_db.mayContainAlias(value, input)) return false;
  }
  for (Node* node = producer->next(); node != release; node = node->next()) {
    if (node->kind() == c10::prim::ListConstruct || node->kind() == c10::prim::TupleConstruct) continue;
    for (Value* output : node->outputs()) {
      if (ContainsTensor(output->type()) && alias_db.mayContainAlias(value, output)) return false;
    }
  }
  return true;
}

// Releases the op outputs read on another stream on their producer's stream (see the header); the
// reads of outputs that cannot be released are returned, to be recorded instead. `alias_db` as for
// InsertRecordStreams; the releases are inserted only after every alias query. `shares_input[op]`:
// the op's output shared storage with an input in the shape run; neither its own outputs nor its inputs
// are released then (schemas do not declare every view: aten::atleast_1d returns its input).
std::vector<std::pair<size_t, size_t>> InsertReleases(Graph& graph, torch::jit::AliasDb& alias_db, const OpGraph& ops,
                                                      const StreamAssignment& assignment,
                                                      const std::vector<std::pair<size_t, size_t>>& reads,
                                                      const std::vector<Node*>& nodes,
                                                      const std::vector<uint8_t>& shares_input, RewriteSummary* summary) {
  const std::vector<std::vector<size_t>> readers = DataReaders(ops);
  const std::vector<int64_t> points = ReleasePoints(ops, assignment);
  const std::vector<Value*> outliving = OutlivingValues(graph);
  std::vector<std::pair<size_t, size_t>> unreleased;
  std::vector<std::pair<Node*, Value*>> releases;
  for (auto begin = reads.begin(); begin != reads.end();) {
    const size_t producer = begin->first;
    auto end = std::find_if(begin, reads.end(), [&](const auto& read) { return read.first != producer; });
    const std::vector<size_t>& all = readers[producer];
    const int64_t point = points[producer];
    const std::vector<Value*> values = TensorOutputs(nodes[producer]);
    Node* before = point >= 0 ? nodes[static_cast<size_t>(point)] : nullptr;
    const bool viewed = shares_input[producer] != 0 ||
                        std::any_of(all.begin(), all.end(), [&](size_t r) { return shares_input[r] != 0; });
    const bool release = before != nullptr && !viewed && !values.empty() &&
                         std::all_of(values.begin(), values.end(), [&](Value* v) {
                           return OwnsItsMemory(alias_db, v, nodes[producer], before, outliving);
                         });
    if (release) {
      for (Value* value : values) releases.emplace_back(before, value);
    } else {
      unreleased.insert(unreleased.end(), begin, end);
    }
    begin = end;
  }
  // Right before the op, after its set_stream and waits (inserted before it already).
  for (const auto& [before, value] : releases) {
    torch::jit::WithInsertPoint guard(before);
    InsertNimbleNode(graph, "nimble::release", {value});
  }
  summary->released_values = static_cast<int32_t>(releases.size());
  return unreleased;
}

// Whether `node` may be moved anywhere its inputs are defined: no side effects, nothing written in
// place, no blocks.
bool FreelyMovable(const Node* node) {
  if (node->hasSideEffects() || !node->blocks().empty()) return false;
  const c10::FunctionSchema* schema = node->maybeSchema();
  return schema == nullptr || !schema->is_mutable();
}

// Moves the ops of `graph` into `order` (see RewriteOptions::op_order; CheckOpOrder passed); false, with
// the graph unchanged, where that is not safe.
bool ReorderOps(Graph& graph, const std::vector<Node*>& nodes, const std::vector<int32_t>& order) {
  std::unordered_map<const Node*, size_t> op_of;
  for (size_t op = 0; op < nodes.size(); ++op) op_of[nodes[op]] = op;
  std::vector<Node*> constants;
  std::vector<std::vector<Node*>> groups(nodes.size());
  std::vector<Node*> pending, trailing;
  for (Node* node : graph.nodes()) {
    if (node->kind() == c10::prim::Constant) {
      constants.push_back(node);
      continue;
    }
    const auto op = op_of.find(node);
    // A random op would draw in another order than the graph's.
    if (node->isNondeterministic()) return false;
    if (op == op_of.end()) {
      if (!FreelyMovable(node)) return false;
      pending.push_back(node);
      continue;
    }
    pending.push_back(node);
    groups[op->second] = std::move(pending);
    pending.clear();
  }
  trailing = std::move(pending);
  // Every value defined before its first use in the new order, nested blocks' uses included.
  std::unordered_set<const Value*> defined(graph.inputs().begin(), graph.inputs().end());
  for (const Node* constant : constants) defined.insert(constant->outputs().begin(), constant->outputs().end());
  std::vector<Node*> sequence;
  for (int32_t op : order) {
    for (Node* node : groups[static_cast<size_t>(op)]) sequence.push_back(node);
  }
  sequence.insert(sequence.end(), trailing.begin(), trailing.end());
  std::function<bool(const Node*)> inputs_defined = [&](const Node* node) {
    for (const Value* input : node->inputs()) {
      if (defined.count(input) == 0 && input->node()->owningBlock() == graph.block()) return false;
    }
    for (const torch::jit::Block* block : node->blocks()) {
      for (const Node* inner : block->nodes()) {
        if (!inputs_defined(inner)) return false;
      }
    }
    return true;
  };
  for (const Node* node : sequence) {
    if (!inputs_defined(node)) return false;
    defined.insert(node->outputs().begin(), node->outputs().end());
  }
  for (const Value* output : graph.outputs()) {
    if (defined.count(output) == 0 && output->node()->owningBlock() == graph.block()) return false;
  }
  Node* first = graph.block()->nodes().front();
  for (Node* constant : constants) {
    if (constant != first) constant->moveBefore(first);
    else first = first->next();
  }
  for (Node* node : sequence) node->moveBefore(graph.return_node());
  return true;
}

// The walk: set_stream where the stream changes, waits before and records after the sync ends; ops in
// `sequence` order (the graph's).
RewriteSummary InsertStreamOps(Graph& graph, const OpGraph& ops, const StreamAssignment& assignment,
                               const std::vector<Node*>& nodes, const std::vector<uint8_t>& shares_input,
                               const std::vector<size_t>& sequence, const RewriteOptions& options) {
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
    if (std::any_of(options.pool_seeds.begin(), options.pool_seeds.end(), [](int64_t b) { return b > 0; })) {
      Value* seeds = graph.insertConstant(c10::IValue(options.pool_seeds));
      InsertNimbleNode(graph, "nimble::seed_pool", {seeds});
      summary.seeded_streams = static_cast<int32_t>(
          std::count_if(options.pool_seeds.begin(), options.pool_seeds.end(), [](int64_t b) { return b > 0; }));
    }
  }
  int32_t current = 0;
  for (const size_t op : sequence) {
    const auto stream = static_cast<int32_t>(assignment.op_stream[op].value());
    {
      torch::jit::WithInsertPoint guard(nodes[op]);
      if (options.mark_ops) InsertIntOp(graph, "nimble::op_begin", static_cast<int64_t>(op));
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
    // One alias analysis of the graph as it is now, before nimble::release or record_stream nodes.
    torch::jit::AliasDb alias_db(graph.shared_from_this());
    std::vector<std::pair<size_t, size_t>> recorded = reads;
    if (options.cross_stream_free == CrossStreamFree::kOnProducerStream) {
      recorded = InsertReleases(graph, alias_db, ops, assignment, reads, nodes, shares_input, &summary);
    }
    summary.recorded_values = InsertRecordStreams(graph, alias_db, recorded, nodes);
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

// RewriteOptions::op_order must be a permutation with every edge and sync pointing forward and each
// stream's ops in op order.
Status CheckOpOrder(const std::string& path, const OpGraph& graph, const StreamAssignment& assignment,
                    const std::vector<int32_t>& order) {
  const size_t n = graph.ops.size();
  const Status not_a_permutation =
      InvalidArgument(path + ": the op order is not a permutation of the " + std::to_string(n) + " ops");
  if (order.size() != n) return not_a_permutation;
  std::vector<int64_t> position(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (order[i] < 0 || static_cast<size_t>(order[i]) >= n || position[static_cast<size_t>(order[i])] >= 0) {
      return not_a_permutation;
    }
    position[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  }
  auto forward = [&](const OpEdge& e) { return position[static_cast<size_t>(e.src.value())] < position[static_cast<size_t>(e.dst.value())]; };
  if (!std::all_of(graph.edges.begin(), graph.edges.end(), forward) ||
      !std::all_of(assignment.syncs.begin(), assignment.syncs.end(), forward)) {
    return InvalidArgument(path + ": the op order puts an op before one it depends on");
  }
  std::vector<int64_t> last(static_cast<size_t>(assignment.num_streams), -1);
  for (size_t op = 0; op < n; ++op) {
    int64_t& previous = last[static_cast<size_t>(assignment.op_stream[op].value())];
    if (position[op] < previous) return InvalidArgument(path + ": the op order changes a stream's order of ops");
    previous = position[op];
  }
  return OkStatus();
}

Status CheckAssignment(const LoadedModel::Impl& impl, const OpGraph& graph, const StreamAssignment& assignment) {
  if (impl.op_nodes.size() != graph.ops.size() || assignment.op_stream.size() != graph.ops.size()) {
    return InvalidArgument(impl.path + ": stream assignment covers " + std::to_string(assignment.op_stream.size()) +
                           " ops, the graph has " + std::to_string(graph.ops.size()));
  }
  for (const StreamId stream : assignment.op_stream) {
    if (stream.value() < 0 || stream.value() >= assignment.num_streams) {
      return InvalidArgument(impl.path + ": an op is assigned stream " + std::to_string(stream.value()) + " of " +
                             std::to_string(assignment.num_streams));
    }
  }
  const auto ops = static_cast<int64_t>(graph.ops.size());
  for (const OpEdge& sync : assignment.syncs) {
    if (sync.src.value() < 0 || sync.dst.value() >= ops) return InvalidArgument(impl.path + ": a sync names no op");
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
  if (!options.op_order.empty()) NIMBLE_RETURN_IF_ERROR(CheckOpOrder(impl.path, graph, assignment, options.op_order));
  if (!options.delayed_releases.empty() && options.delayed_releases.size() != graph.ops.size()) {
    return InvalidArgument(impl.path + ": delayed releases for " + std::to_string(options.delayed_releases.size()) +
                           " ops, the graph has " + std::to_string(graph.ops.size()));
  }
  if (!options.pool_seeds.empty() && static_cast<int64_t>(options.pool_seeds.size()) != assignment.num_streams) {
    return InvalidArgument("stream rewrite: " + std::to_string(options.pool_seeds.size()) + " pool seeds for " +
                           std::to_string(assignment.num_streams) + " streams");
  }
  if (std::any_of(options.pool_seeds.begin(), options.pool_seeds.end(), [](int64_t b) { return b < 0; })) {
    return InvalidArgument("stream rewrite: a negative pool seed");
  }
  try {
    auto copy = impl.graph->copy();
    std::vector<Node*> nodes = MapOpNodes(*impl.graph, *copy, impl.op_nodes);
    ScheduledModel result;
    // Unknown (an Impl not made by the graph extractor): every op may share its inputs' storage.
    std::vector<uint8_t> shares_input = impl.op_shares_input;
    if (shares_input.size() != nodes.size()) shares_input.assign(nodes.size(), 1);
    std::vector<size_t> sequence(nodes.size());
    std::iota(sequence.begin(), sequence.end(), size_t{0});
    const bool reordered = !options.op_order.empty() && ReorderOps(*copy, nodes, options.op_order);
    if (reordered) sequence.assign(options.op_order.begin(), options.op_order.end());
    result.summary = InsertStreamOps(*copy, graph, assignment, nodes, shares_input, sequence, options);
    result.summary.reordered = reordered;
    for (size_t op = 0; op < options.delayed_releases.size() && op < nodes.size(); ++op) {
      const int64_t point = options.delayed_releases[op];
      if (point < 0 || static_cast<size_t>(point) >= nodes.size()) continue;
      torch::jit::WithInsertPoint guard(nodes[static_cast<size_t>(point)]);  // after its set_stream and waits
      for (Value* value : TensorOutputs(nodes[op])) {
        InsertNimbleNode(*copy, "nimble::release", {value});
        ++result.summary.delayed_values;
      }
    }
    copy->lint();
    auto scheduled = std::make_shared<LoadedModel::Impl>();
    scheduled->path = impl.path;
    scheduled->device = impl.device;
    scheduled->module = WrapInModule(copy);
    scheduled->graph = copy;
    scheduled->inputs = impl.inputs;
    scheduled->op_nodes = std::move(nodes);
    scheduled->op_shares_input = std::move(shares_input);
    result.model = LoadedModel(std::move(scheduled));
    return result;
  } catch (const std::exception& e) {
    return Internal(impl.path + ": stream rewrite failed: " + TorchMessage(e));
  }
}

}  // namespace nimble::accelerate
