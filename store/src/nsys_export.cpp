#include "nimble/store/nsys_export.h"

#include "nsys_export_file.h"
#include "nsys_reader.h"

namespace nimble::store {

bool LooksLikeNsysExport(const std::string& path) {
  if (!nsys::CheckExportFile(path).ok()) return false;
  auto db = Database::Open(path, OpenMode::kImmutable);
  return db.ok() && nsys::HasExportTables(**db);
}

StatusOr<ImportedTrace> ReadNsysExport(const std::string& path) {
  NIMBLE_RETURN_IF_ERROR(nsys::CheckExportFile(path));
  NIMBLE_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, nsys::OpenExport(path));
  if (!nsys::HasExportTables(*db)) {
    return FailedPrecondition(path + ": a SQLite database, but not an Nsight Systems export (it lacks StringIds or "
                                     "the export's metadata and activity tables)");
  }
  NIMBLE_ASSIGN_OR_RETURN(nsys::SchemaVersion version, nsys::ReadSchemaVersion(*db));
  return nsys::NsysReader(*db, std::move(version)).Read();
}

}  // namespace nimble::store
