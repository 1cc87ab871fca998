// Authenticator: roles from tokens (flags and a token file), reloads that keep the old set on
// a bad file, owner keys stable per token, and the role every command needs.
#include "session/auth.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "daemon_process.h"

namespace animd {
namespace auth_test {

const std::string kControl = "control-token-0123456789";
const std::string kObserve = "observe-token-0123456789";

class AuthFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    std::ofstream(path_) << text;
    return path_.string();
  }
  animtest::TempDir dir_{"animd-auth"};
  std::filesystem::path path_ = dir_.path() / "tokens";
};

TEST(Auth, NoTokensMeansControlForEveryone) {
  Authenticator auth;
  ASSERT_TRUE(auth.configure({}));
  EXPECT_FALSE(auth.enabled());
  for (const std::string token : {"", "anything", "0123456789abcdef0123"}) {
    const auto id = auth.check(token);
    EXPECT_EQ(id.role, Role::kControl) << token;
    EXPECT_EQ(id.owner_key, 0u) << token;
  }
}

TEST(Auth, ControlAndObserveTokens) {
  Authenticator auth;
  AuthConfig c;
  c.control_tokens = {kControl};
  c.observe_tokens = {kObserve};
  ASSERT_TRUE(auth.configure(c));
  EXPECT_TRUE(auth.enabled());
  EXPECT_EQ(auth.check(kControl).role, Role::kControl);
  EXPECT_EQ(auth.check(kObserve).role, Role::kObserve);
  EXPECT_NE(auth.check(kControl).owner_key, 0u);
  EXPECT_NE(auth.check(kObserve).owner_key, 0u);
}

TEST(Auth, WrongOrEmptyTokenIsNone) {
  Authenticator auth;
  AuthConfig c;
  c.control_tokens = {kControl};
  ASSERT_TRUE(auth.configure(c));
  for (const std::string& token :
       {std::string(), std::string("x"), kControl + "x", kControl.substr(0, kControl.size() - 1),
        std::string("Control-token-0123456789"), kObserve}) {
    const auto id = auth.check(token);
    EXPECT_EQ(id.role, Role::kNone) << "'" << token << "'";
    EXPECT_EQ(id.owner_key, 0u) << "'" << token << "'";
  }
}

TEST(Auth, TokensShorterThan16BytesRefused) {
  {
    Authenticator auth;
    AuthConfig c;
    c.control_tokens = {"fifteen-bytes!!"};
    ASSERT_EQ(c.control_tokens[0].size(), 15u);
    const auto s = auth.configure(c);
    EXPECT_FALSE(s);
    EXPECT_NE(s.message().find("--control-token"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("16"), std::string::npos) << s.message();
    EXPECT_FALSE(auth.enabled());
  }
  {
    Authenticator auth;
    AuthConfig c;
    c.observe_tokens = {"short"};
    const auto s = auth.configure(c);
    EXPECT_FALSE(s);
    EXPECT_NE(s.message().find("--observe-token"), std::string::npos) << s.message();
  }
  {
    Authenticator auth;
    AuthConfig c;
    c.control_tokens = {"sixteen-bytes!!!"};
    EXPECT_TRUE(auth.configure(c));
    EXPECT_EQ(auth.check("sixteen-bytes!!!").role, Role::kControl);
  }
}

TEST_F(AuthFile, ParsesRolesCommentsAndBlankLines) {
  Authenticator auth;
  AuthConfig c;
  c.token_file = write("# tokens for the test\n\n   \ncontrol " + kControl +
                       "   # the game server\n\tobserve   " + kObserve + "\n#observe " +
                       std::string(20, 'z') + "\n");
  ASSERT_TRUE(auth.configure(c));
  EXPECT_EQ(auth.check(kControl).role, Role::kControl);
  EXPECT_EQ(auth.check(kObserve).role, Role::kObserve);
  EXPECT_EQ(auth.check(std::string(20, 'z')).role, Role::kNone);  // commented out
}

TEST_F(AuthFile, ErrorsNameTheLine) {
  struct Case {
    std::string text;
    std::string line;    // "line N"
    std::string needle;  // what the message says about it
  };
  const Case cases[] = {
      {"control " + kControl + "\nadmin " + kObserve + "\n", "line 2", "unknown role 'admin'"},
      {"# c\ncontrol " + kControl + " extra\n", "line 2", "expected 'control TOKEN'"},
      {"\n\nobserve\n", "line 3", "expected 'control TOKEN'"},
      {"control short\n", "line 1", "at least 16 bytes"},
  };
  for (const auto& k : cases) {
    Authenticator auth;
    AuthConfig c;
    c.token_file = write(k.text);
    const auto s = auth.configure(c);
    ASSERT_FALSE(s) << k.text;
    EXPECT_NE(s.message().find(path_.string()), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(k.line), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(k.needle), std::string::npos) << s.message();
    EXPECT_FALSE(auth.enabled());
  }
}

TEST_F(AuthFile, MissingFileIsAnError) {
  Authenticator auth;
  AuthConfig c;
  c.token_file = (dir_.path() / "absent").string();
  const auto s = auth.configure(c);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("absent"), std::string::npos) << s.message();
}

