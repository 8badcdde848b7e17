// Generated sections of the Markdown docs: the text between "<!-- BEGIN GENERATED -->" and
// "<!-- END GENERATED -->" is written by a program (tables of keys, results, side-by-sides with the
// paper); the prose around it is kept. One implementation for every generated doc.
#pragma once

#include <string>

namespace flycol {

inline constexpr const char* kDocSectionBegin = "<!-- BEGIN GENERATED -->";
inline constexpr const char* kDocSectionEnd = "<!-- END GENERATED -->";

// `text` with its generated section replaced by `generated` (one newline after the begin marker,
// one before the end marker). Throws InputError naming `source` when the markers are missing.
std::string replace_doc_section(const std::string& text, const std::string& generated, const std::string& source);
// Rewrites the generated section of the file at `path` (atomically).
void update_doc_section(const std::string& path, const std::string& generated);
// True when the file at `path` already holds exactly `generated` in its section.
bool doc_section_is(const std::string& path, const std::string& generated);

}  // namespace flycol
