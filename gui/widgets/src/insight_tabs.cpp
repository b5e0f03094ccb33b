#include "nimble/gui/insight_tabs.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <numeric>

#include "nimble/gui/host_gpu_path.h"
#include "nimble/gui/palette.h"
#include "nimble/gui/ruler_ticks.h"
#include "nimble/gui/run_diff_view.h"
#include "nimble/gui/run_overview.h"
#include "nimble/gui/theme.h"
#include "rich_text.h"

namespace nimble::gui {
namespace {

constexpr int kJumpRole = Qt::UserRole + 1;  // QList<qlonglong>{run, lane, row, item, start_ns, end_ns}
constexpr int kSortRole = Qt::UserRole;
constexpr Rgb kChangedRgb{0xf2, 0x8e, 0x2b};  // a significant change: the colour the summary gives problems
constexpr int kDiffNameWidthPx = 360;          // longer names are elided in the middle (full text in the tooltip)

// Sorts by a number when it has one, else by text.
class Cell : public QTableWidgetItem {
 public:
  explicit Cell(const QString& text) : QTableWidgetItem(text) { setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled); }
  Cell(const QString& text, double sort_key) : Cell(text) { setData(kSortRole, sort_key); }
  bool operator<(const QTableWidgetItem& other) const override {
    const QVariant a = data(kSortRole);
    const QVariant b = other.data(kSortRole);
    if (a.isValid() && b.isValid()) return a.toDouble() < b.toDouble();
    return QTableWidgetItem::operator<(other);
  }
};

QTableWidget* MakeTable(const QStringList& headers) {
  auto* table = new QTableWidget(0, static_cast<int>(headers.size()));
  table->setHorizontalHeaderLabels(headers);
  table->verticalHeader()->setVisible(false);
  table->verticalHeader()->setDefaultSectionSize(20);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(QAbstractItemView::SingleSelection);
  table->setAlternatingRowColors(true);
  table->horizontalHeader()->setStretchLastSection(true);
  table->setShowGrid(false);
  return table;
}

QString Dur(int64_t ns) { return QString::fromStdString(FormatDuration(static_cast<double>(ns))); }
QString Stream(StreamId s) { return s.valid() ? QString::number(s.value()) : QString("-"); }

void SetJump(QTableWidget* table, int row, const ItemLocation& loc, int64_t start_ns, int64_t end_ns) {
  table->item(row, 0)->setData(kJumpRole, QVariant::fromValue(QList<qlonglong>{loc.run, loc.lane, loc.row, loc.item,
                                                                              start_ns, end_ns}));
}

const QStringList kOpPathHeaders = {"#", "Op", "Kind", "GPU time", "Cumulative", "Stream"};
const QStringList kHostGpuPathHeaders = {"#", "Segment", "Step", "Time", "Cumulative", "Stream or thread"};

// A run without op analysis lists its critical path through host and GPU (host_gpu_path.h): each
// segment of the listed window in time order, jumping to the call or work it names.
void FillHostGpuPath(QTableWidget* table, const LoadedRun& run, int run_index) {
  table->setHorizontalHeaderLabels(kHostGpuPathHeaders);
  if (!run.host_gpu_path) return;
  const HostGpuPathView& view = *run.host_gpu_path;
  const auto& segments = view.path.segments;
  table->setRowCount(static_cast<int>(std::min<size_t>(segments.size(), InsightTabs::kMaxRows)));
  int64_t total = 0;
  for (int row = 0; row < table->rowCount(); ++row) {
    const analysis::PathSegment& s = segments[static_cast<size_t>(row)];
    total += s.dur_ns();
    const std::string& name = view.path.NameOf(s);
    const bool gpu_side = s.stream.valid();
    table->setItem(row, 0, new Cell(QString::number(row + 1)));
    table->setItem(row, 1, new Cell(QString::fromStdString(name.empty() ? "-" : name)));
    auto* step = new Cell(QString::fromStdString(std::string(analysis::PathStepLabel(s.step))));
    if (s.kind() == analysis::PathSegmentKind::kGpu) step->setForeground(ToQColor(kCriticalPathRgb));
    table->setItem(row, 2, step);
    table->setItem(row, 3, new Cell(Dur(s.dur_ns())));
    table->setItem(row, 4, new Cell(Dur(total)));
    table->setItem(row, 5, new Cell(gpu_side ? "stream " + Stream(s.stream) : "thread " + QString::number(s.thread.value())));
    const RunTimeline::Location at = LocateSegment(run.timeline, view.device, s);
    SetJump(table, row, {run_index, at.lane, at.row, at.item}, s.start_ns, s.end_ns);
  }
}

// Every run's overview (DescribeRun), one after the other.
QString SummaryHtml(const LoadedRuns& runs) {
  QString html;
  for (const auto& run : runs) {
    std::vector<RichRow> rows;
    for (const OverviewSection& section : DescribeRun(*run)) {
      rows.push_back({section.title, "", "", false, true});
      for (const OverviewLine& line : section.lines) rows.push_back({line.label, line.value, line.note, line.problem, false});
    }
    html += QString("<h3>%1</h3>").arg(Esc(run->Label())) + RowsTable(rows);
  }
  return html;
}

}  // namespace

