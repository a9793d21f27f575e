// The streaming pre-pass of the vector loader: syntax, UTF-8, depth, size and duplicate-key checks via nlohmann's SAX
// parser.
#include "qspec/harness/json_precheck.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <unordered_set>
#include <vector>

#include "qspec/harness/text_safety.h"
#include "qspec/harness/vector_limits.h"

namespace qspec::harness {
namespace {
namespace lim = vector_limits;
using J = nlohmann::json;

// `s` cut to at most `max` bytes (not inside a UTF-8 sequence) with "..." appended, if longer.
std::string abbreviated(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "...";
}

// One open array or object. nlohmann's parser itself is iterative; this stack is bounded by
// kMaxJsonDepth because a start_* event beyond it stops the parse.
struct Frame {
  bool is_object = false;
  std::size_t index = 0;  // arrays: the element being read
  std::string key;        // objects: the member being read
  bool has_key = false;
  std::unordered_set<std::string> keys;  // objects: every key so far (duplicates are an error)
  std::optional<std::int64_t> tc_id;     // a test object: its "tcId" once read
};

// The checks, and (given a document) the ordered_json DOM built in the same pass: each event
// reaches nlohmann's DOM builder only after it passed its checks, so a file the checks stop is
// never built beyond the limits.
class Checker : public nlohmann::json_sax<J> {
 public:
  Checker(std::string_view text, nlohmann::ordered_json* dom) : text_(text) {
    if (dom) dom_.emplace(*dom);
  }
  std::optional<JsonPrecheckError> error;

  bool null() override { return scalar() && (!dom_ || dom_->null()); }
  bool boolean(bool b) override { return scalar() && (!dom_ || dom_->boolean(b)); }
  bool number_integer(number_integer_t v) override { return integer(v) && (!dom_ || dom_->number_integer(v)); }
  bool number_unsigned(number_unsigned_t v) override {
    const bool ok = v <= static_cast<number_unsigned_t>(INT64_MAX) ? integer(static_cast<std::int64_t>(v)) : scalar();
    return ok && (!dom_ || dom_->number_unsigned(v));
  }
  bool number_float(number_float_t, const string_t& raw) override {
    if (raw.find_first_of(".eE") == std::string::npos)
      return fail("the number " + raw + " is outside the 64-bit integer range (write big integers as decimal strings)");
    return fail("the floating-point number " + raw +
                " is not allowed: vector files hold integers, decimal strings and hex bit patterns only");
  }
  bool string(string_t& s) override {
    if (s.size() > lim::kMaxStringBytes) return fail(too_long("a string", s.size()));
    return scalar() && (!dom_ || dom_->string(s));
  }
  bool binary(binary_t& b) override { return scalar() && (!dom_ || dom_->binary(b)); }  // never from JSON text

  bool start_object(std::size_t n) override { return open(true) && (!dom_ || dom_->start_object(n)); }
  bool key(string_t& k) override {
    Frame& f = stack_.back();
    f.key = k;
    f.has_key = true;
    if (k.size() > lim::kMaxStringBytes) return fail(too_long("an object key", k.size()));
    if (!f.keys.insert(k).second)
      return fail("duplicate key \"" + abbreviated(k, 60) + "\" (a reader would silently keep only one of the values)");
    return !dom_ || dom_->key(k);
  }
  bool end_object() override { return close() && (!dom_ || dom_->end_object()); }
  bool start_array(std::size_t n) override { return open(false) && (!dom_ || dom_->start_array(n)); }
  bool end_array() override { return close() && (!dom_ || dom_->end_array()); }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    // nlohmann's position counts the bytes read, the offending one included.
    const std::size_t at = position == 0 ? 0 : std::min(position - 1, text_.empty() ? 0 : text_.size() - 1);
    if (text_.empty()) return fail("the file is empty (expected a JSON object)");
    if (const auto bad = first_invalid_utf8(text_); bad && *bad <= at) {
      const auto [line, col] = line_and_column(text_, *bad);
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(text_[*bad]));
      return fail("not valid UTF-8: byte " + std::string(hex) + " at byte offset " + std::to_string(*bad) + " (line " +
                  std::to_string(line) + ", column " + std::to_string(col) + ") begins an ill-formed UTF-8 sequence");
    }
    // nlohmann's message reads "[json.exception.parse_error.101] parse error at line L, column C: what"
    // (or "[json.exception.out_of_range.406] number overflow ..."); keep "what" and give our own
    // position (line, column and byte offset).
    std::string what = ex.what();
    if (const auto bracket = what.find("] "); what.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos)
      what = what.substr(bracket + 2);
    if (const auto colon = what.find(": "); what.rfind("parse error", 0) == 0 && colon != std::string::npos)
      what = what.substr(colon + 2);
    what = abbreviated(what, 300);  // "last read: '...'" may quote a whole (long) token
    const auto [line, col] = line_and_column(text_, at);
    const std::string where = "(line " + std::to_string(line) + ", column " + std::to_string(col) + ", byte offset " +
                              std::to_string(at) + ")";
    // The parser ran into the end of the text (mid-value, mid-string, mid-literal): a truncated file.
    if (position >= text_.size() || what.find("unexpected end of input") != std::string::npos)
      return fail("not valid JSON " + where +
                  ": the text ends in the middle of the document (truncated file?): " + what);
    return fail("not valid JSON " + where + ": " + what);
  }

