// The one translation unit of perflab_test_pch, the target that compiles the
// test binaries' shared precompiled header (cmake/PerflabTargets.cmake); the
// header is all it is for.
