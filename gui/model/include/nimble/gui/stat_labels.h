// Human labels for the keys of a run's stats table ("collector.records.kernel" -> "Kernel records"),
// with the unit each value is in, so that the viewer never shows a raw key. A key the table does not
// know (a newer collector's) is turned into words ("foo.bar_baz" -> "Foo: bar baz"). Every key the
// project writes has an entry; a test scans the writers' sources for them. Pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace nimble::gui {

enum class StatUnit { kCount, kNanoseconds, kBytes, kFlag, kSignal };

struct StatLabelEntry {
  std::string_view key;
  std::string_view label;  // short: fits one line of the details dock
  StatUnit unit = StatUnit::kCount;
};

// The table, by key.
std::span<const StatLabelEntry> KnownStatLabels();

struct StatLabel {
  std::string label;
  StatUnit unit = StatUnit::kCount;
  bool known = false;  // from the table rather than made from the key
};

StatLabel LabelStat(std::string_view key);

// "30 140" (digits grouped by a narrow no-break space), "14.4 ms", "2.53 MiB", "yes", "signal 11".
std::string FormatStatValue(int64_t value, StatUnit unit);

}  // namespace nimble::gui
