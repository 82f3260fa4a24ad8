// The median of a sample, the one every tool takes of its repeats (benchmark
// repetitions, capstone repeats, the compare tool's samples). Pure function;
// thread-safe.
#ifndef PERFLAB_MODELS_MEDIAN_H_
#define PERFLAB_MODELS_MEDIAN_H_

#include <vector>

namespace perflab::models {

// The middle value of `sample` in sorted order; for an even size, the mean
// of the two middle values ({1, 2, 10, 20} -> 6). An empty sample has no
// middle value: the result is a quiet NaN, which no "> 0" check or printed
// table can mistake for a measured 0. Values must not be NaN. Takes the
// sample by value because it reorders it.
double Median(std::vector<double> sample);

}  // namespace perflab::models

#endif  // PERFLAB_MODELS_MEDIAN_H_
