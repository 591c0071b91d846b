// The C++ testee library on its own: JSON integers exact to 2^64 - 1, the
// framing's refusals (truncated frame, oversized or zero length, end of
// input), serve()'s answers and callbacks, and how it ends on a bad request
// (status 2, the reason on stderr) or a clean end of input (status 0).
#include "testee/cpp/spsq_testee.h"

#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace spsq_testee {
namespace {

// ------------------------------------------------------------------ JSON

TEST(Json, IntegersRoundTripExactlyToTheEndsOfTheirRanges) {
  std::string error;
  Json j;
  ASSERT_TRUE(Json::parse("[18446744073709551615, -9223372036854775808, -2147483648, 0]", &j,
                          &error)) << error;
  uint64_t u = 0;
  int64_t i = 0;
  int32_t s = 0;
  ASSERT_TRUE(j.items()[0].get_u64(&u));
  EXPECT_EQ(u, UINT64_MAX);
  ASSERT_TRUE(j.items()[1].get_i64(&i));
  EXPECT_EQ(i, INT64_MIN);
  ASSERT_TRUE(j.items()[2].get_i32(&s));
  EXPECT_EQ(s, INT32_MIN);
  EXPECT_FALSE(j.items()[0].get_i64(&i)) << "2^64 - 1 is no int64";
  EXPECT_FALSE(j.items()[1].get_u64(&u)) << "a negative is no uint64";
  EXPECT_EQ(j.dump(), "[18446744073709551615,-9223372036854775808,-2147483648,0]");
  EXPECT_EQ(Json::u64(UINT64_MAX).dump(), "18446744073709551615");
  EXPECT_EQ(Json::i64(INT64_MIN).dump(), "-9223372036854775808");
}

TEST(Json, BadDocumentsAreRefusedWithWhatIsWrong) {
  const struct {
    const char* text;
    const char* why;
  } bad[] = {
      {"18446744073709551616", "integer beyond 64 bits"},
      {"-9223372036854775809", "below -2^63"},
      {"1.5", "fraction or exponent"},
      {"1e3", "fraction or exponent"},
      {"007", "leading zero"},
      {"{\"a\":1,\"a\":2}", "duplicate member"},
      {"{\"a\":1", "unterminated object"},
      {"[1,]", "unexpected character"},
      {"\"\\ud800\"", "lone high surrogate"},
      {"{} x", "trailing characters"},
      {"", "unexpected end"},
  };
  for (const auto& b : bad) {
    Json j;
    std::string error;
    EXPECT_FALSE(Json::parse(b.text, &j, &error)) << b.text;
    EXPECT_NE(error.find(b.why), std::string::npos) << b.text << ": " << error;
  }
}

TEST(Json, StringsKeepEveryCharacter) {
  Json j;
  std::string error;
  ASSERT_TRUE(Json::parse("\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\"", &j, &error)) << error;
  EXPECT_EQ(j.as_string(), "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80");
  Json back;
  ASSERT_TRUE(Json::parse(j.dump(), &back, &error)) << error;
  EXPECT_EQ(back.as_string(), j.as_string());
  EXPECT_EQ(Json::str(std::string("\x01", 1)).dump(), "\"\\u0001\"");
}

TEST(Hex, RoundTripsAndRefusesWhatIsNotLowercaseHex) {
  const std::vector<uint8_t> bytes = {0x00, 0x7f, 0x80, 0xff};
  EXPECT_EQ(to_hex(bytes.data(), bytes.size()), "007f80ff");
  std::vector<uint8_t> back;
  ASSERT_TRUE(from_hex("007f80ff", &back));
  EXPECT_EQ(back, bytes);
  EXPECT_FALSE(from_hex("0", &back)) << "odd length";
  EXPECT_FALSE(from_hex("FF", &back)) << "uppercase";
  EXPECT_FALSE(from_hex("zz", &back));
}

// ------------------------------------------------------------------ frames

// A pipe whose write end holds `bytes` and is closed: the reader sees them,
// then end of input.
int InputOf(const std::string& bytes) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  if (!write_fully(fds[1], bytes.data(), bytes.size())) return -1;
  ::close(fds[1]);
  return fds[0];
}

