// Order statistics over per-sample and per-process figures.
#pragma once

#include <vector>

namespace abench {

// Median (mean of the two middle values for an even count). Precondition: not empty.
double median(std::vector<double> values);
double minimum(const std::vector<double>& values);
double maximum(const std::vector<double>& values);

}  // namespace abench
