// Settings resolution: environment > config file > default, unknown keys warned and ignored,
// malformed lines warned, origins reported; the settings table itself is well formed.
#include "icd/config/Settings.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using clsplit::icd::Settings;
using clsplit::icd::settingSpecs;

namespace {
bool mentions(const std::vector<std::string>& warnings, const std::string& text) {
  for (const auto& w : warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}
} // namespace

TEST_CASE("defaults apply when nothing is set", "[settings]") {
  Settings s = Settings::from({}, "");
  for (const auto& spec : settingSpecs()) {
    CHECK(s.value(spec.name) == spec.defaultValue);
    CHECK(s.origin(spec.name) == "default");
    CHECK_FALSE(s.isSet(spec.name));
  }
  CHECK(s.value("CLSPLIT_STRATEGY") == "adaptive-comm");
  CHECK(s.value("CLSPLIT_VENDORS") == "/etc/OpenCL/vendors");
  CHECK(s.nonDefaults().empty());
  CHECK(s.warnings().empty());
}

TEST_CASE("the environment overrides the config file, which overrides the default", "[settings]") {
  const std::string file = "CLSPLIT_STRATEGY=uniform\nCLSPLIT_LOG = info\nCLSPLIT_DEVICES=0,1\n";
  Settings s = Settings::from({{"CLSPLIT_STRATEGY", "static:1,0"}, {"HOME", "/nonexistent"}}, file, "my.conf");
  CHECK(s.value("CLSPLIT_STRATEGY") == "static:1,0");
  CHECK(s.origin("CLSPLIT_STRATEGY") == "environment");
  CHECK(s.value("CLSPLIT_LOG") == "info"); // spaces around '=' trimmed
  CHECK(s.origin("CLSPLIT_LOG") == "my.conf");
  CHECK(s.value("CLSPLIT_DEVICES") == "0,1");
  CHECK(s.value("CLSPLIT_SUMMARY") == "0");
  CHECK(s.origin("CLSPLIT_SUMMARY") == "default");
  CHECK(s.isSet("CLSPLIT_STRATEGY"));
  CHECK(s.isSet("CLSPLIT_LOG"));
  CHECK_FALSE(s.isSet("CLSPLIT_SUMMARY"));
  auto changed = s.nonDefaults();
  REQUIRE(changed.size() == 3);
  CHECK(std::find(changed.begin(), changed.end(), "CLSPLIT_STRATEGY=static:1,0 (environment)") != changed.end());
  CHECK(std::find(changed.begin(), changed.end(), "CLSPLIT_LOG=info (my.conf)") != changed.end());
  CHECK(s.warnings().empty());
}

TEST_CASE("the config file accepts keys without the prefix, comments and blank lines", "[settings]") {
  const std::string file = "# clsplit configuration\n\n  STRATEGY = single   # run whole\nSINGLE_DEVICE=1\n"
                           "CLSPLIT_VENDORS=/opt/a.icd:/opt/b=c.so\n";
  Settings s = Settings::from({}, file, "f");
  CHECK(s.value("CLSPLIT_STRATEGY") == "single");
  CHECK(s.value("CLSPLIT_SINGLE_DEVICE") == "1");
  CHECK(s.value("CLSPLIT_VENDORS") == "/opt/a.icd:/opt/b=c.so"); // only the first '=' splits
  CHECK(s.warnings().empty());
}

TEST_CASE("unknown keys and malformed lines are warned about and ignored", "[settings]") {
  const std::string file = "CLSPLIT_STRATEGY=uniform\nCLSPLIT_NO_SUCH=1\nthis line has no equals sign\nFOO=bar\n";
  Settings s = Settings::from({{"CLSPLIT_TYPO", "x"}, {"PATH", "/bin"}, {"CLSPLIT_LOG", "debug"}}, file, "c.conf");
  CHECK(s.value("CLSPLIT_STRATEGY") == "uniform");
  CHECK(s.value("CLSPLIT_LOG") == "debug");
  CHECK(s.value("CLSPLIT_NO_SUCH").empty());
  CHECK(s.value("CLSPLIT_TYPO").empty());
  const auto& w = s.warnings();
  CHECK(w.size() == 4);
  CHECK(mentions(w, "c.conf:2: unknown setting CLSPLIT_NO_SUCH"));
  CHECK(mentions(w, "c.conf:3: expected KEY=VALUE"));
  CHECK(mentions(w, "c.conf:4: unknown setting CLSPLIT_FOO"));
  CHECK(mentions(w, "CLSPLIT_TYPO"));
  CHECK_FALSE(mentions(w, "PATH")); // other variables are none of clsplit's business
}

TEST_CASE("the settings table is well formed", "[settings]") {
  std::set<std::string> names;
  for (const auto& spec : settingSpecs()) {
    INFO(spec.name);
    CHECK(std::string(spec.name).rfind("CLSPLIT_", 0) == 0);
    CHECK(names.insert(spec.name).second);
    CHECK(std::string(spec.meaning).size() > 10);
    CHECK(spec.example != nullptr);
    CHECK(spec.defaultValue != nullptr);
  }
  for (const char* required : {"CLSPLIT_VENDORS", "CLSPLIT_DEVICES", "CLSPLIT_STRATEGY", "CLSPLIT_SINGLE_DEVICE",
                               "CLSPLIT_DEVICE_TYPE", "CLSPLIT_LOG", "CLSPLIT_REPORT", "CLSPLIT_SUMMARY"})
    CHECK(names.count(required) == 1);
}

TEST_CASE("docs/configuration.md documents every setting, when it exists", "[settings]") {
  std::filesystem::path doc = std::filesystem::path(CLSPLIT_SOURCE_DIR) / "docs" / "configuration.md";
  if (!std::filesystem::exists(doc)) {
    WARN("docs/configuration.md does not exist yet: not checked");
    return;
  }
  std::ifstream in(doc);
  std::stringstream text;
  text << in.rdbuf();
  for (const auto& spec : settingSpecs()) {
    INFO(spec.name);
    CHECK(text.str().find(spec.name) != std::string::npos);
  }
}
