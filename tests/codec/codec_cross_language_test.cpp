// The C++ codec and the Python client's decoder (client/python/animd_compact.py) decode the
// same bytes to the same numbers: the built-in character walking with root motion, encoded
// as a key frame and deltas, is decoded by both; the quantized poses and roots must be equal
// and the palettes agree to float precision (Python computes them in doubles).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "anim/animator.h"
#include "anim/loaders/builtin_character.h"
#include "anim/v1/assets.pb.h"
#include "codec_harness.h"
#include "run_process.h"
#include "skeleton_message.h"

using namespace animcodec;

namespace codec_cross_language_test {

using codectest::skeleton_data;

bool python_with_protobuf() {
  return std::filesystem::exists("/usr/bin/python3") &&
         animtest::run_process({"/usr/bin/python3", "-c", "import google.protobuf"}).exit_code == 0;
}

void put_chunk(std::ofstream& f, const std::string& bytes) {
  const uint32_t n = static_cast<uint32_t>(bytes.size());
  f.write(reinterpret_cast<const char*>(&n), 4);
  f.write(bytes.data(), n);
}

TEST(CodecCrossLanguage, PythonDecodesTheSameNumbers) {
  if (!python_with_protobuf())
    GTEST_SKIP() << "skipped: /usr/bin/python3 with python3-protobuf not available";
  const anim::Asset asset = anim::make_builtin_character();
  const anim::v1::SkeletonData data =
      skeleton_data(asset.skeleton, codectest::codec_skeleton(asset).layout);
  // The client's skeleton comes from the proto, as in libanimclient.
  Skeleton s;
  ASSERT_EQ(skeleton_from_proto(data, s), "");
  anim::Animator animator(asset.skeleton, asset.clips);
  ASSERT_TRUE(animator.play(asset.find_clip("walk")).is_ok());
  anim::AdditiveLayerDesc lean;
  lean.clip = asset.find_clip("lean");
  lean.weight = 0.5f;
  ASSERT_TRUE(animator.add_layer(lean));

  const std::filesystem::path path =
      std::filesystem::path(ANIMD_TEST_TMP_DIR) / "codec_cross_language.bin";
  std::filesystem::create_directories(path.parent_path());
  std::ofstream file(path, std::ios::binary);
  put_chunk(file, data.SerializeAsString());
  codectest::Stream stream(s);
  std::vector<std::vector<QJoint>> poses;
  std::vector<QRoot> roots;
  std::vector<QJoint> pose;
  for (int f = 0; f < 40; ++f) {
    ASSERT_TRUE(animator.update(1.0f / 60.0f).is_ok());
    codectest::quantize_pose(s.layout, animator.local_pose().locals, pose);
    const QRoot root =
        quantize_root({0.02f * f, 0.0f, -0.5f}, glm::angleAxis(0.01f * f, glm::vec3(0, 1, 0)),
                      {1.0f, 1.0f, 1.0f});
    const size_t n = stream.push(pose, root, f == 20);
    put_chunk(file, std::string(reinterpret_cast<const char*>(stream.buffer.data()), n));
    poses.push_back(stream.recv[0]);
    roots.push_back(stream.recv_root[0]);
  }
  file.close();

  const animtest::ProcessResult r = animtest::run_process(
      {"/usr/bin/python3", std::string(ANIMD_PYTHON_SOURCE_DIR) + "/animd_compact.py",
       path.string()},
      {"PYTHONPATH=" + std::string(ANIMD_PYTHON_MODULE_DIR) + ":" + ANIMD_PYTHON_SOURCE_DIR});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json out = nlohmann::json::parse(r.out);
  ASSERT_EQ(out.size(), poses.size());
  std::vector<Trs> locals(s.layout.num_joints());
  std::vector<glm::mat4> model(s.layout.num_joints());
  std::vector<float> palette(12 * s.layout.num_joints());
  for (size_t f = 0; f < poses.size(); ++f) {
    const auto& jf = out[f];
    ASSERT_EQ(jf["joints"].size(), poses[f].size());
    for (size_t j = 0; j < poses[f].size(); ++j) {
      const auto& q = poses[f][j];
      const auto& p = jf["joints"][j];
      EXPECT_EQ(p[0].get<std::vector<int>>(), std::vector<int>(q.r.begin(), q.r.end()))
          << f << " " << j;
      EXPECT_EQ(p[1].get<int>(), q.largest);
      EXPECT_EQ(p[2].get<std::vector<int>>(), std::vector<int>(q.t.begin(), q.t.end()));
      EXPECT_EQ(p[3].get<std::vector<int>>(), std::vector<int>(q.s.begin(), q.s.end()));
    }
    EXPECT_EQ(jf["root"][0].get<std::vector<int64_t>>(),
              std::vector<int64_t>(roots[f].t.begin(), roots[f].t.end()));
    EXPECT_EQ(jf["root"][2].get<int>(), roots[f].largest);
    build_palette(s, poses[f], locals, model, palette);
    const auto py = jf["palette"].get<std::vector<double>>();
    ASSERT_EQ(py.size(), palette.size());
    for (size_t i = 0; i < palette.size(); ++i)
      EXPECT_NEAR(py[i], palette[i], 2e-5) << f << " " << i;
  }
  EXPECT_EQ(out[0]["kind"].get<int>(), 0);
  EXPECT_EQ(out[2]["kind"].get<int>(), 2);
  EXPECT_EQ(out[20]["kind"].get<int>(), 0);
}

}  // namespace codec_cross_language_test
