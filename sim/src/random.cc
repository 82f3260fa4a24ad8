// Placeholder so the library has a source; replaced by the simulator work (issue 3).
namespace perflab::sim {}
