// The compact morph weight codec in three languages: bytes the C++ codec writes (keys and
// deltas of random weights) and bytes it refuses (every refusal, truncations and flipped
// bits of valid ones) are decoded by client/python/animd_compact.py and the npm package's
// client/js/src/compact.js (node); both must accept and refuse the same inputs, decode the same
// integers and floats, write the same bytes again, and quantize floats to the same steps. The
// Python client's stream decoding (animd_client) must also fill morph_weights as libanimclient
// does.
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/v1/stream.pb.h"
#include "animcodec/morph_codec.h"
#include "compact_morph_stream.h"
#include "run_process.h"

using namespace animcodec;
using json = nlohmann::json;

namespace morph_cross_language_test {

namespace fs = std::filesystem;

bool python_with_protobuf() {
  return fs::exists("/usr/bin/python3") &&
         animtest::run_process({"/usr/bin/python3", "-c", "import google.protobuf"}).exit_code == 0;
}

// $ANIMD_NODE, else node (or nodejs) on PATH; empty when there is none.
std::string find_node() {
  if (const char* env = std::getenv("ANIMD_NODE"); env && *env) return env;
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t at = 0; at <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', at), dirs.size());
    for (const char* name : {"node", "nodejs"}) {
      const fs::path p = fs::path(dirs.substr(at, end - at)) / name;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
    at = end + 1;
  }
  return {};
}

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int v : b) s.push_back(static_cast<char>(v));
  return s;
}

struct Case {
  std::string bytes;
  std::vector<uint16_t> baseline;
};

// Valid keys and deltas, every refusal, and mutations of valid inputs.
std::vector<Case> decoder_cases() {
  std::vector<Case> cases;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> value(0, kMaxMorphQ);
  auto random_q = [&](size_t n) {
    std::vector<uint16_t> q(n);
    for (auto& v : q) v = static_cast<uint16_t>(value(rng));
    return q;
  };
  const std::vector<uint16_t> three{0x123, 0xABC, 0x7FF};
  std::vector<Case> valid;
  for (size_t n : {1, 2, 3, 5, 8, 9, 64, 127, 128, 300, 4096}) {
    const std::vector<uint16_t> base = random_q(n);
    std::string key;
    EXPECT_TRUE(encode_morph_key(base, key));
    valid.push_back({key, {}});
    // Deltas: a few targets change by small steps, one jumps across the range.
    std::vector<uint16_t> now = base;
    std::uniform_int_distribution<size_t> target(0, n - 1);
    for (int k = 0; k < 3; ++k) {
      const size_t i = target(rng);
      now[i] = static_cast<uint16_t>(std::clamp(now[i] + value(rng) % 7 - 3, 0, 4095));
    }
    now[target(rng)] = now[0] < 2048 ? 4095 : 0;
    std::string delta;
    EXPECT_TRUE(encode_morph_delta(now, base, delta));
    valid.push_back({delta, base});
    valid.push_back({"", base});
  }
  cases = valid;
  cases.push_back({"", {}});
  // The refusals of the format.
  for (const Case& c : std::vector<Case>{
           {bytes({0x02, 0x01, 0x00, 0x00}), three},
           {bytes({0xFF}), three},
           {bytes({0x00, 0x00}), {}},
           {bytes({0x01, 0x00}), three},
           {bytes({0x00, 0x81, 0x20}) + std::string(6146, '\0'), {}},
           {bytes({0x00, 0x80}), {}},
           {bytes({0x01, 0x01, 0x01, 0xFE}), {0}},
           {bytes({0x01, 0x03, 0x06, 0x02, 0x1D, 0x00}), three},
           {bytes({0x01, 0x02, 0x01, 0x02}), three},
           {bytes({0x01, 0x03, 0x01, 0x02}), {}},
           {bytes({0x01, 0x03, 0x01, 0x00}), three},
           {bytes({0x01, 0x01, 0x01, 0x01}), {0}},
           {bytes({0x01, 0x01, 0x01, 0x02}), {4095}},
           {bytes({0x01, 0x01, 0x01, 0xFE, 0xFF, 0xFF, 0x7F}), {0}},
           {bytes({0x01, 0x03, 0x09, 0x02, 0x02}), three},
           {bytes({0x00, 0x83, 0x00, 0x23, 0xC1, 0xAB, 0xFF, 0x07}), {}},
           {bytes({0x01, 0x03, 0x02, 0x82, 0x00}), three},
           {bytes({0x01, 0x03, 0x02, 0x82, 0x80, 0x80, 0x80, 0x00}), three},
           {bytes({0x00, 0x03, 0x23, 0xC1, 0xAB, 0xFF, 0x17}), {}},
           {bytes({0x01, 0x03, 0x00}), three},
       })
    cases.push_back(c);
  // Truncations, an extra byte, and flipped bits of the small valid inputs.
  for (const Case& c : valid) {
    if (c.bytes.empty() || c.bytes.size() > 40) continue;
    for (size_t n = 1; n < c.bytes.size(); ++n) cases.push_back({c.bytes.substr(0, n), c.baseline});
    cases.push_back({c.bytes + bytes({0x00}), c.baseline});
    for (size_t i = 0; i < c.bytes.size(); ++i)
      for (int flip : {0x01, 0x10, 0x80, 0xFF}) {
        Case m = c;
        m.bytes[i] = static_cast<char>(m.bytes[i] ^ flip);
        cases.push_back(m);
      }
  }
  return cases;
}

