// Order statistics over per-sample and per-process figures.
#pragma once

#include <vector>

namespace abench {

// Median (mean of the two middle values for an even count). Precondition: not empty.
double median(std::vector<double> values);
double minimum(const std::vector<double>& values);
double maximum(const std::vector<double>& values);

// One side of a cell: the samples of each of its processes.
using ProcessSamples = std::vector<std::vector<double>>;

// A side's figure: the median over processes of each process's median sample.
double median_of_medians(const ProcessSamples& processes);

}  // namespace abench
