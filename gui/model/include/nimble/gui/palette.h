// The viewer's colours as plain RGB, so that the painter and the tests that inspect screenshots agree:
// kernels coloured by a stable hash of their op kind or name, idle gaps by cause, and the few marks
// (critical path, selection, lane separators) in colours no kernel can take. Constants and pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "nimble/analysis/idle_gaps.h"

namespace nimble::gui {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

// A dark theme: background, alternating lane rows, text.
inline constexpr Rgb kBackgroundRgb{0x1c, 0x1d, 0x21};
inline constexpr Rgb kRowEvenRgb{0x23, 0x25, 0x2a};
inline constexpr Rgb kRowOddRgb{0x27, 0x29, 0x2f};
inline constexpr Rgb kLabelColumnRgb{0x2b, 0x2d, 0x33};
inline constexpr Rgb kRunHeaderRgb{0x31, 0x36, 0x44};
inline constexpr Rgb kTextRgb{0xdc, 0xde, 0xe3};
inline constexpr Rgb kDimTextRgb{0x96, 0x9a, 0xa3};
// One-pixel line under every lane; its own colour, so a screenshot's lanes can be counted.
inline constexpr Rgb kLaneSeparatorRgb{0x3d, 0x41, 0x4b};
// The band under each kernel of a critical-path op, and the outline of the selected item.
inline constexpr Rgb kCriticalPathRgb{0xff, 0x2e, 0x93};
inline constexpr Rgb kSelectionRgb{0xff, 0xff, 0xff};
inline constexpr Rgb kSearchHitRgb{0xff, 0xe0, 0x4d};
inline constexpr Rgb kLinkRgb{0x7f, 0xe7, 0xff};
inline constexpr Rgb kIterationRgb{0x5b, 0x8d, 0xef};
// The GPU busy chart above each device's idle gaps.
inline constexpr Rgb kBusyRgb{0x4f, 0x9d, 0x8f};

// Kernel colours: hues spaced apart, all far from the marks above.
inline constexpr std::array<Rgb, 16> kItemPalette = {{
    {0x4e, 0x79, 0xa7}, {0xf2, 0x8e, 0x2b}, {0x59, 0xa1, 0x4f}, {0xb0, 0x7a, 0xa1},
    {0x76, 0xb7, 0xb2}, {0xed, 0xc9, 0x48}, {0x9c, 0x75, 0x5f}, {0xba, 0xb0, 0xac},
    {0x6b, 0x9a, 0xc4}, {0xc0, 0x6c, 0x84}, {0x8c, 0xd1, 0x7d}, {0xa0, 0xcb, 0xe8},
    {0xff, 0xbe, 0x7d}, {0x86, 0xbc, 0xb6}, {0xd4, 0xa6, 0xc8}, {0x9d, 0x9a, 0x5c},
}};

// A stable colour for a name (FNV-1a hash into kItemPalette): the same op kind or kernel name gets
// the same colour in every run and every session.
Rgb ColorForName(std::string_view name);

// Colours of the idle-gap causes, in analysis::GapCause order.
Rgb GapCauseColor(analysis::GapCause cause);
// "host launch late", "synchronization", "memory copy", "other".
std::string_view GapCauseLabel(analysis::GapCause cause);

// Host rows: API calls and NVTX ranges in quieter tones than GPU work.
inline constexpr Rgb kApiCallRgb{0x7a, 0x86, 0x9a};
inline constexpr Rgb kLaunchCallRgb{0x8f, 0xa8, 0x6e};
inline constexpr Rgb kMemcpyRgb{0x3f, 0x9f, 0xbf};
inline constexpr Rgb kMemsetRgb{0x6f, 0x8f, 0x9f};
inline constexpr Rgb kGraphLaunchRgb{0x8f, 0x7f, 0xbf};  // a whole CUDA graph (graph-level trace)

// `c` mixed with `toward` by `amount` in [0, 1].
Rgb Mix(Rgb c, Rgb toward, double amount);

}  // namespace nimble::gui