// Weights to quantize: the edges, halves between steps, and random floats.
std::vector<float> weights_to_quantize() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> w{
      0.0f,   -0.0f,   -1.0f, 1.0f, 3.0f, -3.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
      1e-30f, -1e-30f, 1e30f};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> any(-1.5f, 3.5f);
  std::uniform_int_distribution<int> step(-2, 4097);
  for (int i = 0; i < 500; ++i) {
    w.push_back(any(rng));
    w.push_back((static_cast<float>(step(rng)) + 0.5f) / 1024.0f - 1.0f);
  }
  return w;
}

json weight_json(float w) {
  if (std::isnan(w)) return "NaN";
  if (std::isinf(w)) return w > 0 ? "Infinity" : "-Infinity";
  return static_cast<double>(w);
}

json spec_json(const std::vector<Case>& cases, const std::vector<float>& weights) {
  json spec;
  spec["cases"] = json::array();
  for (const Case& c : cases)
    spec["cases"].push_back({{"bytes", hex(c.bytes)}, {"baseline", c.baseline}});
  spec["weights"] = json::array();
  for (float w : weights) spec["weights"].push_back(weight_json(w));
  return spec;
}

fs::path write_file(const std::string& name, const std::string& text) {
  const fs::path path = fs::path(ANIMD_TEST_TMP_DIR) / name;
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
  return path;
}

// Compares another decoder's outcome (the driver's JSON) with the C++ codec's.
void expect_same_as_cpp(const std::vector<Case>& cases, const std::vector<float>& weights,
                        const json& out, const char* language) {
  ASSERT_EQ(out["cases"].size(), cases.size()) << language;
  int accepted = 0, refused = 0;
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    const json& got = out["cases"][k];
    std::vector<uint16_t> q;
    const std::string error = decode_morphs(c.bytes, c.baseline, q);
    ASSERT_EQ(got["ok"].get<bool>(), error.empty())
        << language << " case " << k << " (" << hex(c.bytes) << "): C++ says \"" << error
        << "\", it says " << got.dump();
    if (!error.empty()) {
      ++refused;
      EXPECT_EQ(got["error"].get<std::string>().rfind("compact morphs: ", 0), 0u) << got.dump();
      continue;
    }
    ++accepted;
    ASSERT_EQ(got["q"].get<std::vector<int>>(), std::vector<int>(q.begin(), q.end()))
        << language << " case " << k;
    const auto w = got["w"].get<std::vector<double>>();
    ASSERT_EQ(w.size(), q.size());
    for (size_t i = 0; i < q.size(); ++i)
      EXPECT_EQ(w[i], static_cast<double>(dequantize_morph_weight(q[i]))) << language << k;
    if (!q.empty()) {
      std::string key;
      ASSERT_TRUE(encode_morph_key(q, key));
      EXPECT_EQ(got["key"].get<std::string>(), hex(key)) << language << " case " << k;
    }
    if (!q.empty() && c.baseline.size() == q.size()) {
      std::string delta;
      ASSERT_TRUE(encode_morph_delta(q, c.baseline, delta));
      EXPECT_EQ(got["delta"].get<std::string>(), hex(delta)) << language << " case " << k;
    }
  }
  EXPECT_GT(accepted, 40) << language;
  EXPECT_GT(refused, 40) << language;
  ASSERT_EQ(out["quantized"].size(), weights.size()) << language;
  for (size_t i = 0; i < weights.size(); ++i)
    EXPECT_EQ(out["quantized"][i].get<int>(), quantize_morph_weight(weights[i]))
        << language << " weight " << weights[i];
}

// The Python client's side of a stream: character 7 has 3 targets, character 8 none.
struct ClientFrame {
  uint64_t tick;
  FrameKind kind;
  uint32_t skipped;
  std::string morphs7;
  std::optional<std::vector<float>> expect7, expect8;  // nullopt: left out
};

const std::vector<float> kSmile{0.0f, 0.5f, 1.0f};
const std::vector<float> kWink{0.25f, 0.5f, -0.5f};
const std::vector<float> kFrown{1.0f, 2.5f, -1.0f};

