#include "progress.h"

#include <memory>
#include <string>

namespace nimble::python {
namespace py = pybind11;

namespace {

const char* KindName(workflow::ProgressKind kind) {
  switch (kind) {
    case workflow::ProgressKind::kStep: return "step";
    case workflow::ProgressKind::kTick: return "tick";
    case workflow::ProgressKind::kWarning: return "warning";
  }
  return "step";
}

// Owns the callable; dropping it needs the GIL, which the workflow's thread may not hold when the
// ProgressFn goes away.
struct HeldCallback {
  py::object callable;
  ~HeldCallback() {
    py::gil_scoped_acquire gil;
    callable = py::object();
  }
};

}  // namespace

workflow::ProgressFn ForwardProgress(py::object callback) {
  if (callback.is_none()) return {};
  auto held = std::make_shared<HeldCallback>();
  held->callable = std::move(callback);
  return [held](const workflow::ProgressUpdate& update) {
    py::gil_scoped_acquire gil;
    try {
      held->callable(KindName(update.kind), std::string(update.stage), std::string(update.message), update.done,
                     update.total);
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("nimble progress callback");
    }
  };
}

}  // namespace nimble::python
