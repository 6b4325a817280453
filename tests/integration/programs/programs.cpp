// Programs: build options (-D), rebuilds, build failures and their logs, separate compilation
// with an embedded header (clCompileProgram/clLinkProgram; units whose own kernels split),
// program binaries round-tripped through clCreateProgramWithBinary, kernel argument info,
// clCreateKernelsInProgram, program queries.
#include "itest.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

using namespace itest;

static const char* kDefineSource = R"CLC(
kernel void withDefine(global int* out) {
  int i = (int)get_global_id(0);
  out[i] = FACTOR * i + OFFSET;
}
kernel void second(global int* out) { out[get_global_id(0)] += 1; }
kernel void third(global int* out, int k) { out[get_global_id(0)] *= k; }
)CLC";

static const char* kBrokenSource = R"CLC(
kernel void broken(global int* out) {
  out[get_global_id(0)] = undeclared_identifier + ;
}
)CLC";

static const char* kHeader = "#define SCALE 7\nint helper(int x);\n";
static const char* kLibrary = "#include \"helpers.h\"\nint helper(int x) { return x * SCALE - 3; }\n";
static const char* kMain = R"CLC(
#include "helpers.h"
kernel void useHelper(global int* out) {
  int i = (int)get_global_id(0);
  out[i] = helper(i) + SCALE;
}
)CLC";

// Two units whose kernels split though compiled apart (the runner checks that split_* kernels
// split and whole_* ones do not under uniform): a static helper of a unit and of an embedded
// header receive the original NDRange; kernels reaching a function of another unit, or one
// other units may call that uses work-item built-ins, run whole.
static const char* kTileHeader = "#define TILE 3\n"
                                 "static int tileOf(int i) { return i / TILE; }\n"
                                 "static int groupTag(void) { return (int)get_group_id(0) * 1000; }\n"
                                 "int scaled(int x);\n"
                                 "int launchIndex(void);\n";
static const char* kUnitA = R"CLC(
#include "tile.h"
static int indexOf(void) { return (int)get_global_id(0); }
kernel void split_unitA(global int* out) {
  int i = indexOf();
  out[i] = tileOf(i) * 5 + (int)get_global_size(0) + groupTag();
}
int scaled(int x) { return x * 2 + 1; }
int launchIndex(void) { return (int)get_global_id(0); }
kernel void whole_localIndex(global int* out) { out[get_global_id(0)] = launchIndex() * 7; }
)CLC";
static const char* kUnitB = R"CLC(
#include "tile.h"
kernel void split_unitB(global int* out) {
  size_t i = get_global_id(0);
  out[i] = (int)(get_group_id(0) * 100 + get_num_groups(0) + i) + tileOf((int)i);
}
kernel void whole_callsOther(global int* out) { out[get_global_id(0)] = scaled(launchIndex()); }
)CLC";

// A unit that includes its embedded header with <...> (vendors find embedded headers either way).
static const char* kAngledUnit = R"CLC(
#include <sub/tile.h>
kernel void split_angled(global int* out) {
  size_t i = get_global_id(0);
  out[i] = tileOf((int)i) * 11 + (int)get_num_groups(0);
}
)CLC";

// A unit calling another unit's kernel as a function (OpenCL C allows it): the call passes the
// hidden arguments the kernel takes in its own unit, and the caller runs whole. Where one of
// the two units is not made partition-ready (OpenCL C 1.1 here), the program is linked from
// the units' own sources instead, unsplit.
static const char* kCalledKernelUnit = R"CLC(
kernel void split_target(global int* out) { out[get_global_id(0)] = (int)get_global_id(0) * 3; }
)CLC";
static const char* kCallingUnit = R"CLC(
kernel void split_target(global int* out);
kernel void whole_caller(global int* out) {
  split_target(out);
  out[get_global_id(0)] += 1;
}
)CLC";
static const char* kCalledKernelUnit2 = R"CLC(
kernel void whole_target2(global int* out) { out[get_global_id(0)] = (int)get_global_id(0) * 5; }
)CLC";
static const char* kCallingUnit2 = R"CLC(
kernel void whole_target2(global int* out);
kernel void whole_caller2(global int* out) {
  whole_target2(out);
  out[get_global_id(0)] -= 2;
}
)CLC";

