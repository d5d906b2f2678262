// Loading a plugin (include/abench/plugin.h) into a worker, and running the workloads on
// its subject: PluginBuffer wraps a buffer subject behind the interface the workload
// loops use; PluginAllocator makes an allocator subject an Allocator for AlignedBuffer;
// c_allocator turns any Allocator into the C interface handed to buffer subjects.
#pragma once

#include <memory>
#include <string>

#include "abench/plugin.h"
#include "harness/buffer.h"

namespace abench {

struct LoadedPlugin {
  std::string path;
  const abench_plugin* plugin = nullptr;
  bool is_buffer() const { return plugin->buffer != nullptr; }
};

// dlopen + abench_plugin_v1 + validation. Throws std::runtime_error naming the path and
// what is missing or mismatched.
std::shared_ptr<LoadedPlugin> load_plugin(const std::string& path);

// An allocator subject as an Allocator value.
struct PluginAllocator {
  const abench_allocator* subject;
  void* allocate(std::size_t size, std::size_t align) const { return subject->allocate(subject->context, size, align); }
  void* allocate_zeroed(std::size_t size, std::size_t align) const {
    return subject->allocate_zeroed(subject->context, size, align);
  }
  void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) const {
    return subject->grow(subject->context, block, old_size, new_size, align);
  }
  void deallocate(void* block, std::size_t size, std::size_t align) const {
    subject->deallocate(subject->context, block, size, align);
  }
  std::size_t usable_size(const void* block) const { return subject->usable_size(subject->context, block); }
};

// The C interface over an Allocator object that outlives it. An exception thrown by the
// Allocator (a CheckedAllocator's finding) must not cross the plugin's C frames: it is
// kept in `pending_error` and the call returns NULL.
template <class Allocator>
struct CAllocator {
  const Allocator* allocator;
  std::string pending_error;
  abench_allocator table;

  explicit CAllocator(const Allocator* a) : allocator(a) {
    table.context = this;
    table.allocate = [](void* c, std::size_t size, std::size_t align) -> void* {
      return guarded(c, [&](const Allocator& a) { return a.allocate(size, align); });
    };
    table.allocate_zeroed = [](void* c, std::size_t size, std::size_t align) -> void* {
      return guarded(c, [&](const Allocator& a) { return a.allocate_zeroed(size, align); });
    };
    table.grow = [](void* c, void* block, std::size_t old_size, std::size_t new_size, std::size_t align) -> void* {
      return guarded(c, [&](const Allocator& a) { return a.grow(block, old_size, new_size, align); });
    };
    table.deallocate = [](void* c, void* block, std::size_t size, std::size_t align) {
      static_cast<CAllocator*>(c)->allocator->deallocate(block, size, align);
    };
    table.usable_size = [](void* c, const void* block) {
      return static_cast<CAllocator*>(c)->allocator->usable_size(block);
    };
  }
  CAllocator(const CAllocator&) = delete;
  CAllocator& operator=(const CAllocator&) = delete;

 private:
  template <class F>
  static void* guarded(void* c, F&& f) {
    auto* self = static_cast<CAllocator*>(c);
    try {
      return f(*self->allocator);
    } catch (const std::exception& e) {
      if (self->pending_error.empty()) self->pending_error = e.what();
      return nullptr;
    }
  }
};

// A buffer subject's buffer, shaped like AlignedBuffer for the workload loops.
class PluginBuffer {
 public:
  PluginBuffer(const abench_buffer_subject* subject, const abench_allocator* allocator, std::size_t capacity,
               Alignment alignment, Fill fill)
      : subject_(subject),
        handle_(subject->create(allocator, capacity, alignment.requested, alignment.preferred,
                                fill == Fill::zeroed ? 1 : 0)) {
    if (handle_ == nullptr) [[unlikely]]
      throw AllocationFailed();
  }
  PluginBuffer(const PluginBuffer&) = delete;
  PluginBuffer& operator=(const PluginBuffer&) = delete;
  ~PluginBuffer() { subject_->destroy(handle_); }

  void reserve(std::size_t additional) {
    if (subject_->reserve(handle_, additional) != 0) [[unlikely]]
      throw AllocationFailed();
  }
  void append(const std::byte* source, std::size_t count) {
    if (subject_->append(handle_, source, count) != 0) [[unlikely]]
      throw AllocationFailed();
  }
  std::byte* data() { return static_cast<std::byte*>(subject_->data(handle_)); }
  const std::byte* data() const { return static_cast<const std::byte*>(subject_->data(handle_)); }
  std::size_t length() const { return subject_->length(handle_); }
  std::size_t capacity() const { return subject_->capacity(handle_); }

 private:
  const abench_buffer_subject* subject_;
  void* handle_;
};

// The workload context for a buffer subject (see WorkloadContext in workloads.h).
struct PluginBufferContext {
  using Buffer = PluginBuffer;
  const abench_buffer_subject* subject;
  const abench_allocator* allocator;
  Policy policy;  // unused: the library decides; kept so results name the cell alike
  std::size_t size;
  Alignment alignment;
  std::size_t live;
  bool touch;
  const std::byte* input;

  void construct(Buffer* slot, std::size_t n, Fill fill) const {
    std::construct_at(slot, subject, allocator, n, alignment, fill);
  }
};

}  // namespace abench