std::string Frame(const std::string& body) {
  std::string out(4, '\0');
  encode_frame_header(static_cast<uint32_t>(body.size()), reinterpret_cast<unsigned char*>(&out[0]));
  return out + body;
}

std::string Header(uint32_t n) {
  std::string out(4, '\0');
  encode_frame_header(n, reinterpret_cast<unsigned char*>(&out[0]));
  return out;
}

TEST(Frames, AreReadWholeThenEndOfInputBetweenFramesIsClean) {
  const int fd = InputOf(Frame("{\"a\":1}") + Frame("[]"));
  std::string body, error;
  ASSERT_EQ(read_frame(fd, &body, &error), 0) << error;
  EXPECT_EQ(body, "{\"a\":1}");
  ASSERT_EQ(read_frame(fd, &body, &error), 0) << error;
  EXPECT_EQ(body, "[]");
  EXPECT_EQ(read_frame(fd, &body, &error), 1) << "end of input between frames";
  ::close(fd);
}

TEST(Frames, ATruncatedFrameIsAnError) {
  const struct {
    std::string bytes;
    const char* why;
  } cases[] = {
      {std::string("\x05\x00", 2), "truncated frame"},   // half a header
      {Header(10) + "{\"a\"", "truncated frame"},        // half a body
  };
  for (const auto& c : cases) {
    const int fd = InputOf(c.bytes);
    std::string body, error;
    EXPECT_EQ(read_frame(fd, &body, &error), -1);
    EXPECT_NE(error.find(c.why), std::string::npos) << error;
    ::close(fd);
  }
}

TEST(Frames, LengthsOutsideOneTo16MiBAreRefused) {
  for (uint32_t n : {0u, kMaxFrameBytes + 1, 0xffffffffu}) {
    const int fd = InputOf(Header(n));
    std::string body, error;
    EXPECT_EQ(read_frame(fd, &body, &error), -1) << n;
    EXPECT_NE(error.find(n == 0 ? "frame length 0" : "exceeds 16 MiB"), std::string::npos)
        << error;
    ::close(fd);
  }
  EXPECT_EQ(frame_length_error(kMaxFrameBytes), "") << "16 MiB itself is a valid length";
  EXPECT_FALSE(write_frame(1, "")) << "an empty frame is never written";
}

// ------------------------------------------------------------------ serve

// A queue whose try_enqueue writes its bytes at offset 64 and tests the
// counter at 0 through the view; every other operation is unsupported.
class Probe : public Queue {
 public:
  Outcome create(const std::array<uint64_t, 10>&, bool, View view) override {
    view_ = view;
    return Outcome::kOk;
  }
  Outcome try_enqueue(const void* data, uint64_t nbytes) override {
    if (!view_.payload().write(64, data, nbytes)) return Outcome::kFailed;
    struct {
      bool matched;
      int32_t observed;
    } sample{};
    if (!view_.counter().test(0, 7, 0u, sample)) return Outcome::kFailed;
    observed = sample.observed;
    return sample.matched ? Outcome::kOk : Outcome::kNoProgress;
  }
  Outcome enqueue(const void*, uint64_t, uint64_t) override { return Outcome::kUnsupported; }
  Outcome try_request_stop() override { return Outcome::kUnsupported; }
  Outcome request_stop(uint64_t) override { return Outcome::kUnsupported; }
  Outcome try_peek(Message*) override { return Outcome::kUnsupported; }
  Outcome peek(uint64_t, Message*) override { return Outcome::kUnsupported; }
  Outcome read_into(const Message&, void*, uint64_t) override { return Outcome::kUnsupported; }
  Outcome release(const Message&) override { return Outcome::kUnsupported; }
  Outcome try_dequeue_into(void*, uint64_t, Message*) override { return Outcome::kUnsupported; }
  Outcome dequeue_into(void*, uint64_t, uint64_t, Message*) override {
    return Outcome::kUnsupported;
  }
  void free() override {}
  bool live() override { return true; }
  Error error() override { return Error{}; }
  Json layout() override { return Json::object(); }
  std::array<uint64_t, 10> chip_task_arg_scalars() override { return {}; }

