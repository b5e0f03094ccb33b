#include "failed_op_tracker.h"

#include <ATen/record_function.h>

#include <exception>
#include <memory>

namespace nimble::accelerate {

namespace {
thread_local FailedOpTracker* g_tracker = nullptr;

// What an operator saw at its start: exceptions already in flight (an operator run from a destructor
// during unwinding must not count as failed).
struct StartState : at::ObserverContext {
  explicit StartState(int in_flight) : uncaught(in_flight) {}
  int uncaught;
};
}  // namespace

struct FailedOpCallbacks {
  static std::unique_ptr<at::ObserverContext> Start(const at::RecordFunction&) {
    return std::make_unique<StartState>(std::uncaught_exceptions());
  }
  // Runs from the RecordFunction's destructor, during unwinding when the operator threw. Inner
  // operators end first, so the outermost one's name is the one left.
  static void End(const at::RecordFunction& fn, at::ObserverContext* context) {
    if (g_tracker == nullptr) return;
    const auto* start = static_cast<const StartState*>(context);
    const bool threw = start != nullptr && std::uncaught_exceptions() > start->uncaught;
    if (threw) {
      g_tracker->failed_op_ = fn.name();
    } else {
      g_tracker->failed_op_.clear();
    }
  }
};

FailedOpTracker::FailedOpTracker() : previous_(g_tracker) {
  g_tracker = this;
  handle_ = at::addThreadLocalCallback(at::RecordFunctionCallback(&FailedOpCallbacks::Start, &FailedOpCallbacks::End)
                                           .scopes({at::RecordScope::FUNCTION}));
}

FailedOpTracker::~FailedOpTracker() {
  at::removeCallback(handle_);
  g_tracker = previous_;
}

}  // namespace nimble::accelerate
