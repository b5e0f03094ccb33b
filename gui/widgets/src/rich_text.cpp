#include "rich_text.h"

#include "nimble/gui/palette.h"
#include "nimble/gui/theme.h"

namespace nimble::gui {
namespace {

constexpr Rgb kProblemRgb{0xf2, 0x8e, 0x2b};

}  // namespace

QString Esc(const std::string& text) { return QString::fromStdString(text).toHtmlEscaped(); }

QString RowsTable(const std::vector<RichRow>& rows) {
  const QString dim = ToQColor(kDimTextRgb).name();
  QString html = "<table cellspacing='0' cellpadding='2'>";
  for (const RichRow& row : rows) {
    if (row.heading) {
      html += QString("<tr><td colspan='3' style='padding-top:8px'><b>%1</b></td></tr>").arg(Esc(row.label));
      continue;
    }
    const QString value_style = row.problem ? QString(" style='color:%1'").arg(ToQColor(kProblemRgb).name()) : QString();
    html += QString("<tr><td style='color:%1; padding-right:10px; white-space:nowrap'>%2</td><td%3>%4</td>")
                .arg(dim, Esc(row.label), value_style, Esc(row.value));
    if (!row.note.empty()) html += QString("<td style='color:%1; padding-left:10px'>%2</td>").arg(dim, Esc(row.note));
    html += "</tr>";
  }
  return html + "</table>";
}

QString FieldsTable(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::vector<RichRow> rows;
  rows.reserve(fields.size());
  for (const auto& [label, value] : fields) rows.push_back({label, value, "", false, false});
  return RowsTable(rows);
}

}  // namespace nimble::gui
