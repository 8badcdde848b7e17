// Generated sections of the Markdown docs (doc_section.h).
#include "sim/report/doc_section.h"

#include <fmt/format.h>

#include "sim/common/files.h"
#include "sim/common/input_error.h"
#include "sim/config/yaml_guard.h"

namespace flycol {

std::string replace_doc_section(const std::string& text, const std::string& generated, const std::string& source) {
  const std::string begin = kDocSectionBegin, end = kDocSectionEnd;
  const std::size_t b = text.find(begin), e = text.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b)
    throw InputError(source, "", fmt::format("has no '{}' ... '{}' section to replace", begin, end));
  std::string body = generated;
  if (!body.empty() && body.back() == '\n') body.pop_back();
  return text.substr(0, b + begin.size()) + "\n" + body + "\n" + text.substr(e);
}

void update_doc_section(const std::string& path, const std::string& generated) {
  write_file_atomic(path, replace_doc_section(read_text_file(path), generated, path));
}

bool doc_section_is(const std::string& path, const std::string& generated) {
  const std::string text = read_text_file(path);
  return replace_doc_section(text, generated, path) == text;
}

}  // namespace flycol
