// `clsplit plan`: argument parsing, simulated buffers and devices, one plan per launch.
#include "planner/cli/PlanCommand.h"

#include "analysis/cli/RegionsCommand.h"
#include "partitioner/GroupSplit.h"
#include "planner/LaunchPlanner.h"
#include "planner/PlanPrinter.h"
#include "planner/Simulation.h"

#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>

namespace clsplit::planner {

namespace {

struct Usage {
  std::string message;
};

std::vector<uint64_t> numbers(const std::string& text, const char* what) {
  std::vector<uint64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      out.push_back(std::stoull(item, &used, 0));
      if (used != item.size()) throw 0;
    } catch (...) {
      throw Usage{std::string("bad ") + what + " '" + text + "'"};
    }
  }
  if (out.empty() || (out.size() > 3 && std::string(what) != "groups"))
    throw Usage{std::string("bad ") + what + " '" + text + "'"};
  return out;
}

struct NamedBuffer {
  std::string name;
  unsigned index;
};

struct Launch {
  std::string kernel;
  analysis::NDRange range;
  bool localGiven = false;
  std::vector<uint64_t> groups;            // empty: an even split
  std::map<std::string, std::string> args; // argument name -> value or buffer name
};

Launch parseLaunch(const std::string& spec) {
  Launch l;
  std::stringstream in(spec);
  std::string word;
  in >> l.kernel;
  if (l.kernel.empty()) throw Usage{"--launch needs a kernel name"};
  std::vector<uint64_t> gws, lws, offset;
  while (in >> word) {
    auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) throw Usage{"bad launch item '" + word + "' (NAME=VALUE)"};
    std::string name = word.substr(0, eq), value = word.substr(eq + 1);
    if (name == "gws")
      gws = numbers(value, "gws");
    else if (name == "lws")
      lws = numbers(value, "lws");
    else if (name == "offset")
      offset = numbers(value, "offset");
    else if (name == "groups")
      l.groups = numbers(value, "groups");
    else
      l.args[name] = value;
  }
  if (gws.empty()) throw Usage{"launch of " + l.kernel + ": gws= is required"};
  l.range.dims = static_cast<uint32_t>(gws.size());
  for (size_t d = 0; d < gws.size(); ++d) l.range.global[d] = gws[d];
  for (size_t d = 0; d < offset.size() && d < 3; ++d) l.range.offset[d] = offset[d];
  if (!lws.empty()) {
    if (lws.size() != gws.size()) throw Usage{"launch of " + l.kernel + ": lws= and gws= differ in dimensions"};
    for (size_t d = 0; d < lws.size(); ++d) {
      if (!lws[d] || gws[d] % lws[d]) throw Usage{"launch of " + l.kernel + ": lws does not divide gws"};
      l.range.local[d] = lws[d];
    }
    l.localGiven = true;
  } else {
    l.range.local = explicitLocalSize(l.range, 256, {0, 0, 0});
  }
  return l;
}

class Session {
public:
  Session(const analysis::ProgramAnalysis& program, std::vector<DeviceTraits> devices, std::ostream& out)
      : program_(program), devices_(std::move(devices)), out_(out) {}

  void addBuffer(const std::string& spec) {
    auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) throw Usage{"bad --buffer '" + spec + "' (NAME=BYTES[:host|:undefined])"};
    std::string name = spec.substr(0, eq), rest = spec.substr(eq + 1), where = "host";
    if (auto colon = rest.find(':'); colon != std::string::npos) {
      where = rest.substr(colon + 1);
      rest = rest.substr(0, colon);
    }
    uint64_t bytes = numbers(rest, "buffer size").front();
    HolderMask holders = buffer::bit(buffer::kHost);
    if (where == "undefined")
      for (unsigned d = 0; d < devices_.size(); ++d) holders |= buffer::bit(buffer::deviceHolder(d));
    else if (where != "host")
      throw Usage{"bad --buffer '" + spec + "': where it starts is host or undefined"};
    names_.push_back({name, sim_.add(bytes, holders)});
  }

  void run(const Launch& l, unsigned number) {
    const auto* kernel = program_.find(l.kernel);
    if (!kernel) throw Usage{"no kernel " + l.kernel + " in the program"};
    LaunchInput input;
    input.analysis = kernel;
    if (!kernel->partitionReady) input.unsplittable = "the kernel could not be made partition-ready";
    input.range = l.range;
    input.localGiven = l.localGiven;
    input.devices = devices_;
    for (unsigned b = 0; b < sim_.count(); ++b) input.buffers.push_back(sim_.input(b));
    std::vector<std::vector<std::byte>> scalars;
    scalars.reserve(kernel->args.size());
    for (const auto& arg : kernel->args) {
      auto it = l.args.find(arg.name);
      if (it == l.args.end()) throw Usage{"launch of " + l.kernel + ": no value for argument " + arg.name};
      ArgInput in;
      switch (arg.kind) {
      case analysis::ArgKind::GlobalBuffer:
      case analysis::ArgKind::ConstantBuffer: {
        auto named =
            std::find_if(names_.begin(), names_.end(), [&](const NamedBuffer& n) { return n.name == it->second; });
        if (named == names_.end()) throw Usage{"launch of " + l.kernel + ": no buffer '" + it->second + "' (--buffer)"};
        in.kind = ArgInput::Kind::Buffer;
        in.buffer = named->index;
        in.size = sim_.holders(named->index).size();
        in.written = arg.kind == analysis::ArgKind::GlobalBuffer;
        break;
      }
      case analysis::ArgKind::LocalBuffer:
        in.kind = ArgInput::Kind::Local;
        in.size = numbers(it->second, "local size").front();
        break;
      default: {
        auto bytes = analysis::scalarFromText(it->second, arg.scalarType);
        if (!bytes) throw Usage{"launch of " + l.kernel + ": bad value '" + it->second + "' for " + arg.name};
        scalars.push_back(std::move(*bytes));
        in.kind = ArgInput::Kind::Scalar;
        in.scalar = scalars.back();
      }
      }
      input.args.push_back(in);
    }
    const std::string key = planner_.key(input);
    const uint32_t dim = planner_.splitDimension(input, key);
    std::vector<uint64_t> groups = l.groups;
    if (groups.empty()) // an even split of the split dimension
      groups = partition::ratiosToGroups(std::vector<double>(devices_.size(), 1.0), input.range.groups(dim));
    if (groups.size() != devices_.size())
      throw Usage{"launch of " + l.kernel + ": groups= needs one count per device (" + std::to_string(devices_.size()) +
                  ")"};
    LaunchPlan plan = planner_.plan(input, key, groups);
    std::vector<std::string> bufferNames;
    for (const auto& n : names_) bufferNames.push_back(n.name);
    out_ << "launch " << number << ": " << l.kernel << ", " << describe(plan, bufferNames) << "\n";
    sim_.apply(plan);
  }