static const char* kImageMacroSource = R"CLC(
kernel void imageMacro(global int* out) {
#ifdef __IMAGE_SUPPORT__
  out[0] = 1;
#else
  out[0] = 0;
#endif
  out[1] = __OPENCL_VERSION__;
  out[2] = __OPENCL_C_VERSION__;
}
)CLC";

// Branches chosen by the program's own macros and -D options, as NAS's kernels are written: the
// skipped ones use work-item built-ins, yet every vendor skips them alike, so the kernel splits
// (the runner checks that kernels named split_* split under uniform).
static const char* kOwnBranchesSource = R"CLC(
#define TILE 4
#define TILED (TILE > 2)
kernel void split_ownBranches(global int* out) {
  size_t i = get_global_id(0);
#if CLASS == 2 && TILED
  out[i] = (int)(i * 3 + TILE);
#elif CLASS == 3
  out[i] = (int)get_num_groups(0);
#else
  out[i] = (int)get_local_size(0);
#endif
#ifdef USE_CPU
  out[i] += (int)get_group_id(0);
#endif
}
// One work-group: nothing to divide, and the run report says so.
kernel void whole_oneGroup(global int* out) { out[get_global_id(0)] += 1; }
)CLC";

static const char* kArgInfoSource = R"CLC(
typedef int myint;
kernel void described(global const float* restrict input, local int* scratch, constant uchar4* table,
                      myint count, global volatile int* output) {
  scratch[0] = count;
  output[get_global_id(0)] = (int)input[0] + table[0].x + scratch[0];
}
)CLC";

constexpr size_t n = 512;

// `local`: the work-group size, or nullptr (the implementation's choice: results must not
// depend on group ids then).
static void run(const Env& env, cl_program program, const char* name, const char* label,
                const size_t* local = nullptr) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program, name, &err);
  if (!k) { // reported, and the program goes on with its other checks
    fail("clCreateKernel(%s) returned %d: '%s' not run", name, err, label);
    return;
  }
  cl_mem out = createBuffer(env.context, CL_MEM_READ_WRITE, n * sizeof(int));
  SET_ARG(k, 0, out);
  CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &n, local, 0, nullptr, nullptr));
  std::vector<int> r(n);
  CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, n * sizeof(int), r.data(), 0, nullptr, nullptr));
  printChecksum(label, r);
  printInts("  head", r.data(), 4);
  CHECK(clReleaseMemObject(out));
  CHECK(clReleaseKernel(k));
}

static cl_program source(const Env& env, const char* text) {
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(env.context, 1, &text, nullptr, &err);
  CHECK(err);
  return p;
}

static cl_build_status buildStatus(const Env& env, cl_program p) {
  cl_build_status status = 99;
  CHECK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, nullptr));
  return status;
}

// The program's binary, loaded again through clCreateProgramWithBinary (nullptr on failure).
static cl_program reloaded(const Env& env, cl_program p, const char* what) {
  size_t size = 0;
  CHECK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr));
  expect(size > 0, what);
  if (!size) return nullptr;
  std::vector<unsigned char> binary(size);
  unsigned char* target = binary.data();
  CHECK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof target, &target, nullptr));
  const unsigned char* binaries[1] = {binary.data()};
  cl_int status = 99, err = CL_SUCCESS;
  cl_program back = clCreateProgramWithBinary(env.context, 1, &env.device, &size, binaries, &status, &err);
  expectCode(err, CL_SUCCESS, what);
  expect(status == CL_SUCCESS, "binary_status CL_SUCCESS");
  return back;
}

static cl_program_binary_type binaryType(const Env& env, cl_program p) {
  cl_program_binary_type type = 99;
  CHECK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, nullptr));
  return type;
}

static std::string programString(cl_program p, cl_program_info param) {
  size_t size = 0;
  CHECK(clGetProgramInfo(p, param, 0, nullptr, &size));
  std::string s(size, '\0');
  CHECK(clGetProgramInfo(p, param, size, s.data(), nullptr));
  if (!s.empty() && s.back() == '\0')
    s.pop_back();
  else
    fail("program string of param %#x is not NUL-terminated", param);
  return s;
}

