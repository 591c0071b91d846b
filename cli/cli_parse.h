// Strict number parsing for the command-line tools: a whole decimal or
// 0x-hex uint64, no sign, no junk, no overflow.
#ifndef SPSQ_TOOLS_CLI_PARSE_H_
#define SPSQ_TOOLS_CLI_PARSE_H_

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace spsq_tools {

inline bool parse_u64(const char* text, uint64_t* out) {
  if (text == nullptr || *text == '\0' || *text == '-' || *text == '+' || *text == ' ') {
    return false;
  }
  int base = 10;
  const char* digits = text;
  if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    digits = text + 2;
    if (*digits == '\0' || *digits == '-' || *digits == '+' || *digits == ' ') return false;
  }
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(digits, &end, base);
  if (errno != 0 || end == digits || *end != '\0') return false;
  *out = static_cast<uint64_t>(v);
  return true;
}

}  // namespace spsq_tools

#endif  // SPSQ_TOOLS_CLI_PARSE_H_
