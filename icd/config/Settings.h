// Every CLSPLIT_* setting in one table (name, default, meaning, example), read from the
// environment first and from a config file second (CLSPLIT_CONFIG, else
// ~/.config/clsplit/clsplit.conf, else /etc/clsplit.conf).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace clsplit::icd {

struct SettingSpec {
  const char* name;
  const char* defaultValue;
  const char* meaning;
  const char* example;
};

// The table itself (docs/configuration.md is checked against it by a test).
const std::vector<SettingSpec>& settingSpecs();

class Settings {
public:
  // Reads the environment and the config file (once; later calls return the same object).
  static const Settings& process();
  // For tests: settings from an explicit environment and config-file text.
  static Settings from(const std::map<std::string, std::string>& environment, std::string_view configText,
                       std::string configOrigin = "test");

  const std::string& value(std::string_view name) const;
  bool isSet(std::string_view name) const;         // differs from the default
  std::string origin(std::string_view name) const; // "environment", the config file path, or "default"
  // "NAME=value (origin)" for every setting that differs from its default.
  std::vector<std::string> nonDefaults() const;
  // Problems found while reading (unknown keys in the file, malformed lines).
  const std::vector<std::string>& warnings() const { return warnings_; }

private:
  struct Entry {
    std::string value;
    std::string origin;
  };
  std::map<std::string, Entry, std::less<>> entries_;
  std::vector<std::string> warnings_;
};

} // namespace clsplit::icd
