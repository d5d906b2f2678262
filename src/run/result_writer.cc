#include "src/run/result_writer.h"

#include <sched.h>

#include "src/results_writers.h"

namespace abench {

BackgroundResultWriter::BackgroundResultWriter(std::filesystem::path dir)
    : dir_(std::move(dir)), thread_([this] { write_until_stopped(); }) {}

BackgroundResultWriter::~BackgroundResultWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void BackgroundResultWriter::rethrow_locked() {
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void BackgroundResultWriter::offer(const RunResults& results) {
  std::lock_guard lock(mutex_);
  rethrow_locked();
  if (writing_ || pending_) return;  // taken up by the next offer once this write is done
  pending_ = results;
  wake_.notify_one();
}

void BackgroundResultWriter::flush(const RunResults& results) {
  {
    std::unique_lock lock(mutex_);
    written_.wait(lock, [this] { return !pending_ && !writing_; });
    rethrow_locked();
  }
  write_result_files(dir_, results);
}

void BackgroundResultWriter::write_until_stopped() {
  // The lowest class there is: runs only when abench's CPUs have nothing else to do.
  sched_param lowest{};
  sched_setscheduler(0, SCHED_IDLE, &lowest);  // a thread's own policy; nothing to do if refused
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return pending_ || stopping_; });
    if (!pending_) return;  // stopping, nothing left
    const RunResults results = std::move(*pending_);
    pending_.reset();
    writing_ = true;
    lock.unlock();
    std::exception_ptr error;
    try {
      write_result_files(dir_, results);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    writing_ = false;
    if (error) error_ = error;
    written_.notify_all();
  }
}

}  // namespace abench
