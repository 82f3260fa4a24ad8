// A preloadable libm that moves log, log1p, exp, expm1, pow, cbrt and
// log10 by one ulp (down), to show that simulated figures do not depend on
// the C library's elementary functions: a model that called one would print
// different bytes. The real functions come from the next library (RTLD_NEXT).
#include <dlfcn.h>

#include <cstdint>
#include <cstring>

namespace {

double Down(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  if ((b & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL || v == 0) return v;
  --b;  // one ulp towards zero
  std::memcpy(&v, &b, sizeof v);
  return v;
}

template <typename F>
F Next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {
using Fn1 = double (*)(double);
using Fn2 = double (*)(double, double);
double log(double x) { return Down(Next<Fn1>("log")(x)); }
double log1p(double x) { return Down(Next<Fn1>("log1p")(x)); }
double log10(double x) { return Down(Next<Fn1>("log10")(x)); }
double exp(double x) { return Down(Next<Fn1>("exp")(x)); }
double expm1(double x) { return Down(Next<Fn1>("expm1")(x)); }
double cbrt(double x) { return Down(Next<Fn1>("cbrt")(x)); }
double pow(double x, double y) { return Down(Next<Fn2>("pow")(x, y)); }
}