  std::string path() const {
    std::string p;
    for (const Frame& f : stack_) {
      if (f.is_object) {
        if (!f.has_key) break;
        p += "/" + json_pointer_token(f.key);
      } else {
        p += "/" + std::to_string(f.index);
      }
    }
    return p;
  }

 private:
  std::string_view text_;
  std::optional<nlohmann::detail::json_sax_dom_parser<nlohmann::ordered_json>> dom_;
  std::vector<Frame> stack_;
  std::size_t values_ = 0;

  std::string too_long(const char* what, std::size_t n) const {
    return std::string(what) + " of " + std::to_string(n) + " bytes exceeds the limit of " +
           std::to_string(lim::kMaxStringBytes) + " bytes (docs/vector-format.md, Limits)";
  }

  std::optional<std::int64_t> tc_id() const {
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
      if (it->tc_id) return it->tc_id;
    return std::nullopt;
  }

  bool fail(const std::string& problem) {
    if (!error) error = JsonPrecheckError{path(), tc_id(), problem};
    return false;
  }

  // Counts a value and checks the total; every value event goes through here first.
  bool count() {
    if (++values_ > lim::kMaxJsonValues)
      return fail("the file holds more than " + std::to_string(lim::kMaxJsonValues) +
                  " JSON values, the limit (docs/vector-format.md, Limits)");
    return true;
  }

  // A value has been read completely: an enclosing array moves on to its next element, an
  // enclosing object waits for its next key (an error now lies between members: the object's path).
  void value_done() {
    if (stack_.empty()) return;
    if (stack_.back().is_object)
      stack_.back().has_key = false;
    else
      ++stack_.back().index;
  }

  bool scalar() {
    if (!count()) return false;
    value_done();
    return true;
  }

  // A test object is /testGroups/G/tests/T; its "tcId" names it in later errors.
  bool integer(std::int64_t v) {
    if (!count()) return false;
    if (stack_.size() == 5 && stack_[0].key == "testGroups" && stack_[2].key == "tests" && stack_[4].is_object &&
        stack_[4].key == "tcId")
      stack_[4].tc_id = v;
    value_done();
    return true;
  }

  bool open(bool is_object) {
    if (!count()) return false;
    if (stack_.size() >= lim::kMaxJsonDepth)
      return fail("JSON nesting deeper than " + std::to_string(lim::kMaxJsonDepth) +
                  " levels, the limit (vector files need 8; docs/vector-format.md, Limits)");
    stack_.push_back(Frame{});
    stack_.back().is_object = is_object;
    return true;
  }

  bool close() {
    stack_.pop_back();
    value_done();
    return true;
  }
};

}  // namespace

// Escapes a key for a JSON Pointer (RFC 6901); a key longer than 64 bytes is abbreviated so an
// error message stays one readable line.
std::string json_pointer_token(std::string_view key) {
  if (key.size() > 64) return json_pointer_token(abbreviated(key, 60));
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < text.size() && i < byte; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

std::optional<std::size_t> first_invalid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence_length(s, i);
    if (len == 0) return i;  // the first byte of the ill-formed sequence
    i += len;
  }
  return std::nullopt;
}

std::optional<JsonPrecheckError> precheck_json(std::string_view text, nlohmann::ordered_json* dom) {
  if (text.size() > lim::kMaxFileBytes)
    return JsonPrecheckError{"", std::nullopt,
                             "the file is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                                 std::to_string(lim::kMaxFileBytes) + " bytes (docs/vector-format.md, Limits)"};
  Checker checker(text, dom);
  const bool ok = J::sax_parse(text.begin(), text.end(), &checker);
  if (!ok && !checker.error) checker.error = JsonPrecheckError{checker.path(), std::nullopt, "not valid JSON"};
  return checker.error;
}

}  // namespace qspec::harness
