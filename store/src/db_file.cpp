#include "db_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "nimble/store/schema.h"

namespace nimble::store {
namespace {

namespace fs = std::filesystem;

// Offsets in the SQLite database header (https://www.sqlite.org/fileformat.html, section 1.3).
constexpr size_t kHeaderBytes = 100;
constexpr size_t kPageSizeOffset = 16;
constexpr size_t kChangeCounterOffset = 24;
constexpr size_t kPageCountOffset = 28;
constexpr size_t kUserVersionOffset = 60;
constexpr size_t kApplicationIdOffset = 68;
constexpr size_t kVersionValidForOffset = 92;
constexpr std::string_view kMagic("SQLite format 3\0", 16);

uint32_t ReadBigEndian32(const std::array<char, kHeaderBytes>& h, size_t offset) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(h[offset + i]);
  return v;
}

int64_t FileSizeOrZero(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(size);
}

// The page count in the header is only trustworthy when no WAL holds newer pages and the header
// says the count is current (its change counter matches "version valid for").
Status CheckNotTruncated(const std::string& path, const std::array<char, kHeaderBytes>& h, const FileHeader& header) {
  if (FileSizeOrZero(path + "-wal") > 0) return OkStatus();
  const uint32_t pages = ReadBigEndian32(h, kPageCountOffset);
  if (pages == 0 || ReadBigEndian32(h, kChangeCounterOffset) != ReadBigEndian32(h, kVersionValidForOffset)) {
    return OkStatus();
  }
  const int64_t expected_bytes = int64_t{pages} * header.page_size_bytes;
  if (header.size_bytes < expected_bytes) {
    return DataLoss(path + ": the database file is truncated: it has " + std::to_string(header.size_bytes) +
                    " bytes of the " + std::to_string(expected_bytes) + " its header declares");
  }
  return OkStatus();
}

// The fields every SQLite file's header holds, checked as far as SQLite's format goes.
Status ReadHeaderFields(const std::string& path, std::string_view kind, const std::array<char, kHeaderBytes>& h,
                        FileHeader& header) {
  if (std::string_view(h.data(), kMagic.size()) != kMagic) {
    return DataLoss(path + ": not a SQLite database (no SQLite header), so not " + std::string(kind));
  }
  const uint32_t raw_page_size = (static_cast<uint8_t>(h[kPageSizeOffset]) << 8) |
                                 static_cast<uint8_t>(h[kPageSizeOffset + 1]);
  header.page_size_bytes = raw_page_size == 1 ? 65536 : static_cast<int32_t>(raw_page_size);
  header.user_version = static_cast<int32_t>(ReadBigEndian32(h, kUserVersionOffset));
  header.application_id = static_cast<int32_t>(ReadBigEndian32(h, kApplicationIdOffset));
  if (header.page_size_bytes < 512 || (header.page_size_bytes & (header.page_size_bytes - 1)) != 0) {
    return DataLoss(path + ": corrupt SQLite header (page size " + std::to_string(raw_page_size) + ")");
  }
  return CheckNotTruncated(path, h, header);
}

}  // namespace

StatusOr<FileHeader> ReadSqliteHeader(const std::string& path, std::string_view kind) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return NotFound(path + ": no such file");
  if (fs::is_directory(status)) return FailedPrecondition(path + ": is a directory, not " + std::string(kind));
  FileHeader header;
  header.size_bytes = FileSizeOrZero(path);
  if (header.size_bytes == 0) return DataLoss(path + ": the file is empty, not " + std::string(kind));
  std::ifstream in(path, std::ios::binary);
  if (!in) return PermissionDenied(path + ": cannot read: " + std::strerror(errno));
  std::array<char, kHeaderBytes> h{};
  in.read(h.data(), h.size());
  const auto got = static_cast<size_t>(in.gcount());
  if (got < kHeaderBytes) {
    const size_t compared = std::min(got, kMagic.size());
    if (std::string_view(h.data(), compared) == kMagic.substr(0, compared)) {
      return DataLoss(path + ": the database file is truncated: " + std::to_string(header.size_bytes) +
                      " bytes, shorter than a SQLite header");
    }
    return DataLoss(path + ": not a SQLite database (" + std::to_string(header.size_bytes) + " bytes), so not " +
                    std::string(kind));
  }
  NIMBLE_RETURN_IF_ERROR(ReadHeaderFields(path, kind, h, header));
  return header;
}

StatusOr<FileHeader> InspectDatabaseFile(const std::string& path) {
  NIMBLE_ASSIGN_OR_RETURN(FileHeader header, ReadSqliteHeader(path, "a Nimble run database"));
  if (header.application_id != kApplicationId) {
    return FailedPrecondition(path + ": a SQLite database, but not a Nimble run database (application_id " +
                              std::to_string(header.application_id) + ", expected " +
                              std::to_string(kApplicationId) + ")");
  }
  NIMBLE_RETURN_IF_ERROR(CheckSchemaVersion(path, header.user_version));
  return header;
}

Status CheckSchemaVersion(const std::string& path, int64_t version) {
  if (version > kSchemaVersion) {
    return FailedPrecondition(path + ": was written by a newer Nimble (schema " + std::to_string(version) +
                              "; this build reads up to " + std::to_string(kSchemaVersion) + ")");
  }
  if (version < 1) {
    return DataLoss(path + ": a Nimble run database with no schema (version " + std::to_string(version) +
                    "); it was never completely created");
  }
  return OkStatus();
}

bool PathExists(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

Status CheckParentDirectory(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  std::error_code ec;
  if (!fs::is_directory(parent, ec)) {
    return NotFound(path + ": cannot create the database: directory " + parent.string() + " does not exist");
  }
  return OkStatus();
}

std::string PartialPath(const std::string& path) { return path + ".partial"; }

Status RemoveDatabaseFiles(const std::string& path) {
  for (const char* suffix : {"-wal", "-shm", "-journal", ""}) {
    std::error_code ec;
    fs::remove(path + suffix, ec);
    if (ec) return Internal(path + suffix + ": cannot remove: " + ec.message());
  }
  return OkStatus();
}

Status CheckNoCompanionFiles(const std::string& path) {
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    if (PathExists(path + suffix)) {
      return Unavailable(path + suffix + " is still present after closing the database; another process " +
                         "may have it open, so it is left in place");
    }
  }
  return OkStatus();
}

Status SyncFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return Internal(path + ": cannot open to sync: " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return Internal(path + ": cannot sync: " + std::strerror(err));
  return OkStatus();
}

Status RenameDurably(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    return Internal(to + ": cannot move the finished database into place from " + from + ": " +
                    std::strerror(errno));
  }
  fs::path dir = fs::path(to).parent_path();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return OkStatus();  // the rename happened; a directory we cannot open cannot be synced
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Internal(to + ": moved into place, but syncing its directory failed: " + std::strerror(errno));
  return OkStatus();
}

}  // namespace nimble::store
