// The one exception type for bad user input (configuration files, layer specs, command-line
// options): its message always names where the input came from, which key is wrong, and what
// would have been allowed, so the command line can print it as is and exit non-zero.
#pragma once

#include <stdexcept>
#include <string>

namespace flycol {

class InputError : public std::runtime_error {
public:
  // source: a file path or an option such as "--layer"; key: dotted key path ("sram.ifmap.kbytes");
  // problem: what is wrong and what is allowed ("= 0: must be an integer in [1, 4096]").
  InputError(std::string source, std::string key, std::string problem)
      : std::runtime_error(compose(source, key, problem)),
        source_(std::move(source)), key_(std::move(key)), problem_(std::move(problem)) {}

  const std::string& source() const { return source_; }
  const std::string& key() const { return key_; }
  const std::string& problem() const { return problem_; }

private:
  static std::string compose(const std::string& source, const std::string& key,
                             const std::string& problem) {
    std::string m = source.empty() ? std::string("<input>") : source;
    if (!key.empty()) m += ": key '" + key + "'";
    return m + ": " + problem;
  }

  std::string source_, key_, problem_;
};

}  // namespace flycol
