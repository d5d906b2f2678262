#include "src/run/batch_pacer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace abench {

BatchPacer::BatchPacer(int samples) : order_(sample_order(samples)) {
  ready_ = true;
  for (std::size_t side = 0; side < 2; ++side) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      ready_ = false;
      continue;
    }
    read_end_[side] = fds[0];
    write_end_[side] = fds[1];
  }
}

BatchPacer::~BatchPacer() {
  for (std::size_t side = 0; side < 2; ++side) {
    if (read_end_[side] >= 0) close(read_end_[side]);
    release(static_cast<int>(side));
  }
}

std::vector<int> BatchPacer::sample_order(int samples) {
  std::vector<int> order;
  for (int k = 0; k < samples; ++k) {
    const int first = k % 2;  // pairs alternate which side leads: 01 10 01 10 ...
    order.push_back(first);
    order.push_back(1 - first);
  }
  return order;
}

std::chrono::steady_clock::time_point BatchPacer::clock_start(int side) const {
  const std::size_t s = static_cast<std::size_t>(side);
  return waiting_[s] ? std::chrono::steady_clock::now() : told_at_[s];
}

void BatchPacer::tell(int side, std::string_view word) {
  waiting_[static_cast<std::size_t>(side)] = false;
  told_at_[static_cast<std::size_t>(side)] = std::chrono::steady_clock::now();
  const int fd = write_end_[static_cast<std::size_t>(side)];
  if (fd < 0) return;
  const std::string line = std::string(word) + "\n";
  // A few bytes into an empty pipe: complete at once, unless the worker is gone.
  for (std::size_t sent = 0; sent < line.size();) {
    const ssize_t n = write(fd, line.data() + sent, line.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

void BatchPacer::release(int side) {
  int& fd = write_end_[static_cast<std::size_t>(side)];
  if (fd >= 0) {  // on its own from now on
    waiting_[static_cast<std::size_t>(side)] = false;
    told_at_[static_cast<std::size_t>(side)] = std::chrono::steady_clock::now();
  }
  if (fd >= 0) close(fd);
  fd = -1;
}

void BatchPacer::on_line(int side, std::string_view line) {
  std::string type;
  std::uint64_t iterations = 0;
  try {
    const nlohmann::json message = nlohmann::json::parse(line);
    type = message.at("type").get<std::string>();
    if (type == "warm") iterations = message.value("iterations", std::uint64_t{0});
  } catch (const std::exception&) {
    return;  // the orchestrator reports it; the worker is stopped and on_gone follows
  }
  const std::size_t s = static_cast<std::size_t>(side);
  // After each of these a paced worker waits for its word (unless it runs free), but after
  // its last sample it only ends: were it called waiting, its allowance would never run out
  // while its partner waits for it to end, and a side that hung on its way out hung abench.
  if ((type == "hello" || type == "warm" || type == "sampled") && write_end_[s] >= 0) waiting_[s] = true;
  if (type == "hello") {
    said_hello_[s] = true;
    if (said_hello_[0] && said_hello_[1] && !held_) tell(0, fmt::format("warmup {}", iterations_));
  } else if (type == "warm") {
    warm_[s] = true;
    if (side == 0) {
      if (iterations_ == 0) iterations_ = iterations;
      tell(1, fmt::format("warmup {}", iterations_));
    } else if (warm_[0] && !order_.empty()) {
      tell(order_[0], "sample");
    }
  } else if (type == "sampled") {
    if (next_sample_ < order_.size() && order_[next_sample_] == side) ++next_sample_;
    // A side past its last sample exits now, and the kernel tears its address space down on
    // the measured CPU: the other side's last sample waits until it is gone (on_gone lets it
    // go), or it would pay for that teardown (docs/decisions.md, "A side's teardown").
    if (!has_samples_left(side)) waiting_[s] = false;
    if (next_sample_ < order_.size() && has_samples_left(side)) tell(order_[next_sample_], "sample");
  }
}

bool BatchPacer::has_samples_left(int side) const {
  return std::find(order_.begin() + static_cast<std::ptrdiff_t>(next_sample_), order_.end(), side) != order_.end();
}

void BatchPacer::on_gone(int side) {
  gone_[static_cast<std::size_t>(side)] = true;
  release(side);
  if (!held_) release(1 - side);  // the other side runs on alone
}

void BatchPacer::let_go(std::uint64_t iterations) {
  if (!held_) return;
  held_ = false;
  iterations_ = iterations;
  if (gone_[0] || gone_[1]) {  // one never got going: the other runs alone
    release(0);
    release(1);
  } else if (said_hello_[0] && said_hello_[1]) {
    tell(0, fmt::format("warmup {}", iterations_));
  }
}

}  // namespace abench
