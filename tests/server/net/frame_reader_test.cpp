// FrameReader: framing that trusts no length. Every buffered body byte is drawn from the
// ByteBudget first and given back when the frame is consumed; a header above the limit is
// refused before any body byte is buffered.
#include "net/frame_reader.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace animd {
namespace frame_reader_test {

using Event = FrameReader::Event;

std::string header(uint32_t n) {
  std::string h(4, '\0');
  for (int i = 0; i < 4; ++i) h[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return h;
}
std::string framed(const std::string& body) {
  return header(static_cast<uint32_t>(body.size())) + body;
}
const uint8_t* bytes(const std::string& s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

// Feeds `input` in pieces whose ends are `cuts`, collecting every frame body.
std::vector<std::string> feed_in_pieces(FrameReader& r, const std::string& input,
                                        const std::vector<size_t>& cuts) {
  std::vector<std::string> frames;
  size_t begin = 0;
  std::vector<size_t> ends = cuts;
  ends.push_back(input.size());
  for (size_t end : ends) {
    size_t pos = begin;
    while (pos < end) {
      const auto step = r.feed(bytes(input) + pos, end - pos);
      pos += step.consumed;
      EXPECT_TRUE(step.event == Event::kNeedMore || step.event == Event::kFrame);
      if (step.event == Event::kFrame) {
        frames.emplace_back(r.frame());
        r.consume_frame();
      } else if (step.event != Event::kNeedMore) {
        return frames;
      }
    }
    begin = end;
  }
  return frames;
}

TEST(FrameReader, SplitAtEveryByteBoundary) {
  const std::string a = "hello", b = "second frame body";
  const std::string input = framed(a) + framed(b);
  for (size_t cut = 0; cut <= input.size(); ++cut) {
    ByteBudget budget(1024);
    FrameReader r(budget, 1024);
    const auto frames = feed_in_pieces(r, input, {cut});
    ASSERT_EQ(frames.size(), 2u) << "cut at " << cut;
    EXPECT_EQ(frames[0], a) << "cut at " << cut;
    EXPECT_EQ(frames[1], b) << "cut at " << cut;
    EXPECT_EQ(budget.used(), 0u) << "cut at " << cut;
    EXPECT_FALSE(r.mid_frame());
  }
}

TEST(FrameReader, OneByteAtATime) {
  const std::string input = framed("abc") + framed("") + framed("defgh");
  std::vector<size_t> cuts;
  for (size_t i = 1; i < input.size(); ++i) cuts.push_back(i);
  ByteBudget budget(64);
  FrameReader r(budget, 64);
  const auto frames = feed_in_pieces(r, input, cuts);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0], "abc");
  EXPECT_EQ(frames[1], "");
  EXPECT_EQ(frames[2], "defgh");
  EXPECT_EQ(budget.used(), 0u);
}

TEST(FrameReader, SeveralFramesInOneFeed) {
  const std::string input = framed("one") + framed("two!") + framed("three");
  ByteBudget budget(1024);
  FrameReader r(budget, 1024);
  size_t pos = 0;
  std::vector<std::string> frames;
  while (pos < input.size()) {
    const auto step = r.feed(bytes(input) + pos, input.size() - pos);
    pos += step.consumed;
    ASSERT_EQ(step.event, Event::kFrame);
    // The step stops at the frame's end: the next frame's bytes are not consumed yet.
    frames.emplace_back(r.frame());
    EXPECT_EQ(budget.used(), frames.back().size());
    r.consume_frame();
  }
  EXPECT_EQ(frames, (std::vector<std::string>{"one", "two!", "three"}));
  EXPECT_EQ(budget.used(), 0u);
}

TEST(FrameReader, FeedAfterFrameWithoutConsumeTakesNothing) {
  const std::string input = framed("ab") + framed("cd");
  ByteBudget budget(64);
  FrameReader r(budget, 64);
  auto step = r.feed(bytes(input), input.size());
  ASSERT_EQ(step.event, Event::kFrame);
  EXPECT_EQ(step.consumed, 6u);
  const auto again = r.feed(bytes(input) + 6, input.size() - 6);
  EXPECT_EQ(again.consumed, 0u);
  EXPECT_EQ(r.frame(), "ab");
}

TEST(FrameReader, HeaderAboveLimitRefusedBeforeAnyBodyByte) {
  ByteBudget budget(1 << 20);
  FrameReader r(budget, 100);
  const std::string input = header(101) + std::string(101, 'x');
  const auto step = r.feed(bytes(input), input.size());
  EXPECT_EQ(step.event, Event::kTooLarge);
  EXPECT_EQ(step.consumed, 4u);  // the header only
  EXPECT_EQ(r.announced(), 101u);
  EXPECT_EQ(r.body_received(), 0u);
  EXPECT_EQ(budget.used(), 0u);
}

TEST(FrameReader, HeaderAtTheLimitIsAccepted) {
  ByteBudget budget(1 << 20);
  FrameReader r(budget, 100);
  const std::string input = framed(std::string(100, 'y'));
  const auto step = r.feed(bytes(input), input.size());
  EXPECT_EQ(step.event, Event::kFrame);
  EXPECT_EQ(r.frame().size(), 100u);
}

TEST(FrameReader, FourGibHeaderBuffersNothing) {
  ByteBudget budget(1 << 20);
  {
    // With a limit that would allow it, the announced size still buffers nothing by itself.
    FrameReader r(budget, SIZE_MAX);
    const std::string h = header(0xFFFFFFFFu);
    const auto step = r.feed(bytes(h), h.size());
    EXPECT_EQ(step.event, Event::kNeedMore);
    EXPECT_EQ(r.announced(), 0xFFFFFFFFu);
    EXPECT_TRUE(r.mid_frame());
    EXPECT_EQ(r.body_received(), 0u);
    EXPECT_EQ(budget.used(), 0u);
    // A few body bytes draw exactly that many.
    const std::string some(10, 'z');
    const auto more = r.feed(bytes(some), some.size());
    EXPECT_EQ(more.event, Event::kNeedMore);
    EXPECT_EQ(more.consumed, 10u);
    EXPECT_EQ(budget.used(), 10u);
    EXPECT_EQ(r.body_received(), 10u);
  }
  // The destructor gave the draw back.
  EXPECT_EQ(budget.used(), 0u);
  {
    FrameReader r(budget, 1 << 16);
    const std::string h = header(0xFFFFFFFFu);
    EXPECT_EQ(r.feed(bytes(h), h.size()).event, Event::kTooLarge);
    EXPECT_EQ(budget.used(), 0u);
  }
}

TEST(FrameReader, BodyGrowthDrawsOnTheBudgetAndConsumeGivesItBack) {
  ByteBudget budget(1000);
  FrameReader r(budget, 1000);
  const std::string body(300, 'q');
  const std::string input = framed(body);
  size_t pos = 0;
  // Header plus 100 body bytes.
  auto step = r.feed(bytes(input), 104);
  pos += step.consumed;
  EXPECT_EQ(step.event, Event::kNeedMore);
  EXPECT_EQ(budget.used(), 100u);
  step = r.feed(bytes(input) + pos, 150);
  pos += step.consumed;
  EXPECT_EQ(step.event, Event::kNeedMore);
  EXPECT_EQ(budget.used(), 250u);
  step = r.feed(bytes(input) + pos, input.size() - pos);
  EXPECT_EQ(step.event, Event::kFrame);
  EXPECT_EQ(budget.used(), 300u);
  EXPECT_EQ(r.frame(), body);
  r.consume_frame();
  EXPECT_EQ(budget.used(), 0u);
}

TEST(FrameReader, ReleaseGivesBackAPartialFrame) {
  ByteBudget budget(1000);
  FrameReader r(budget, 1000);
  const std::string input = header(500) + std::string(200, 'p');
  r.feed(bytes(input), input.size());
  EXPECT_EQ(budget.used(), 200u);
  r.release();
  EXPECT_EQ(budget.used(), 0u);
}

TEST(FrameReader, TwoReadersShareOneBudget) {
  ByteBudget budget(100);
  FrameReader a(budget, 1000), b(budget, 1000);
  const std::string input = header(80) + std::string(60, 'a');
  EXPECT_EQ(a.feed(bytes(input), input.size()).event, Event::kNeedMore);
  EXPECT_EQ(budget.used(), 60u);
  // b may hold the 40 bytes left, not 41.
  const std::string input_b = header(80) + std::string(41, 'b');
  const auto step = b.feed(bytes(input_b), input_b.size());
  EXPECT_EQ(step.event, Event::kNoBudget);
  EXPECT_EQ(b.body_received(), 0u);
  EXPECT_EQ(budget.used(), 60u);
}

TEST(FrameReader, NoBudgetWhenTheBudgetIsTooSmall) {
  ByteBudget budget(10);
  FrameReader r(budget, 1000);
  const std::string input = framed(std::string(11, 'n'));
  const auto step = r.feed(bytes(input), input.size());
  EXPECT_EQ(step.event, Event::kNoBudget);
  EXPECT_EQ(r.body_received(), 0u);
  EXPECT_EQ(budget.used(), 0u);
  // Exactly the budget works.
  ByteBudget exact(11);
  FrameReader ok(exact, 1000);
  EXPECT_EQ(ok.feed(bytes(input), input.size()).event, Event::kFrame);
  EXPECT_EQ(exact.used(), 11u);
}

TEST(FrameReader, SetLimitAppliesToTheNextHeader) {
  ByteBudget budget(1 << 20);
  FrameReader r(budget, 10);
  EXPECT_EQ(r.limit(), 10u);
  // A frame of 8 announced under the small limit, then the limit is lowered: it completes.
  const std::string first = framed("12345678");
  auto step = r.feed(bytes(first), 6);
  EXPECT_EQ(step.event, Event::kNeedMore);
  r.set_limit(4);
  step = r.feed(bytes(first) + 6, first.size() - 6);
  ASSERT_EQ(step.event, Event::kFrame);
  EXPECT_EQ(r.frame(), "12345678");
  r.consume_frame();
  // The next header is checked against the new limit.
  const std::string second = framed("12345");
  EXPECT_EQ(r.feed(bytes(second), second.size()).event, Event::kTooLarge);

  // Raising it lets a bigger frame through (the session does this after the first valid
  // request).
  FrameReader raised(budget, 10);
  const std::string small = framed("ok");
  ASSERT_EQ(raised.feed(bytes(small), small.size()).event, Event::kFrame);
  raised.consume_frame();
  raised.set_limit(1000);
  const std::string big = framed(std::string(500, 'B'));
  ASSERT_EQ(raised.feed(bytes(big), big.size()).event, Event::kFrame);
  EXPECT_EQ(raised.frame().size(), 500u);
  raised.consume_frame();
  EXPECT_EQ(budget.used(), 0u);
}

TEST(FrameReader, ZeroLengthFrames) {
  ByteBudget budget(16);
  FrameReader r(budget, 16);
  const std::string input = header(0) + header(0) + framed("x");
  size_t pos = 0;
  std::vector<std::string> frames;
  while (pos < input.size()) {
    const auto step = r.feed(bytes(input) + pos, input.size() - pos);
    pos += step.consumed;
    ASSERT_EQ(step.event, Event::kFrame);
    frames.emplace_back(r.frame());
    r.consume_frame();
  }
  EXPECT_EQ(frames, (std::vector<std::string>{"", "", "x"}));
  EXPECT_EQ(budget.used(), 0u);
  // An empty frame draws nothing, even from an empty budget.
  ByteBudget none(0);
  FrameReader z(none, 16);
  const std::string h = header(0);
  EXPECT_EQ(z.feed(bytes(h), h.size()).event, Event::kFrame);
  EXPECT_EQ(z.frame().size(), 0u);
}

TEST(FrameReader, MidFrameTracksPartialInput) {
  ByteBudget budget(64);
  FrameReader r(budget, 64);
  EXPECT_FALSE(r.mid_frame());
  const std::string input = framed("abcd");
  r.feed(bytes(input), 2);  // half a header
  EXPECT_TRUE(r.mid_frame());
  r.feed(bytes(input) + 2, 3);  // header done, one body byte
  EXPECT_TRUE(r.mid_frame());
  EXPECT_EQ(r.body_received(), 1u);
  EXPECT_EQ(r.feed(bytes(input) + 5, 3).event, Event::kFrame);
  EXPECT_FALSE(r.mid_frame());
  r.consume_frame();
  EXPECT_FALSE(r.mid_frame());
}

}  // namespace frame_reader_test
}  // namespace animd
