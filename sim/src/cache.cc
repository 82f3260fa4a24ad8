#include "sim/cache.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace perflab::sim {

bool Cache::Get(int64_t key, Time now) {
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++stats_.misses;
    return false;
  }
  if (now - it->second->written >= options_.ttl) {
    lru_.erase(it->second);
    index_.erase(it);
    ++stats_.expirations;
    ++stats_.misses;
    return false;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  ++stats_.hits;
  return true;
}

void Cache::Put(int64_t key, Time now) {
  if (options_.max_entries <= 0) return;
  auto it = index_.find(key);
  if (it != index_.end()) {
    it->second->written = now;
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  if (static_cast<int64_t>(index_.size()) >= options_.max_entries) {
    index_.erase(lru_.back().key);
    lru_.pop_back();
    ++stats_.evictions;
  }
  lru_.push_front({key, now});
  index_[key] = lru_.begin();
}

absl::StatusOr<KeyStream> KeyStream::Create(Kind kind, int64_t n,
                                            double zipf_s) {
  if (n < 1) {
    return absl::InvalidArgumentError(absl::StrCat("key space ", n, " < 1"));
  }
  KeyStream k;
  k.kind_ = kind;
  k.n_ = n;
  if (kind == Kind::kZipf) {
    absl::StatusOr<Zipf> z = Zipf::Create(n, zipf_s);
    if (!z.ok()) return z.status();
    k.zipf_ = std::move(*z);
  }
  return k;
}

int64_t KeyStream::Next(Rng& rng) const {
  switch (kind_) {
    case Kind::kUniform:
      return 1 + static_cast<int64_t>(rng.Below(static_cast<uint64_t>(n_)));
    case Kind::kSkewed:
      return SkewedKey(n_, rng);
    case Kind::kZipf:
      return zipf_->Sample(rng);
  }
  return 1;
}

}  // namespace perflab::sim
