// `clsplit`: the launcher. Lists devices and strategies, runs the analysis CLI, plots reports,
// and runs an unmodified OpenCL program through clsplit by setting its environment so that the
// program's OpenCL loader (ocl-icd or the Khronos loader) sees only the clsplit platform.
#include "device/Vendors.h"
#include "icd/config/DeviceSelection.h"
#include "icd/config/Settings.h"
#include "partitioner/Partitioner.h"
#include "support/Json.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace clsplit;

namespace {

const char* kUsage = R"(usage:
  clsplit [options] -- PROGRAM [ARGS...]   run PROGRAM with every NDRange split across devices
  clsplit --list-devices [--json]          list the real OpenCL devices and their indices
  clsplit --list-devices --indices TYPE    their indices of TYPE (gpu, cpu, accelerator, all), comma-separated
  clsplit --list-strategies                list the split strategies
  clsplit --list-settings                  list every CLSPLIT_* setting and its current value
  clsplit regions FILE.cl ...              print a kernel's read/write regions (see --help there)
  clsplit plan FILE.cl --buffer ... --launch ...  dry run: print the plans of a sequence of launches
  clsplit report RUN.json [--out DIR]      plot a run report (CLSPLIT_REPORT) as PNG + text
  clsplit hints --dump [--dir DIR] [options] -- PROGRAM [ARGS...]
                                           run PROGRAM and print, per program it builds, the
                                           hash (hint-file name) and each kernel's verdict;
                                           the sources and verdicts stay in DIR (default
                                           ./clsplit-hints)
  clsplit --version | --help

options for running a program (each sets the CLSPLIT_* variable of the same name):
  --devices LIST       device indices (0,2,3) or `all`      (CLSPLIT_DEVICES)
  --strategy NAME      single|uniform|static:r0,r1,..|adaptive|adaptive-comm (CLSPLIT_STRATEGY)
  --vendors PATH       where the real OpenCL ICDs are        (CLSPLIT_VENDORS)
  --log LEVEL          off|error|warn|info|debug|trace      (CLSPLIT_LOG)
  --report PATH        write a JSON run report at exit      (CLSPLIT_REPORT)
  --trace PATH         write a Chrome/Perfetto timeline     (CLSPLIT_TRACE)
  --summary            print a summary table at exit        (CLSPLIT_SUMMARY=1)
  --profile PATH       warm-start model file                (CLSPLIT_PROFILE)
)";

fs::path selfDir() {
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path(".") : exe.parent_path();
}

// The build/install layout: bin/clsplit, lib/libclsplit.so, vendors/clsplit.icd.
fs::path libraryPath() { return fs::weakly_canonical(selfDir() / "../lib/libclsplit.so"); }
fs::path vendorsDir() { return fs::weakly_canonical(selfDir() / "../vendors"); }
fs::path shareDir() { return fs::weakly_canonical(selfDir() / "../share/clsplit"); }

// `--indices TYPE`: the indices of the devices of one type, for scripts ("0,1"; empty if none).
int listIndices(const std::string& type) {
  static const std::pair<const char*, cl_device_type> kTypes[] = {{"gpu", CL_DEVICE_TYPE_GPU},
                                                                  {"cpu", CL_DEVICE_TYPE_CPU},
                                                                  {"accelerator", CL_DEVICE_TYPE_ACCELERATOR},
                                                                  {"all", CL_DEVICE_TYPE_ALL}};
  auto it = std::find_if(std::begin(kTypes), std::end(kTypes), [&](const auto& t) { return type == t.first; });
  if (it == std::end(kTypes)) {
    std::cerr << "clsplit: --indices takes gpu, cpu, accelerator or all, not '" << type << "'\n";
    return 2;
  }
  auto vendors = device::Vendors::load(icd::Settings::process().value("CLSPLIT_VENDORS"));
  std::string list;
  for (const auto& d : vendors.devices())
    if (d.type & it->second) list += (list.empty() ? "" : ",") + std::to_string(d.index);
  std::cout << list << "\n";
  return 0;
}

