// `clsplit regions`: argument handling, symbolic listing and JSON instantiation, through the
// production analyzeProgram() path.
#include "analysis/cli/RegionsCommand.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace clsplit::analysis;

namespace {

struct Result {
  int status;
  std::string out, err;
};

Result run(std::vector<std::string> args) {
  std::ostringstream out, err;
  int status = runRegionsCommand(args, out, err);
  return {status, out.str(), err.str()};
}

std::string tempFile(const std::string& name, const std::string& contents) {
  std::string path = "/tmp/clsplit_regions_test_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

const char* kStencil = R"(
__kernel void stencil2d(__global const float* A, __global float* B, int m, int n) {
  int i = get_global_id(1);
  int j = get_global_id(0);
  if (i >= 1 && i < m - 1 && j >= 1 && j < n - 1)
    B[i * n + j] = A[i * n + j] + A[(i + 1) * n + j] + A[(i - 1) * n + j];
}
__kernel void binning(__global const float* A, __global const int* IA, __global float* B) {
  int id = get_global_id(0);
  float sum = 0;
  for (int i = IA[id]; i < IA[id + 1]; i++) sum += A[i];
  B[id] = sum;
  #pragma opencl_increasing_buffer IA
}
)";

} // namespace

TEST_CASE("usage errors exit with status 2 and the usage text") {
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{},
                                             {"regions"},
                                             {"x.cl"},
                                             {"x.cl", "--kernel", "k"},
                                             {"x.cl", "--gws", "8"},
                                             {"x.cl", "--kernel", "k", "--gws", "8,8,8,8"},
                                             {"x.cl", "--kernel", "k", "--gws", "8", "--lws", "4,4"},
                                             {"x.cl", "--bogus"},
                                             {"x.cl", "--kernel", "k", "--gws", "8", "--groups", "3:1"},
                                             {"x.cl", "--kernel", "k", "--gws", "8", "--split-dim", "5"},
                                             {"a.cl", "b.cl", "--symbolic"}}) {
    auto r = run(args);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("usage:") != std::string::npos);
  }
  auto missing = run({"/nonexistent/file.cl", "--symbolic"});
  CHECK(missing.status == 1);
}

TEST_CASE("--symbolic lists every kernel with names") {
  std::string file = tempFile("stencil.cl", kStencil);
  auto r = run({"regions", file, "--symbolic"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("kernel stencil2d(A, B, m, n)") != std::string::npos);
  CHECK(r.out.find("write  B bytes [") != std::string::npos);
  CHECK(r.out.find("increasing IA") != std::string::npos);
  auto one = run({file, "--symbolic", "--kernel", "binning"});
  CHECK(one.out.find("stencil2d") == std::string::npos);
  CHECK(run({file, "--symbolic", "--kernel", "nope"}).status == 1);
  std::remove(file.c_str());
}

TEST_CASE("JSON instantiation of a 2-D stencil split by rows and by columns") {
  std::string file = tempFile("stencil2.cl", kStencil);
  auto rows = run({file, "--kernel", "stencil2d", "--gws", "16,8", "--lws", "4,2", "--split-dim", "1", "--groups",
                   "1:2", "--arg", "m=8", "--arg", "n=16", "--arg", "A=size:512", "--arg", "B=size:512"});
  INFO(rows.err);
  REQUIRE(rows.status == 0);
  // Rows 2..3: B row 2 and 3, columns 1..14; A rows 1..4, all columns 1..14.
  CHECK(rows.out.find("\"name\": \"B\", \"size\": 512") != std::string::npos);
  CHECK(rows.out.find("\"write\": {\"ranges\": [[132, 188], [196, 252]], \"bytes\": 112, \"exact\": true}") !=
        std::string::npos);
  CHECK(rows.out.find("\"slice\": {\"dim\": 1, \"groups\": [1, 2]}") != std::string::npos);
  CHECK(rows.out.find("\"unsplittable\": null") != std::string::npos);
  auto cols = run({file, "--kernel", "stencil2d", "--gws", "16,8", "--lws", "4,2", "--split-dim", "0", "--groups",
                   "0:1", "--arg", "m=8", "--arg", "n=16"});
  REQUIRE(cols.status == 0);
  CHECK(cols.out.find("\"size\": \"unbounded\"") != std::string::npos);
  CHECK(cols.out.find("[[68, 80], [132, 144], [196, 208], [260, 272], [324, 336], [388, 400]]") != std::string::npos);
  // Unknown argument, buffer given a scalar, bad value.
  CHECK(run({file, "--kernel", "stencil2d", "--gws", "16,8", "--arg", "zz=1"}).status == 2);
  CHECK(run({file, "--kernel", "stencil2d", "--gws", "16,8", "--arg", "A=3"}).status == 2);
  CHECK(run({file, "--kernel", "stencil2d", "--gws", "16,8", "--arg", "m=abc"}).status == 2);
  CHECK(run({file, "--kernel", "stencil2d", "--gws", "16,8", "--lws", "3,2"}).status == 2);
  std::remove(file.c_str());
}

TEST_CASE("indirections need data: reported as the whole buffer, or instantiated from a file") {
  std::string file = tempFile("binning.cl", kStencil);
  auto noData =
      run({file, "--kernel", "binning", "--gws", "64", "--lws", "8", "--groups", "2:4", "--arg", "A=size:4000"});
  REQUIRE(noData.status == 0);
  CHECK(noData.out.find("\"name\": \"A\", \"size\": 4000,\n      \"read\": {\"ranges\": [[0, 4000]]") !=
        std::string::npos);
  CHECK(noData.out.find("could not be read") != std::string::npos);
  CHECK(noData.out.find("\"needsData\": [\"IA\"]") != std::string::npos);
  CHECK(noData.err.find("file:PATH") != std::string::npos);
  std::vector<int32_t> ia(65);
  for (int i = 0; i <= 64; ++i) ia[i] = 3 * i;
  std::string data(reinterpret_cast<const char*>(ia.data()), ia.size() * 4);
  std::string iaFile = tempFile("ia.bin", data);
  auto withData = run({file, "--kernel", "binning", "--gws", "64", "--lws", "8", "--groups", "2:4", "--arg",
                       "A=size:4000", "--arg", "IA=file:" + iaFile});
  REQUIRE(withData.status == 0);
  CHECK(withData.out.find("\"read\": {\"ranges\": [[192, 384]]") != std::string::npos); // A[IA[16]..IA[32])
  CHECK(withData.out.find("\"needsData\": []") != std::string::npos);
  std::remove(file.c_str());
  std::remove(iaFile.c_str());
}
