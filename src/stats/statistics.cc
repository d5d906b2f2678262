#include "src/stats/statistics.h"

#include <algorithm>
#include <stdexcept>

namespace abench {

double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median of no values");
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<long>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<long>(mid));
  return (lower + upper) / 2;
}

double minimum(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("minimum of no values");
  return *std::min_element(values.begin(), values.end());
}

double maximum(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("maximum of no values");
  return *std::max_element(values.begin(), values.end());
}

double median_of_medians(const ProcessSamples& processes) {
  std::vector<double> medians;
  for (const auto& samples : processes) medians.push_back(median(samples));
  return median(medians);
}

}  // namespace abench
