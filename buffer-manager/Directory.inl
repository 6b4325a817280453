// Directory<Token> implementation: an interval map kept as std::map<run start, Cell>, every
// operation O(log n + k) in the number of runs n and the runs it touches k.
#pragma once

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

namespace clsplit::buffer {

template <class Token>
HolderMask Cell<Token>::mask() const {
  HolderMask m = 0;
  for (const auto& c : copies) m |= bit(c.holder);
  return m;
}

template <class Token>
const Token* Cell<Token>::tokenOf(Holder h) const {
  for (const auto& c : copies)
    if (c.holder == h) return &c.token;
  return nullptr;
}

namespace detail {

inline void checkHolder(Holder h) {
  if (h >= kMaxHolders)
    throw std::invalid_argument("clsplit directory: holder " + std::to_string(unsigned(h)) + " out of range (max " +
                                std::to_string(unsigned(kMaxHolders)) + ")");
}

// Bytes outside [0,size) exist on no holder, so every operation clips to the buffer: an
// over-approximated region that runs past the end must neither fail nor reach past it.
inline ByteRange clip(ByteRange r, uint64_t size) { return {std::min(r.lo, size), std::min(r.hi, size)}; }

// Sets h's copy in `cell` to `token` (inserting it in holder order if absent).
template <class Token>
void putCopy(Cell<Token>& cell, Holder h, const Token& token) {
  auto it = std::lower_bound(cell.copies.begin(), cell.copies.end(), h,
                             [](const Copy<Token>& c, Holder x) { return c.holder < x; });
  if (it != cell.copies.end() && it->holder == h)
    it->token = token;
  else
    cell.copies.insert(it, Copy<Token>{h, token});
}

} // namespace detail

template <class Token>
Directory<Token>::Directory(uint64_t size, Holder initial, Token token) : size_(size) {
  detail::checkHolder(initial);
  if (size_ > 0) runs_.emplace(0, Cell<Token>{{Copy<Token>{initial, std::move(token)}}});
}

template <class Token>
template <class F>
void Directory<Token>::visit(ByteRange r, F&& f) const {
  r = detail::clip(r, size_);
  if (r.empty()) return;
  auto it = std::prev(runs_.upper_bound(r.lo)); // a run starts at 0, so prev is valid
  for (; it != runs_.end() && it->first < r.hi; ++it) {
    auto next = std::next(it);
    uint64_t end = next == runs_.end() ? size_ : next->first;
    f(ByteRange{std::max(it->first, r.lo), std::min(end, r.hi)}, it->second);
  }
}

template <class Token>
template <class F>
void Directory<Token>::visit(const RangeSet& rs, F&& f) const {
  if (rs.empty() || size_ == 0) return;
  // `it`: a run starting at or before the current range (ranges and runs only move forward).
  auto it = std::prev(runs_.upper_bound(std::min(rs.begin()->lo, size_ - 1)));
  for (ByteRange r : rs) {
    r = detail::clip(r, size_);
    if (r.empty()) continue;
    if (auto next = std::next(it); next != runs_.end() && next->first <= r.lo) {
      auto after = std::next(next); // one step forward is the common case; else look it up
      it = (after == runs_.end() || after->first > r.lo) ? next : std::prev(runs_.upper_bound(r.lo));
    }
    for (auto run = it; run != runs_.end() && run->first < r.hi; ++run) {
      auto next = std::next(run);
      uint64_t end = next == runs_.end() ? size_ : next->first;
      f(ByteRange{std::max(run->first, r.lo), std::min(end, r.hi)}, run->second);
      it = run;
    }
  }
}

template <class Token>
RangeSet Directory<Token>::missing(const RangeSet& need, Holder h) const {
  detail::checkHolder(h);
  std::vector<ByteRange> out;
  visit(need, [&](ByteRange piece, const Cell<Token>& cell) {
    if (!(cell.mask() & bit(h))) out.push_back(piece);
  });
  return RangeSet::fromRanges(std::move(out));
}

template <class Token>
RangeSet Directory<Token>::validOn(Holder h) const {
  detail::checkHolder(h);
  RangeSet out;
  visit({0, size_}, [&](ByteRange piece, const Cell<Token>& cell) {
    if (cell.mask() & bit(h)) out.add(piece);
  });
  return out;
}

template <class Token>
typename Directory<Token>::RunIterator Directory<Token>::splitAt(uint64_t pos) {
  if (pos >= size_) return runs_.end();
  auto it = std::prev(runs_.upper_bound(pos));
  if (it->first == pos) return it;
  return runs_.emplace_hint(std::next(it), pos, it->second);
}

template <class Token>
void Directory<Token>::mergeAround(uint64_t lo, uint64_t hi) {
  // Candidates: every run starting in [lo, hi], each compared with its predecessor. The run
  // starting at lo may merge with the run before the range, the one at hi with the last
  // modified run.
  auto it = runs_.lower_bound(lo);
  if (it == runs_.begin()) ++it;
  while (it != runs_.end() && it->first <= hi) {
    auto prev = std::prev(it);
    if (prev->second == it->second)
      it = runs_.erase(it);
    else
      ++it;
  }
}

template <class Token>
template <class Mutate>
void Directory<Token>::update(const RangeSet& r, Mutate&& mutate) {
  ++generation_;
  for (const auto& range : r) {
    ByteRange c = detail::clip(range, size_);
    if (c.empty()) continue;
    auto first = splitAt(c.lo);
    auto last = splitAt(c.hi); // end() when c.hi == size_
    for (auto it = first; it != last; ++it) mutate(it->second);
    mergeAround(c.lo, c.hi);
  }
}

template <class Token>
void Directory<Token>::addCopy(const RangeSet& r, Holder h, const Token& token) {
  detail::checkHolder(h);
  // Nothing changes where `h` already holds every byte with this token (read-only check: no
  // run is split or merged, which costs allocations per range of a strided region).
  bool unchanged = true;
  visit(r, [&](ByteRange, const Cell<Token>& cell) {
    const Token* t = cell.tokenOf(h);
    unchanged = unchanged && t && *t == token;
  });
  if (unchanged) return;
  update(r, [&](Cell<Token>& cell) { detail::putCopy(cell, h, token); });
}

template <class Token>
void Directory<Token>::drop(const RangeSet& r, Holder h) {
  detail::checkHolder(h);
  bool holds = false;
  visit(r, [&](ByteRange, const Cell<Token>& cell) {
    if (!cell.tokenOf(h)) return;
    holds = true;
    if (cell.copies.size() == 1) throw std::logic_error("clsplit: dropping the only holder of bytes");
  });
  if (!holds) return;
  update(r,
         [&](Cell<Token>& cell) { std::erase_if(cell.copies, [&](const Copy<Token>& c) { return c.holder == h; }); });
}

template <class Token>
void Directory<Token>::setOnly(const RangeSet& r, Holder h, const Token& token) {
  detail::checkHolder(h);
  // Nothing changes where `h` already holds every byte alone with this token (an iterated
  // kernel publishing what its device wrote last time).
  bool unchanged = true;
  visit(r, [&](ByteRange, const Cell<Token>& cell) {
    unchanged =
        unchanged && cell.copies.size() == 1 && cell.copies.front().holder == h && cell.copies.front().token == token;
  });
  if (unchanged) return;
  update(r, [&](Cell<Token>& cell) {
    cell.copies.clear();
    cell.copies.push_back(Copy<Token>{h, token});
  });
}

template <class Token>
void Directory<Token>::retoken(const RangeSet& r, Holder h, const Token& token) {
  detail::checkHolder(h);
  update(r, [&](Cell<Token>& cell) {
    for (auto& c : cell.copies)
      if (c.holder == h) c.token = token;
  });
}

template <class Token>
bool Directory<Token>::invariantHolds() const {
  if (size_ == 0) return runs_.empty();
  if (runs_.empty() || runs_.begin()->first != 0) return false;
  const Cell<Token>* prev = nullptr;
  for (const auto& [start, cell] : runs_) {
    if (start >= size_) return false;
    if (cell.copies.empty()) return false;
    for (size_t i = 0; i < cell.copies.size(); ++i) {
      if (cell.copies[i].holder >= kMaxHolders) return false;
      if (i && cell.copies[i - 1].holder >= cell.copies[i].holder) return false;
    }
    if (prev && *prev == cell) return false;
    prev = &cell;
  }
  return true;
}

} // namespace clsplit::buffer
