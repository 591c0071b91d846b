// Frames of the testee driver protocol (testee/PROTOCOL.md): a 4-byte
// little-endian length N, 1 <= N <= 16 MiB, then N bytes of one JSON object.
// The length check and the header codec are shared by both ends; the
// blocking reader and writer here are the testee's (the harness reads with a
// wall-time bound of its own).
#ifndef SPSQ_TESTEE_CPP_SPSQ_TESTEE_FRAME_H_
#define SPSQ_TESTEE_CPP_SPSQ_TESTEE_FRAME_H_

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

namespace spsq_testee {

constexpr int kProtocolVersion = 1;
constexpr uint32_t kMaxFrameBytes = 16u << 20;

inline void encode_frame_header(uint32_t n, unsigned char out[4]) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<unsigned char>(n >> (8 * i));
}
inline uint32_t decode_frame_header(const unsigned char in[4]) {
  return uint32_t{in[0]} | uint32_t{in[1]} << 8 | uint32_t{in[2]} << 16 | uint32_t{in[3]} << 24;
}
// Empty when `n` is a valid frame length; otherwise what is wrong with it.
inline std::string frame_length_error(uint64_t n) {
  if (n == 0) return "frame length 0 (at least 1)";
  if (n > kMaxFrameBytes) {
    return "frame length " + std::to_string(n) + " exceeds 16 MiB (" +
           std::to_string(kMaxFrameBytes) + ")";
  }
  return "";
}

// Reads exactly n bytes. 0: all read; 1: end of input before the first
// byte; -1: end of input or an error part way (*error says which).
inline int read_fully(int fd, void* buf, size_t n, std::string* error) {
  auto* p = static_cast<unsigned char*>(buf);
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      *error = std::string("read failed: errno ") + std::to_string(errno);
      return -1;
    }
    if (r == 0) {
      if (got == 0) return 1;
      *error = "end of input after " + std::to_string(got) + " of " + std::to_string(n) +
               " bytes (a truncated frame)";
      return -1;
    }
    got += static_cast<size_t>(r);
  }
  return 0;
}

// One frame's body. 0: read; 1: clean end of input (between frames); -1:
// a bad or truncated frame, *error names what is wrong.
inline int read_frame(int fd, std::string* body, std::string* error) {
  unsigned char head[4];
  const int h = read_fully(fd, head, 4, error);
  if (h != 0) return h;
  const uint32_t n = decode_frame_header(head);
  *error = frame_length_error(n);
  if (!error->empty()) return -1;
  body->assign(n, '\0');
  if (read_fully(fd, &(*body)[0], n, error) != 0) {
    if (error->empty()) *error = "end of input inside a frame body (a truncated frame)";
    return -1;
  }
  return 0;
}

inline bool write_fully(int fd, const void* buf, size_t n) {
  const auto* p = static_cast<const unsigned char*>(buf);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

inline bool write_frame(int fd, const std::string& body) {
  if (!frame_length_error(body.size()).empty()) return false;
  std::string out(4, '\0');
  encode_frame_header(static_cast<uint32_t>(body.size()),
                      reinterpret_cast<unsigned char*>(&out[0]));
  out += body;
  return write_fully(fd, out.data(), out.size());
}

}  // namespace spsq_testee

#endif  // SPSQ_TESTEE_CPP_SPSQ_TESTEE_FRAME_H_
