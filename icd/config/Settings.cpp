// The settings table and how values are resolved: environment > config file > default.
#include "icd/config/Settings.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace clsplit::icd {

const std::vector<SettingSpec>& settingSpecs() {
  static const std::vector<SettingSpec> specs = {
      {"CLSPLIT_DEVICES", "",
       "Real devices to split across: comma-separated indices from `clsplit --list-devices`, or "
       "`all`. Empty: all GPUs if there are any, else all devices. A device listed twice is used "
       "as two devices (its own queues and copy of every buffer each; copies between them stay in "
       "the device's memory): two queues feeding one large GPU, or multi-device runs on one device.",
       "0,1,2"},
      {"CLSPLIT_STRATEGY", "adaptive-comm",
       "How each NDRange is split: single, uniform, static:r0,r1,..., adaptive, adaptive-comm "
       "(`clsplit --list-strategies`). static takes one ratio per selected device (otherwise, as for "
       "an unknown value, an error is logged and adaptive-comm runs); single:N names a device index of "
       "`clsplit --list-devices` (one not selected: logged, and the default single device runs).",
       "static:0.45,0.45,0.1"},
      {"CLSPLIT_SINGLE_DEVICE", "",
       "For the `single` strategy and for kernels that cannot be split: the device index (from "
       "`clsplit --list-devices`) that runs them. Empty: the first selected device.",
       "1"},
      {"CLSPLIT_VENDORS", "/etc/OpenCL/vendors",
       "Where clsplit finds the real OpenCL implementations: a vendors directory of .icd files, "
       "or a colon-separated list of .icd files and ICD libraries. clsplit itself is skipped.",
       "/opt/vendors:/usr/lib/x86_64-linux-gnu/libpocl.so.2"},
      {"CLSPLIT_DEVICE_TYPE", "",
       "CL_DEVICE_TYPE the virtual device reports: gpu, cpu, accelerator, or a comma-separated "
       "union (gpu,cpu). Empty: the union of the selected devices' types.",
       "gpu"},
      {"CLSPLIT_PASSTHROUGH", "auto",
       "auto: when one real device runs every kernel (one device selected, or the single strategy) "
       "and no setting asks for clsplit's own work (a report, trace, summary, profile, device type, "
       "OpenCL version, memory limit, CLSPLIT_HOST_PTR_SYNC given other than 0, the submission "
       "thread, fault injection, a hints dump), clsplit steps aside: the program gets that device's "
       "own platform (listing that device alone where the platform has others) and every call goes "
       "straight to its vendor, as directly (no report, trace or host-pointer coherence of "
       "clsplit's). off: clsplit keeps its layer on one device too.",
       "off"},
      {"CLSPLIT_LOG", "warn", "Log level on stderr: off, error, warn, info, debug, trace.", "info"},
      {"CLSPLIT_REPORT", "", "Write a JSON run report to this path at exit.", "run.json"},
      {"CLSPLIT_REPORT_LAUNCHES", "1",
       "Whether the run report lists every launch (its `launches` array, up to 200000). 0: "
       "per-kernel totals only, so that host_time shows no per-launch bookkeeping.",
       "0"},
      {"CLSPLIT_REPORT_TIMING", "1",
       "Whether the run report and summary time every real command (1: device times per kernel "
       "and device). 0: no device times in the report (and no completion callback of its own); "
       "its host_time then shows what clsplit costs when nothing asks for times.",
       "0"},
      {"CLSPLIT_TRACE", "", "Write a Chrome trace-event timeline (open in Perfetto) to this path at exit.",
       "trace.json"},
      {"CLSPLIT_SUMMARY", "0", "Print a human summary table on stderr at exit (1 to enable).", "1"},
      {"CLSPLIT_CACHE_DIR", "",
       "Directory of the kernel-analysis cache. Empty: $XDG_CACHE_HOME/clsplit or "
       "~/.cache/clsplit. `off` disables the cache.",
       "/tmp/clsplit-cache"},
      {"CLSPLIT_PROFILE", "",
       "Warm start: load the learned performance model from this file at start and save it at "
       "exit.",
       "app.profile"},
      {"CLSPLIT_HINTS", "",
       "Directory of hint files (pragmas for programs whose source you cannot edit), named after "
       "the program hash or the kernel name.",
       "./hints"},
      {"CLSPLIT_HINTS_DUMP", "",
       "Directory where each built program's source (<hash>.cl) and the analysis verdict of its "
       "kernels (<hash>.txt: what defeated the analysis, which hint would help) are written; "
       "`clsplit hints --dump` sets it.",
       "./clsplit-hints"},
      {"CLSPLIT_EAGER_UPLOAD", "1",
       "Host writes go to the devices at once (1): to those that held the overwritten bytes, or "
       "else (bytes no device holds) straight from the application's memory to the device that "
       "ran most of the recent work. 0: host writes are kept on the host and move only when a "
       "kernel reads them.",
       "0"},
      {"CLSPLIT_EVENTLESS", "1",
       "Real commands that nothing times (no run report, trace, measured launch of an adaptive "
       "strategy, or event of a profiling queue) are enqueued without an event (1); a marker "
       "stands in for their events when something waits on them. 0: an event per real command.",
       "0"},
      {"CLSPLIT_HOST_PTR_SYNC", "1",
       "CL_MEM_USE_HOST_PTR buffers: at clFinish, a blocking command or clWaitForEvents, the "
       "application's memory receives what completed kernels wrote since the last such point (1), "
       "as on CPU runtimes, where programs read it without mapping; where every device shares the "
       "host's memory, what the program then writes into it directly is what kernels read next. "
       "2: that too on devices that do not (each such buffer is fetched again after every such "
       "point). 0: only maps and reads update it (what the specification guarantees).",
       "0"},
      {"CLSPLIT_PINNED_MB", "1024",
       "Pinned host memory (MiB) clsplit may hold for host copies of buffers and cross-vendor "
       "staging when a discrete device (a GPU) is selected: its DMA then reads and writes them "
       "directly. Buffers are pinned in the background after a first pageable use and reused. "
       "0: pageable memory only.",
       "256"},
      {"CLSPLIT_PINNED_STAGING_MB", "8",
       "Of the pinned memory, how much (MiB, in 1 MiB slabs pinned in the background on first "
       "need) is cut into small blocks for staging between discrete devices: halo rows and "
       "boundary cells under 64 KiB, which NVIDIA copies from pageable memory on a host thread of "
       "its own. At most half of CLSPLIT_PINNED_MB. 0: small staging blocks stay pageable.",
       "0"},
      {"CLSPLIT_WINDOWS", "auto",
       "With several devices, how much of a buffer each device holds: auto: the whole buffer while "
       "the buffers a command uses fit the device (CLSPLIT_DEVICE_MEMORY), else only the bytes its "
       "slices read and write (a window), so that programs larger than one device run split; "
       "always: windows only (their cost on a program that fits); off: whole copies always (a "
       "program must fit every device it uses).",
       "always"},
      {"CLSPLIT_DEVICE_MEMORY", "",
       "Memory (bytes, or with K, M or G) clsplit's copies of buffers may take on each real device "
       "when several are selected (or, when set, on the one device); beyond it, copies not used by the current command "
       "go back to "
       "host memory and windows shrink. Empty: each device's CL_DEVICE_GLOBAL_MEM_SIZE. For tests "
       "and for devices shared with other programs.",
       "2G"},
      {"CLSPLIT_OVERLAP", "auto",
       "Boundary-first launches: a split launch whose slices write what other devices fetched "
       "from them last time runs those work-groups first and the rest after, and moves halos on "
       "a second queue per device, so that they travel while the interior computes. auto: where "
       "a discrete device (a GPU) takes part; on: always; off: never.",
       "off"},
      {"CLSPLIT_BUILD_NOTES", "0",
       "1: clsplit's analysis notes (accesses it over-approximates, why a kernel will not be split, "
       "hints applied) are added to each program's build log. 0: they go to clsplit's log only "
       "(CLSPLIT_LOG=info), so programs that warn on any compiler output (pyopencl) stay quiet.",
       "1"},
      {"CLSPLIT_OPENCL_VERSION", "3.0",
       "The OpenCL version of the clsplit platform and device: 3.0 (its optional features where "
       "every selected device has them and clsplit supports them: docs/limitations.md) or 1.2, for "
       "programs that use OpenCL 2.x features whenever a device reports a version above 1.2. "
       "Kernels built without -cl-std are OpenCL C 1.2 either way.",
       "1.2"},
      {"CLSPLIT_SAMPLE_MS", "1",
       "Adaptive strategies: once a kernel's split has settled, at most one of its launches per "
       "this many milliseconds is timed (an event, its profiling times, and an update of the "
       "models); launches until then are all timed. Larger: less host work per launch, slower "
       "reaction to a changing load. 0: every 16th to 256th launch, by count.",
       "10"},
      {"CLSPLIT_SUBMIT_THREAD", "off",
       "on: launches that run whole where their data already is (every launch when one device "
       "runs them all) are enqueued on the vendor by a thread of clsplit's own, in order, while "
       "the application's thread goes on; every other OpenCL call first waits for them, and a "
       "vendor error such a launch meets is logged and returned by the next clFinish. Meant to "
       "hide a vendor's enqueue cost behind clsplit's own; on NVIDIA's OpenCL (H100) it did not "
       "pay (docs/benchmarks.md), hence off by default. The thread spins briefly when idle.",
       "on"},
      {"CLSPLIT_TEST_FORCE_STAGING", "",
       "Testing only: copy between devices of one platform through host memory even when they "
       "share it (as between discrete GPUs), so CPU-only test machines exercise that path.",
       "1"},
      {"CLSPLIT_TEST_CONCURRENT_DEVICES", "",
       "Testing only: the adaptive strategies treat every pair of devices as running at the same "
       "time (no assumption or measurement that they take turns), so the balancing can be tested "
       "on devices that share one CPU.",
       "1"},
      {"CLSPLIT_TEST_FAULTS", "",
       "Testing only: make real enqueue calls fail on a device (CALL@DEVICE:N fails the N-th, "
       "CALL@DEVICE:N+ that one and all later ones; CALL: clEnqueueNDRangeKernel, "
       "clEnqueueReadBuffer, clEnqueueWriteBuffer, clEnqueueCopyBuffer).",
       "clEnqueueNDRangeKernel@1:3"},
      {"CLSPLIT_CONFIG", "",
       "Config file to read (KEY=VALUE lines). Empty: ~/.config/clsplit/clsplit.conf, else "
       "/etc/clsplit.conf.",
       "/etc/clsplit-gpu.conf"},
  };
  return specs;
}

