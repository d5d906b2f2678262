// A thread of its own for work beside the timed rounds (the counting lanes of the job queue).
#pragma once

#include <exception>
#include <stop_token>
#include <thread>

namespace abench {

// Its exception is kept for the caller, and the thread asked to stop and joined when the lane
// is destroyed, so nothing it uses can end before it.
class BackgroundLane {
 public:
  BackgroundLane() = default;
  BackgroundLane(const BackgroundLane&) = delete;
  BackgroundLane& operator=(const BackgroundLane&) = delete;
  ~BackgroundLane() {
    if (thread_.joinable()) {
      thread_.request_stop();
      thread_.join();
    }
  }

  template <class Work>
  void start(Work work) {
    thread_ = std::jthread([this, work](std::stop_token stop) {
      try {
        work(stop);
      } catch (...) {
        error_ = std::current_exception();
      }
    });
  }

  void join_and_rethrow() {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::exception_ptr error_;
  std::jthread thread_;
};

}  // namespace abench
