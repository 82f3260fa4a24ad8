#include "bench/http/tls.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace perflab::http {
namespace {

absl::Status OpenSslError(const char* what) {
  char buf[256] = "no detail";
  unsigned long e = ERR_get_error();
  if (e != 0) ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return absl::InternalError(absl::StrCat(what, ": ", buf));
}

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
  void operator()(X509* x) const { X509_free(x); }
};

}  // namespace

TlsContexts::~TlsContexts() {
  SSL_CTX_free(server_);
  SSL_CTX_free(client_);
}

absl::StatusOr<std::shared_ptr<const TlsContexts>> TlsContexts::Create(
    const TlsOptions& options) {
  std::unique_ptr<EVP_PKEY, KeyFree> key(
      EVP_RSA_gen(static_cast<unsigned>(options.rsa_bits)));
  if (!key) return OpenSslError("generate RSA key");
  std::unique_ptr<X509, CertFree> cert(X509_new());
  if (!cert) return OpenSslError("X509_new");
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 7 * 86400L);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(
      name, "CN", MBSTRING_ASC,
      reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) {
    return OpenSslError("self-sign certificate");
  }

  std::shared_ptr<TlsContexts> tls(new TlsContexts());
  tls->server_ = SSL_CTX_new(TLS_server_method());
  tls->client_ = SSL_CTX_new(TLS_client_method());
  if (tls->server_ == nullptr || tls->client_ == nullptr) {
    return OpenSslError("SSL_CTX_new");
  }
  if (SSL_CTX_use_certificate(tls->server_, cert.get()) != 1 ||
      SSL_CTX_use_PrivateKey(tls->server_, key.get()) != 1 ||
      SSL_CTX_check_private_key(tls->server_) != 1) {
    return OpenSslError("load server certificate");
  }
  // No resumption anywhere: "new connection" must mean a full handshake.
  SSL_CTX_set_session_cache_mode(tls->server_, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(tls->server_, 0);
  SSL_CTX_set_session_cache_mode(tls->client_, SSL_SESS_CACHE_OFF);
  if (X509_STORE_add_cert(SSL_CTX_get_cert_store(tls->client_), cert.get()) !=
      1) {
    return OpenSslError("trust the generated certificate");
  }
  SSL_CTX_set_verify(tls->client_, SSL_VERIFY_PEER, nullptr);
  return std::shared_ptr<const TlsContexts>(std::move(tls));
}

}  // namespace perflab::http