int listDevices(bool json) {
  const auto& settings = icd::Settings::process();
  auto vendors = device::Vendors::load(settings.value("CLSPLIT_VENDORS"));
  std::vector<std::string> problems;
  auto selected = icd::selectDevices(settings.value("CLSPLIT_DEVICES"), vendors.devices(), problems);
  auto timesSelected = [&](unsigned i) { return std::count(selected.begin(), selected.end(), i); };
  auto isSelected = [&](unsigned i) { return timesSelected(i) > 0; };
  if (json) {
    std::cout << "[";
    for (const auto& d : vendors.devices()) {
      const auto& p = vendors.platforms()[d.platform];
      std::cout << (d.index ? "," : "") << "\n  {\"index\": " << d.index << ", \"name\": " << jsonString(d.name)
                << ", \"platform\": " << jsonString(p.name) << ", \"vendor\": " << jsonString(d.vendor)
                << ", \"type\": " << jsonString(device::deviceTypeName(d.type))
                << ", \"compute_units\": " << d.computeUnits << ", \"global_mem_bytes\": " << d.globalMemory
                << ", \"icd\": " << jsonString(p.library) << ", \"platform_index\": " << d.platform
                << ", \"device_index\": " << d.indexInPlatform
                << ", \"selected\": " << (isSelected(d.index) ? "true" : "false")
                << ", \"slots\": " << timesSelected(d.index) << "}";
    }
    std::cout << "\n]\n";
    return 0;
  }
  std::cout << "Real OpenCL devices (CLSPLIT_VENDORS=" << settings.value("CLSPLIT_VENDORS") << "):\n";
  if (vendors.devices().empty()) std::cout << "  none\n";
  for (const auto& d : vendors.devices()) {
    const auto& p = vendors.platforms()[d.platform];
    char line[512];
    std::snprintf(line, sizeof line, "  [%u] %-11s %-40s %s | %u CUs, %.1f GiB%s\n", d.index,
                  device::deviceTypeName(d.type).c_str(), d.name.c_str(), p.name.c_str(), d.computeUnits,
                  d.globalMemory / (1024.0 * 1024 * 1024),
                  timesSelected(d.index) > 1
                      ? ("  (selected " + std::to_string(timesSelected(d.index)) + " times)").c_str()
                  : isSelected(d.index) ? "  (selected)"
                                        : "");
    std::cout << line;
  }
  for (const auto& problem : problems) std::cout << "  warning: " << problem << "\n";
  std::cout << "Selected by CLSPLIT_DEVICES="
            << (settings.value("CLSPLIT_DEVICES").empty() ? "(default: all GPUs, else all devices)"
                                                          : settings.value("CLSPLIT_DEVICES"))
            << "\n";
  return 0;
}

int listStrategies() {
  for (const auto& [name, description] : partition::strategyDescriptions())
    std::printf("  %-16s %s\n", name.c_str(), description.c_str());
  return 0;
}

// The table of docs/configuration.md (a test checks the file against it).
int settingsMarkdown() {
  std::cout << "| setting | default | meaning | example |\n| --- | --- | --- | --- |\n";
  for (const auto& spec : icd::settingSpecs())
    std::cout << "| `" << spec.name << "` | "
              << (*spec.defaultValue ? "`" + std::string(spec.defaultValue) + "`" : "(empty)") << " | " << spec.meaning
              << " | `" << spec.name << "=" << spec.example << "` |\n";
  return 0;
}

int listSettings() {
  const auto& settings = icd::Settings::process();
  for (const auto& spec : icd::settingSpecs()) {
    std::printf("%s=%s   [%s]\n    %s\n", spec.name, settings.value(spec.name).c_str(),
                settings.origin(spec.name).c_str(), spec.meaning);
  }
  return 0;
}

int execute(std::vector<std::string> argv) {
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  execvp(raw[0], raw.data());
  std::cerr << "clsplit: cannot run " << argv[0] << ": " << std::strerror(errno) << "\n";
  return 127;
}

