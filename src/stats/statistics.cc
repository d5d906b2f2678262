#include "src/stats/statistics.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

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

double robust_spread(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double centre = median(values);
  std::vector<double> deviations;
  for (double v : values) deviations.push_back(std::abs(v - centre));
  return 1.4826 * median(std::move(deviations));
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) throw std::invalid_argument("t quantile outside (0, 1) or df <= 0");
  return boost::math::quantile(boost::math::students_t(df), p);
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal quantile outside (0, 1)");
  // Bisection on the CDF, 0.5 erfc(-z / sqrt 2): exact to double precision, and rarely asked.
  double low = -40, high = 40;
  for (int step = 0; step < 200 && high - low > 1e-15; ++step) {
    const double mid = (low + high) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? low : high) = mid;
  }
  return (low + high) / 2;
}

double median_of_medians(const ProcessSamples& processes) {
  std::vector<double> medians;
  for (const auto& samples : processes) medians.push_back(median(samples));
  return median(medians);
}

}  // namespace abench
