// A bounded FIFO that overwrites its oldest element: records kept for the last N events (launches,
// ratio changes). Its slots are reused in place, so elements that own memory (vectors) keep their
// capacity and a steady stream of pushes allocates nothing once the ring is full.
#pragma once
#include <cassert>
#include <cstddef>
#include <vector>

namespace clsplit {

template <typename T>
class Ring {
public:
  explicit Ring(size_t capacity = 1) : capacity_(capacity ? capacity : 1) {}

  size_t capacity() const { return capacity_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The slot for a new newest element: a default-constructed one while the ring grows, else
  // the oldest element, as it was (the caller overwrites what it uses; its buffers are reused).
  T& push() {
    if (slots_.size() < capacity_) {
      slots_.emplace_back();
      ++size_;
      return slots_.back();
    }
    T& slot = slots_[head_];
    head_ = (head_ + 1) % capacity_;
    return slot;
  }
  void push(T value) { push() = std::move(value); }
  void clear() { head_ = 0, size_ = 0, slots_.clear(); }

  // i = 0 is the oldest element kept.
  T& operator[](size_t i) { return slots_[index(i)]; }
  const T& operator[](size_t i) const { return slots_[index(i)]; }
  T& front() { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  template <typename Ref, typename Owner>
  class Iter {
  public:
    Iter(Owner* ring, size_t i) : ring_(ring), i_(i) {}
    Ref operator*() const { return (*ring_)[i_]; }
    auto* operator->() const { return &(*ring_)[i_]; }
    Iter& operator++() { return ++i_, *this; }
    bool operator!=(const Iter& o) const { return i_ != o.i_; }
    bool operator==(const Iter& o) const { return i_ == o.i_; }

  private:
    Owner* ring_;
    size_t i_;
  };
  using iterator = Iter<T&, Ring>;
  using const_iterator = Iter<const T&, const Ring>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

private:
  // The oldest element sits at head_ (0 until the ring is full).
  size_t index(size_t i) const {
    assert(i < size_);
    return (head_ + i) % slots_.size();
  }

  size_t capacity_;
  std::vector<T> slots_;
  size_t head_ = 0; // the oldest element's slot once full
  size_t size_ = 0;
};

} // namespace clsplit
