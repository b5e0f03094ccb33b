// A read buffer over a trace file for a streaming parser: plain text, or gzip inflated on the fly with
// zlib when the file starts with the gzip magic (1f 8b; several members are read one after another).
// It knows the byte offset of the next character of the text it hands out (the inflated text of a gzip
// file); the line of an offset is found only when a message needs it, by reading the file again. A read
// or inflate failure ends the stream early and is kept in error(): a parser that then sees the text end
// must report that error, not its own. One thread.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

#include "nimble/core/status.h"

namespace nimble::workflow {

class TraceFileBuf : public std::streambuf {
 public:
  // NotFound, or FailedPrecondition (a directory, unreadable), naming `path`.
  static StatusOr<std::unique_ptr<TraceFileBuf>> Open(const std::string& path);
  ~TraceFileBuf() override;
  TraceFileBuf(const TraceFileBuf&) = delete;
  TraceFileBuf& operator=(const TraceFileBuf&) = delete;

  bool gzip() const { return gzip_; }
  // Bytes of text before the next character.
  int64_t offset() const;
  // The 1-based line of text offset `offset` of `path` (inflated for gzip), by reading it again up to
  // there; 0 when the file cannot be read that far. For messages only.
  static int64_t LineAt(const std::string& path, int64_t offset);
  // Bytes read from the file so far (compressed bytes for gzip).
  int64_t file_bytes_read() const { return file_bytes_read_; }
  // OK unless reading or inflating failed; the message names the file and the place.
  const Status& error() const { return error_; }
  // "byte 123, line 4" (of the inflated text for gzip), for messages.
  std::string Where() const;

 protected:
  int_type underflow() override;

 private:
  TraceFileBuf(std::string path, std::FILE* file, bool gzip);
  // Fills text_ with the next chunk; false at the end or on an error.
  bool FillPlain();
  bool FillGzip();
  bool ReadRaw();  // more compressed input; false at end of file or on an error
  void Fail(const std::string& what);

  std::string path_;
  std::FILE* file_ = nullptr;
  bool gzip_ = false;
  bool done_ = false;
  z_stream zs_{};
  bool zs_ready_ = false;
  bool member_ended_ = false;  // the last gzip member ended exactly where the input did
  std::vector<char> raw_;      // compressed input (gzip only)
  std::vector<char> text_;     // what get area points into
  int64_t file_bytes_read_ = 0;
  int64_t offset_before_ = 0;  // text bytes in buffers already consumed
  Status error_;
};

}  // namespace nimble::workflow
