#include "nimble/analysis/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <string>

namespace nimble::analysis {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr double kDoneEpsilonNs = 1e-6;

std::string OpText(int32_t v) { return "op " + std::to_string(v); }

Status CheckInputs(const Dag& dag, const std::vector<std::vector<SimKernel>>& op_kernels, const StreamAssignment& s) {
  const auto n = static_cast<size_t>(dag.num_nodes());
  if (op_kernels.size() != n || s.op_stream.size() != n) {
    return InvalidArgument("simulation needs kernels and a stream for each of the " + std::to_string(n) + " ops");
  }
  for (size_t v = 0; v < n; ++v) {
    const int64_t stream = s.op_stream[v].value();
    if (stream < 0 || stream >= s.num_streams) return InvalidArgument(OpText(static_cast<int32_t>(v)) + " has no valid stream");
    for (const SimKernel& k : op_kernels[v]) {
      if (k.dur_ns < 0 || !(k.gpu_share >= 0 && k.gpu_share <= 1) || !(k.crowded_slowdown >= 1)) {
        return InvalidArgument(OpText(static_cast<int32_t>(v)) +
                               " has a kernel with a negative duration, a share outside [0, 1] or a crowding slowdown below 1");
      }
    }
  }
  for (const OpEdge& e : s.syncs) {
    const int32_t a = e.src.value();
    const int32_t b = e.dst.value();
    if (a < 0 || b < 0 || a >= dag.num_nodes() || b >= dag.num_nodes() ||
        dag.topological_position(a) >= dag.topological_position(b)) {
      return InvalidArgument("sync " + OpText(a) + " -> " + OpText(b) + " does not point forward in the graph");
    }
  }
  return OkStatus();
}

class Simulation {
 public:
  Simulation(const Dag& dag, const std::vector<std::vector<SimKernel>>& op_kernels, const StreamAssignment& s,
             const LaunchCosts& costs, Dispatch dispatch);
  StatusOr<SimResult> Run();

 private:
  struct Task {
    int32_t op;
    double dur_ns;
    double share;
    double issue_ns;   // when the host has issued it
    bool is_kernel;    // false for the empty placeholder of an op without kernels
    bool first_of_op;
    double crowded = 1;  // slowdown while another kernel runs
  };
  struct Running {
    int32_t task;
    double remaining_ns;  // of work at full speed
    double rate = 1;      // of its full speed, until the next event
  };
  void BuildTasks(const std::vector<std::vector<SimKernel>>& op_kernels);
  void Release(int32_t task);        // dependencies met: queue it at its ready time
  void TryReleaseHead(int64_t stream);
  void Complete(int32_t task, double now_ns);
  void SetRates(std::vector<Running>& running) const;
  void SetRatesByShare(std::vector<Running>& running) const;

