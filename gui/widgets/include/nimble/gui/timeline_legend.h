// The key under the timeline: idle-gap causes and their colours, the critical-path band, the launch
// link and the merged (sub-pixel) runs, plus a one-line summary of what is shown. Entries that do not
// fit whole are left out, never cut at the edge. UI thread only.
#pragma once

#include <QFontMetrics>
#include <QRect>
#include <QString>
#include <QWidget>

#include <vector>

namespace nimble::gui {

class TimelineLegend : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineLegend(QWidget* parent = nullptr);
  void SetSummary(const QString& summary);
  QSize sizeHint() const override;

  // The texts drawn at the current width, left to right: the caption, the entries that fit, the summary.
  struct Placed {
    QRect rect;  // of the text (an entry's swatch is left of it)
    QString text;
    int entry = -1;  // index of the key entry; -1 for the caption and the summary
  };
  std::vector<Placed> Layout(const QFontMetrics& metrics) const;
  static const QString kCaption;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QString summary_;
};

}  // namespace nimble::gui
