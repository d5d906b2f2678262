// The worker protocol (docs/protocol.md), version 1: JSON lines.
//
// The orchestrator starts `abench-worker-<backend>` with no arguments and writes one
// WorkerRequest line on its stdin. The worker answers on stdout, one JSON object a line:
//   {"type":"hello", ...}   who serves malloc, allocator version, pinned CPU, cell order
//   {"type":"cell", ...}    one per cell, as soon as that cell is done
//   {"type":"done"}         the worker finished every cell
//   {"type":"fatal", "error": "..."}   the worker cannot run (exit code 3)
// Anything on stderr is diagnostics, kept by the orchestrator for failure reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/layout.h"
#include "harness/sampler.h"

namespace abench {

inline constexpr int kProtocolVersion = 1;

struct CellSpec {
  int id = 0;
  Workload workload = Workload::allocate;
  Policy policy = Policy::exact;
  std::size_t size = 0;
  Alignment alignment;
  std::size_t live = 1;
};

enum class CellOrder { shuffled, matrix };

struct WorkerRequest {
  int protocol = kProtocolVersion;
  std::vector<CellSpec> cells;
  SamplerConfig sampler;
  bool touch = false;
  bool pin = true;
  int cpu = -1;  // -1: the last CPU the process may use
  CellOrder order = CellOrder::shuffled;
  std::uint64_t seed = 0;
};

struct WorkerHello {
  std::string backend;
  std::string allocator_version;
  std::string malloc_object;
  int pinned_cpu = -1;  // -1: not pinned
  long pid = 0;
  std::vector<int> order;  // cell ids in the order they will run
  std::string compiler;
  std::string cxx_flags;
  std::string git_revision;
};

struct CellReport {
  int id = 0;
  bool ok = false;
  std::string error;                 // when !ok
  std::uint64_t iterations = 0;      // per sample batch
  std::uint64_t ops_per_iteration = 0;
  int warmup_batches = 0;
  std::vector<double> sample_ns_per_op;
};

void to_json(nlohmann::json& j, const Alignment& a);
void from_json(const nlohmann::json& j, Alignment& a);
void to_json(nlohmann::json& j, const CellSpec& c);
void from_json(const nlohmann::json& j, CellSpec& c);
void to_json(nlohmann::json& j, const WorkerRequest& r);
void from_json(const nlohmann::json& j, WorkerRequest& r);
void to_json(nlohmann::json& j, const WorkerHello& h);
void from_json(const nlohmann::json& j, WorkerHello& h);
void to_json(nlohmann::json& j, const CellReport& r);
void from_json(const nlohmann::json& j, CellReport& r);

}  // namespace abench
