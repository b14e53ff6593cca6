#include "model/common/file_io.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace nettwin {
namespace {

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string ParentOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

std::string OpenFailure(const std::string& path, bool for_writing) {
  const int err = errno;
  if (path.empty()) return "empty file name";
  if (IsDirectory(path)) return "is a directory";
  if (for_writing) {
    const std::string parent = ParentOf(path);
    struct stat st {};
    if (::stat(parent.c_str(), &st) != 0) return "directory '" + parent + "' does not exist";
    if (!S_ISDIR(st.st_mode)) return "'" + parent + "' is not a directory";
  } else {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) return "no such file";
  }
  if (err == EACCES) return "permission denied";
  return err != 0 ? std::strerror(err) : "";
}

std::string CannotOpen(const std::string& path) {
  const std::string why = OpenFailure(path, false);
  return path + ": cannot open" + (why.empty() ? "" : " (" + why + ")");
}

std::string CannotCreate(const std::string& path) {
  const std::string why = OpenFailure(path, true);
  return path + ": cannot create" + (why.empty() ? "" : " (" + why + ")");
}

std::FILE* OpenForReading(const std::string& path) {
  if (IsDirectory(path)) return nullptr;
  errno = 0;
  return std::fopen(path.c_str(), "rb");
}

std::FILE* OpenForWriting(const std::string& path) {
  if (IsDirectory(path)) return nullptr;
  errno = 0;
  return std::fopen(path.c_str(), "wb");
}

std::string ReadTextFileOrMessage(const std::string& path, std::string* error) {
  std::unique_ptr<std::FILE, FileCloser> f(OpenForReading(path));
  if (!f) {
    *error = CannotOpen(path);
    return {};
  }
  std::string text;
  char buf[64 * 1024];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) text.append(buf, n);
  if (std::ferror(f.get())) {
    *error = path + ": read failed (" + std::strerror(errno) + ")";
    return {};
  }
  const size_t nul = text.find('\0');
  if (nul != std::string::npos) {
    *error = path + ": not a text file (byte 0x00 at offset " + std::to_string(nul) + ")";
    return {};
  }
  return text;
}

bool WriteTextFileOrMessage(const std::string& path, std::string_view text, std::string* error) {
  std::unique_ptr<std::FILE, FileCloser> f(OpenForWriting(path));
  if (!f) {
    *error = CannotCreate(path);
    return false;
  }
  const bool ok = std::fwrite(text.data(), 1, text.size(), f.get()) == text.size();
  const int err = errno;
  if (std::fclose(f.release()) != 0 || !ok) {
    *error = path + ": write failed (" + std::strerror(err) + ")";
    return false;
  }
  return true;
}

std::string Printable(std::string_view s, size_t max) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < s.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

std::string TokenMessage(const std::string& file, int line, std::string_view token, const std::string& msg) {
  return file + ":" + std::to_string(line) + ": token '" + Printable(token) + "': " + msg;
}

}  // namespace nettwin
