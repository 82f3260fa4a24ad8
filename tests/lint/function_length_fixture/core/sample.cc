// A fixture for tests/lint/function_length_check: each function's length
// (lines from its opening brace to its closing one) is counted by hand in
// tests/lint/function_length_check_test.py. Never compiled.
#include <string>

#define BRACES(x) \
  { x }

namespace sample {

constexpr int kTable[2][2] = {{1, 2}, {3, 4}};

int Short() { return 1; }

std::string Literals(int first_argument_with_a_long_name,
                     int second_argument_with_a_long_name) {
  std::string s = "}{ \" }";
  char c = '}';
  int n = 1'000'000;
  // } a brace in a comment
  /* { and another
     } */
  return s + R"x(}{ ")x" + c + std::to_string(n);
}

class Counter {
 public:
  explicit Counter(int start) : start_(start), values_{1, 2} {
    values_.push_back(start);
  }
  int Get() const { return start_; }
  Counter& operator+=(int v) {
    start_ += v;
    return *this;
  }

 private:
  int start_ = 0;
  std::vector<int> values_{3, 4};
};

auto Trailing(int x) -> int {
  auto square = [](int v) {
    int w = v * v;
    return w;
  };
  if (x > 0) {
    return square(x);
  }
  return 0;
}

struct Point {
  int x, y;
};

}  // namespace sample