TEST_F(AuthFile, ReloadPicksUpAChangedFileAndKeepsTheOldSetOnError) {
  Authenticator auth;
  AuthConfig c;
  c.token_file = write("control " + kControl + "\n");
  ASSERT_TRUE(auth.configure(c));
  const uint64_t key = auth.check(kControl).owner_key;
  EXPECT_EQ(auth.check(kObserve).role, Role::kNone);

  const std::string fresh = "a-brand-new-control-token";
  write("control " + fresh + "\nobserve " + kObserve + "\n");
  ASSERT_TRUE(auth.reload());
  EXPECT_EQ(auth.check(kControl).role, Role::kNone);  // removed from the file
  EXPECT_EQ(auth.check(fresh).role, Role::kControl);
  EXPECT_EQ(auth.check(kObserve).role, Role::kObserve);

  write("control " + fresh + "\nbogus line here\n");
  EXPECT_FALSE(auth.reload());
  // The previous set stays in force.
  EXPECT_EQ(auth.check(fresh).role, Role::kControl);
  EXPECT_EQ(auth.check(kObserve).role, Role::kObserve);

  // The old token comes back with the same owner key.
  write("control " + kControl + "\n");
  ASSERT_TRUE(auth.reload());
  EXPECT_EQ(auth.check(kControl).owner_key, key);
}

TEST_F(AuthFile, FlagTokensSurviveReload) {
  Authenticator auth;
  AuthConfig c;
  c.control_tokens = {kControl};
  c.token_file = write("observe " + kObserve + "\n");
  ASSERT_TRUE(auth.configure(c));
  write("");
  ASSERT_TRUE(auth.reload());
  EXPECT_EQ(auth.check(kControl).role, Role::kControl);
  EXPECT_EQ(auth.check(kObserve).role, Role::kNone);
}

TEST(Auth, OwnerKeyStablePerTokenAndDistinctAcrossTokens) {
  Authenticator a, b;
  AuthConfig c;
  c.control_tokens = {kControl, "another-control-token-xyz"};
  c.observe_tokens = {kObserve};
  ASSERT_TRUE(a.configure(c));
  AuthConfig reordered;
  reordered.control_tokens = {"another-control-token-xyz", kControl};
  ASSERT_TRUE(b.configure(reordered));
  const uint64_t k1 = a.check(kControl).owner_key;
  const uint64_t k2 = a.check("another-control-token-xyz").owner_key;
  const uint64_t k3 = a.check(kObserve).owner_key;
  EXPECT_NE(k1, 0u);
  EXPECT_NE(k1, k2);
  EXPECT_NE(k1, k3);
  EXPECT_NE(k2, k3);
  // Same token, another Authenticator (a restart) or a reload: same key.
  EXPECT_EQ(b.check(kControl).owner_key, k1);
  EXPECT_EQ(b.check("another-control-token-xyz").owner_key, k2);
  ASSERT_TRUE(a.reload());
  EXPECT_EQ(a.check(kControl).owner_key, k1);
  // Token keys never have the top bit (reserved for per-connection keys without tokens).
  EXPECT_EQ(k1 >> 63, 0u);
  EXPECT_EQ(k2 >> 63, 0u);
}

TEST(Auth, TheSameTokenInBothRolesGivesControl) {
  Authenticator auth;
  AuthConfig c;
  c.control_tokens = {kControl};
  c.observe_tokens = {kControl};
  ASSERT_TRUE(auth.configure(c));
  EXPECT_EQ(auth.check(kControl).role, Role::kControl);
}

TEST(Auth, RoleNames) {
  EXPECT_STREQ(role_name(Role::kObserve), "observe");
  EXPECT_STREQ(role_name(Role::kControl), "control");
  EXPECT_STREQ(role_name(Role::kNone), "none");
}

}  // namespace auth_test
}  // namespace animd
