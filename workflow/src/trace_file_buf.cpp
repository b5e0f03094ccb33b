#include "trace_file_buf.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace nimble::workflow {
namespace {

constexpr size_t kTextBytes = size_t{1} << 20;      // what the parser reads from at a time
constexpr size_t kCompressedBytes = size_t{1} << 18;

unsigned char* Bytes(char* p) { return reinterpret_cast<unsigned char*>(p); }

}  // namespace

StatusOr<std::unique_ptr<TraceFileBuf>> TraceFileBuf::Open(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return NotFound(path + ": no such file");
    return FailedPrecondition(path + ": cannot read: " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) return FailedPrecondition(path + ": is a directory, not a trace file");
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return FailedPrecondition(path + ": cannot open: " + std::strerror(errno));
  unsigned char magic[2] = {0, 0};
  const size_t got = std::fread(magic, 1, 2, file);
  const bool gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (std::fseek(file, 0, SEEK_SET) != 0) {
    std::fclose(file);
    return FailedPrecondition(path + ": cannot read (not a seekable file)");
  }
  auto buf = std::unique_ptr<TraceFileBuf>(new TraceFileBuf(path, file, gzip));
  if (!buf->error_.ok()) return buf->error_;
  return buf;
}

TraceFileBuf::TraceFileBuf(std::string path, std::FILE* file, bool gzip)
    : path_(std::move(path)), file_(file), gzip_(gzip), text_(kTextBytes) {
  setg(text_.data(), text_.data(), text_.data());
  if (!gzip_) return;
  raw_.resize(kCompressedBytes);
  // 16 + MAX_WBITS: a gzip header and trailer around the deflate data, checked by zlib.
  if (inflateInit2(&zs_, 16 + MAX_WBITS) != Z_OK) {
    error_ = Internal(path_ + ": zlib could not start inflating");
    return;
  }
  zs_ready_ = true;
}

TraceFileBuf::~TraceFileBuf() {
  if (zs_ready_) inflateEnd(&zs_);
  if (file_ != nullptr) std::fclose(file_);
}

int64_t TraceFileBuf::offset() const { return offset_before_ + (gptr() - eback()); }

int64_t TraceFileBuf::LineAt(const std::string& path, int64_t offset) {
  auto buf = Open(path);
  if (!buf.ok()) return 0;
  int64_t line = 1;
  for (int64_t at = 0; at < offset; ++at) {
    const int c = (*buf)->sbumpc();
    if (c == traits_type::eof()) return 0;
    line += c == '\n';
  }
  return line;
}

std::string TraceFileBuf::Where() const {
  return "byte " + std::to_string(offset()) + ", line " + std::to_string(LineAt(path_, offset())) +
         (gzip_ ? " of the decompressed text" : "");
}

void TraceFileBuf::Fail(const std::string& what) {
  if (error_.ok()) error_ = DataLoss(path_ + ": " + what);
  done_ = true;
}

TraceFileBuf::int_type TraceFileBuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  offset_before_ += egptr() - eback();
  setg(text_.data(), text_.data(), text_.data());
  if (done_) return traits_type::eof();
  const bool more = gzip_ ? FillGzip() : FillPlain();
  if (!more) {
    done_ = true;
    return traits_type::eof();
  }
  return traits_type::to_int_type(*gptr());
}

bool TraceFileBuf::FillPlain() {
  const size_t n = std::fread(text_.data(), 1, text_.size(), file_);
  file_bytes_read_ += static_cast<int64_t>(n);
  if (n == 0) {
    if (std::ferror(file_)) Fail("read error at byte " + std::to_string(file_bytes_read_) + ": " + std::strerror(errno));
    return false;
  }
  setg(text_.data(), text_.data(), text_.data() + n);
  return true;
}

bool TraceFileBuf::ReadRaw() {
  const size_t n = std::fread(raw_.data(), 1, raw_.size(), file_);
  file_bytes_read_ += static_cast<int64_t>(n);
  if (n == 0) {
    if (std::ferror(file_)) Fail("read error at byte " + std::to_string(file_bytes_read_) + ": " + std::strerror(errno));
    return false;
  }
  zs_.next_in = Bytes(raw_.data());
  zs_.avail_in = static_cast<uInt>(n);
  return true;
}

bool TraceFileBuf::FillGzip() {
  zs_.next_out = Bytes(text_.data());
  zs_.avail_out = static_cast<uInt>(text_.size());
  while (zs_.avail_out == text_.size()) {
    if (zs_.avail_in == 0 && !ReadRaw()) {
      if (!error_.ok()) return false;
      // The end of the file is clean only where a gzip member (with its checksum) ended.
      if (!member_ended_) Fail("the gzip data ends early at compressed byte " + std::to_string(file_bytes_read_) +
                               " (the file is truncated)");
      return false;
    }
    if (member_ended_) {  // more input after a complete member: the next member of the file
      inflateReset(&zs_);
      member_ended_ = false;
    }
    const int rc = inflate(&zs_, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      member_ended_ = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      const int64_t at = file_bytes_read_ - static_cast<int64_t>(zs_.avail_in);
      Fail(std::string("damaged gzip data near compressed byte ") + std::to_string(at) + " (" +
           (zs_.msg != nullptr ? zs_.msg : "zlib error " + std::to_string(rc)) + ")");
      return false;
    }
  }
  setg(text_.data(), text_.data(), text_.data() + (text_.size() - zs_.avail_out));
  return true;
}

}  // namespace nimble::workflow
