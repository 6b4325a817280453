// support/Json.h: the one JSON string escaper every report uses, and the streaming writer.
#include "support/Json.h"

#include <catch2/catch.hpp>

#include <limits>

using clsplit::jsonString;
using clsplit::JsonWriter;

TEST_CASE("strings are quoted with quotes, backslashes and control characters escaped", "[json]") {
  CHECK(jsonString("plain") == "\"plain\"");
  CHECK(jsonString("a \"b\" \\ c") == "\"a \\\"b\\\" \\\\ c\"");
  CHECK(jsonString("line\nnext\r\ttab") == "\"line\\nnext\\r\\ttab\"");
  CHECK(jsonString(std::string_view("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(jsonString(std::string_view("nul\0in", 6)) == "\"nul\\u0000in\"");
  CHECK(jsonString("caf\xc3\xa9") == "\"caf\xc3\xa9\""); // UTF-8 passes through
  CHECK(jsonString("") == "\"\"");
}

TEST_CASE("the writer separates members and turns non-finite numbers into null", "[json]") {
  JsonWriter w;
  w.beginObject().key("name").value("k\"1").key("times").numbers({1.5, std::numeric_limits<double>::infinity()});
  w.key("n").value(uint64_t{7}).key("ok").value(true).key("none").null().endObject();
  CHECK(w.str() == "{\"name\":\"k\\\"1\",\"times\":[1.5,null],\"n\":7,\"ok\":true,\"none\":null}");
}