  View view_;
  int32_t observed = 0;
};

// serve() over `input`; returns what it wrote, frame by frame.
std::vector<Json> Serve(const std::string& input, Queue& q, int* status) {
  const int in = InputOf(input);
  int out[2];
  EXPECT_EQ(::pipe(out), 0);
  *status = serve({"probe"}, q, in, out[1]);
  ::close(out[1]);
  ::close(in);
  std::vector<Json> frames;
  std::string body, error;
  while (read_frame(out[0], &body, &error) == 0) {
    Json j;
    EXPECT_TRUE(Json::parse(body, &j, &error)) << error;
    frames.push_back(j);
  }
  ::close(out[0]);
  return frames;
}

const char kCreate[] =
    "{\"id\":1,\"op\":\"create\",\"scalars\":[1,2,3,4,5,6,7,8,9,10],\"region\":false}";

TEST(Serve, SaysHelloThenAnswersWithCallbacksInBetween) {
  Probe q;
  int status = -1;
  const auto frames = Serve(
      Frame(kCreate) + Frame("{\"id\":2,\"op\":\"try_enqueue\",\"data\":\"0aff\",\"nbytes\":2}") +
          Frame("{\"reply\":\"payload_write\",\"ok\":true}") +
          Frame("{\"reply\":\"counter_test\",\"ok\":true,\"matched\":true,\"observed\":-5}") +
          Frame("{\"id\":3,\"op\":\"no_such_op\"}") + Frame("{\"id\":4,\"op\":\"quit\"}"),
      q, &status);
  EXPECT_EQ(status, 0);
  ASSERT_EQ(frames.size(), 7u);
  EXPECT_EQ(frames[0].dump(),
            "{\"hello\":\"spsq-testee\",\"version\":1,\"name\":\"probe\",\"language\":\"c++\","
            "\"surface\":\"cpp\"}");
  EXPECT_EQ(frames[1].dump(), "{\"id\":1,\"outcome\":\"ok\"}");
  EXPECT_EQ(frames[2].dump(), "{\"call\":\"payload_write\",\"offset\":64,\"data\":\"0aff\"}");
  EXPECT_EQ(frames[3].dump(),
            "{\"call\":\"counter_test\",\"offset\":0,\"cmp_value\":7,\"cmp\":0}");
  EXPECT_EQ(frames[4].dump(), "{\"id\":2,\"outcome\":\"ok\"}");
  EXPECT_EQ(q.observed, -5);
  EXPECT_EQ(frames[5].dump(),
            "{\"id\":3,\"text\":\"unknown op \\\"no_such_op\\\"\",\"outcome\":\"unsupported\"}");
  EXPECT_EQ(frames[6].dump(), "{\"id\":4,\"outcome\":\"ok\"}");
}

// A probe that counts how many of its kind are alive.
class Counted : public Probe {
 public:
  explicit Counted(int* alive) : alive_(alive) { ++*alive_; }
  ~Counted() override { --*alive_; }

 private:
  int* alive_;
};

