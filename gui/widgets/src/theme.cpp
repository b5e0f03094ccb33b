#include "nimble/gui/theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyleFactory>

namespace nimble::gui {

void ApplyTheme(QApplication& app) {
  app.setStyle(QStyleFactory::create("Fusion"));
  QPalette p;
  const QColor window = ToQColor(kLabelColumnRgb);
  const QColor base = ToQColor(kBackgroundRgb);
  const QColor text = ToQColor(kTextRgb);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, ToQColor(kRowOddRgb));
  p.setColor(QPalette::ToolTipBase, ToQColor(kRunHeaderRgb));
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, ToQColor(kDimTextRgb));
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::white);
  p.setColor(QPalette::Highlight, QColor(0x3d, 0x6f, 0xb6));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, ToQColor(kLinkRgb));
  p.setColor(QPalette::Mid, ToQColor(kLaneSeparatorRgb));
  p.setColor(QPalette::Dark, base);
  p.setColor(QPalette::Disabled, QPalette::Text, ToQColor(kDimTextRgb));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, ToQColor(kDimTextRgb));
  p.setColor(QPalette::Disabled, QPalette::WindowText, ToQColor(kDimTextRgb));
  app.setPalette(p);
  QFont font("DejaVu Sans");
  font.setPointSizeF(9.5);
  app.setFont(font);
}

QColor TextColorOn(const QColor& fill) {
  const double luminance = 0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue();
  return luminance > 150 ? QColor(0x15, 0x16, 0x19) : QColor(0xf2, 0xf3, 0xf5);
}

QFont TimelineFont() {
  QFont font("DejaVu Sans");
  font.setPointSizeF(8.5);
  return font;
}

}  // namespace nimble::gui
