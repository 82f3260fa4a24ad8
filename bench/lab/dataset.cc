// Placeholder so the library has a source; replaced by the benchmark work (issue 4).
namespace perflab::lab {}