namespace {

const SettingSpec* findSpec(std::string_view name) {
  for (const auto& s : settingSpecs())
    if (name == s.name) return &s;
  return nullptr;
}

std::string trim(std::string s) {
  auto notSpace = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), notSpace));
  s.erase(std::find_if(s.rbegin(), s.rend(), notSpace).base(), s.end());
  return s;
}

std::string defaultConfigPath(const std::map<std::string, std::string>& env) {
  if (auto it = env.find("CLSPLIT_CONFIG"); it != env.end() && !it->second.empty()) return it->second;
  std::error_code ec;
  if (auto it = env.find("HOME"); it != env.end()) {
    auto user = std::filesystem::path(it->second) / ".config/clsplit/clsplit.conf";
    if (std::filesystem::exists(user, ec)) return user.string();
  }
  if (std::filesystem::exists("/etc/clsplit.conf", ec)) return "/etc/clsplit.conf";
  return {};
}

} // namespace

Settings Settings::from(const std::map<std::string, std::string>& environment, std::string_view configText,
                        std::string configOrigin) {
  Settings s;
  for (const auto& spec : settingSpecs()) s.entries_[spec.name] = {spec.defaultValue, "default"};

  std::istringstream in{std::string(configText)};
  std::string line;
  for (unsigned lineNo = 1; std::getline(in, line); ++lineNo) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) {
      s.warnings_.push_back(configOrigin + ":" + std::to_string(lineNo) + ": expected KEY=VALUE");
      continue;
    }
    std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (key.rfind("CLSPLIT_", 0) != 0) key = "CLSPLIT_" + key; // "STRATEGY=..." is accepted
    if (!findSpec(key)) {
      s.warnings_.push_back(configOrigin + ":" + std::to_string(lineNo) + ": unknown setting " + key);
      continue;
    }
    s.entries_[key] = {value, configOrigin};
  }
  for (const auto& [key, value] : environment) {
    if (key.rfind("CLSPLIT_", 0) != 0) continue;
    if (!findSpec(key)) {
      s.warnings_.push_back("unknown environment variable " + key + " (ignored)");
      continue;
    }
    s.entries_[key] = {value, "environment"};
  }
  return s;
}

const Settings& Settings::process() {
  static const Settings settings = [] {
    std::map<std::string, std::string> env;
    for (char** e = environ; e && *e; ++e) {
      std::string kv = *e;
      auto eq = kv.find('=');
      if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    std::string path = defaultConfigPath(env), text;
    if (!path.empty()) {
      std::ifstream f(path);
      std::stringstream buffer;
      buffer << f.rdbuf();
      text = buffer.str();
    }
    return from(env, text, path.empty() ? "config" : path);
  }();
  return settings;
}

const std::string& Settings::value(std::string_view name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    static const std::string empty;
    return empty;
  }
  return it->second.value;
}

bool Settings::isSet(std::string_view name) const {
  auto spec = findSpec(name);
  return spec && value(name) != spec->defaultValue;
}

std::string Settings::origin(std::string_view name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? "default" : it->second.origin;
}

std::vector<std::string> Settings::nonDefaults() const {
  std::vector<std::string> out;
  for (const auto& spec : settingSpecs())
    if (isSet(spec.name))
      out.push_back(std::string(spec.name) + "=" + value(spec.name) + " (" + origin(spec.name) + ")");
  return out;
}

} // namespace clsplit::icd
