// Escaping and repairing untrusted text for terminals, XML and UTF-8 consumers.
#include "qspec/harness/text_safety.h"

#include <cstdio>

namespace qspec::harness {
namespace {

std::string hex_byte(unsigned c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c & 0xffu);
  return buf;
}

// The code point of the well-formed sequence of `len` bytes at s[i].
char32_t decode(std::string_view s, std::size_t i, std::size_t len) {
  const auto b = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k])); };
  switch (len) {
    case 1: return b(0);
    case 2: return (b(0) & 0x1f) << 6 | (b(1) & 0x3f);
    case 3: return (b(0) & 0x0f) << 12 | (b(1) & 0x3f) << 6 | (b(2) & 0x3f);
    default: return (b(0) & 0x07) << 18 | (b(1) & 0x3f) << 12 | (b(2) & 0x3f) << 6 | (b(3) & 0x3f);
  }
}

}  // namespace

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xbf) {
    if (k >= s.size()) return false;
    const auto c = static_cast<unsigned char>(s[k]);
    return c >= lo && c <= hi;
  };
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    // Table 3-7 of the Unicode standard: E0 needs A0..BF (no overlong), ED needs 80..9F (no surrogate).
    const unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    return cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    // F0 needs 90..BF (no overlong), F4 needs 80..8F (nothing above U+10FFFF).
    const unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    return cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

namespace {

constexpr const char* kReplacement = "\xef\xbf\xbd";  // U+FFFD

// One walk over s for the three rewrites below: `ill_formed(out, byte)` for each byte of an
// ill-formed sequence, `well_formed(out, code_point, bytes)` for each well-formed one.
template <class IllFormed, class WellFormed>
std::string rewrite_utf8(std::string_view s, IllFormed ill_formed, WellFormed well_formed) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence_length(s, i);
    if (len == 0) {
      ill_formed(out, static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    well_formed(out, decode(s, i, len), s.substr(i, len));
    i += len;
  }
  return out;
}

void replace_byte(std::string& out, unsigned char) { out += kReplacement; }

}  // namespace

std::string terminal_safe(std::string_view s, bool keep_newlines) {
  return rewrite_utf8(
      s, [](std::string& out, unsigned char c) { out += hex_byte(c); },
      [&](std::string& out, char32_t cp, std::string_view bytes) {
        const bool kept_whitespace = keep_newlines && (cp == '\n' || cp == '\t');
        if ((cp < 0x20 && !kept_whitespace) || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
          out += hex_byte(static_cast<unsigned>(cp));
        else
          out.append(bytes);
      });
}

std::string utf8_repaired(std::string_view s) {
  return rewrite_utf8(s, replace_byte, [](std::string& out, char32_t, std::string_view bytes) { out.append(bytes); });
}

std::string xml_escape(std::string_view s) {
  return rewrite_utf8(s, replace_byte, [](std::string& out, char32_t cp, std::string_view bytes) {
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
        // (well-formed UTF-8 holds no surrogates).
        if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xfffe || cp == 0xffff)
          out += '?';
        else
          out.append(bytes);
    }
  });
}

}  // namespace qspec::harness
