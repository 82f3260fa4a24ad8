// A property of every `perflab models` command: over random inputs drawn
// across the whole range each option accepts (down to 1e-300 and up to
// 1e300 where a bound allows it), a run either succeeds with every number of
// its JSON finite (no null, which is how a non-finite number is written) or
// is refused with exit 2 and one line. Never exit 0 with a NaN, never an
// abort.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/random.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"
#include "tests/tools/cli_runner.h"

namespace perflab {
namespace {

using Args = std::vector<std::string>;

class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  double Uniform(double lo, double hi) {
    return lo + (hi - lo) * rng_.Uniform01();
  }
  // log-uniform in [lo, hi], both > 0.
  double Log(double lo, double hi) {
    return std::exp(Uniform(std::log(lo), std::log(hi)));
  }
  // Log-uniform over the integers [lo, hi], shifted by one so that lo may
  // be 0 (log 0 would make every draw NaN, and its cast undefined).
  int64_t Int(int64_t lo, int64_t hi) {
    const double x =
        Log(static_cast<double>(lo) + 1, static_cast<double>(hi) + 2);
    return static_cast<int64_t>(std::floor(x)) - 1;
  }
  static std::string Text(double v) { return absl::StrFormat("%.17g", v); }
  std::string List(int count, double lo, double hi) {
    std::string out;
    for (int i = 0; i < count; ++i) {
      absl::StrAppend(&out, i == 0 ? "" : ",", Text(Log(lo, hi)));
    }
    return out;
  }

