#pragma once
// TLS on a non-blocking socket for the hostile connections (OpenSSL directly: the engine is a
// poll() loop over raw descriptors, not Asio). An attacker does not check who it talks to, so
// the server's certificate is not verified here; what matters is that the daemon has to do the
// handshake and then read the hostile bytes through its TLS layer.
//
// Every call returns at once: kWantRead / kWantWrite say which poll() event to wait for before
// calling again.

#include <cstddef>
#include <memory>
#include <string>

struct ssl_ctx_st;
struct ssl_st;

namespace animhostile {

enum class TlsIo {
  kDone,       // the handshake finished, or some bytes moved (`moved`)
  kWantRead,   // nothing moved: call again once the socket is readable
  kWantWrite,  // nothing moved: call again once the socket is writable
  kClosed,     // the peer closed (close_notify or end of file)
  kError,      // a protocol or socket error (`error()` says which)
};

// One client SSL_CTX (TLS 1.2+), shared by every hostile connection.
class TlsClientContext {
 public:
  // Null with `error` set when OpenSSL cannot make one.
  static std::unique_ptr<TlsClientContext> create(std::string& error);
  ~TlsClientContext();
  TlsClientContext(const TlsClientContext&) = delete;
  TlsClientContext& operator=(const TlsClientContext&) = delete;

  ssl_ctx_st* native() const { return ctx_; }

 private:
  explicit TlsClientContext(ssl_ctx_st* ctx) : ctx_(ctx) {}
  ssl_ctx_st* ctx_;
};

// The TLS side of one connected socket (the descriptor stays the caller's to close).
class TlsSocket {
 public:
  // Null when OpenSSL cannot make the session (out of memory).
  static std::unique_ptr<TlsSocket> attach(const TlsClientContext& ctx, int fd);
  ~TlsSocket();
  TlsSocket(const TlsSocket&) = delete;
  TlsSocket& operator=(const TlsSocket&) = delete;

  TlsIo handshake();
  TlsIo read(char* buffer, size_t size, size_t& moved);
  TlsIo write(const char* data, size_t size, size_t& moved);
  // What went wrong on the last kError (OpenSSL's reason, or the socket's errno text).
  const std::string& error() const { return error_; }

 private:
  explicit TlsSocket(ssl_st* ssl) : ssl_(ssl) {}
  TlsIo result(int rc);  // maps SSL_get_error for a call that returned rc <= 0

  ssl_st* ssl_;
  std::string error_;
};

}  // namespace animhostile
