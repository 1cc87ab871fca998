#include "tls_socket.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstring>

namespace animhostile {

namespace {
std::string openssl_reason() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown TLS error";
  char text[256];
  ERR_error_string_n(e, text, sizeof text);
  return text;
}
}  // namespace

std::unique_ptr<TlsClientContext> TlsClientContext::create(std::string& error) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx) {
    error = "TLS context: " + openssl_reason();
    return nullptr;
  }
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  // A write may be resumed with a buffer that moved (the engine keeps its own offset) and may
  // return after sending part of it, like send() does.
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  return std::unique_ptr<TlsClientContext>(new TlsClientContext(ctx));
}

TlsClientContext::~TlsClientContext() {
  SSL_CTX_free(ctx_);
}

std::unique_ptr<TlsSocket> TlsSocket::attach(const TlsClientContext& ctx, int fd) {
  SSL* ssl = SSL_new(ctx.native());
  if (!ssl) return nullptr;
  if (SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    return nullptr;
  }
  SSL_set_connect_state(ssl);
  return std::unique_ptr<TlsSocket>(new TlsSocket(ssl));
}

TlsSocket::~TlsSocket() {
  SSL_free(ssl_);
}

TlsIo TlsSocket::result(int rc) {
  const int e = SSL_get_error(ssl_, rc);
  switch (e) {
    case SSL_ERROR_WANT_READ:
      return TlsIo::kWantRead;
    case SSL_ERROR_WANT_WRITE:
      return TlsIo::kWantWrite;
    case SSL_ERROR_ZERO_RETURN:
      return TlsIo::kClosed;
    case SSL_ERROR_SYSCALL: {
      const int saved = errno;
      if (ERR_peek_error() == 0 && (saved == 0 || saved == ECONNRESET || saved == EPIPE)) {
        ERR_clear_error();
        return TlsIo::kClosed;  // end of file or reset without close_notify
      }
      if (saved == EAGAIN || saved == EINTR) return TlsIo::kWantRead;
      error_ = ERR_peek_error() != 0 ? openssl_reason() : std::string(std::strerror(saved));
      return TlsIo::kError;
    }
    default:
      error_ = openssl_reason();
      return TlsIo::kError;
  }
}

TlsIo TlsSocket::handshake() {
  const int rc = SSL_do_handshake(ssl_);
  return rc == 1 ? TlsIo::kDone : result(rc);
}

TlsIo TlsSocket::read(char* buffer, size_t size, size_t& moved) {
  moved = 0;
  const int rc = SSL_read_ex(ssl_, buffer, size, &moved);
  return rc == 1 ? TlsIo::kDone : result(rc);
}

TlsIo TlsSocket::write(const char* data, size_t size, size_t& moved) {
  moved = 0;
  const int rc = SSL_write_ex(ssl_, data, size, &moved);
  return rc == 1 ? TlsIo::kDone : result(rc);
}

}  // namespace animhostile
