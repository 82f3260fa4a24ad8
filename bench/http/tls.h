// TLS for the loopback server and client: a self-signed RSA key and
// certificate generated at start-up (no files), and the two OpenSSL contexts
// built from it. Session caching and tickets are off on both sides, so every
// new connection pays a full handshake, the seed's "new HTTPS connection".
// A TlsContexts is immutable after Create and safe to share between threads.
#ifndef PERFLAB_BENCH_HTTP_TLS_H_
#define PERFLAB_BENCH_HTTP_TLS_H_

#include <openssl/ssl.h>

#include <memory>

#include "absl/status/statusor.h"

namespace perflab::http {

struct TlsOptions {
  // Key size; 2048 bits as the seed's keytool default.
  int rsa_bits = 2048;
};

class TlsContexts {
 public:
  // Generates the key (tens to hundreds of ms for RSA-2048): do it once.
  static absl::StatusOr<std::shared_ptr<const TlsContexts>> Create(
      const TlsOptions& options = {});
  ~TlsContexts();
  TlsContexts(const TlsContexts&) = delete;
  TlsContexts& operator=(const TlsContexts&) = delete;

  SSL_CTX* server() const { return server_; }
  // Trusts exactly the generated certificate and verifies the peer with it.
  SSL_CTX* client() const { return client_; }

 private:
  TlsContexts() = default;
  SSL_CTX* server_ = nullptr;
  SSL_CTX* client_ = nullptr;
};

}  // namespace perflab::http

#endif  // PERFLAB_BENCH_HTTP_TLS_H_