InsightTabs::InsightTabs(QWidget* parent) : QTabWidget(parent) {
  summary_ = new QTextBrowser;
  gaps_ = MakeTable({"Start", "Duration", "Cause", "GPU", "Next stream"});
  ops_ = MakeTable({"Op", "Kind", "GPU time", "Kernels", "Measured stream", "Assigned stream", "Critical path"});
  critical_ = MakeTable(kOpPathHeaders);
  addTab(summary_, "Summary");
  addTab(gaps_, "Top idle gaps");
  addTab(ops_, "Ops by GPU time");
  addTab(critical_, "Critical path");
  diff_page_ = new QWidget;
  diff_caption_ = new QLabel;
  diff_caption_->setWordWrap(true);
  diff_caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  diff_ = MakeTable({"Figure", "Base", "New", "Change", "%", "Noise", "Verdict"});
  diff_->setTextElideMode(Qt::ElideMiddle);
  diff_->setWordWrap(false);
  auto* diff_layout = new QVBoxLayout(diff_page_);
  diff_layout->setContentsMargins(4, 4, 4, 4);
  diff_layout->addWidget(diff_caption_);
  diff_layout->addWidget(diff_, 1);
  run_selector_ = new QComboBox;
  run_selector_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  setCornerWidget(run_selector_, Qt::TopRightCorner);
  connect(run_selector_, &QComboBox::currentIndexChanged, this, [this](int i) { ShowRun(i); });
  for (QTableWidget* table : {gaps_, ops_, critical_}) {
    connect(table, &QTableWidget::cellClicked, this, [this, table](int row, int) { Jump(table, row); });
    connect(table, &QTableWidget::cellActivated, this, [this, table](int row, int) { Jump(table, row); });
  }
}

void InsightTabs::SetRuns(LoadedRuns runs) {
  runs_ = std::move(runs);
  summary_->setHtml(SummaryHtml(runs_));
  const QSignalBlocker block(run_selector_);
  run_selector_->clear();
  for (const auto& run : runs_) run_selector_->addItem(QString::fromStdString(run->Label()));
  run_selector_->setVisible(runs_.size() > 1);
  const int diff_tab = indexOf(diff_page_);
  if (runs_.size() > 1 && diff_tab < 0) addTab(diff_page_, "Diff");
  if (runs_.size() <= 1 && diff_tab >= 0) removeTab(diff_tab);
  ShowRun(0);
}

void InsightTabs::ShowRun(int run) {
  if (run < 0 || static_cast<size_t>(run) >= runs_.size()) return;
  run_ = run;
  const LoadedRun& r = *runs_[static_cast<size_t>(run)];
  FillGaps(r);
  FillOps(r);
  FillCriticalPath(r);
  FillDiff();
}

