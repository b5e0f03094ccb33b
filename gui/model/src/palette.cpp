#include "nimble/gui/palette.h"

#include <cmath>

namespace nimble::gui {

Rgb ColorForName(std::string_view name) {
  uint32_t hash = 2166136261u;
  for (char c : name) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 16777619u;
  }
  return kItemPalette[hash % kItemPalette.size()];
}

Rgb GapCauseColor(analysis::GapCause cause) {
  switch (cause) {
    case analysis::GapCause::kHostLaunchLate: return {0xe6, 0xa1, 0x2e};
    case analysis::GapCause::kSynchronization: return {0xe0, 0x4f, 0x4f};
    case analysis::GapCause::kMemoryCopy: return {0x3d, 0xa5, 0xe8};
    case analysis::GapCause::kOther: return {0x8e, 0x91, 0x99};
  }
  return {0x8e, 0x91, 0x99};
}

std::string_view GapCauseLabel(analysis::GapCause cause) {
  switch (cause) {
    case analysis::GapCause::kHostLaunchLate: return "host launch late";
    case analysis::GapCause::kSynchronization: return "synchronization";
    case analysis::GapCause::kMemoryCopy: return "memory copy";
    case analysis::GapCause::kOther: return "other";
  }
  return "other";
}

Rgb Mix(Rgb c, Rgb toward, double amount) {
  const auto mix = [amount](uint8_t a, uint8_t b) {
    return static_cast<uint8_t>(std::lround(a + (static_cast<double>(b) - a) * amount));
  };
  return {mix(c.r, toward.r), mix(c.g, toward.g), mix(c.b, toward.b)};
}

}  // namespace nimble::gui
