#include "nimble/gui/search_panel.h"

#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "nimble/gui/item_description.h"
#include "nimble/gui/ruler_ticks.h"
#include "nimble/gui/theme.h"

namespace nimble::gui {
namespace {

constexpr int kJumpRole = Qt::UserRole + 1;  // QList<qlonglong>{run, lane, row, item, start_ns, end_ns}

void AddEntry(QListWidget* list, const QString& text, const QList<qlonglong>& jump) {
  auto* item = new QListWidgetItem(text, list);
  item->setData(kJumpRole, QVariant::fromValue(jump));
}

}  // namespace

SearchPanel::SearchPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  status_ = new QLabel("Type a kernel, op, API or NVTX name in the search box (Ctrl+F).");
  list_ = new QListWidget;
  layout->addWidget(status_);
  layout->addWidget(list_);
  connect(list_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
    const QList<qlonglong> j = item->data(kJumpRole).value<QList<qlonglong>>();
    if (j.size() != 6) return;
    const ItemLocation loc{static_cast<int32_t>(j[0]), static_cast<int32_t>(j[1]), static_cast<int32_t>(j[2]), j[3]};
    if (loc.valid()) emit itemRequested(loc);
    else emit rangeRequested(static_cast<int>(j[0]), j[4], j[5], static_cast<int>(j[1]));
  });
  connect(&watcher_, &QFutureWatcher<Found>::finished, this, [this] {
    const Found found = watcher_.result();
    if (found.generation == generation_) Show(found, text_);
  });
}

SearchPanel::~SearchPanel() { watcher_.waitForFinished(); }

void SearchPanel::SetRuns(LoadedRuns runs) {
  runs_ = std::move(runs);
  list_->clear();
}

void SearchPanel::Search(const QString& text) {
  text_ = text.trimmed();
  const uint64_t generation = ++generation_;
  if (text_.isEmpty()) {
    list_->clear();
    status_->setText("Type a kernel, op, API or NVTX name in the search box (Ctrl+F).");
    emit hitsChanged(-1, {});
    return;
  }
  status_->setText("Searching for \"" + text_ + "\"...");
  watcher_.setFuture(QtConcurrent::run([runs = runs_, query = text_.toStdString(), generation] {
    Found found{generation, {}};
    for (const auto& run : runs) found.per_run.push_back(SearchItems(run->timeline, query, kMaxHits));
    return found;
  }));
}

void SearchPanel::Show(const Found& found, const QString& text) {
  list_->clear();
  int64_t total = 0;
  for (size_t r = 0; r < runs_.size(); ++r) {
    const LoadedRun& run = *runs_[r];
    const QString prefix = runs_.size() > 1 ? QString("[%1] ").arg(r + 1) : QString();
    if (run.ops) {  // ops by name or kind first: there are few, and they are what a model user types
      for (const OpRow& op : run.ops->ops) {
        const QString name = QString::fromStdString(op.name + " " + op.kind).toLower();
        if (!name.contains(text.toLower()) || op.first_start_ns < 0) continue;
        AddEntry(list_, prefix + QString("op %1 (%2)  %3").arg(QString::fromStdString(op.name), QString::fromStdString(op.kind),
                                                               QString::fromStdString(FormatDuration(static_cast<double>(op.gpu_time_ns)))),
                 {static_cast<qlonglong>(r), -1, -1, -1, op.first_start_ns, op.last_end_ns});
        ++total;
      }
    }
    const SearchResult& result = found.per_run[r];
    total += result.total;
    for (const SearchHit& hit : result.hits) {
      const std::string& name = run.timeline.strings.Get(StringId(hit.label));
      AddEntry(list_, prefix + QString("%1  at %2, %3").arg(QString::fromStdString(name),
                                                            QString::fromStdString(FormatDuration(static_cast<double>(hit.start_ns - run.AlignNs()))),
                                                            QString::fromStdString(FormatDuration(static_cast<double>(hit.end_ns - hit.start_ns)))),
               {static_cast<qlonglong>(r), hit.lane, hit.row, hit.item, hit.start_ns, hit.end_ns});
    }
  }
  status_->setText(QString("%1 matches for \"%2\"%3").arg(total).arg(text).arg(
      total > static_cast<int64_t>(kMaxHits) ? QString(" (the earliest %1 of each run listed)").arg(kMaxHits) : QString()));
  const int run = found.per_run.empty() ? -1 : 0;
  emit hitsChanged(run, run < 0 ? std::vector<SearchHit>{} : found.per_run[0].hits);
  emit searched(static_cast<int>(std::min<int64_t>(total, INT32_MAX)));
}

}  // namespace nimble::gui
