// The program binary format (icd/objects/ProgramBinary.h): every type round-trips, the first
// format of executables still loads, and damaged or foreign bytes are refused, not misread.
#include "icd/objects/ProgramBinary.h"

#include <catch2/catch.hpp>

using clsplit::icd::ProgramBinary;

namespace {

std::optional<ProgramBinary> roundTrip(const ProgramBinary& b) {
  const std::string bytes = b.encode();
  return ProgramBinary::decode(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

std::optional<ProgramBinary> decodeText(const std::string& text) {
  return ProgramBinary::decode(reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

ProgramBinary object(std::string source, std::string options = "-DX=1") {
  ProgramBinary b;
  b.type = ProgramBinary::Type::Object;
  b.source = std::move(source);
  b.options = std::move(options);
  b.headers = {{"inc/a.h", "#define A 3\n"}, {"b.h", ""}};
  return b;
}

} // namespace

TEST_CASE("an executable's binary keeps the first format and round-trips", "[binary]") {
  ProgramBinary b;
  b.source = "kernel void k(global int* a) { a[0] = 1; }\n";
  b.options = "-cl-fast-relaxed-math";
  const std::string bytes = b.encode();
  CHECK(bytes.rfind("CLSPLIT-PROGRAM-1\n", 0) == 0);
  auto back = roundTrip(b);
  REQUIRE(back);
  CHECK(back->type == ProgramBinary::Type::Executable);
  CHECK(back->source == b.source);
  CHECK(back->options == b.options);
  // Written by an older build: "CLSPLIT-PROGRAM-1\n<options length>\n<options><source>".
  auto old = decodeText("CLSPLIT-PROGRAM-1\n3\n-w kernel void k() {}");
  REQUIRE(old);
  CHECK(old->options == "-w ");
  CHECK(old->source == "kernel void k() {}");
}

TEST_CASE("objects keep their embedded headers; linked programs their inputs", "[binary]") {
  auto o = roundTrip(object("#include \"inc/a.h\"\nint f(int x) { return x + A; }\n"));
  REQUIRE(o);
  CHECK(o->type == ProgramBinary::Type::Object);
  CHECK(o->options == "-DX=1");
  REQUIRE(o->headers.size() == 2);
  CHECK(o->headers[0].first == "inc/a.h");
  CHECK(o->headers[0].second == "#define A 3\n");
  CHECK(o->headers[1].second.empty());

  ProgramBinary library;
  library.type = ProgramBinary::Type::Linked;
  library.options = "-create-library -enable-link-options";
  library.inputs = {object("int f(int x) { return x; }"), object("int g(int x) { return 2 * x; }", "")};
  ProgramBinary executable;
  executable.type = ProgramBinary::Type::Linked;
  executable.inputs = {library, object("kernel void k(global int* a) { a[0] = f(g(1)); }")};
  auto back = roundTrip(executable);
  REQUIRE(back);
  CHECK_FALSE(back->library());
  REQUIRE(back->inputs.size() == 2);
  CHECK(back->inputs[0].library());
  REQUIRE(back->inputs[0].inputs.size() == 2);
  CHECK(back->inputs[0].inputs[1].source == "int g(int x) { return 2 * x; }");
  CHECK(back->inputs[1].type == ProgramBinary::Type::Object);
  CHECK(back->encode() == executable.encode());
}

TEST_CASE("damaged and foreign binaries are refused", "[binary]") {
  CHECK_FALSE(decodeText(""));
  CHECK_FALSE(decodeText("\x7f"
                         "ELF\x02\x01\x01"));
  CHECK_FALSE(decodeText("CLSPLIT-PROGRAM-1\n99\nshort"));
  CHECK_FALSE(decodeText("CLSPLIT-PROGRAM-1\nx\n"));
  CHECK_FALSE(ProgramBinary::decode(nullptr, 4));
  const std::string good = object("int f(int x) { return x; }").encode();
  for (size_t cut = 0; cut < good.size(); ++cut) // every truncation
    CHECK_FALSE(decodeText(good.substr(0, cut)));
  CHECK_FALSE(decodeText(good + "trailing"));
  ProgramBinary linked;
  linked.type = ProgramBinary::Type::Linked; // a linked program with no inputs
  CHECK_FALSE(roundTrip(linked));
  ProgramBinary executableInput;
  linked.inputs = {executableInput}; // an executable is not a link input
  CHECK_FALSE(roundTrip(linked));
  // Libraries nested deeper than the decoder follows (a crafted binary) are refused.
  ProgramBinary deep = object("int f(int x) { return x; }");
  for (int i = 0; i < 20; ++i) {
    ProgramBinary outer;
    outer.type = ProgramBinary::Type::Linked;
    outer.options = "-create-library";
    outer.inputs = {deep};
    deep = outer;
  }
  CHECK_FALSE(roundTrip(deep));
}
