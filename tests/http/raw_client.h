// A raw TCP client on loopback for the front end's tests: it sends exactly the
// bytes it is given (a malformed request, a trickle, a body holding a second
// request) and reads what comes back, every wait bounded by a generous
// deadline so a server that never answers fails the test instead of hanging
// it. Not thread-safe.
#ifndef PERFLAB_TESTS_HTTP_RAW_CLIENT_H_
#define PERFLAB_TESTS_HTTP_RAW_CLIENT_H_

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perflab::http {

class RawClient {
 public:
  // How long any read waits for the server at most.
  static constexpr int kBoundMs = 10'000;

  explicit RawClient(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return fd_ >= 0; }

  bool Send(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  void ShutdownWrite() { ::shutdown(fd_, SHUT_WR); }

  // Everything up to the server's end of stream; nullopt when it does not
  // come within kBoundMs (the server kept the connection open).
  std::optional<std::string> ReadToEof() {
    std::string out;
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kBoundMs);
    for (;;) {
      if (!WaitReadable(until)) return std::nullopt;
      char chunk[4096];
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return out;  // EOF (or a reset after it)
      out.append(chunk, static_cast<size_t>(n));
    }
  }

  // One response (a head and its Content-Length body), or "" if the stream
  // ended or stalled first.
  std::string ReadResponse() {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kBoundMs);
    for (;;) {
      const size_t end = buffer_.find("\r\n\r\n");
      if (end != std::string::npos) {
        const size_t at = buffer_.find("Content-Length: ");
        const size_t length =
            at < end ? std::stoul(buffer_.substr(at + 16)) : 0;
        if (buffer_.size() >= end + 4 + length) {
          std::string one = buffer_.substr(0, end + 4 + length);
          buffer_.erase(0, one.size());
          return one;
        }
      }
      if (!WaitReadable(until)) return "";
      char chunk[4096];
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return "";
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  // True when the server has sent nothing more and not closed: a zero-wait
  // poll finds nothing to read.
  bool QuietAndOpen() {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) == 0;
  }

  // Waits up to `ms` for input (or the end of stream); false: none came.
  bool Readable(int ms) {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, ms) > 0;
  }

 private:
  bool WaitReadable(std::chrono::steady_clock::time_point until) {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            until - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      const int n = ::poll(&p, 1, static_cast<int>(left));
      if (n < 0 && errno == EINTR) continue;
      return n > 0;
    }
  }

  int fd_ = -1;
  std::string buffer_;
};

}  // namespace perflab::http

#endif  // PERFLAB_TESTS_HTTP_RAW_CLIENT_H_