// With a factory the hello declares "reuse": every "create" binds a new
// queue, "end" destroys it, and a request with no queue bound fails without
// ending the process.
TEST(Serve, AFactoryServesOneQueueAfterAnother) {
  int made = 0, alive = 0, alive_at_end = -1;
  const int in = InputOf(Frame(kCreate) + Frame("{\"id\":2,\"op\":\"end\"}") +
                         Frame("{\"id\":3,\"op\":\"live\"}") +
                         Frame("{\"id\":4,\"op\":\"create\",\"scalars\":[1,2,3,4,5,6,7,8,9,"
                               "10],\"region\":false}") +
                         Frame("{\"id\":5,\"op\":\"live\"}") + Frame("{\"id\":6,\"op\":\"end\"}") +
                         Frame("{\"id\":7,\"op\":\"quit\"}"));
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  const int status = serve(
      {"probe"},
      [&] {
        ++made;
        alive_at_end = alive;
        return std::unique_ptr<Queue>(new Counted(&alive));
      },
      in, out[1]);
  ::close(out[1]);
  ::close(in);
  std::vector<std::string> frames;
  std::string body, error;
  while (read_frame(out[0], &body, &error) == 0) frames.push_back(body);
  ::close(out[0]);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(made, 2);
  EXPECT_EQ(alive_at_end, 0) << "the first queue is destroyed by \"end\", before the next";
  EXPECT_EQ(alive, 0);
  ASSERT_EQ(frames.size(), 8u);
  EXPECT_EQ(frames[0],
            "{\"hello\":\"spsq-testee\",\"version\":1,\"name\":\"probe\",\"language\":\"c++\","
            "\"surface\":\"cpp\",\"reuse\":true}");
  EXPECT_EQ(frames[1], "{\"id\":1,\"outcome\":\"ok\"}");
  EXPECT_EQ(frames[2], "{\"id\":2,\"outcome\":\"ok\"}");
  EXPECT_EQ(frames[3],
            "{\"id\":3,\"outcome\":\"failed\",\"text\":\"no queue: \\\"create\\\" did not run "
            "since the last \\\"end\\\"\"}");
  EXPECT_EQ(frames[4], "{\"id\":4,\"outcome\":\"ok\"}");
  EXPECT_EQ(frames[5], "{\"id\":5,\"live\":true,\"outcome\":\"ok\"}");
  EXPECT_EQ(frames[6], "{\"id\":6,\"outcome\":\"ok\"}");
  EXPECT_EQ(frames[7], "{\"id\":7,\"outcome\":\"ok\"}");
}

TEST(Serve, AViewRefusalFailsTheCallNotTheProcess) {
  Probe q;
  int status = -1;
  const auto frames = Serve(
      Frame(kCreate) + Frame("{\"id\":2,\"op\":\"try_enqueue\",\"data\":\"00\",\"nbytes\":1}") +
          Frame("{\"reply\":\"payload_write\",\"ok\":false,\"error\":\"injected fault\"}"),
      q, &status);
  EXPECT_EQ(status, 0) << "end of input between requests";
  ASSERT_EQ(frames.size(), 4u);
  EXPECT_EQ(frames[3].dump(), "{\"id\":2,\"outcome\":\"failed\"}");
  EXPECT_TRUE(q.view_.failed());
  EXPECT_STREQ(q.view_.error().message, "injected fault");
}

// The harness breaking the protocol ends the testee: status 2, the reason on
// stderr (which the harness quotes).
void ServeAndExit(const std::string& input) {
  Probe q;
  int status = -1;
  Serve(input, q, &status);
  std::exit(status);
}

TEST(ServeDeathTest, EndsOnWhatIsNotTheProtocol) {
  EXPECT_EXIT(ServeAndExit(Frame("{\"id\":1,")), ::testing::ExitedWithCode(2), "bad JSON");
  EXPECT_EXIT(ServeAndExit(Header(20) + "{}"), ::testing::ExitedWithCode(2), "truncated frame");
  EXPECT_EXIT(ServeAndExit(Header(kMaxFrameBytes + 1)), ::testing::ExitedWithCode(2),
              "exceeds 16 MiB");
  EXPECT_EXIT(ServeAndExit(Frame("{\"op\":\"live\"}")), ::testing::ExitedWithCode(2),
              "no integer \"id\"");
  // End of input while a callback waits for its reply.
  EXPECT_EXIT(ServeAndExit(Frame(kCreate) +
                           Frame("{\"id\":2,\"op\":\"try_enqueue\",\"data\":\"00\",\"nbytes\":1}")),
              ::testing::ExitedWithCode(2), "no reply to a callback");
  // A reply that answers another call.
  EXPECT_EXIT(ServeAndExit(Frame(kCreate) +
                           Frame("{\"id\":2,\"op\":\"try_enqueue\",\"data\":\"00\",\"nbytes\":1}") +
                           Frame("{\"reply\":\"now\",\"now_ns\":1}")),
              ::testing::ExitedWithCode(2), "does not answer \"payload_write\"");
}

TEST(ServeDeathTest, EndOfInputBetweenRequestsEndsCleanly) {
  EXPECT_EXIT(ServeAndExit(Frame(kCreate)), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace spsq_testee