// `report` is a Python script (matplotlib); `regions` a separate binary, because it links
// Clang, and Clang's unversioned symbols in the launcher's global scope would collide with the
// Clang of a vendor (PoCL) that --list-devices loads.
int report(const std::vector<std::string>& args) {
  // Debian's python3-matplotlib belongs to the system interpreter, which a PATH python3 (pyenv,
  // venvs) may not be.
  std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::vector<std::string> argv = {python, (shareDir() / "report.py").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return execute(argv);
}

int regions(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {(selfDir() / "clsplit-regions").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return execute(argv);
}

int plan(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {(selfDir() / "clsplit-plan").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return execute(argv);
}

// Makes clsplit the only platform of the program under either loader: OCL_ICD_VENDORS for
// ocl-icd, OCL_ICD_FILENAMES for the Khronos loader (which ignores OCL_ICD_VENDORS when its
// own registry lists other vendors).
// An installed tree that was moved (a bundle carried to another machine) still names the
// library where it was installed: ocl-icd then loads nothing, so a vendors directory naming
// the library where it is now is made under the temporary directory.
fs::path loaderVendorsDir() {
  const fs::path dir = vendorsDir();
  std::ifstream icd(dir / "clsplit.icd");
  std::string named;
  std::getline(icd, named);
  std::error_code ec;
  if (!named.empty() && fs::equivalent(named, libraryPath(), ec)) return dir;
  const char* tmp = std::getenv("TMPDIR");
  const fs::path made = fs::path(tmp && *tmp ? tmp : "/tmp") / ("clsplit-vendors-" + std::to_string(getuid()));
  fs::create_directories(made, ec);
  const fs::path part = made / ("clsplit.icd." + std::to_string(getpid())); // whole, for runs beside it
  std::ofstream(part) << libraryPath().string() << "\n";
  fs::rename(part, made / "clsplit.icd", ec);
  return made;
}

void isolateLoader() {
  setenv("OCL_ICD_VENDORS", loaderVendorsDir().c_str(), 1);
  setenv("OCL_ICD_FILENAMES", libraryPath().c_str(), 1);
}

int run(int argc, char** argv) {
  struct Flag {
    const char* option;
    const char* variable;
    bool takesValue;
  };
  const Flag flags[] = {{"--devices", "CLSPLIT_DEVICES", true}, {"--strategy", "CLSPLIT_STRATEGY", true},
                        {"--vendors", "CLSPLIT_VENDORS", true}, {"--log", "CLSPLIT_LOG", true},
                        {"--report", "CLSPLIT_REPORT", true},   {"--trace", "CLSPLIT_TRACE", true},
                        {"--profile", "CLSPLIT_PROFILE", true}, {"--summary", "CLSPLIT_SUMMARY", false}};
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    bool known = false;
    for (const auto& f : flags) {
      std::string prefix = std::string(f.option) + "=";
      if (a == f.option || a.rfind(prefix, 0) == 0) {
        std::string value = "1";
        if (f.takesValue) {
          if (a == f.option) {
            if (i + 1 >= argc) {
              std::cerr << "clsplit: " << f.option << " needs a value\n";
              return 2;
            }
            value = argv[++i];
          } else {
            value = a.substr(prefix.size());
          }
        }
        if (f.variable == std::string("CLSPLIT_STRATEGY")) {
          std::string error;
          if (!partition::StrategySpec::parse(value, &error)) {
            std::cerr << "clsplit: --strategy " << value << ": " << error << "\n";
            return 2;
          }
        }
        setenv(f.variable, value.c_str(), 1);
        known = true;
      }
    }
    if (!known) {
      if (a.rfind("-", 0) == 0) {
        std::cerr << "clsplit: unknown option " << a << "\n" << kUsage;
        return 2;
      }
      break; // the program itself (no `--`)
    }
  }
  if (i >= argc) {
    std::cerr << "clsplit: no program to run\n" << kUsage;
    return 2;
  }
  if (!fs::exists(libraryPath())) {
    std::cerr << "clsplit: cannot find " << libraryPath() << "\n";
    return 1;
  }
  isolateLoader();
  execvp(argv[i], argv + i);
  std::cerr << "clsplit: cannot run " << argv[i] << ": " << std::strerror(errno) << "\n";
  return 127;
}

// `hints --dump`: runs the program (in a child, so the dumps can be printed after it) with
// CLSPLIT_HINTS_DUMP set, then prints the dumps this run wrote.
int hints(int argc, char** argv) {
  if (argc < 3 || std::string(argv[2]) != "--dump") {
    std::cerr << "usage: clsplit hints --dump [--dir DIR] [options] -- PROGRAM [ARGS...]\n";
    return 2;
  }
  std::string dir = "clsplit-hints";
  int next = 3;
  if (next < argc && std::string(argv[next]) == "--dir") {
    if (next + 1 >= argc) {
      std::cerr << "clsplit: --dir needs a value\n";
      return 2;
    }
    dir = argv[next + 1];
    next += 2;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::cerr << "clsplit: cannot create " << dir << ": " << ec.message() << "\n";
    return 1;
  }
  dir = fs::absolute(dir).string();
  setenv("CLSPLIT_HINTS_DUMP", dir.c_str(), 1);
  const auto started = fs::file_time_type::clock::now();
  std::vector<char*> rest = {argv[0]};
  rest.insert(rest.end(), argv + next, argv + argc);
  rest.push_back(nullptr);
  std::fflush(nullptr);
  pid_t child = fork();
  if (child < 0) {
    std::cerr << "clsplit: fork: " << std::strerror(errno) << "\n";
    return 1;
  }
  if (child == 0) _exit(run(static_cast<int>(rest.size()) - 1, rest.data()));
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  std::vector<fs::path> dumps;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".txt" && entry.last_write_time(ec) >= started - std::chrono::seconds(1))
      dumps.push_back(entry.path());
  std::sort(dumps.begin(), dumps.end());
  std::cout << "clsplit: " << dumps.size() << " program(s) built by this run, dumped into " << dir << "\n";
  for (const auto& path : dumps) {
    std::ifstream in(path);
    std::cout << "\n== " << path.filename().string() << "\n" << in.rdbuf();
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

} // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "clsplit " << CLSPLIT_VERSION << "\n";
    return 0;
  }
  if (args[0] == "--list-devices" && args.size() > 1 && args[1] == "--indices")
    return listIndices(args.size() > 2 ? args[2] : "");
  if (args[0] == "--list-devices") return listDevices(args.size() > 1 && args[1] == "--json");
  if (args[0] == "--list-strategies") return listStrategies();
  if (args[0] == "--list-settings")
    return args.size() > 1 && args[1] == "--markdown" ? settingsMarkdown() : listSettings();
  if (args[0] == "regions") return regions({args.begin() + 1, args.end()});
  if (args[0] == "plan") return plan({args.begin() + 1, args.end()});
  if (args[0] == "report") return report({args.begin() + 1, args.end()});
  if (args[0] == "hints") return hints(argc, argv);
  return run(argc, argv);
}
