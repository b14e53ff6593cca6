// TextLines (model/common/text_lines.h) replaced std::getline + `>>` in every configuration and script
// parser for speed (docs/PERF.md, "Fuzzing"); these tests hold it to exactly what the streams did.
#include "model/common/text_lines.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace nettwin {
namespace {

using Lines = std::vector<std::pair<int, std::vector<std::string>>>;

// The parsers' former loop: getline, cut at '#', words by `>>` (classic locale).
Lines WithStreams(const std::string& text) {
  Lines out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::istringstream ws(line);
    std::vector<std::string> words;
    for (std::string w; ws >> w;) words.push_back(w);
    out.emplace_back(n, words);
  }
  return out;
}

Lines WithTextLines(const std::string& text) {
  Lines out;
  TextLines lines(text);
  while (lines.Next()) out.emplace_back(lines.number(), lines.words());
  return out;
}

TEST(TextLines, SameLinesNumbersAndWordsAsTheStreams) {
  const std::vector<std::string> cases = {
      "",
      "\n",
      "\n\n\n",
      "a",
      "a\n",
      "a\nb",
      "  qp 1  psn 0x10 # comment\n\n# only a comment\nmr 2\tkey 3\r\n",
      std::string("nul\0inside word\n\0\n", 19),
      "\v\f\r\t word\x85 \xa0next",
      "#\n#a b\nx#y z\n  #  \n",
      "trailing spaces   ",
  };
  for (const std::string& c : cases) EXPECT_EQ(WithTextLines(c), WithStreams(c)) << '"' << c << '"';
}

TEST(TextLines, SameAsTheStreamsOnRandomText) {
  std::mt19937 rng(15);
  const std::string alphabet = std::string("ab#\n \t\r\v\f\x01\xff", 12) + std::string(1, '\0');
  for (int i = 0; i < 2000; ++i) {
    std::string text(rng() % 64, ' ');
    for (char& ch : text) ch = alphabet[rng() % alphabet.size()];
    ASSERT_EQ(WithTextLines(text), WithStreams(text)) << i;
  }
}

}  // namespace
}  // namespace nettwin
