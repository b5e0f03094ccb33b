// The key under the timeline: idle-gap causes and their colours, the critical-path band, the launch
// link and the merged (sub-pixel) runs, plus a one-line summary of what is shown. UI thread only.
#pragma once

#include <QString>
#include <QWidget>

namespace nimble::gui {

class TimelineLegend : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineLegend(QWidget* parent = nullptr);
  void SetSummary(const QString& summary);
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QString summary_;
};

}  // namespace nimble::gui