private:
  const analysis::ProgramAnalysis& program_;
  std::vector<DeviceTraits> devices_;
  std::ostream& out_;
  SimulatedBuffers sim_;
  std::vector<NamedBuffer> names_;
  LaunchPlanner planner_;
};

} // namespace

std::string planUsage() {
  return "usage: clsplit plan FILE.cl [--options \"BUILD OPTIONS\"] [--devices N] [--links discrete|unified|same]\n"
         "                    --buffer NAME=BYTES[:host|:undefined]...\n"
         "                    --launch \"KERNEL gws=X[,Y[,Z]] [lws=...] [offset=...] [groups=G0,G1,...] "
         "ARG=VALUE...\"...\n"
         "                    [--repeat N]\n"
         "  Plans each launch as clsplit would (without devices), prints the plan and applies its effects\n"
         "  to the simulated buffers before the next, so later plans show what moves in steady state.\n"
         "  --devices N      devices to split over (default 2)\n"
         "  --links          discrete: each device its own context (bytes go through host memory, as between\n"
         "                   GPUs); unified: one context of host-memory devices (copies in the driver, as PoCL's\n"
         "                   CPUs); same: one device selected N times (copies inside it). Default: discrete.\n"
         "  --buffer         a buffer of BYTES, its data on the host (default) or undefined (created without data)\n"
         "  --launch         a buffer argument names a buffer, a scalar argument takes its value, a __local one\n"
         "                   its size; groups: work-groups per device along the split dimension (default even)\n"
         "  --repeat N       runs the sequence of launches N times (default 1)\n";
}

int runPlanCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                   const Analyzer& analyze) {
  try {
    std::string file, options, links = "discrete";
    unsigned devices = 2, repeat = 1;
    std::vector<std::string> buffers, launches;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&]() -> const std::string& {
        if (i + 1 >= args.size()) throw Usage{a + " needs a value"};
        return args[++i];
      };
      if (a == "plan" && i == 0) continue;
      if (a == "--help" || a == "-h") {
        out << planUsage();
        return 0;
      }
      if (a == "--options")
        options = value();
      else if (a == "--devices")
        devices = static_cast<unsigned>(numbers(value(), "--devices").front());
      else if (a == "--links")
        links = value();
      else if (a == "--buffer")
        buffers.push_back(value());
      else if (a == "--launch")
        launches.push_back(value());
      else if (a == "--repeat")
        repeat = static_cast<unsigned>(numbers(value(), "--repeat").front());
      else if (!a.empty() && a[0] == '-')
        throw Usage{"unknown option " + a};
      else if (file.empty())
        file = a;
      else
        throw Usage{"more than one program file"};
    }
    if (file.empty()) throw Usage{"no program file"};
    if (launches.empty()) throw Usage{"no --launch"};
    if (devices < 1 || devices > 16) throw Usage{"--devices takes 1 to 16"};
    std::vector<DeviceTraits> traits(devices);
    for (unsigned d = 0; d < devices; ++d) {
      if (links == "discrete")
        traits[d] = {d, false, d};
      else if (links == "unified")
        traits[d] = {0, true, d};
      else if (links == "same")
        traits[d] = {0, false, 0};
      else
        throw Usage{"--links takes discrete, unified or same"};
    }
    std::ifstream in(file);
    if (!in) throw Usage{"cannot read " + file};
    std::stringstream source;
    source << in.rdbuf();
    const analysis::ProgramAnalysis program = analyze(source.str(), options);
    if (!program.errors.empty()) {
      err << "clsplit plan: the program does not build: " << program.errors.front().message << "\n";
      return 1;
    }
    std::vector<Launch> parsed;
    for (const auto& l : launches) parsed.push_back(parseLaunch(l));
    Session session(program, traits, out);
    for (const auto& b : buffers) session.addBuffer(b);
    unsigned number = 0;
    for (unsigned r = 0; r < repeat; ++r)
      for (const auto& l : parsed) session.run(l, ++number);
    return 0;
  } catch (const Usage& u) {
    err << "clsplit plan: " << u.message << "\n" << planUsage();
    return 2;
  }
}

int runPlanCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return runPlanCommand(args, out, err, [](std::string_view source, std::string_view options) {
    return analysis::analyzeProgram(source, options, {});
  });
}

} // namespace clsplit::planner
