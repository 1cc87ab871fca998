// Durable files (base/durable_file.h): what was written reads back; a file cut short at any
// byte, damaged in any byte or not a durable file at all is refused as DATA_LOSS, never read
// as a good one; a failed write leaves the old content; set_aside moves a bad file away.
#include "base/durable_file.h"

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "process_tmp_dir.h"

namespace animd {
namespace durable_file_test {

std::filesystem::path fresh(const std::string& name) {
  const auto p = animtest::process_tmp_dir() / name;
  std::filesystem::remove(p);
  return p;
}

std::string raw(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void put_raw(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(DurableFile, WhatIsWrittenReadsBackAndReplacesTheOldContent) {
  const auto p = fresh("state.bin");
  ASSERT_TRUE(write_durable(p, "first"));
  ASSERT_TRUE(write_durable(p, std::string("second\0with a zero", 18)));
  auto got = read_durable(p, 1 << 20);
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_EQ(*got, std::string("second\0with a zero", 18));
  EXPECT_FALSE(std::filesystem::exists(p.string() + ".tmp"));
  ASSERT_TRUE(write_durable(p, ""));
  EXPECT_EQ(*read_durable(p, 0), "");
}

TEST(DurableFile, EveryTruncationAndEveryDamagedByteIsDataLoss) {
  const auto p = fresh("cut.bin");
  const std::string payload = "characters and their clocks";
  ASSERT_TRUE(write_durable(p, payload));
  const std::string whole = raw(p);
  const auto q = fresh("cut-copy.bin");
  for (size_t n = 0; n < whole.size(); ++n) {
    put_raw(q, whole.substr(0, n));
    auto got = read_durable(q, 1 << 20);
    ASSERT_FALSE(got) << "cut at " << n;
    EXPECT_EQ(got.error().code(), anim::StatusCode::kDataLoss) << got.error().message();
  }
  for (size_t i = 0; i < whole.size(); ++i) {
    std::string bad = whole;
    bad[i] = static_cast<char>(bad[i] ^ 0x20);
    put_raw(q, bad);
    auto got = read_durable(q, 1 << 20);
    ASSERT_FALSE(got) << "byte " << i;
    EXPECT_EQ(got.error().code(), anim::StatusCode::kDataLoss);
  }
  put_raw(q, whole + "x");
  EXPECT_FALSE(read_durable(q, 1 << 20));
}

TEST(DurableFile, MissingTooLargeAndUnwritable) {
  const auto p = fresh("missing.bin");
  auto got = read_durable(p, 10);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code(), anim::StatusCode::kNotFound);
  ASSERT_TRUE(write_durable(p, std::string(100, 'x')));
  got = read_durable(p, 99);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code(), anim::StatusCode::kResourceExhausted);
  // A folder that does not exist: refused, and nothing is left behind.
  const auto nowhere = animtest::process_tmp_dir() / "no-such-dir" / "state.bin";
  const anim::Status s = write_durable(nowhere, "x");
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("no-such-dir"), std::string::npos) << s.message();
  EXPECT_EQ(*read_durable(p, 100), std::string(100, 'x'));  // the old one is untouched
}

TEST(DurableFile, SetAsideMovesTheFileToANewName) {
  const auto p = fresh("bad.bin");
  put_raw(p, "garbage");
  const auto first = set_aside(p);
  ASSERT_FALSE(first.empty());
  EXPECT_FALSE(std::filesystem::exists(p));
  EXPECT_EQ(raw(first), "garbage");
  put_raw(p, "more garbage");
  const auto second = set_aside(p);
  ASSERT_FALSE(second.empty());
  EXPECT_NE(first, second);
  EXPECT_EQ(raw(second), "more garbage");
}

}  // namespace durable_file_test
}  // namespace animd
