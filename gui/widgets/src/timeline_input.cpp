// TimelineView's mouse, wheel and keyboard handling.
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>

#include "nimble/gui/ruler_ticks.h"
#include "nimble/gui/timeline_view.h"

namespace nimble::gui {
namespace {

constexpr double kZoomPerNotch = 0.8;   // one wheel notch shows 80% of the time shown before
constexpr double kKeyPanFraction = 0.15;
constexpr int kClickSlopPx = 3;         // a press and release closer than this is a click

}  // namespace

void TimelineView::wheelEvent(QWheelEvent* event) {
  const QPoint pos = event->position().toPoint();
  const double notches = event->angleDelta().y() / 120.0;
  // Over the labels, or with Alt, the wheel scrolls the lanes; Shift pans; otherwise it zooms.
  if (pos.x() < TimelineGeometry::kLabelWidthPx || (event->modifiers() & Qt::AltModifier)) {
    verticalScrollBar()->setValue(verticalScrollBar()->value() - static_cast<int>(notches * 60));
  } else if (event->modifiers() & Qt::ShiftModifier) {
    scale_.Pan(-notches * 0.1 * scale_.width_px());
    ViewChanged();
  } else {
    scale_.ZoomAbout(pos.x() - TimelineGeometry::kLabelWidthPx, std::pow(kZoomPerNotch, notches));
    ViewChanged();
  }
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  setFocus();
  press_pos_ = event->position().toPoint();
  press_scale_ = scale_;
  press_scroll_ = scroll_y();
  moved_ = false;
  const bool in_ruler = press_pos_.y() < TimelineGeometry::kRulerHeightPx;
  const bool select = event->button() == Qt::RightButton || in_ruler ||
                      (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
  drag_ = select ? Drag::kSelect : event->button() == Qt::LeftButton ? Drag::kPan : Drag::kNone;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (drag_ == Drag::kNone) return;
  if ((pos - press_pos_).manhattanLength() >= kClickSlopPx) moved_ = true;
  if (!moved_) return;
  if (drag_ == Drag::kPan) {
    scale_ = press_scale_;
    scale_.Pan(press_pos_.x() - pos.x());
    verticalScrollBar()->setValue(press_scroll_ + press_pos_.y() - pos.y());
    ViewChanged();
  } else {
    const double left = TimelineGeometry::kLabelWidthPx;
    drag_x_px_ = std::pair(std::max(0.0, press_pos_.x() - left), std::max(0.0, pos.x() - left));
    viewport()->update();
  }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  const Drag drag = drag_;
  drag_ = Drag::kNone;
  if (drag == Drag::kSelect && drag_x_px_) {
    const auto [a, b] = *drag_x_px_;
    drag_x_px_.reset();
    if (std::abs(b - a) >= kClickSlopPx) SetViewRange(scale_.ToNs(std::min(a, b)), scale_.ToNs(std::max(a, b)));
    viewport()->update();
    return;
  }
  if (!moved_ && event->button() == Qt::LeftButton) Select(HitTest(event->position().toPoint()));
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event) {
  const ItemLocation hit = HitTest(event->position().toPoint());
  if (hit.valid()) ZoomToItem(hit);
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Left:
    case Qt::Key_A: PanBy(-kKeyPanFraction); break;
    case Qt::Key_Right:
    case Qt::Key_D: PanBy(kKeyPanFraction); break;
    case Qt::Key_Up:
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal: ZoomBy(kZoomPerNotch); break;
    case Qt::Key_Down:
    case Qt::Key_S:
    case Qt::Key_Minus: ZoomBy(1 / kZoomPerNotch); break;
    case Qt::Key_F:
    case Qt::Key_Home: FitAll(); break;
    case Qt::Key_I: FitIteration(std::max(iteration_, 0)); break;
    case Qt::Key_N: NextIteration(); break;
    case Qt::Key_P: PreviousIteration(); break;
    case Qt::Key_Z: ZoomToItem(selection_); break;
    case Qt::Key_Escape: Select({}); break;
    default: QAbstractScrollArea::keyPressEvent(event); return;
  }
  event->accept();
}

bool TimelineView::viewportEvent(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QAbstractScrollArea::viewportEvent(event);
  const auto* help = static_cast<QHelpEvent*>(event);
  const ItemLocation hit = HitTest(help->pos());
  if (!hit.valid()) {
    QToolTip::hideText();
    return true;
  }
  const ItemDescription d = DescribeItem(*runs_[static_cast<size_t>(hit.run)], hit);
  QString text = QString("<b>%1</b><br>%2").arg(QString::fromStdString(d.title).toHtmlEscaped(), QString::fromStdString(d.kind));
  for (const auto& [key, value] : d.fields) {
    if (key == "Duration" || key == "Op" || key == "Cause") {
      text += QString("<br>%1: %2").arg(QString::fromStdString(key), QString::fromStdString(value).toHtmlEscaped());
    }
  }
  QToolTip::showText(help->globalPos(), text, viewport());
  return true;
}

}  // namespace nimble::gui