 private:
  core::SplitMix64 rng_;
};

// Every number in `v` finite, no null anywhere; `where` names the first
// offender.
bool AllFinite(const rapidjson::Value& v, std::string& where) {
  if (v.IsNull()) {
    where = "null";
    return false;
  }
  if (v.IsNumber() && !std::isfinite(v.GetDouble())) {
    where = Draw::Text(v.GetDouble());
    return false;
  }
  if (v.IsArray()) {
    for (const auto& e : v.GetArray()) {
      if (!AllFinite(e, where)) return false;
    }
  }
  if (v.IsObject()) {
    for (const auto& m : v.GetObject()) {
      if (!AllFinite(m.value, where)) {
        where = absl::StrCat(m.name.GetString(), ": ", where);
        return false;
      }
    }
  }
  return true;
}

void WriteFile(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

// One random command line of each kind.
std::vector<std::function<Args(Draw&)>> Commands(const std::string& file) {
  return {
      [](Draw& d) {
        Args a = {"models", "what-if", "--speedup",
                  Draw::Text(d.Log(1e-9, 1e9))};
        const int stages = static_cast<int>(d.Int(1, 6));
        for (int i = 0; i < stages; ++i) {
          // A stage of 0 ms is accepted, and so is a total of 0.
          const double ms = d.Uniform(0, 1) < 0.2 ? 0 : d.Log(1e-300, 1e9);
          a.push_back("--stage");
          a.push_back(absl::StrCat("s", i, "=", Draw::Text(ms)));
        }
        return a;
      },
      [](Draw&) {
        return Args{"models", "tour"};
      },
      [file](Draw& d) {
        std::string text;
        const double n_top = d.Log(4, 1e9);
        const double x_scale = d.Log(1e-300, 1e100);
        const int points = static_cast<int>(d.Int(3, 8));
        for (int i = 0; i < points; ++i) {
          absl::StrAppend(
              &text, Draw::Text(1 + std::floor((n_top - 1) * i / (points - 1))),
              ",", Draw::Text(std::min(1e100, x_scale * d.Uniform(0.1, 1))),
              "\n");
        }
        WriteFile(file, text);
        return Args{"models", "usl-fit", "--input", file};
      },
      [](Draw& d) {
        const char* names[] = {"--in-flight", "--rate-per-s", "--w-ms"};
        const int skip = static_cast<int>(d.Int(0, 2));
        Args a = {"models", "little"};
        for (int i = 0; i < 3; ++i) {
          if (i == skip) continue;
          a.push_back(names[i]);
          a.push_back(Draw::Text(d.Log(1e-300, 1e300)));
        }
        return a;
      },
      [](Draw& d) {
        return Args{"models",    "amdahl",
                    "--serial",  Draw::Text(d.Uniform(0, 0.999999)),
                    "--workers", d.List(3, 1, 1e9)};
      },
      [](Draw& d) {
        return Args{"models",    "usl",
                    "--sigma",   Draw::Text(d.Uniform(0, 1)),
                    "--kappa",   Draw::Text(d.Log(1e-320, 1e300)),
                    "--workers", d.List(2, 1, 1e9)};
      },
      [](Draw& d) {
        Args a = {"models", "usl-fit"};
        const double n_top = d.Log(4, 1e9);
        const double x_scale = d.Log(1e-300, 1e100);
        for (int i = 0; i < 5; ++i) {
          a.push_back("--point");
          a.push_back(absl::StrCat(
              Draw::Text(1 + std::floor((n_top - 1) * i / 4)), ":",
              Draw::Text(std::min(1e100, x_scale * d.Uniform(0.1, 1)))));
        }
        return a;
      },
      [](Draw& d) {
        return Args{"models",
                    "mmc",
                    "--servers",
                    absl::StrCat(d.Int(1, 1000000)),
                    "--arrival-rate-per-s",
                    Draw::Text(d.Log(1e-300, 1e300)),
                    "--service-rate-per-s",
                    Draw::Text(d.Log(1e-300, 1e300))};
      },
      [](Draw& d) {
        return Args{"models",
                    "mg1",
                    "--arrival-rate-per-s",
                    Draw::Text(d.Log(1e-300, 1e300)),
                    "--mean-service-ms",
                    Draw::Text(d.Log(1e-300, 1e300)),
                    "--service-cv",
                    Draw::Text(d.Uniform(0, 10))};
      },
      [](Draw& d) {
        return Args{"models",
                    "cost",
                    "--rps",
                    Draw::Text(d.Log(1e-300, 1e300)),
                    "--vcpu",
                    Draw::Text(d.Log(1e-300, 1e300)),
                    "--mem-gib",
                    Draw::Text(d.Log(1e-300, 1e300)),
                    "--target-utilisation",
                    Draw::Text(d.Uniform(0, 1))};
      },
      [](Draw& d) {
        return Args{
            "models",
            "mva",
            "--station",
            absl::StrCat("cpu:demand_ms=", Draw::Text(d.Log(1e-300, 1e300)),
                         ",servers=", d.Int(1, 64)),
            "--station",
            absl::StrCat("disk:demand_ms=", Draw::Text(d.Log(1e-300, 1e300))),
            "--think-ms",
            Draw::Text(d.Log(1e-300, 1e300)),
            "--clients",
            absl::StrCat(d.Int(1, 200)),
            "--solver",
            d.Uniform(0, 1) < 0.5 ? "exact" : "schweitzer"};
      },
      [file](Draw& d) {
        std::string text;
        const int n = static_cast<int>(d.Int(1, 50));
        const double top = d.Log(1e-300, 1.7976931348623157e308);
        for (int i = 0; i < n; ++i) {
          const double sign = d.Uniform(0, 1) < 0.2 ? -1 : 1;
          absl::StrAppend(&text, Draw::Text(sign * top * d.Uniform(0.5, 1)),
                          "\n");
        }
        WriteFile(file, text);
        return Args{"models", "percentiles",   "--input",
                    file,     "--percentiles", "50,99"};
      },
  };
}

TEST(ModelsFinite, EveryAcceptedRunPrintsOnlyFiniteNumbers) {
  const std::string file = ::testing::TempDir() + "/models_finite_input.txt";
  const auto commands = Commands(file);
  Draw draw(3636);
  int accepted = 0;
  for (int trial = 0; trial < 1200; ++trial) {
    Args args = commands[static_cast<size_t>(trial) % commands.size()](draw);
    args.push_back("--format");
    args.push_back("json");
    const testing::CliResult r = testing::RunCli(args);
    std::string line;
    for (const std::string& a : args) absl::StrAppend(&line, a, " ");
    if (r.code == 2) {
      EXPECT_EQ(r.out, "") << line;
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << line << r.err;
      continue;
    }
    ASSERT_EQ(r.code, 0) << line << r.err;
    ++accepted;
    rapidjson::Document d;
    d.Parse<rapidjson::kParseNanAndInfFlag>(r.out.c_str());
    ASSERT_FALSE(d.HasParseError()) << line << r.out;
    std::string where;
    EXPECT_TRUE(AllFinite(d, where)) << line << "\n  " << where;
  }
  std::remove(file.c_str());
  EXPECT_GT(accepted, 400);
}

}  // namespace
}  // namespace perflab