  const Dag& dag_;
  const StreamAssignment& schedule_;
  const LaunchCosts& costs_;
  const Dispatch dispatch_;
  std::vector<Task> tasks_;
  bool any_crowded_ = false;  // some kernel slows beside others (SharingModel::crowding)
  std::vector<std::vector<int32_t>> stream_tasks_;  // per stream, in order
  std::vector<size_t> stream_head_;                 // next task not yet released, per stream
  std::vector<double> stream_free_ns_;              // end of the stream's last completed task
  std::vector<uint8_t> stream_busy_;                // a released task has not completed yet
  std::vector<std::vector<int32_t>> sync_out_;      // per op, ops waiting on it
  std::vector<int32_t> pending_syncs_;              // per op
  std::vector<double> sync_ready_ns_;               // per op: latest sync source end + latency
  std::vector<int32_t> kernels_left_;               // per op
  std::priority_queue<std::pair<double, int32_t>, std::vector<std::pair<double, int32_t>>, std::greater<>> ready_;
  SimResult result_;
};

Simulation::Simulation(const Dag& dag, const std::vector<std::vector<SimKernel>>& op_kernels, const StreamAssignment& s,
                       const LaunchCosts& costs, Dispatch dispatch)
    : dag_(dag), schedule_(s), costs_(costs), dispatch_(dispatch) {
  const auto n = static_cast<size_t>(dag.num_nodes());
  sync_out_.resize(n);
  pending_syncs_.assign(n, 0);
  sync_ready_ns_.assign(n, 0);
  for (const OpEdge& e : s.syncs) {
    sync_out_[static_cast<size_t>(e.src.value())].push_back(e.dst.value());
    ++pending_syncs_[static_cast<size_t>(e.dst.value())];
  }
  stream_tasks_.resize(static_cast<size_t>(s.num_streams));
  stream_head_.assign(static_cast<size_t>(s.num_streams), 0);
  stream_busy_.assign(static_cast<size_t>(s.num_streams), 0);
  stream_free_ns_.assign(static_cast<size_t>(s.num_streams), static_cast<double>(costs.start_ns));
  BuildTasks(op_kernels);
  result_.op_start_ns.assign(n, 0);
  result_.op_end_ns.assign(n, 0);
}

// Host issue times: ops in topological order, waits before an op, its kernels, then its event record.
void Simulation::BuildTasks(const std::vector<std::vector<SimKernel>>& op_kernels) {
  double host_ns = static_cast<double>(costs_.start_ns);
  kernels_left_.assign(static_cast<size_t>(dag_.num_nodes()), 0);
  for (int32_t v : dag_.topological_order()) {
    const auto sv = static_cast<size_t>(v);
    host_ns += static_cast<double>(costs_.host_per_event_ns * pending_syncs_[sv]);
    auto& queue = stream_tasks_[static_cast<size_t>(schedule_.op_stream[sv].value())];
    if (op_kernels[sv].empty()) {
      queue.push_back(static_cast<int32_t>(tasks_.size()));
      tasks_.push_back({v, 0, 0, host_ns, false, true, 1});
    }
    for (size_t i = 0; i < op_kernels[sv].size(); ++i) {
      host_ns += static_cast<double>(costs_.host_per_kernel_ns);
      queue.push_back(static_cast<int32_t>(tasks_.size()));
      const SimKernel& k = op_kernels[sv][i];
      tasks_.push_back({v, static_cast<double>(k.dur_ns), k.gpu_share, host_ns, true, i == 0, k.crowded_slowdown});
      any_crowded_ = any_crowded_ || k.crowded_slowdown > 1;
    }
    kernels_left_[sv] = std::max<int32_t>(1, static_cast<int32_t>(op_kernels[sv].size()));
    if (!sync_out_[sv].empty()) host_ns += static_cast<double>(costs_.host_per_event_ns);
  }
}

void Simulation::Release(int32_t task) {
  const Task& t = tasks_[static_cast<size_t>(task)];
  const auto stream = static_cast<size_t>(schedule_.op_stream[static_cast<size_t>(t.op)].value());
  double after_ns = stream_free_ns_[stream];
  if (t.first_of_op) after_ns = std::max(after_ns, sync_ready_ns_[static_cast<size_t>(t.op)]);
  if (t.is_kernel) after_ns += static_cast<double>(costs_.gpu_per_kernel_ns);
  ready_.emplace(std::max(t.issue_ns, after_ns), task);
}

void Simulation::TryReleaseHead(int64_t stream) {
  const auto s = static_cast<size_t>(stream);
  if (stream_busy_[s] != 0 || stream_head_[s] >= stream_tasks_[s].size()) return;
  const int32_t task = stream_tasks_[s][stream_head_[s]];
  const Task& t = tasks_[static_cast<size_t>(task)];
  if (t.first_of_op && pending_syncs_[static_cast<size_t>(t.op)] > 0) return;  // released by its last sync source
  ++stream_head_[s];
  stream_busy_[s] = 1;
  Release(task);
}

void Simulation::Complete(int32_t task, double now_ns) {
  const Task& t = tasks_[static_cast<size_t>(task)];
  const auto op = static_cast<size_t>(t.op);
  const int64_t stream = schedule_.op_stream[op].value();
  stream_free_ns_[static_cast<size_t>(stream)] = now_ns;
  stream_busy_[static_cast<size_t>(stream)] = 0;
  if (--kernels_left_[op] == 0) {
    result_.op_end_ns[op] = std::llround(now_ns);
    for (int32_t w : sync_out_[op]) {
      const auto sw = static_cast<size_t>(w);
      sync_ready_ns_[sw] = std::max(sync_ready_ns_[sw], now_ns + static_cast<double>(costs_.sync_latency_ns));
      if (--pending_syncs_[sw] == 0) TryReleaseHead(schedule_.op_stream[sw].value());
    }
  }
  TryReleaseHead(stream);
}

// `running` is in the order the tasks started (a task waiting with rate 0 keeps its place). A crowded
// kernel slows further while another kernel runs, without taking more of the GPU from the others.
void Simulation::SetRates(std::vector<Running>& running) const {
  SetRatesByShare(running);
  if (!any_crowded_) return;
  const auto kernels = std::count_if(running.begin(), running.end(),
                                     [&](const Running& r) { return tasks_[static_cast<size_t>(r.task)].is_kernel; });
  if (kernels < 2) return;
  for (Running& r : running) r.rate /= tasks_[static_cast<size_t>(r.task)].crowded;
}

void Simulation::SetRatesByShare(std::vector<Running>& running) const {
  if (dispatch_ == Dispatch::kInOrder) {
    double left = 1;
    for (Running& r : running) {
      const double share = tasks_[static_cast<size_t>(r.task)].share;
      if (share <= 0) {
        r.rate = 1;
        continue;
      }
      const double got = std::min(share, left);
      left -= got;
      r.rate = got / share;
    }
    return;
  }
  double demand = 0;
  for (const Running& r : running) demand += tasks_[static_cast<size_t>(r.task)].share;
  const double rate = demand > 1 ? 1 / demand : 1;
  for (Running& r : running) r.rate = rate;
}

StatusOr<SimResult> Simulation::Run() {
  for (int64_t s = 0; s < schedule_.num_streams; ++s) TryReleaseHead(s);
  std::vector<Running> running;
  double now_ns = 0;
  size_t done = 0;
  while (done < tasks_.size()) {
    SetRates(running);
    double least_ns = kNever;  // until the first running task ends at its rate
    for (const Running& r : running) {
      if (r.rate > 0) least_ns = std::min(least_ns, r.remaining_ns / r.rate);
    }
    const double completion_ns = now_ns + least_ns;
    const double release_ns = ready_.empty() ? kNever : ready_.top().first;
    const double next_ns = std::min(completion_ns, release_ns);
    if (next_ns == kNever) return Internal("simulation stalled: the schedule's dependencies cannot all be met");
    // When the next event is a completion, the tasks that end first end now, whatever the subtraction
    // leaves: at large times a small step can vanish in a double's rounding, and the loop must still make
    // progress (a damaged recording with one huge kernel once made it spin forever).
    const bool completes = completion_ns <= release_ns;
    const double least_done_ns = least_ns * (1 + 1e-12) + kDoneEpsilonNs;
    for (Running& r : running) {
      if (r.rate <= 0) continue;
      r.remaining_ns = completes && r.remaining_ns / r.rate <= least_done_ns
                           ? 0
                           : r.remaining_ns - r.rate * (next_ns - now_ns);
    }
    now_ns = std::max(now_ns, next_ns);
    for (size_t i = 0; i < running.size();) {
      if (running[i].remaining_ns > kDoneEpsilonNs) { ++i; continue; }
      const int32_t task = running[i].task;
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));  // keeps the start order
      ++done;
      Complete(task, now_ns);
    }
    while (!ready_.empty() && ready_.top().first <= now_ns) {
      const int32_t task = ready_.top().second;
      ready_.pop();
      const Task& t = tasks_[static_cast<size_t>(task)];
      if (t.first_of_op) result_.op_start_ns[static_cast<size_t>(t.op)] = std::llround(now_ns);
      running.push_back({task, t.dur_ns});
    }
    const auto kernels = std::count_if(running.begin(), running.end(),
                                       [&](const Running& r) { return tasks_[static_cast<size_t>(r.task)].is_kernel; });
    result_.max_running_kernels = std::max(result_.max_running_kernels, static_cast<int32_t>(kernels));
  }
  result_.latency_ns = std::llround(now_ns);
  return std::move(result_);
}

}  // namespace

StatusOr<SimResult> Simulate(const Dag& dag, const std::vector<std::vector<SimKernel>>& op_kernels,
                             const StreamAssignment& schedule, const LaunchCosts& costs, Dispatch dispatch) {
  NIMBLE_RETURN_IF_ERROR(CheckInputs(dag, op_kernels, schedule));
  return Simulation(dag, op_kernels, schedule, costs, dispatch).Run();
}

}  // namespace nimble::analysis
