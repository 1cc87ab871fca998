// The Host check (the DNS-rebinding defence of the HTTP port): which Host values are served
// with and without --http-allowed-host entries.

#include "animops/host_check.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace host_check_test {

using animops::check_allowed_host_entry;
using animops::host_allowed;

const std::vector<std::string> kNone;

TEST(HostCheck, IpLiteralsLocalhostAndNoHostAreAlwaysServed) {
  for (const char* host :
       {"", "127.0.0.1", "127.0.0.1:7451", "10.1.2.3:80", "0.0.0.0", "[::1]", "[::1]:7451",
        "[fe80::1]", "localhost", "LOCALHOST:7451", "localhost.", "localhost.:9"})
    EXPECT_TRUE(host_allowed(host, kNone)) << host;
}

TEST(HostCheck, NamesAreRefusedUnlessListed) {
  for (const char* host :
       {"rebind.attacker.example", "rebind.attacker.example:7451", "animd.example",
        "127.0.0.1.nip.io", "localhost.attacker.example", "x", "evil-localhost"})
    EXPECT_FALSE(host_allowed(host, kNone)) << host;
}

TEST(HostCheck, MalformedHostsAreRefused) {
  for (const char* host : {"::1", "[::1", "[not-ip]", "[::1]x", "a b", "a/b", "a@b", "a:b",
                           "a:99999", "a:1:2", ":7451", "."})
    EXPECT_FALSE(host_allowed(host, {"animd.example"})) << host;
  EXPECT_TRUE(host_allowed("a b", {"*"}));  // "*": the check is off
}

TEST(HostCheck, EntriesMatchNamePortDomainAndStar) {
  const std::vector<std::string> allowed = {"animd.example.com", "tools.example:8443",
                                            ".corp.example"};
  EXPECT_TRUE(host_allowed("animd.example.com", allowed));
  EXPECT_TRUE(host_allowed("ANIMD.Example.COM:7451", allowed));  // any port, any case
  EXPECT_TRUE(host_allowed("animd.example.com.", allowed));      // the trailing dot
  EXPECT_TRUE(host_allowed("tools.example:8443", allowed));
  EXPECT_FALSE(host_allowed("tools.example:7451", allowed));  // that port only
  EXPECT_FALSE(host_allowed("tools.example", allowed));
  EXPECT_TRUE(host_allowed("corp.example", allowed));
  EXPECT_TRUE(host_allowed("a.b.corp.example:1", allowed));
  EXPECT_FALSE(host_allowed("evilcorp.example", allowed));
  EXPECT_FALSE(host_allowed("rebind.attacker.example", allowed));
  EXPECT_FALSE(host_allowed("example.com", allowed));
  EXPECT_TRUE(host_allowed("anything.example", {"*"}));
}

TEST(HostCheck, EntriesAreValidated) {
  for (const char* ok :
       {"animd.example.com", "animd:7451", ".example.com", "*", "[::1]", "10.0.0.1"})
    EXPECT_EQ(check_allowed_host_entry(ok), "") << ok;
  for (const char* bad : {"", "http://animd.example", "a b", "a:b", "a/b", "*.example.com"}) {
    const std::string why = check_allowed_host_entry(bad);
    EXPECT_NE(why, "") << bad;
    EXPECT_NE(why.find("want NAME"), std::string::npos) << why;
  }
}

TEST(HostCheck, QuotedHeaderIsPrintableAndShort) {
  EXPECT_EQ(animops::quoted_header("a\x01\n"),
            "'a?"
            "?'");
  EXPECT_EQ(animops::quoted_header(std::string(150, 'x')), "'" + std::string(100, 'x') + "...'");
}

}  // namespace host_check_test
