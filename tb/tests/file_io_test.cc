// model/common/file_io.h: the reasons a user's file cannot be used, and error messages that never echo raw
// bytes of a binary file into the terminal.
#include "model/common/file_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace nettwin {
namespace {

class FileIo : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/nt_file_io_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

TEST_F(FileIo, ReasonsForReading) {
  EXPECT_EQ(CannotOpen(dir_ + "/none.txt"), dir_ + "/none.txt: cannot open (no such file)");
  EXPECT_EQ(CannotOpen(dir_), dir_ + ": cannot open (is a directory)");
  EXPECT_EQ(OpenForReading(dir_), nullptr) << "Linux opens a directory; it must be refused before the first read";
  EXPECT_EQ(CannotOpen(""), ": cannot open (empty file name)");
}

TEST_F(FileIo, ReasonsForWriting) {
  EXPECT_EQ(CannotCreate(dir_ + "/no/out.pcap"),
            dir_ + "/no/out.pcap: cannot create (directory '" + dir_ + "/no' does not exist)");
  EXPECT_EQ(CannotCreate(dir_), dir_ + ": cannot create (is a directory)");
  WriteTextFile<std::runtime_error>(dir_ + "/f", "x");
  EXPECT_EQ(CannotCreate(dir_ + "/f/g"), dir_ + "/f/g: cannot create ('" + dir_ + "/f' is not a directory)");
  EXPECT_THROW(WriteTextFile<std::runtime_error>(dir_ + "/no/out.txt", "x"), std::runtime_error);
}

TEST_F(FileIo, ReadsTextRefusesBinary) {
  WriteTextFile<std::runtime_error>(dir_ + "/t.txt", "a b\nc\n");
  EXPECT_EQ(ReadTextFile<std::runtime_error>(dir_ + "/t.txt"), "a b\nc\n");
  WriteTextFile<std::runtime_error>(dir_ + "/b.bin", std::string("ab\0cd", 5));
  try {
    ReadTextFile<std::invalid_argument>(dir_ + "/b.bin");
    FAIL() << "a file with a NUL byte read as text";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), dir_ + "/b.bin: not a text file (byte 0x00 at offset 2)");
  }
}

TEST(FileIoText, PrintableEscapesAndCuts) {
  EXPECT_EQ(Printable("abc"), "abc");
  EXPECT_EQ(Printable(std::string("\x1b[1m\xff\x00z", 7)), "\\x1b[1m\\xff\\x00z");
  EXPECT_EQ(Printable(std::string(50, 'a'), 40), std::string(40, 'a') + "...");
  EXPECT_EQ(TokenMessage("f.txt", 3, "\x07x", "bad"), "f.txt:3: token '\\x07x': bad");
}

}  // namespace
}  // namespace nettwin
