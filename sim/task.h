// Task<T>: an awaitable sub-coroutine, so components can offer multi-step
// operations that read top to bottom (`bool ok = co_await http.Call(5 * kMs)`).
// Lazy: it starts when awaited and resumes its awaiter by symmetric transfer
// when done. The frame belongs to the Task object (a temporary in the
// awaiting frame), so destroying a suspended process also frees its tasks.
// Single-threaded, like the Simulation it runs in.
#ifndef PERFLAB_SIM_TASK_H_
#define PERFLAB_SIM_TASK_H_

#include <coroutine>
#include <exception>
#include <optional>
#include <utility>

#include "sim/engine.h"

namespace perflab::sim {

template <typename T>
class Task {
 public:
  struct promise_type {
    std::optional<T> value;
    std::coroutine_handle<> continuation;

    Task get_return_object() {
      return Task(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct Final {
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(
          std::coroutine_handle<promise_type> h) noexcept {
        auto next = h.promise().continuation;
        return next ? next : std::noop_coroutine();
      }
      void await_resume() noexcept {}
    };
    Final final_suspend() noexcept { return {}; }
    void return_value(T v) { value = std::move(v); }
    void unhandled_exception() { std::terminate(); }
    static void* operator new(std::size_t n) { return AllocateFrame(n); }
    static void operator delete(void* p, std::size_t n) { FreeFrame(p, n); }
  };

  // No coroutine: for a holder that may or may not start one (a fast
  // path's awaiter); awaiting it is undefined.
  Task() noexcept = default;
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  // False for a Task made empty or moved from. A task holding one is not
  // yet running: it starts when awaited.
  bool has_coroutine() const { return h_ != nullptr; }
  ~Task() {
    if (h_) h_.destroy();
  }

  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) {
    h_.promise().continuation = awaiting;
    return h_;
  }
  T await_resume() { return std::move(*h_.promise().value); }

 private:
  explicit Task(std::coroutine_handle<promise_type> h) : h_(h) {}
  std::coroutine_handle<promise_type> h_ = nullptr;
};

}  // namespace perflab::sim

#endif  // PERFLAB_SIM_TASK_H_
