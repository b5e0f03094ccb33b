// The viewer's look: a dark Fusion theme for every widget, and the conversion of the model's palette
// (palette.h) to QColor. Call ApplyTheme once, on the UI thread, before the main window is shown.
#pragma once

#include <QColor>
#include <QFont>

#include "nimble/gui/palette.h"

class QApplication;

namespace nimble::gui {

inline QColor ToQColor(Rgb c, int alpha = 255) { return QColor(c.r, c.g, c.b, alpha); }

// Fusion style, dark palette, and one UI font size.
void ApplyTheme(QApplication& app);

// Black or white, whichever reads better on `fill`.
QColor TextColorOn(const QColor& fill);

// The font of lane labels and item names (slightly smaller than the UI font).
QFont TimelineFont();

}  // namespace nimble::gui