std::vector<ClientFrame> client_frames() {
  using animtest::morph_delta;
  using animtest::morph_key;
  const std::vector<float> none;
  std::string wrong_count;
  EXPECT_TRUE(
      encode_morph_delta(std::vector<uint16_t>{1, 2}, std::vector<uint16_t>{1, 3}, wrong_count));
  return {
      {10, FrameKind::kKey, 0, morph_key(kSmile), kSmile, none},
      {11, FrameKind::kDelta1, 0, morph_delta(kWink, kSmile), kWink, none},
      // DELTA2: the morph delta, or nothing, refers to the newest frame.
      {12, FrameKind::kDelta2, 0, morph_delta(kFrown, kWink), kFrown, none},
      {13, FrameKind::kDelta2, 0, "", kFrown, none},
      {16, FrameKind::kDelta1, 2, morph_delta(kSmile, kFrown), kSmile, none},
      // Tick 17 was lost: both characters' deltas against it are left out, then the next.
      {18, FrameKind::kDelta1, 0, morph_delta(kWink, kSmile), std::nullopt, std::nullopt},
      {19, FrameKind::kDelta1, 0, "", std::nullopt, std::nullopt},
      {20, FrameKind::kKey, 0, morph_key(kFrown), kFrown, none},
      {21, FrameKind::kDelta1, 0, wrong_count, std::nullopt, none},
      {22, FrameKind::kKey, 0, morph_key(kWink), kWink, none},
  };
}

TEST(MorphCrossLanguage, PythonAndJavaScriptDecodeAndEncodeTheSameBytes) {
  const std::vector<Case> cases = decoder_cases();
  const std::vector<float> weights = weights_to_quantize();
  const fs::path spec = write_file("morph_cross_language.json", spec_json(cases, weights).dump());
  const std::string source = ANIMD_SOURCE_DIR;
  bool ran = false;

  if (python_with_protobuf()) {
    const animtest::ProcessResult r = animtest::run_process(
        {"/usr/bin/python3", source + "/tests/codec/morph_cross_language.py", spec.string()},
        {"PYTHONPATH=" + std::string(ANIMD_PYTHON_MODULE_DIR) + ":" + ANIMD_PYTHON_SOURCE_DIR});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_same_as_cpp(cases, weights, json::parse(r.out), "Python");
    ran = true;
  }
  if (const std::string node = find_node(); !node.empty()) {
    // compact.js is an ES module without a package.json: node takes it as one by its name.
    const fs::path module = fs::path(ANIMD_TEST_TMP_DIR) / "morph_cross_language_compact.mjs";
    fs::copy_file(source + "/client/js/src/compact.js", module,
                  fs::copy_options::overwrite_existing);
    const animtest::ProcessResult r = animtest::run_process(
        {node, source + "/tests/codec/morph_cross_language.mjs", module.string(), spec.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_same_as_cpp(cases, weights, json::parse(r.out), "JavaScript");
    ran = true;
  }
  if (!ran) GTEST_SKIP() << "skipped: neither /usr/bin/python3 with python3-protobuf nor node";
}

TEST(MorphCrossLanguage, PythonClientFillsMorphWeightsLikeLibanimclient) {
  if (!python_with_protobuf())
    GTEST_SKIP() << "skipped: /usr/bin/python3 with python3-protobuf not available";
  const animtest::StillSender sender;
  const std::vector<ClientFrame> frames = client_frames();
  json spec{{"cases", json::array()}, {"weights", json::array()}};
  spec["client"] = {{"skeleton", hex(animtest::two_joint_skeleton().SerializeAsString())},
                    {"asset", "face"},
                    {"frames", json::array()}};
  for (const ClientFrame& f : frames) {
    anim::v1::StreamFrame sf;
    sf.set_subscription_id(1);
    sf.set_tick(f.tick);
    for (uint32_t id : {7u, 8u}) {
      anim::v1::CharacterFrame* c = sf.add_characters();
      c->set_character_id(id);
      if (f.kind == FrameKind::kKey) c->set_asset("face");
      c->set_compact(sender.frame(f.kind));
      if (id == 7) c->set_compact_morphs(f.morphs7);
      c->set_baseline_ticks_skipped(f.skipped);
    }
    spec["client"]["frames"].push_back(hex(sf.SerializeAsString()));
  }
  const fs::path path = write_file("morph_python_client.json", spec.dump());
  const animtest::ProcessResult r = animtest::run_process(
      {"/usr/bin/python3", std::string(ANIMD_SOURCE_DIR) + "/tests/codec/morph_cross_language.py",
       path.string()},
      {"PYTHONPATH=" + std::string(ANIMD_PYTHON_MODULE_DIR) + ":" + ANIMD_PYTHON_SOURCE_DIR});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(r.out)["client"];
  ASSERT_EQ(out["frames"].size(), frames.size());
  for (size_t k = 0; k < frames.size(); ++k) {
    std::optional<std::vector<float>> got7, got8;
    for (const json& c : out["frames"][k]) {
      EXPECT_EQ(c["compact_morphs"].get<int>(), 0);
      EXPECT_EQ(c["palette"].get<int>(), 24);
      (c["id"].get<int>() == 7 ? got7 : got8) = c["weights"].get<std::vector<float>>();
    }
    EXPECT_EQ(got7, frames[k].expect7) << "tick " << frames[k].tick;
    EXPECT_EQ(got8, frames[k].expect8) << "tick " << frames[k].tick;
  }
  EXPECT_EQ(out["errors"].get<int>(), 5) << out["last_error"];
}

}  // namespace morph_cross_language_test
