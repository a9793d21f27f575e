// Text from untrusted sources (vector files, backend messages, file names) made safe for a
// terminal, an XML report or any UTF-8 consumer: control characters escaped, bad UTF-8 repaired.
//
// A hostile vector comment ("\u001b[2J" clears the screen), a backend message holding invalid
// UTF-8 ("\xff\xfe" makes JUnit XML ill-formed) or a C1 control (U+009B is a one-byte CSI on
// some terminals) must never reach its consumer raw.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace qspec::harness {

// Length of the well-formed UTF-8 sequence starting at s[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF, no truncated sequence), or 0 if it is ill-formed.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

// For a terminal or a log: C0 controls (except '\n' and '\t' when keep_newlines), DEL, C1
// controls (U+0080..U+009F) and every byte of an ill-formed UTF-8 sequence are shown as \xNN
// (a C1 control as the \xNN of its code point); other text, non-ASCII included, is kept.
std::string terminal_safe(std::string_view s, bool keep_newlines = true);

// Valid UTF-8 with the same text: each ill-formed sequence becomes U+FFFD.
std::string utf8_repaired(std::string_view s);

// For XML 1.0 character data and attribute values: &, <, >, " and ' as entities; characters
// XML 1.0 does not allow (C0 controls other than tab, newline and carriage return; U+FFFE,
// U+FFFF) as '?'; ill-formed UTF-8 as U+FFFD. The result is always well-formed XML text.
std::string xml_escape(std::string_view s);

}  // namespace qspec::harness
