// HTML pieces shared by the panes that show text (details, summary): escaping, and tables of labelled
// values whose labels never wrap (a label broken mid-word reads as two words). UI thread only.
#pragma once

#include <QString>

#include <string>
#include <utility>
#include <vector>

namespace nimble::gui {

struct RichRow {
  std::string label;
  std::string value;
  std::string note;      // dimmed third column; "" for none
  bool problem = false;  // value in the warning colour
  bool heading = false;  // a section title across the columns (only `label` is used)
};

QString Esc(const std::string& text);
// One table, so that the columns of every section line up.
QString RowsTable(const std::vector<RichRow>& rows);
QString FieldsTable(const std::vector<std::pair<std::string, std::string>>& fields);

}  // namespace nimble::gui
