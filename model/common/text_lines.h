// Configuration and script text as every parser reads it: lines split at '\n' (as std::getline), each cut at
// its first '#', then split into words at whitespace (as `>>` does in the classic locale: space, \t, \n, \v,
// \f, \r; every other byte, NUL included, is part of a word). Without iostreams: an istringstream per line
// (locale, buffers, a string per getline) was most of the parsers' time (docs/PERF.md, "Fuzzing").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nettwin {

class TextLines {
 public:
  explicit TextLines(std::string_view text) : text_(text) {}

  // Advances to the next line (false after the last); its words may be empty.
  bool Next() {
    if (pos_ >= text_.size()) return false;
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    std::string_view line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    ++number_;
    line = line.substr(0, line.find('#'));
    words_.clear();
    size_t i = 0;
    while (true) {
      while (i < line.size() && IsSpace(line[i])) ++i;
      if (i == line.size()) break;
      const size_t start = i;
      while (i < line.size() && !IsSpace(line[i])) ++i;
      words_.emplace_back(line.substr(start, i - start));
    }
    return true;
  }
  int number() const { return number_; }  // from 1
  std::vector<std::string>& words() { return words_; }

 private:
  static bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

  std::string_view text_;
  size_t pos_ = 0;
  int number_ = 0;
  std::vector<std::string> words_;
};

}  // namespace nettwin
