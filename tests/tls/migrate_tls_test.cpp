// migrate over TLS (docs/protocol.md, "Moving characters between daemons"): the source checks
// the target's certificate against --peer-ca-file and sends the target's control token; a CA
// that did not sign the target's certificate fails the migration at the handshake, and the
// characters stay.
#include <gtest/gtest.h>

#include "integration_support.h"
#include "test_certs.h"

namespace animtest {
namespace migrate_tls_test {

using anim::v1::Request;

Request migrate_to(uint32_t id, uint16_t port) {
  Request r;
  r.mutable_migrate()->add_character_ids(id);
  r.mutable_migrate()->mutable_target()->set_host("127.0.0.1");
  r.mutable_migrate()->mutable_target()->set_port(port);
  r.mutable_migrate()->mutable_target()->set_token("target-control-token-0123456789");
  r.mutable_migrate()->mutable_target()->set_tls(true);
  r.mutable_migrate()->set_deadline_ms(5000);
  return r;
}

int characters(animclient::Client& c) {
  Request r;
  r.mutable_list_characters();
  return call_ok(c, r).list_characters().characters_size();
}

TEST(MigrateTls, VerifiesTheTargetAgainstThePeerCa) {
  TempDir dir("migrate-tls");
  const TestCerts certs = make_test_certs(dir.path());
  ASSERT_TRUE(certs.ok()) << certs.error;
  DaemonProcess target({"--tls-cert", certs.server_cert, "--tls-key", certs.server_key,
                        "--control-token", "target-control-token-0123456789"});
  DaemonProcess trusting({"--peer-ca-file", certs.ca});
  DaemonProcess untrusting({"--peer-ca-file", certs.untrusted_ca});
  ANIMD_START(target);
  ANIMD_START(trusting);
  ANIMD_START(untrusting);
  auto good = connect_client(trusting);
  auto bad = connect_client(untrusting);
  ASSERT_TRUE(good && bad);
  Request spawn;
  spawn.mutable_spawn()->set_asset("builtin");
  spawn.mutable_spawn()->set_clip("walk");

  const uint32_t stays = call_ok(*bad, spawn).spawn().character_id();
  expect_status(*bad, migrate_to(stays, target.port()), anim::v1::STATUS_UNAVAILABLE,
                "TLS handshake");
  EXPECT_EQ(characters(*bad), 1);

  const uint32_t goes = call_ok(*good, spawn).spawn().character_id();
  const auto reply = call_ok(*good, migrate_to(goes, target.port()));
  EXPECT_EQ(reply.migrate().character_ids_size(), 1);
  EXPECT_EQ(characters(*good), 0);
}

}  // namespace migrate_tls_test
}  // namespace animtest
