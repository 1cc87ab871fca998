// The TLS flags of the client tools, without a daemon: how they reach animview's Options,
// and the usage errors animctl and animload give for TLS flags without --tls.
#include <gtest/gtest.h>

#include "run_process.h"
#include "tool_paths.h"

#ifdef ANIMD_HAVE_ANIMVIEW_LOGIC
#include "options.h"  // client/animview
#endif

namespace tls_tool_options_test {

#ifdef ANIMD_HAVE_ANIMVIEW_LOGIC
TEST(TlsToolOptions, AnimviewTakesTlsCaCertKeyAndServerName) {
  animview::Options o;
  std::string error;
  ASSERT_TRUE(animview::parse_options({"--tls", "--ca", "ca.pem", "--cert", "c.pem", "--key",
                                       "c.key", "--server-name", "animd.example"},
                                      o, error))
      << error;
  EXPECT_TRUE(o.tls);
  EXPECT_EQ(o.ca_file, "ca.pem");
  EXPECT_EQ(o.cert_file, "c.pem");
  EXPECT_EQ(o.key_file, "c.key");
  EXPECT_EQ(o.server_name, "animd.example");

  animview::Options defaults;
  ASSERT_TRUE(animview::parse_options({}, defaults, error)) << error;
  EXPECT_FALSE(defaults.tls);

  EXPECT_FALSE(animview::parse_options({"--ca", "ca.pem"}, o, error));
  EXPECT_EQ(error, "--ca, --cert, --key and --server-name need --tls");
  EXPECT_FALSE(animview::parse_options({"--tls", "--cert", "c.pem"}, o, error));
  EXPECT_EQ(error, "--cert and --key go together");
  EXPECT_FALSE(animview::parse_options({"--tls", "--ca"}, o, error));
  EXPECT_EQ(error, "--ca needs a value");
  EXPECT_NE(animview::usage().find("--tls"), std::string::npos);
}
#endif

TEST(TlsToolOptions, AnimctlRefusesTlsFilesWithoutTls) {
  const animtest::ProcessResult r =
      animtest::run_process({animtest::animctl_binary(), "--ca", "ca.pem", "stats"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--tls"), std::string::npos) << r.err;
  const animtest::ProcessResult half =
      animtest::run_process({animtest::animctl_binary(), "--tls", "--cert", "c.pem", "stats"});
  EXPECT_EQ(half.exit_code, 2) << half.out << half.err;
  EXPECT_NE(half.err.find("--key"), std::string::npos) << half.err;
}

TEST(TlsToolOptions, AnimctlReportsAnUnusableCaFileAsATransportFailure) {
  // The CA file is read before connecting: no daemon needed to see the error.
  const animtest::ProcessResult r = animtest::run_process(
      {animtest::animctl_binary(), "--port", "1", "--tls", "--ca", "/nonexistent/ca.pem", "stats"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("TLS CA file /nonexistent/ca.pem"), std::string::npos) << r.err;
}

TEST(TlsToolOptions, AnimloadRefusesTlsFilesWithoutTls) {
  const animtest::ProcessResult r =
      animtest::run_process({animtest::animload_binary(), "--ca", "ca.pem"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("--tls"), std::string::npos) << r.out << r.err;
}

}  // namespace tls_tool_options_test
