#include "nimble/gui/loaded_run.h"

namespace nimble::gui {

std::string LoadedRun::Label() const {
  std::string model = info.model;
  if (const size_t slash = model.find_last_of('/'); slash != std::string::npos) model = model.substr(slash + 1);
  if (model.empty()) model = "run";
  return model + " · " + RunModeName(info.mode) + " · run " + std::to_string(info.id.value());
}

int64_t LoadedRun::AlignNs() const {
  return timeline.iterations.empty() ? timeline.start_ns : timeline.iterations.front().first;
}

}  // namespace nimble::gui
