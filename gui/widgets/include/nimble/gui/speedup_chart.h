// Measured against predicted speedup per execution mode (eager, aot-single, aot-multi...), as grouped
// bars over the baseline latency, with the latencies beneath: the speedups stored in the runs shown
// (RunReader::LoadSpeedups). Below them, when the runs carry it, each mode's GPU memory above the
// weights and inputs (peak reserved, peak allocated and the captured graph's pool; mode_memory.h).
// Painted with QPainter. UI thread only.
#pragma once

#include <QWidget>

#include <vector>

#include "nimble/core/run.h"
#include "nimble/gui/mode_memory.h"
#include "nimble/gui/run_load_job.h"

class QPainter;

namespace nimble::gui {

class SpeedupChart : public QWidget {
  Q_OBJECT

 public:
  explicit SpeedupChart(QWidget* parent = nullptr);
  void SetRuns(const LoadedRuns& runs);
  const std::vector<Speedup>& speedups() const { return speedups_; }
  const std::vector<ModeMemory>& memory() const { return memory_; }
  QSize sizeHint() const override { return {340, 260}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  void PaintMemory(QPainter& p, const QRectF& area) const;

  std::vector<Speedup> speedups_;  // one per mode, in mode order
  std::vector<ModeMemory> memory_;  // one per mode with memory metrics, in mode order
};

// CollectModeSpeedups over the runs shown.
std::vector<Speedup> CollectSpeedups(const LoadedRuns& runs);

// CollectModeMemory over the runs shown.
std::vector<ModeMemory> CollectModeMemory(const LoadedRuns& runs);

}  // namespace nimble::gui
