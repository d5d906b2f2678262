// Order statistics over per-sample and per-process figures.
#pragma once

#include <vector>

namespace abench {

// Median (mean of the two middle values for an even count). Precondition: not empty.
double median(std::vector<double> values);
double minimum(const std::vector<double>& values);
double maximum(const std::vector<double>& values);
// 1.4826 x the median absolute deviation: the standard deviation of normal data, and
// unmoved by an outlier or two. 0 for fewer than two values.
double robust_spread(const std::vector<double>& values);
// The standard normal quantile: normal_quantile(0.975) = 1.95996... Precondition: 0 < p < 1.
double normal_quantile(double p);
// Student's t quantile with `df` degrees of freedom (Boost.Math). Precondition: 0 < p < 1, df > 0.
double student_t_quantile(double p, double df);

// One side of a cell: the samples of each of its processes.
using ProcessSamples = std::vector<std::vector<double>>;

// A side's figure: the median over processes of each process's median sample.
double median_of_medians(const ProcessSamples& processes);

}  // namespace abench
