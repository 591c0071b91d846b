// The JSON of the testee driver protocol (testee/PROTOCOL.md): objects,
// arrays, strings, booleans, null and integers, nothing more. Integers are
// parsed as integers, never through a double, so every uint64 up to
// 2^64 - 1 and every int64 round-trips exactly. Fractions and exponents are
// refused: the protocol has none. Header-only, standard library only, so a
// third-party testee imports it as it is.
#ifndef SPSQ_TESTEE_CPP_SPSQ_TESTEE_JSON_H_
#define SPSQ_TESTEE_CPP_SPSQ_TESTEE_JSON_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace spsq_testee {

class Json {
 public:
  enum class Type { kNull, kBool, kInt, kString, kArray, kObject };

  Json() = default;
  static Json boolean(bool b) { Json j; j.type_ = Type::kBool; j.b_ = b; return j; }
  static Json u64(uint64_t v) { Json j; j.type_ = Type::kInt; j.mag_ = v; return j; }
  static Json i64(int64_t v) {
    Json j;
    j.type_ = Type::kInt;
    j.neg_ = v < 0;
    j.mag_ = j.neg_ ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    return j;
  }
  static Json str(std::string s) { Json j; j.type_ = Type::kString; j.s_ = std::move(s); return j; }
  static Json array() { Json j; j.type_ = Type::kArray; return j; }
  static Json object() { Json j; j.type_ = Type::kObject; return j; }

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_int() const { return type_ == Type::kInt; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  bool as_bool() const { return b_; }
  const std::string& as_string() const { return s_; }
  // Integer accessors: false when the value is no integer or out of range.
  bool get_u64(uint64_t* out) const {
    if (type_ != Type::kInt || neg_) return false;
    *out = mag_;
    return true;
  }
  bool get_i64(int64_t* out) const {
    if (type_ != Type::kInt) return false;
    if (!neg_ && mag_ <= uint64_t{INT64_MAX}) { *out = static_cast<int64_t>(mag_); return true; }
    if (neg_ && mag_ <= uint64_t{INT64_MAX} + 1) {
      *out = static_cast<int64_t>(uint64_t{0} - mag_);
      return true;
    }
    return false;
  }
  bool get_i32(int32_t* out) const {
    int64_t v = 0;
    if (!get_i64(&v) || v < INT32_MIN || v > INT32_MAX) return false;
    *out = static_cast<int32_t>(v);
    return true;
  }

  const std::vector<Json>& items() const { return items_; }
  Json& push(Json v) { items_.push_back(std::move(v)); return *this; }
  // Object members in insertion order; set() replaces an existing key.
  const std::vector<std::pair<std::string, Json>>& members() const { return members_; }
  Json& set(const std::string& key, Json v) {
    for (auto& m : members_) {
      if (m.first == key) { m.second = std::move(v); return *this; }
    }
    members_.emplace_back(key, std::move(v));
    return *this;
  }
  // The member `key`, or null when absent (or this is no object).
  const Json* find(const std::string& key) const {
    for (const auto& m : members_) {
      if (m.first == key) return &m.second;
    }
    return nullptr;
  }
  bool has(const std::string& key) const { return find(key) != nullptr; }

  std::string dump() const {
    std::string out;
    dump_to(&out);
    return out;
  }

  // Parses one complete document; false with *error saying what and where.
  static bool parse(const std::string& text, Json* out, std::string* error) {
    Parser p{text, 0, error};
    if (!p.value(out, 0)) return false;
    p.space();
    if (p.pos != text.size()) return p.fail("trailing characters after the JSON value");
    return true;
  }

 private:
  static constexpr int kMaxDepth = 64;

  void dump_to(std::string* out) const {
    switch (type_) {
      case Type::kNull: *out += "null"; return;
      case Type::kBool: *out += b_ ? "true" : "false"; return;
      case Type::kInt:
        if (neg_) *out += '-';
        *out += std::to_string(mag_);
        return;
      case Type::kString: quote(s_, out); return;
      case Type::kArray:
        *out += '[';
        for (size_t i = 0; i < items_.size(); ++i) {
          if (i) *out += ',';
          items_[i].dump_to(out);
        }
        *out += ']';
        return;
      case Type::kObject:
        *out += '{';
        for (size_t i = 0; i < members_.size(); ++i) {
          if (i) *out += ',';
          quote(members_[i].first, out);
          *out += ':';
          members_[i].second.dump_to(out);
        }
        *out += '}';
        return;
    }
  }

  static void quote(const std::string& s, std::string* out) {
    static const char kHex[] = "0123456789abcdef";
    *out += '"';
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') {
        *out += '\\';
        *out += static_cast<char>(c);
      } else if (c < 0x20) {
        *out += "\\u00";
        *out += kHex[c >> 4];
        *out += kHex[c & 15];
      } else {
        *out += static_cast<char>(c);
      }
    }
    *out += '"';
  }

  struct Parser {
    const std::string& t;
    size_t pos;
    std::string* error;

    bool fail(const std::string& what) {
      if (error) *error = what + " at byte " + std::to_string(pos);
      return false;
    }
    void space() {
      while (pos < t.size() && (t[pos] == ' ' || t[pos] == '\t' || t[pos] == '\n' || t[pos] == '\r')) {
        ++pos;
      }
    }
    bool literal(const char* word, Json v, Json* out) {
      const std::string w(word);
      if (t.compare(pos, w.size(), w) != 0) return fail("invalid literal");
      pos += w.size();
      *out = std::move(v);
      return true;
    }
    bool value(Json* out, int depth) {
      if (depth > kMaxDepth) return fail("nesting deeper than 64");
      space();
      if (pos >= t.size()) return fail("unexpected end of JSON");
      const char c = t[pos];
      if (c == '{') return object(out, depth);
      if (c == '[') return array(out, depth);
      if (c == '"') {
        std::string s;
        if (!string(&s)) return false;
        *out = Json::str(std::move(s));
        return true;
      }
      if (c == 't') return literal("true", Json::boolean(true), out);
      if (c == 'f') return literal("false", Json::boolean(false), out);
      if (c == 'n') return literal("null", Json(), out);
      if (c == '-' || (c >= '0' && c <= '9')) return integer(out);
      return fail(std::string("unexpected character '") + c + "'");
    }
    bool integer(Json* out) {
      Json j;
      j.type_ = Type::kInt;
      if (t[pos] == '-') { j.neg_ = true; ++pos; }
      const size_t start = pos;
      while (pos < t.size() && t[pos] >= '0' && t[pos] <= '9') {
        const uint64_t d = static_cast<uint64_t>(t[pos] - '0');
        if (j.mag_ > (UINT64_MAX - d) / 10) return fail("integer beyond 64 bits");
        j.mag_ = j.mag_ * 10 + d;
        ++pos;
      }
      if (pos == start) return fail("a number without digits");
      if (t[start] == '0' && pos - start > 1) return fail("an integer with a leading zero");
      if (pos < t.size() && (t[pos] == '.' || t[pos] == 'e' || t[pos] == 'E')) {
        return fail("a fraction or exponent (the protocol's numbers are integers)");
      }
      if (j.neg_ && j.mag_ > uint64_t{INT64_MAX} + 1) return fail("integer below -2^63");
      if (j.neg_ && j.mag_ == 0) j.neg_ = false;
      *out = std::move(j);
      return true;
    }
    bool hex4(uint32_t* v) {
      if (pos + 4 > t.size()) return fail("truncated \\u escape");
      *v = 0;
      for (int i = 0; i < 4; ++i) {
        const char c = t[pos++];
        *v <<= 4;
        if (c >= '0' && c <= '9') *v |= static_cast<uint32_t>(c - '0');
        else if (c >= 'a' && c <= 'f') *v |= static_cast<uint32_t>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') *v |= static_cast<uint32_t>(c - 'A' + 10);
        else return fail("bad hex digit in a \\u escape");
      }
      return true;
    }
    static void utf8(uint32_t cp, std::string* s) {
      if (cp < 0x80) {
        *s += static_cast<char>(cp);
      } else if (cp < 0x800) {
        *s += static_cast<char>(0xC0 | (cp >> 6));
        *s += static_cast<char>(0x80 | (cp & 0x3F));
      } else if (cp < 0x10000) {
        *s += static_cast<char>(0xE0 | (cp >> 12));
        *s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        *s += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        *s += static_cast<char>(0xF0 | (cp >> 18));
        *s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        *s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        *s += static_cast<char>(0x80 | (cp & 0x3F));
      }
    }
    bool string(std::string* s) {
      ++pos;  // the opening quote
      for (;;) {
        if (pos >= t.size()) return fail("unterminated string");
        const unsigned char c = static_cast<unsigned char>(t[pos++]);
        if (c == '"') return true;
        if (c < 0x20) return fail("a control character inside a string");
        if (c != '\\') { *s += static_cast<char>(c); continue; }
        if (pos >= t.size()) return fail("unterminated escape");
        const char e = t[pos++];
        switch (e) {
          case '"': *s += '"'; break;
          case '\\': *s += '\\'; break;
          case '/': *s += '/'; break;
          case 'b': *s += '\b'; break;
          case 'f': *s += '\f'; break;
          case 'n': *s += '\n'; break;
          case 'r': *s += '\r'; break;
          case 't': *s += '\t'; break;
          case 'u': {
            uint32_t cp = 0;
            if (!hex4(&cp)) return false;
            if (cp >= 0xD800 && cp < 0xDC00) {  // a surrogate pair
              uint32_t lo = 0;
              if (pos + 2 > t.size() || t[pos] != '\\' || t[pos + 1] != 'u') {
                return fail("a lone high surrogate");
              }
              pos += 2;
              if (!hex4(&lo)) return false;
              if (lo < 0xDC00 || lo > 0xDFFF) return fail("a bad low surrogate");
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
              return fail("a lone low surrogate");
            }
            utf8(cp, s);
            break;
          }
          default: return fail(std::string("unknown escape \\") + e);
        }
      }
    }
    bool array(Json* out, int depth) {
      ++pos;
      Json a = Json::array();
      space();
      if (pos < t.size() && t[pos] == ']') { ++pos; *out = std::move(a); return true; }
      for (;;) {
        Json v;
        if (!value(&v, depth + 1)) return false;
        a.items_.push_back(std::move(v));
        space();
        if (pos >= t.size()) return fail("unterminated array");
        if (t[pos] == ',') { ++pos; continue; }
        if (t[pos] == ']') { ++pos; *out = std::move(a); return true; }
        return fail("expected ',' or ']' in an array");
      }
    }
    bool object(Json* out, int depth) {
      ++pos;
      Json o = Json::object();
      space();
      if (pos < t.size() && t[pos] == '}') { ++pos; *out = std::move(o); return true; }
      for (;;) {
        space();
        if (pos >= t.size() || t[pos] != '"') return fail("expected a member name");
        std::string key;
        if (!string(&key)) return false;
        space();
        if (pos >= t.size() || t[pos] != ':') return fail("expected ':' after a member name");
        ++pos;
        Json v;
        if (!value(&v, depth + 1)) return false;
        if (o.has(key)) return fail("duplicate member \"" + key + "\"");
        o.members_.emplace_back(std::move(key), std::move(v));
        space();
        if (pos >= t.size()) return fail("unterminated object");
        if (t[pos] == ',') { ++pos; continue; }
        if (t[pos] == '}') { ++pos; *out = std::move(o); return true; }
        return fail("expected ',' or '}' in an object");
      }
    }
  };

  Type type_ = Type::kNull;
  bool b_ = false;
  bool neg_ = false;
  uint64_t mag_ = 0;
  std::string s_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> members_;
};

// Bytes as lowercase hex, and back (false: odd length or a non-hex digit).
inline std::string to_hex(const void* data, size_t n) {
  static const char kHex[] = "0123456789abcdef";
  const auto* p = static_cast<const unsigned char*>(data);
  std::string s(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = kHex[p[i] >> 4];
    s[2 * i + 1] = kHex[p[i] & 15];
  }
  return s;
}

inline bool from_hex(const std::string& s, std::vector<uint8_t>* out) {
  if (s.size() % 2 != 0) return false;
  auto digit = [](char c, uint8_t* v) {
    if (c >= '0' && c <= '9') { *v = static_cast<uint8_t>(c - '0'); return true; }
    if (c >= 'a' && c <= 'f') { *v = static_cast<uint8_t>(c - 'a' + 10); return true; }
    return false;
  };
  out->resize(s.size() / 2);
  for (size_t i = 0; i < out->size(); ++i) {
    uint8_t hi = 0, lo = 0;
    if (!digit(s[2 * i], &hi) || !digit(s[2 * i + 1], &lo)) return false;
    (*out)[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

}  // namespace spsq_testee

#endif  // SPSQ_TESTEE_CPP_SPSQ_TESTEE_JSON_H_