void InsightTabs::FillDiff() {
  diff_->setRowCount(0);
  if (runs_.size() < 2) return;
  const size_t now = run_ > 0 ? static_cast<size_t>(run_) : 1;
  auto view = DescribeDiff(*runs_[0], *runs_[now]);
  if (!view.ok()) {
    diff_caption_->setText(QString::fromStdString(view.status().message()));
    return;
  }
  QString caption = QString("<b>%1</b>").arg(Esc(view->title));
  for (const std::string& note : view->notes) caption += "<br>" + Esc(note);
  diff_caption_->setText(caption);
  diff_->clearSpans();
  diff_->setRowCount(static_cast<int>(std::min<size_t>(view->rows.size(), kMaxRows)));
  for (int row = 0; row < diff_->rowCount(); ++row) {
    const DiffRow& r = view->rows[static_cast<size_t>(row)];
    const std::string cells[] = {r.label, r.base, r.now, r.change, r.percent, r.noise, r.verdict};
    for (int col = 0; col < 7; ++col) {
      auto* cell = new Cell(QString::fromStdString(cells[col]));
      if (col > 0 && col < 6) cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (col == 0) cell->setToolTip(cell->text());  // kernel names run to hundreds of characters
      if (r.heading) {
        QFont bold = cell->font();
        bold.setBold(true);
        cell->setFont(bold);
      }
      if (r.significant && col >= 3) cell->setForeground(ToQColor(kChangedRgb));
      diff_->setItem(row, col, cell);
    }
    if (r.heading) diff_->setSpan(row, 0, 1, 7);
  }
  diff_->resizeColumnsToContents();
  diff_->setColumnWidth(0, std::min(diff_->columnWidth(0), kDiffNameWidthPx));
}

void InsightTabs::FillGaps(const LoadedRun& run) {
  gaps_->setSortingEnabled(false);
  gaps_->setRowCount(0);
  std::vector<std::pair<DeviceId, analysis::IdleGap>> all;
  for (const DeviceIdleSummary& d : run.devices) {
    for (const analysis::IdleGap& g : d.longest) all.emplace_back(d.device, g);
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second.dur_ns > b.second.dur_ns; });
  if (all.size() > static_cast<size_t>(kMaxRows)) all.resize(kMaxRows);
  gaps_->setRowCount(static_cast<int>(all.size()));
  const int64_t align = run.AlignNs();
  for (size_t i = 0; i < all.size(); ++i) {
    const auto& [device, g] = all[i];
    const int row = static_cast<int>(i);
    gaps_->setItem(row, 0, new Cell(Dur(g.start_ns - align), static_cast<double>(g.start_ns)));
    gaps_->setItem(row, 1, new Cell(Dur(g.dur_ns), static_cast<double>(g.dur_ns)));
    auto* cause = new Cell(QString::fromUtf8(GapCauseLabel(g.cause).data()));
    cause->setForeground(ToQColor(GapCauseColor(g.cause)));
    gaps_->setItem(row, 2, cause);
    gaps_->setItem(row, 3, new Cell(QString::number(device.value()), device.value()));
    gaps_->setItem(row, 4, new Cell(Stream(g.next_stream), static_cast<double>(g.next_stream.value())));
    const int32_t lane = run.timeline.FindLane(LaneKind::kDeviceIdle, device, StreamId(), ThreadId());
    const int64_t item = lane < 0 ? -1 : run.timeline.lanes[static_cast<size_t>(lane)].rows[0].FindNear(g.start_ns, 0);
    SetJump(gaps_, row, {run_, lane, 0, item}, g.start_ns, g.start_ns + g.dur_ns);
  }
  gaps_->setSortingEnabled(true);
  gaps_->resizeColumnsToContents();
}

