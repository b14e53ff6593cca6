// Opening the files a user names (configurations, table scripts, pcaps, reports) with errors that say why:
// a directory given as a file, a missing parent directory, a permission problem. And tokens quoted in error
// messages made printable, so a binary file given as a script is not echoed raw into the terminal.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace nettwin {

// Why `path` cannot be read (for_writing false) or created (true), in words, e.g. "is a directory" or
// "directory 'out' does not exist"; uses errno of the failed open where that says more. Empty when no reason
// is known.
std::string OpenFailure(const std::string& path, bool for_writing);

// The file's name and why it cannot be opened: "PATH: cannot open (is a directory)".
std::string CannotOpen(const std::string& path);
std::string CannotCreate(const std::string& path);

// fopen with the checks fopen lacks: a directory is refused for reading (Linux opens it and then fails the
// first read). Returns nullptr and leaves the reason to CannotOpen/CannotCreate.
std::FILE* OpenForReading(const std::string& path);
std::FILE* OpenForWriting(const std::string& path);

// Reads a whole text file. Throws E(CannotOpen(path)) when it cannot be opened and E("PATH: not a text file
// (byte 0x00 at offset N)") when it holds a NUL byte: configurations and scripts are text.
std::string ReadTextFileOrMessage(const std::string& path, std::string* error);
template <class E>
std::string ReadTextFile(const std::string& path) {
  std::string error;
  std::string text = ReadTextFileOrMessage(path, &error);
  if (!error.empty()) throw E(error);
  return text;
}

// Writes a whole text file; throws E(CannotCreate(path)) or E("PATH: write failed (reason)").
bool WriteTextFileOrMessage(const std::string& path, std::string_view text, std::string* error);
template <class E>
void WriteTextFile(const std::string& path, std::string_view text) {
  std::string error;
  if (!WriteTextFileOrMessage(path, text, &error)) throw E(error);
}

// Printable ASCII kept, every other byte written \xNN, cut after `max` bytes with "...".
std::string Printable(std::string_view s, size_t max = 40);

// "FILE:LINE: token 'TOK': MESSAGE" with the token made printable: the one format of every parser's errors.
std::string TokenMessage(const std::string& file, int line, std::string_view token, const std::string& msg);

}  // namespace nettwin