int main() {
  Env env = setup();

  // 1. Build options, queries, a rebuild with other options.
  {
    cl_program p = source(env, kDefineSource);
    expect(buildStatus(env, p) == CL_BUILD_NONE, "status before the build is CL_BUILD_NONE");
    const char* options = "-DFACTOR=3 -D OFFSET=-4";
    CHECK(clBuildProgram(p, 1, &env.device, options, nullptr, nullptr));
    expect(buildStatus(env, p) == CL_BUILD_SUCCESS, "CL_BUILD_SUCCESS");
    expect(binaryType(env, p) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "binary type executable");
    size_t size = 0;
    CHECK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_OPTIONS, 0, nullptr, &size));
    std::string got(size, '\0');
    CHECK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_OPTIONS, size, got.data(), nullptr));
    expect(std::string(got.c_str()) == options, "CL_PROGRAM_BUILD_OPTIONS returns the options");
    expect(programString(p, CL_PROGRAM_SOURCE) == kDefineSource, "CL_PROGRAM_SOURCE returns the source");
    size_t numKernels = 0;
    CHECK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof numKernels, &numKernels, nullptr));
    std::printf("CL_PROGRAM_NUM_KERNELS %zu\n", numKernels);
    std::vector<std::string> names;
    std::stringstream all(programString(p, CL_PROGRAM_KERNEL_NAMES));
    for (std::string name; std::getline(all, name, ';');) names.push_back(name);
    std::sort(names.begin(), names.end());
    std::printf("CL_PROGRAM_KERNEL_NAMES (sorted):");
    for (const auto& name : names) std::printf(" %s", name.c_str());
    std::printf("\n");
    run(env, p, "withDefine", "built with -D");

    cl_kernel held = createKernel(p, "second");
    expectCode(clBuildProgram(p, 0, nullptr, "-DFACTOR=1 -DOFFSET=1", nullptr, nullptr), CL_INVALID_OPERATION,
               "rebuild with a kernel attached");
    CHECK(clReleaseKernel(held));
    CHECK(clBuildProgram(p, 0, nullptr, "-DFACTOR=-2 -DOFFSET=9", nullptr, nullptr));
    run(env, p, "withDefine", "rebuilt with other -D");

    cl_uint count = 0;
    CHECK(clCreateKernelsInProgram(p, 0, nullptr, &count));
    std::printf("clCreateKernelsInProgram count %u\n", count);
    std::vector<cl_kernel> kernels(count);
    CHECK(clCreateKernelsInProgram(p, count, kernels.data(), nullptr));
    std::vector<std::string> kernelNames;
    for (cl_kernel k : kernels) {
      size_t len = 0;
      CHECK(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &len));
      std::string name(len, '\0');
      CHECK(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, len, name.data(), nullptr));
      kernelNames.push_back(name.c_str());
      cl_uint args = 0;
      CHECK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr));
      kernelNames.back() += "/" + std::to_string(args);
      CHECK(clReleaseKernel(k));
    }
    std::sort(kernelNames.begin(), kernelNames.end());
    std::printf("kernels (name/args):");
    for (const auto& name : kernelNames) std::printf(" %s", name.c_str());
    std::printf("\n");
    cl_int err = CL_SUCCESS;
    cl_kernel missing = clCreateKernel(p, "noSuchKernel", &err);
    expectCode(err, CL_INVALID_KERNEL_NAME, "clCreateKernel of a missing name");
    expect(missing == nullptr, "no kernel returned");
    CHECK(clReleaseProgram(p));
  }

  // 2. A build failure: the code, the status, a log, no kernels.
  {
    cl_program p = source(env, kBrokenSource);
    expectCode(clBuildProgram(p, 1, &env.device, nullptr, nullptr, nullptr), CL_BUILD_PROGRAM_FAILURE,
               "building broken source");
    expect(buildStatus(env, p) == CL_BUILD_ERROR, "status CL_BUILD_ERROR");
    std::string log = buildLog(p, env.device);
    expect(log.find("undeclared_identifier") != std::string::npos, "the build log names the problem");
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, "broken", &err);
    expectCode(err, CL_INVALID_PROGRAM_EXECUTABLE, "clCreateKernel after a failed build");
    if (k) clReleaseKernel(k);
    size_t numKernels = 0;
    expectCode(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof numKernels, &numKernels, nullptr),
               CL_INVALID_PROGRAM_EXECUTABLE, "CL_PROGRAM_NUM_KERNELS after a failed build");
    CHECK(clReleaseProgram(p));

    p = source(env, kDefineSource);
    expectCode(clBuildProgram(p, 1, &env.device, "-DFACTOR=1 -DOFFSET=0 -cl-no-such-option", nullptr, nullptr),
               CL_INVALID_BUILD_OPTIONS, "an invalid build option");
    CHECK(clReleaseProgram(p));
  }

  // 3. Separate compilation with an embedded header, then linking.
  {
    cl_program header = source(env, kHeader), library = source(env, kLibrary), main = source(env, kMain);
    const char* headerName = "helpers.h";
    CHECK(clCompileProgram(library, 1, &env.device, "", 1, &header, &headerName, nullptr, nullptr));
    CHECK(clCompileProgram(main, 0, nullptr, nullptr, 1, &header, &headerName, nullptr, nullptr));
    expect(binaryType(env, main) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "compiled object");
    cl_program inputs[2] = {main, library};
    cl_int err = CL_SUCCESS;
    cl_program linked = clLinkProgram(env.context, 1, &env.device, "", 2, inputs, nullptr, nullptr, &err);
    CHECK(err);
    if (linked) {
      expect(binaryType(env, linked) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "linked executable");
      run(env, linked, "useHelper", "compiled and linked with a header");
      CHECK(clReleaseProgram(linked));
    }
    cl_program orphan = source(env, kMain);
    expectCode(clCompileProgram(orphan, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr),
               CL_COMPILE_PROGRAM_FAILURE, "compiling without the header");
    for (cl_program p : {header, library, main, orphan}) CHECK(clReleaseProgram(p));
  }

  // 4. Binaries: build with options, take the binary, rebuild from it (no options given), run.
  {
    cl_program p = source(env, kDefineSource);
    CHECK(clBuildProgram(p, 0, nullptr, "-DFACTOR=11 -DOFFSET=-100", nullptr, nullptr));
    run(env, p, "withDefine", "from source");
    if (cl_program fromBinary = reloaded(env, p, "executable binary")) {
      CHECK(clBuildProgram(fromBinary, 0, nullptr, nullptr, nullptr, nullptr));
      run(env, fromBinary, "withDefine", "from its binary");
      CHECK(clReleaseProgram(fromBinary));
    }
    CHECK(clReleaseProgram(p));

    std::vector<unsigned char> garbage(64, 0xA5);
    const unsigned char* bad[1] = {garbage.data()};
    size_t badSize = garbage.size();
    cl_int status = 99, err = CL_SUCCESS;
    cl_program invalid = clCreateProgramWithBinary(env.context, 1, &env.device, &badSize, bad, &status, &err);
    expectCode(err, CL_INVALID_BINARY, "clCreateProgramWithBinary of garbage");
    expect(status == CL_INVALID_BINARY, "binary_status CL_INVALID_BINARY");
    if (invalid) clReleaseProgram(invalid);
  }

  // 5. Kernel argument info.
  {
    cl_program p = source(env, kArgInfoSource);
    CHECK(clBuildProgram(p, 0, nullptr, "-cl-kernel-arg-info", nullptr, nullptr));
    cl_kernel k = createKernel(p, "described");
    cl_uint args = 0;
    CHECK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr));
    std::printf("described: %u arguments\n", args);
    for (cl_uint i = 0; i < args; ++i) {
      cl_kernel_arg_address_qualifier address = 0;
      cl_kernel_arg_access_qualifier access = 0;
      cl_kernel_arg_type_qualifier typeQualifier = 0;
      char type[64] = {}, name[64] = {};
      CHECK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, nullptr));
      CHECK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, nullptr));
      CHECK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof typeQualifier, &typeQualifier, nullptr));
      CHECK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, nullptr));
      CHECK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof name, name, nullptr));
      std::printf("  arg %u: address %#x access %#x type-qualifier %#llx type '%s' name '%s'\n", i, address, access,
                  static_cast<unsigned long long>(typeQualifier), type, name);
    }
    cl_kernel_arg_address_qualifier address = 0;
    expectCode(clGetKernelArgInfo(k, args, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, nullptr),
               CL_INVALID_ARG_INDEX, "argument info past the last argument");
    CHECK(clReleaseKernel(k));
    CHECK(clReleaseProgram(p));
  }

  // 6. What a kernel sees matches what the device reports: __IMAGE_SUPPORT__ is defined exactly
  //    when CL_DEVICE_IMAGE_SUPPORT is true (clsplit reports false over devices that have images).
  {
    cl_bool images = CL_FALSE;
    CHECK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr));
    cl_program p = source(env, kImageMacroSource);
    CHECK(clBuildProgram(p, 0, nullptr, nullptr, nullptr, nullptr));
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, "imageMacro", &err);
    CHECK(err);
    cl_mem out = createBuffer(env.context, CL_MEM_READ_WRITE, 3 * sizeof(int));
    SET_ARG(k, 0, out);
    const size_t one = 1;
    CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &one, nullptr, 0, nullptr, nullptr));
    int seen[3] = {-1, -1, -1};
    CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof seen, seen, 0, nullptr, nullptr));
    expect(seen[0] == (images ? 1 : 0), "__IMAGE_SUPPORT__ is defined exactly when the device reports images");
    char version[128] = {};
    CHECK(clGetDeviceInfo(env.device, CL_DEVICE_VERSION, sizeof version - 1, version, nullptr));
    int major = 0, minor = 0;
    expect(std::sscanf(version, "OpenCL %d.%d", &major, &minor) == 2, "CL_DEVICE_VERSION reads OpenCL M.m");
    expect(seen[1] >= 100 && seen[1] <= major * 100 + minor * 10,
           "__OPENCL_VERSION__ is at most the version the device reports");
    // Built without -cl-std: a version the device supports - on a device before 3.0, at most
    // CL_DEVICE_OPENCL_C_VERSION (a 3.0 device lists more; PoCL 3.1 then compiles OpenCL C 3.0).
    const bool before3 = major < 3;
    CHECK(clGetDeviceInfo(env.device, CL_DEVICE_OPENCL_C_VERSION, sizeof version - 1, version, nullptr));
    expect(std::sscanf(version, "OpenCL C %d.%d", &major, &minor) == 2,
           "CL_DEVICE_OPENCL_C_VERSION reads OpenCL C M.m");
    expect(seen[2] >= 100 && (!before3 || seen[2] <= major * 100 + minor * 10),
           "__OPENCL_C_VERSION__ is a version the device supports");
    CHECK(clReleaseMemObject(out));
    CHECK(clReleaseKernel(k));
    CHECK(clReleaseProgram(p));
  }

  // 7. Branches chosen by -D options and the program's own macros do not stop the split.
  {
    cl_program p = source(env, kOwnBranchesSource);
    CHECK(clBuildProgram(p, 0, nullptr, "-DCLASS=2 -DVERBOSE", nullptr, nullptr));
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, "split_ownBranches", &err);
    CHECK(err);
    const size_t items = 4096;
    cl_mem out = createBuffer(env.context, CL_MEM_READ_WRITE, items * sizeof(int));
    SET_ARG(k, 0, out);
    CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &items, nullptr, 0, nullptr, nullptr));
    std::vector<int> got(items);
    CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, items * sizeof(int), got.data(), 0, nullptr, nullptr));
    bool right = true;
    for (size_t i = 0; i < items; ++i) right = right && got[i] == static_cast<int>(i * 3 + 4);
    expect(right, "the branch the program's macros chose ran");
    printChecksum("own branches", got);
    cl_kernel one = clCreateKernel(p, "whole_oneGroup", &err);
    CHECK(err);
    SET_ARG(one, 0, out);
    const size_t group = 64;
    CHECK(clEnqueueNDRangeKernel(env.queue, one, 1, nullptr, &group, &group, 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, items * sizeof(int), got.data(), 0, nullptr, nullptr));
    expect(got[0] == 5 && got[63] == 63 * 3 + 5 && got[64] == 64 * 3 + 4, "the one-group launch ran");
    CHECK(clReleaseKernel(one));
    CHECK(clReleaseMemObject(out));
    CHECK(clReleaseKernel(k));
    CHECK(clReleaseProgram(p));
  }

  // 8. Binaries of compiled objects and libraries (the conformance suite's
  //    execute_after_serialize_reload_object/_library and program_binary_type): saved, loaded
  //    back, linked, run; the types say what each is.
  {
    cl_program header = source(env, kHeader), library = source(env, kLibrary), main = source(env, kMain);
    const char* headerName = "helpers.h";
    CHECK(clCompileProgram(library, 1, &env.device, "", 1, &header, &headerName, nullptr, nullptr));
    CHECK(clCompileProgram(main, 0, nullptr, nullptr, 1, &header, &headerName, nullptr, nullptr));
    cl_program mainBack = reloaded(env, main, "object binary");
    cl_program libraryBack = reloaded(env, library, "library object binary");
    if (mainBack && libraryBack) {
      expect(binaryType(env, mainBack) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "reloaded object's type");
      cl_int err = CL_SUCCESS;
      cl_program lib =
          clLinkProgram(env.context, 1, &env.device, "-create-library", 1, &libraryBack, nullptr, nullptr, &err);
      CHECK(err);
      expect(lib && binaryType(env, lib) == CL_PROGRAM_BINARY_TYPE_LIBRARY, "library type");
      cl_program libBack = lib ? reloaded(env, lib, "library binary") : nullptr;
      if (libBack) {
        expect(binaryType(env, libBack) == CL_PROGRAM_BINARY_TYPE_LIBRARY, "reloaded library's type");
        cl_program inputs[2] = {mainBack, libBack};
        cl_program linked = clLinkProgram(env.context, 1, &env.device, "", 2, inputs, nullptr, nullptr, &err);
        CHECK(err);
        if (linked) {
          expect(binaryType(env, linked) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "executable type");
          run(env, linked, "useHelper", "linked from reloaded object and library binaries");
          cl_program exeBack = reloaded(env, linked, "executable binary of a linked program");
          if (exeBack) {
            CHECK(clBuildProgram(exeBack, 0, nullptr, nullptr, nullptr, nullptr));
            run(env, exeBack, "useHelper", "reloaded executable of a linked program");
            CHECK(clReleaseProgram(exeBack));
          }
          CHECK(clReleaseProgram(linked));
        }
        CHECK(clReleaseProgram(libBack));
      }
      if (lib) CHECK(clReleaseProgram(lib));
    }
    for (cl_program p : {mainBack, libraryBack})
      if (p) CHECK(clReleaseProgram(p));
    for (cl_program p : {header, library, main}) CHECK(clReleaseProgram(p));
  }

  // 9. A clean program's build log stays as the vendor left it (empty on PoCL), also where
  //    clsplit's analysis has notes (a loop with an unknown trip count over-approximates a read):
  //    programs that warn on any compiler output (pyopencl) must not warn through clsplit.
  {
    const char* scan = "kernel void scan(global const int* in, global int* out, int n) {\n"
                       "  int i = get_global_id(0), s = 0;\n"
                       "  for (int j = i; j < n && in[j] != 0; ++j) s += in[j];\n"
                       "  out[i] = s;\n"
                       "}\n";
    cl_program p = buildProgram(env, scan);
    const std::string log = buildLog(p, env.device).c_str(); // without the terminating NUL
    const bool empty = log.find_first_not_of(" \t\r\n") == std::string::npos;
    std::printf("build log of a clean program: %s\n", empty ? "empty" : "not empty");
    if (!empty) std::fprintf(stderr, "build log of a clean program:\n%s\n", log.c_str());
    CHECK(clReleaseProgram(p));
  }

  // 10. Separately compiled units whose own kernels split (kTileHeader, kUnitA, kUnitB): linked
  //     as two objects, through a library, and loaded back from the linked program's binary.
  {
    cl_program header = source(env, kTileHeader), unitA = source(env, kUnitA), unitB = source(env, kUnitB);
    const char* headerName = "tile.h";
    CHECK(clCompileProgram(unitA, 0, nullptr, "", 1, &header, &headerName, nullptr, nullptr));
    CHECK(clCompileProgram(unitB, 0, nullptr, "", 1, &header, &headerName, nullptr, nullptr));
    cl_int err = CL_SUCCESS;
    const size_t local = 16;
    cl_program inputs[2] = {unitA, unitB};
    cl_program linked = clLinkProgram(env.context, 0, nullptr, "", 2, inputs, nullptr, nullptr, &err);
    CHECK(err);
    if (linked) {
      for (const char* kernel : {"split_unitA", "split_unitB", "whole_localIndex", "whole_callsOther"})
        run(env, linked, kernel, (std::string("units linked: ") + kernel).c_str(), &local);
      if (cl_program back = reloaded(env, linked, "executable binary of linked units")) {
        CHECK(clBuildProgram(back, 0, nullptr, nullptr, nullptr, nullptr));
        run(env, back, "split_unitB", "linked units reloaded from their binary", &local);
        CHECK(clReleaseProgram(back));
      }
      CHECK(clReleaseProgram(linked));
    }
    cl_program library = clLinkProgram(env.context, 0, nullptr, "-create-library", 1, &unitA, nullptr, nullptr, &err);
    CHECK(err);
    if (library) {
      cl_program withLibrary[2] = {unitB, library};
      cl_program exe = clLinkProgram(env.context, 0, nullptr, "", 2, withLibrary, nullptr, nullptr, &err);
      CHECK(err);
      if (exe) {
        run(env, exe, "split_unitA", "a unit linked through a library", &local);
        CHECK(clReleaseProgram(exe));
      }
      CHECK(clReleaseProgram(library));
    }
    cl_program angled = source(env, kAngledUnit);
    const char* angledName = "sub/tile.h";
    CHECK(clCompileProgram(angled, 0, nullptr, "", 1, &header, &angledName, nullptr, nullptr));
    cl_program angledExe = clLinkProgram(env.context, 0, nullptr, "", 1, &angled, nullptr, nullptr, &err);
    CHECK(err);
    if (angledExe) {
      run(env, angledExe, "split_angled", "a unit including its embedded header with <...>", &local);
      CHECK(clReleaseProgram(angledExe));
    }
    CHECK(clReleaseProgram(angled));
    // Invalid options are the application's error, with the specification's codes.
    cl_program bad = source(env, kUnitB);
    expectCode(clCompileProgram(bad, 0, nullptr, "-cl-no-such-option", 1, &header, &headerName, nullptr, nullptr),
               CL_INVALID_COMPILER_OPTIONS, "an invalid compile option");
    cl_program badLink =
        clLinkProgram(env.context, 0, nullptr, "-cl-no-such-option", 1, &unitA, nullptr, nullptr, &err);
    expectCode(err, CL_INVALID_LINKER_OPTIONS, "an invalid link option");
    if (badLink) CHECK(clReleaseProgram(badLink));
    for (cl_program p : {header, unitA, unitB, bad}) CHECK(clReleaseProgram(p));
  }

  // 11. A kernel called as a function from another unit (kCalledKernelUnit, kCallingUnit), and
  //     the same where the calling unit is compiled as OpenCL C 1.1 (kCallingUnit2).
  for (int round = 0; round < 2; ++round) {
    cl_program called = source(env, round ? kCalledKernelUnit2 : kCalledKernelUnit);
    cl_program calling = source(env, round ? kCallingUnit2 : kCallingUnit);
    CHECK(clCompileProgram(called, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr));
    CHECK(clCompileProgram(calling, 0, nullptr, round ? "-cl-std=CL1.1" : "", 0, nullptr, nullptr, nullptr, nullptr));
    cl_program inputs[2] = {calling, called};
    cl_int err = CL_SUCCESS;
    cl_program linked = clLinkProgram(env.context, 0, nullptr, "", 2, inputs, nullptr, nullptr, &err);
    CHECK(err);
    if (linked) {
      run(env, linked, round ? "whole_caller2" : "whole_caller", "a kernel calling another unit's kernel");
      run(env, linked, round ? "whole_target2" : "split_target", "a kernel another unit calls");
      CHECK(clReleaseProgram(linked));
    }
    for (cl_program p : {called, calling}) CHECK(clReleaseProgram(p));
  }

  env.release();
  return finish();
}
