// The file a Chrome export writes: bytes go to `<path>.partial` (gzip-compressed when the path ends in
// ".gz") and the file takes its real name only on Commit(); destroyed uncommitted, it removes the
// partial file, so a failed export leaves nothing behind. Every error names the file. One owner, one thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "nimble/core/status.h"

namespace nimble::workflow {

// Compresses a byte stream into gzip members (zlib); where zlib is missing, Create() says so.
class GzipEncoder {
 public:
  static StatusOr<std::unique_ptr<GzipEncoder>> Create();
  virtual ~GzipEncoder() = default;
  // Appends the compressed form of `in` (or, with `finish`, everything still held) to `out`.
  virtual Status Encode(std::string_view in, bool finish, std::string& out) = 0;
};

class ChromeOutputFile {
 public:
  static StatusOr<std::unique_ptr<ChromeOutputFile>> Create(const std::string& path);
  ~ChromeOutputFile();
  ChromeOutputFile(const ChromeOutputFile&) = delete;
  ChromeOutputFile& operator=(const ChromeOutputFile&) = delete;

  Status Write(std::string_view bytes);
  // Flushes, closes and renames `<path>.partial` to `path`.
  Status Commit();

  const std::string& path() const { return path_; }
  std::string partial_path() const { return path_ + ".partial"; }
  bool gzip() const { return encoder_ != nullptr; }
  int64_t file_bytes() const { return file_bytes_; }

 private:
  ChromeOutputFile(std::string path, std::FILE* file, std::unique_ptr<GzipEncoder> encoder);
  Status WriteFile(std::string_view bytes);

  std::string path_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<GzipEncoder> encoder_;
  std::string compressed_;
  int64_t file_bytes_ = 0;
  bool committed_ = false;
};

}  // namespace nimble::workflow
