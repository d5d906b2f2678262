// abench list: what this build can measure (backends built and who serves malloc in each,
// workloads, measures, policies, protocol fields, matrices), printed.
#pragma once

namespace abench {

void print_listing();

}  // namespace abench
