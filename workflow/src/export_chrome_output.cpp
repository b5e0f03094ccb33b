#include "export_chrome_output.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

namespace nimble::workflow {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string ErrnoText() { return std::strerror(errno); }

}  // namespace

StatusOr<std::unique_ptr<ChromeOutputFile>> ChromeOutputFile::Create(const std::string& path) {
  if (path.empty()) return InvalidArgument("no output file given");
  std::unique_ptr<GzipEncoder> encoder;
  if (EndsWith(path, ".gz")) {
    auto created = GzipEncoder::Create();
    if (!created.ok()) return created.status().WithContext(path);
    encoder = std::move(*created);
  }
  const std::string partial = path + ".partial";
  std::FILE* file = std::fopen(partial.c_str(), "wb");
  if (file == nullptr) return PermissionDenied(path + ": cannot create the output file: " + ErrnoText());
  return std::unique_ptr<ChromeOutputFile>(new ChromeOutputFile(path, file, std::move(encoder)));
}

ChromeOutputFile::ChromeOutputFile(std::string path, std::FILE* file, std::unique_ptr<GzipEncoder> encoder)
    : path_(std::move(path)), file_(file), encoder_(std::move(encoder)) {}

ChromeOutputFile::~ChromeOutputFile() {
  if (committed_) return;
  if (file_ != nullptr) std::fclose(file_);
  std::error_code ignored;
  std::filesystem::remove(partial_path(), ignored);
}

Status ChromeOutputFile::WriteFile(std::string_view bytes) {
  if (bytes.empty()) return OkStatus();
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    return DataLoss(path_ + ": write failed: " + ErrnoText());
  }
  file_bytes_ += static_cast<int64_t>(bytes.size());
  return OkStatus();
}

Status ChromeOutputFile::Write(std::string_view bytes) {
  if (file_ == nullptr) return FailedPrecondition(path_ + ": written after it was closed");
  if (!encoder_) return WriteFile(bytes);
  compressed_.clear();
  NIMBLE_RETURN_IF_ERROR(encoder_->Encode(bytes, false, compressed_).WithContext(path_));
  return WriteFile(compressed_);
}

Status ChromeOutputFile::Commit() {
  if (file_ == nullptr) return FailedPrecondition(path_ + ": committed twice");
  if (encoder_) {
    compressed_.clear();
    NIMBLE_RETURN_IF_ERROR(encoder_->Encode({}, true, compressed_).WithContext(path_));
    NIMBLE_RETURN_IF_ERROR(WriteFile(compressed_));
  }
  const bool flushed = std::fflush(file_) == 0;
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (!flushed || closed != 0) return DataLoss(path_ + ": closing failed: " + ErrnoText());
  std::error_code error;
  std::filesystem::rename(partial_path(), path_, error);
  if (error) return PermissionDenied(path_ + ": cannot rename " + partial_path() + " to it: " + error.message());
  committed_ = true;
  return OkStatus();
}

}  // namespace nimble::workflow