void InsightTabs::FillOps(const LoadedRun& run) {
  ops_->setSortingEnabled(false);
  ops_->setRowCount(0);
  if (!run.ops) return;
  const auto& ops = run.ops->ops;
  std::vector<size_t> order(ops.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ops[a].gpu_time_ns > ops[b].gpu_time_ns; });
  if (order.size() > static_cast<size_t>(kMaxRows)) order.resize(kMaxRows);
  ops_->setRowCount(static_cast<int>(order.size()));
  for (size_t i = 0; i < order.size(); ++i) {
    const OpRow& op = ops[order[i]];
    const int row = static_cast<int>(i);
    ops_->setItem(row, 0, new Cell(QString::fromStdString(op.name)));
    ops_->setItem(row, 1, new Cell(QString::fromStdString(op.kind)));
    ops_->setItem(row, 2, new Cell(Dur(op.gpu_time_ns), static_cast<double>(op.gpu_time_ns)));
    ops_->setItem(row, 3, new Cell(QString::number(op.kernels), op.kernels));
    ops_->setItem(row, 4, new Cell(Stream(op.measured_stream), static_cast<double>(op.measured_stream.value())));
    ops_->setItem(row, 5, new Cell(Stream(op.assigned_stream), static_cast<double>(op.assigned_stream.value())));
    auto* critical = new Cell(op.critical_position >= 0 ? QString("yes (%1)").arg(op.critical_position + 1) : QString(),
                              op.critical_position >= 0 ? -op.critical_position : -1e9);
    if (op.critical_position >= 0) critical->setForeground(ToQColor(kCriticalPathRgb));
    ops_->setItem(row, 6, critical);
    SetJump(ops_, row, OpKernel(run_, op.op.value()), op.first_start_ns, op.last_end_ns);
  }
  ops_->setSortingEnabled(true);
  ops_->resizeColumnsToContents();
}

void InsightTabs::FillCriticalPath(const LoadedRun& run) {
  critical_->setRowCount(0);
  if (!run.ops) {
    FillHostGpuPath(critical_, run, run_);
    critical_->resizeColumnsToContents();
    return;
  }
  critical_->setHorizontalHeaderLabels(kOpPathHeaders);
  const auto& path = run.ops->critical_path;
  critical_->setRowCount(static_cast<int>(std::min<size_t>(path.size(), kMaxRows)));
  int64_t total = 0;
  for (int row = 0; row < critical_->rowCount(); ++row) {
    const OpRow& op = run.ops->ops[static_cast<size_t>(path[static_cast<size_t>(row)].value())];
    total += op.gpu_time_ns;
    critical_->setItem(row, 0, new Cell(QString::number(row + 1)));
    critical_->setItem(row, 1, new Cell(QString::fromStdString(op.name)));
    critical_->setItem(row, 2, new Cell(QString::fromStdString(op.kind)));
    critical_->setItem(row, 3, new Cell(Dur(op.gpu_time_ns)));
    critical_->setItem(row, 4, new Cell(Dur(total)));
    critical_->setItem(row, 5, new Cell(Stream(op.measured_stream)));
    SetJump(critical_, row, OpKernel(run_, op.op.value()), op.first_start_ns, op.last_end_ns);
  }
  critical_->resizeColumnsToContents();
}

ItemLocation InsightTabs::OpKernel(int run, int32_t op) const {
  const LoadedRun& r = *runs_[static_cast<size_t>(run)];
  const OpRow& row = r.ops->ops[static_cast<size_t>(op)];
  if (row.first_start_ns < 0) return {};
  for (size_t l = 0; l < r.timeline.lanes.size(); ++l) {
    const Lane& lane = r.timeline.lanes[l];
    if (lane.kind != LaneKind::kStream || lane.stream != row.measured_stream || lane.device != r.ops->device) continue;
    for (size_t k = 0; k < lane.rows.size(); ++k) {
      const int64_t item = lane.rows[k].FindNear(row.first_start_ns, 0);
      if (item >= 0 && OpOfItem(r.timeline, lane.rows[k].ref(static_cast<size_t>(item))) == op) {
        return {run, static_cast<int32_t>(l), static_cast<int32_t>(k), item};
      }
    }
  }
  return {};
}

void InsightTabs::Jump(QTableWidget* table, int row) {
  const QTableWidgetItem* cell = table->item(row, 0);
  if (cell == nullptr) return;
  const QList<qlonglong> jump = cell->data(kJumpRole).value<QList<qlonglong>>();
  if (jump.size() != 6) return;
  const ItemLocation loc{static_cast<int32_t>(jump[0]), static_cast<int32_t>(jump[1]), static_cast<int32_t>(jump[2]), jump[3]};
  if (loc.valid()) emit itemRequested(loc);
  else if (jump[4] >= 0) emit rangeRequested(static_cast<int>(jump[0]), jump[4], jump[5], static_cast<int>(jump[1]));
}

}  // namespace nimble::gui
