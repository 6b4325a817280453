// Strategy parsing, printing, descriptions, and makePartitioner's validation of a spec.
#include "partitioner/Partitioner.h"

#include <catch2/catch.hpp>

using namespace clsplit::partition;

TEST_CASE("every documented strategy parses and prints back") {
  for (const char* text : {"single", "single:0", "single:2", "uniform", "static:0.7,0.3", "adaptive",
                           "adaptive:broyden", "adaptive-comm"}) {
    std::string error;
    auto spec = StrategySpec::parse(text, &error);
    INFO(text << ": " << error);
    REQUIRE(spec);
    CHECK(spec->str() == text);
    CHECK(error.empty());
  }
  auto s = StrategySpec::parse("static:1,3,0", nullptr);
  REQUIRE(s);
  CHECK(s->kind == StrategyKind::Static);
  CHECK(s->staticRatios == std::vector<double>{1, 3, 0});
  CHECK(StrategySpec::parse("single:3", nullptr)->singleDevice == 3);
  CHECK(StrategySpec::parse("single:0", nullptr)->singleDeviceNamed);
  CHECK_FALSE(StrategySpec::parse("single", nullptr)->singleDeviceNamed);
  CHECK(StrategySpec::parse("adaptive:fixed-point", nullptr)->broyden == false);
  CHECK(StrategySpec{}.kind == StrategyKind::AdaptiveComm); // the default
}

TEST_CASE("bad strategies are rejected with a reason") {
  for (const char* text :
       {"", "fast", "static", "static:", "static:0.5,x", "static:-1,2", "static:0,0", "static:1,,2", "static:nan",
        "single:-1", "single:1.5", "single:x", "uniform:3", "adaptive:newton", "adaptive-comm:1"}) {
    std::string error;
    INFO(text);
    CHECK_FALSE(StrategySpec::parse(text, &error));
    CHECK_FALSE(error.empty());
  }
  CHECK_FALSE(StrategySpec::parse("bogus", nullptr)); // no error sink: still no crash
}

TEST_CASE("descriptions: one line per strategy") {
  auto d = strategyDescriptions();
  REQUIRE(d.size() == 5);
  std::vector<std::string> names;
  for (const auto& [name, text] : d) {
    names.push_back(name);
    CHECK_FALSE(text.empty());
    CHECK(text.find('\n') == std::string::npos);
  }
  CHECK(names == std::vector<std::string>{"single", "uniform", "static", "adaptive", "adaptive-comm"});
}

TEST_CASE("a spec says why it does not fit a number of devices") {
  CHECK(StrategySpec::parse("static:1,2", nullptr)->mismatch(2).empty());
  CHECK(StrategySpec::parse("static:1,2", nullptr)->mismatch(3) == "static gives 2 ratios for 3 devices");
  CHECK(StrategySpec::parse("single:2", nullptr)->mismatch(3).empty());
  CHECK(StrategySpec::parse("single:3", nullptr)->mismatch(3) == "single device 3 out of range (3 devices)");
  for (const char* any : {"uniform", "adaptive", "adaptive-comm", "single"})
    CHECK(StrategySpec::parse(any, nullptr)->mismatch(1).empty());
}

TEST_CASE("makePartitioner rejects specs that do not fit the devices") {
  std::vector<DeviceInfo> two{{"a"}, {"b"}};
  CHECK_THROWS_AS(makePartitioner({}, StrategySpec{}), std::invalid_argument);
  CHECK_THROWS_AS(makePartitioner(two, *StrategySpec::parse("static:1,2,3", nullptr)), std::invalid_argument);
  CHECK_THROWS_AS(makePartitioner(two, *StrategySpec::parse("single:2", nullptr)), std::invalid_argument);
  CHECK(makePartitioner(two, *StrategySpec::parse("static:1,3", nullptr)));
}

TEST_CASE("fixed strategies split as specified") {
  std::vector<DeviceInfo> three{{"a"}, {"b"}, {"c"}};
  LaunchRequest req;
  req.kernel = "k";
  req.groups = 100;

  auto single = makePartitioner(three, *StrategySpec::parse("single:1", nullptr));
  CHECK(single->plan(req).groups == std::vector<uint64_t>{0, 100, 0});
  auto uniform = makePartitioner(three, *StrategySpec::parse("uniform", nullptr));
  CHECK(uniform->plan(req).groups == std::vector<uint64_t>{34, 33, 33});
  auto fixed = makePartitioner(three, *StrategySpec::parse("static:1,0,3", nullptr));
  CHECK(fixed->plan(req).groups == std::vector<uint64_t>{25, 0, 75});

  req.splittable = false;
  auto p = uniform->plan(req);
  CHECK(std::count(p.groups.begin(), p.groups.end(), 100u) == 1);
  CHECK(single->plan(req).groups == std::vector<uint64_t>{0, 100, 0});
}

TEST_CASE("what each strategy is: adaptive or fixed, its fixed split and device") {
  auto spec = [](const char* text) { return *StrategySpec::parse(text, nullptr); };
  CHECK(spec("adaptive").adaptive());
  CHECK_FALSE(spec("adaptive").plansSequences());
  CHECK(spec("adaptive-comm").adaptive());
  CHECK(spec("adaptive-comm").plansSequences());
  for (const char* fixed : {"single", "uniform", "static:1,3"}) {
    INFO(fixed);
    CHECK_FALSE(spec(fixed).adaptive());
    CHECK_FALSE(spec(fixed).plansSequences());
    CHECK(spec(fixed).fixedRatios(2));
  }
  CHECK_FALSE(spec("adaptive").fixedRatios(2));
  CHECK_FALSE(spec("adaptive-comm").fixedDevice(2));
  CHECK(*spec("single:2").fixedRatios(3) == std::vector<double>{0, 0, 1});
  CHECK(*spec("single:2").fixedDevice(2) == 1); // clamped to the devices there are
  CHECK(*spec("uniform").fixedRatios(4) == std::vector<double>{0.25, 0.25, 0.25, 0.25});
  CHECK_FALSE(spec("uniform").fixedDevice(4)); // the models pick the device for a whole launch
  CHECK(*spec("static:1,0,3").fixedRatios(3) == std::vector<double>{1, 0, 3});
  CHECK(*spec("static:1,0,3").fixedDevice(3) == 2); // the largest share
}

TEST_CASE("launch ids are unique and start at 1; unknown reports are ignored") {
  auto p = makePartitioner({{"a"}, {"b"}}, StrategySpec{});
  LaunchRequest req;
  req.kernel = "k";
  req.groups = 8;
  auto a = p->plan(req), b = p->plan(req);
  CHECK(a.launchId >= 1);
  CHECK(b.launchId != a.launchId);
  p->reportKernelTime(9999, 0, 4, 100);
  p->reportKernelTime(a.launchId, 7, 4, 100);
  p->reportDependencyVolume(9999, 0, 1, 100);
  p->reportDependencyVolume(a.launchId, 0, 12345, 100);
  p->reportTransfer(5, Direction::HostToDevice, 10, 10);
  CHECK_FALSE(p->reportJson().empty());
}
