// BVH through the real daemon: .bvh files under --assets and by load_asset (path and
// bvh_data) become mesh-less assets whose characters stand where the file says; attach_to
// retargets a BVH clip onto a loaded asset (the built-in character) so that a character
// spawned before can play it; bad files and misused fields get errors naming the problem.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <glm/glm.hpp>

#include "integration_support.h"

namespace animtest {
namespace bvh_assets_test {

using anim::v1::Request;

// One frame: hips at (1, 2, 3) turned 90 degrees about Z; Spine 2 up, its End Site 1 up:
// Spine at (-1, 2, 3), the End Site at (-2, 2, 3).
const char* kArm = R"(HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
  JOINT Spine
  {
    OFFSET 0 2 0
    CHANNELS 3 Zrotation Yrotation Xrotation
    End Site
    {
      OFFSET 0 1 0
    }
  }
}
MOTION
Frames: 1
Frame Time: 0.0083333
1 2 3 90 0 0 0 0 0
)";

// The built-in character's back and left leg in centimetres, at its rest posture, plus a
// "prop" it does not have. One frame: root 50 cm along +X, hips turned 90 degrees about Z
// (the back then points along -X), the prop turned (it matches nothing: a warning).
const char* kBuiltinPose = R"(HIERARCHY
ROOT root
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT hips
  {
    OFFSET 0 95 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT spine
    {
      OFFSET 0 12 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      JOINT chest
      {
        OFFSET 0 18 0
        CHANNELS 3 Zrotation Xrotation Yrotation
        JOINT neck
        {
          OFFSET 0 25 0
          CHANNELS 3 Zrotation Xrotation Yrotation
          JOINT head
          {
            OFFSET 0 10 0
            CHANNELS 3 Zrotation Xrotation Yrotation
            JOINT prop
            {
              OFFSET 0 5 0
              CHANNELS 3 Zrotation Xrotation Yrotation
            }
          }
        }
      }
    }
    JOINT thigh_l
    {
      OFFSET 10 -4 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      JOINT shin_l
      {
        OFFSET 0 -41 0
        CHANNELS 3 Zrotation Xrotation Yrotation
        End Site
        {
          OFFSET 0 -41 0
        }
      }
    }
  }
}
MOTION
Frames: 1
Frame Time: 0.0333333
50 0 0 0 0 0 90 0 0 0 0 0 0 0 0 0 0 0 0 0 0 30 0 0 0 0 0 0 0 0
)";

// Model-space position of `joint` of character `id`, at a tick after `after`.
glm::vec3 joint_position(animclient::Client& c, uint32_t id, const std::string& joint,
                         uint64_t after) {
  while (current_tick(c) <= after) std::this_thread::sleep_for(10ms);
  Request q;
  q.mutable_query_pose()->set_character_id(id);
  q.mutable_query_pose()->add_joint_names(joint);
  const auto pose = call_ok(c, q).query_pose();
  if (pose.joints_size() != 1) {
    ADD_FAILURE() << "no joint " << joint;
    return glm::vec3(NAN);
  }
  const auto& p = pose.joints(0).position();
  return {p.x(), p.y(), p.z()};
}

void expect_near(const glm::vec3& got, const glm::vec3& want, float eps) {
  EXPECT_NEAR(got.x, want.x, eps);
  EXPECT_NEAR(got.y, want.y, eps);
  EXPECT_NEAR(got.z, want.z, eps);
}

const anim::v1::AssetInfo* find_asset(const anim::v1::ListAssetsReply& list,
                                      const std::string& name) {
  for (const auto& a : list.assets())
    if (a.name() == name) return &a;
  return nullptr;
}

TEST(BvhAssets, FilesUploadsAndScaleLoadAsMeshlessCharacters) {
  TempDir root("animd-bvh");
  write_text_file(root.path() / "mocap" / "arm.bvh", kArm);
  write_text_file(root.path() / "broken.bvh", "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 9\n");
  DaemonProcess daemon({"--assets", root.path().string()});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);

  // Found by the start-up scan: named after the file, one clip of the same name, no mesh.
  auto list = client->list_assets();
  ASSERT_TRUE(list);
  const anim::v1::AssetInfo* arm = find_asset(*list, "arm");
  ASSERT_NE(arm, nullptr) << daemon.log_tail();
  EXPECT_EQ(arm->source(), "mocap/arm.bvh");
  EXPECT_EQ(arm->num_joints(), 3u);
  EXPECT_EQ(arm->num_vertices(), 0u);
  ASSERT_EQ(arm->clips_size(), 1);
  EXPECT_EQ(arm->clips(0).name(), "arm");
  EXPECT_EQ(find_asset(*list, "broken"), nullptr);  // refused at start-up, logged
  auto data = client->get_asset_data("arm");
  ASSERT_TRUE(data) << data.error().to_string();
  EXPECT_EQ(data->skeleton().joint_names_size(), 3);
  EXPECT_EQ(data->skeleton().joint_names(2), "Spine_End");
  EXPECT_EQ(data->mesh().num_vertices(), 0u);

  auto sp = client->spawn("arm", "arm");
  ASSERT_TRUE(sp) << sp.error().to_string();
  expect_near(joint_position(*client, sp->character_id(), "Spine_End", sp->tick()), {-2, 2, 3},
              1e-4f);

  // By path, renamed and scaled to 1/100: the same pose at 1/100 the size.
  anim::v1::LoadAssetRequest load;
  load.set_path("mocap/arm.bvh");
  load.set_name("small_arm");
  load.set_bvh_scale(0.01f);
  auto small = client->load_asset(load);
  ASSERT_TRUE(small) << small.error().to_string();
  EXPECT_EQ(small->asset().clips(0).name(), "arm");
  auto sp2 = client->spawn("small_arm", "arm");
  ASSERT_TRUE(sp2) << sp2.error().to_string();
  expect_near(joint_position(*client, sp2->character_id(), "Spine", sp2->tick()),
              {-0.01f, 0.02f, 0.03f}, 1e-6f);

  // Uploaded text: named by the request; the clip too unless clip_name says otherwise.
  anim::v1::LoadAssetRequest up;
  up.set_bvh_data(kArm);
  up.set_name("uploaded_arm");
  auto uploaded = client->load_asset(up);
  ASSERT_TRUE(uploaded) << uploaded.error().to_string();
  EXPECT_EQ(uploaded->asset().source(), "upload");
  EXPECT_EQ(uploaded->asset().clips(0).name(), "uploaded_arm");

  // A bad file: the error names it (relative to the root), the line and the problem.
  load.Clear();
  load.set_path("broken.bvh");
  auto broken = client->load_asset(load);
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().code, anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(broken.error().message.rfind("broken.bvh:5: CHANNELS of joint 'A'", 0), 0u)
      << broken.error().message;
  EXPECT_EQ(broken.error().message.find(root.path().string()), std::string::npos);
  // Bad uploads: garbage, a missing name, a scale out of range.
  up.set_bvh_data("garbage");
  up.set_name("junk");
  auto junk = client->load_asset(up);
  ASSERT_FALSE(junk);
  EXPECT_NE(junk.error().message.find("upload 'junk':1: expected HIERARCHY"), std::string::npos)
      << junk.error().message;
  up.set_bvh_data(kArm);
  up.clear_name();
  auto unnamed = client->load_asset(up);
  ASSERT_FALSE(unnamed);
  EXPECT_NE(unnamed.error().message.find("load_asset.name is required with bvh_data"),
            std::string::npos);
  up.set_name("tiny");
  up.set_bvh_scale(0.0f);
  auto zero = client->load_asset(up);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().code, anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(zero.error().message.find("load_asset.bvh_scale"), std::string::npos);
  // BVH fields on a glTF upload are refused, not ignored.
  anim::v1::LoadAssetRequest glb;
  glb.set_glb_data("glTF....");
  glb.set_name("g");
  glb.set_clip_name("x");
  auto misused = client->load_asset(glb);
  ASSERT_FALSE(misused);
  EXPECT_NE(misused.error().message.find("load_asset.clip_name is for BVH sources only"),
            std::string::npos);
  // Nothing of the failures was added.
  list = client->list_assets();
  ASSERT_TRUE(list);
  EXPECT_EQ(find_asset(*list, "junk"), nullptr);
  EXPECT_EQ(find_asset(*list, "tiny"), nullptr);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

TEST(BvhAssets, AttachRetargetsOntoALoadedAssetAndItsCharacters) {
  TempDir root("animd-bvh-attach");
  write_text_file(root.path() / "pose.bvh", kBuiltinPose);
  write_text_file(root.path() / "arm.bvh", kArm);
  DaemonProcess daemon({"--assets", root.path().string()});
  ANIMD_START(daemon);
  auto client = connect_client(daemon);
  ASSERT_TRUE(client);
  // A character of the built-in asset, spawned before the clip exists.
  auto sp = client->spawn("builtin", "walk");
  ASSERT_TRUE(sp) << sp.error().to_string();
  EXPECT_FALSE(client->play(sp->character_id(), "pose"));

  anim::v1::LoadAssetRequest attach;
  attach.set_path("pose.bvh");
  attach.set_attach_to("builtin");
  auto attached = client->load_asset(attach);
  ASSERT_TRUE(attached) << attached.error().to_string();
  const auto& info = attached->asset();
  EXPECT_EQ(info.name(), "builtin");
  ASSERT_GE(info.clips_size(), 2);
  EXPECT_EQ(info.clips(info.clips_size() - 1).name(), "pose");
  EXPECT_EQ(info.source(), "builtin; pose.bvh");
  ASSERT_EQ(info.warnings_size(), 1);
  EXPECT_NE(info.warnings(0).find("prop"), std::string::npos) << info.warnings(0);

  // The character spawned before plays it. Scale measured: centimetres onto metres. Root at
  // (0.5, 0, 0); the back (0.65 m from hips to head) turned to point along -X from the hips
  // at 0.95 m: the head at (0.5 - 0.65, 0.95, 0). The left foot hangs 0.82 m below the thigh
  // (0.1, -0.04) from the hips, turned too: at (0.5 + 0.04 + 0.82, 0.95 + 0.1, 0).
  auto played = client->play(sp->character_id(), "pose");
  ASSERT_TRUE(played) << played.error().to_string();
  const uint64_t now = current_tick(*client);
  expect_near(joint_position(*client, sp->character_id(), "head", now), {-0.15f, 0.95f, 0.0f},
              1e-4f);
  expect_near(joint_position(*client, sp->character_id(), "foot_l", now), {1.36f, 1.05f, 0.0f},
              1e-4f);
  // New characters have it too.
  auto sp2 = client->spawn("builtin", "pose");
  ASSERT_TRUE(sp2) << sp2.error().to_string();

  // Again under the same clip name: refused; under another name (from an upload): added.
  auto again = client->load_asset(attach);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, anim::v1::STATUS_FAILED_PRECONDITION);
  EXPECT_NE(again.error().message.find("already has a clip named 'pose'"), std::string::npos);
  anim::v1::LoadAssetRequest upload;
  upload.set_bvh_data(kBuiltinPose);
  upload.set_attach_to("builtin");
  auto no_clip_name = client->load_asset(upload);
  ASSERT_FALSE(no_clip_name);
  EXPECT_NE(no_clip_name.error().message.find("load_asset.clip_name is required"),
            std::string::npos);
  upload.set_clip_name("pose2");
  upload.set_bvh_scale(0.02f);  // twice as far: the root at (1, 0, 0)
  auto second = client->load_asset(upload);
  ASSERT_TRUE(second) << second.error().to_string();
  ASSERT_TRUE(client->play(sp->character_id(), "pose2"));
  expect_near(joint_position(*client, sp->character_id(), "root", current_tick(*client)),
              {1.0f, 0.0f, 0.0f}, 1e-4f);

  // Errors: unknown target, unrelated skeleton, a name with attach_to. Nothing changes.
  attach.set_attach_to("nobody");
  auto unknown = client->load_asset(attach);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, anim::v1::STATUS_NOT_FOUND);
  EXPECT_NE(unknown.error().message.find("load_asset.attach_to: unknown asset 'nobody'"),
            std::string::npos);
  attach.set_path("arm.bvh");
  attach.set_attach_to("builtin");
  auto unrelated = client->load_asset(attach);
  ASSERT_FALSE(unrelated);
  EXPECT_EQ(unrelated.error().code, anim::v1::STATUS_INVALID_ARGUMENT);
  EXPECT_NE(unrelated.error().message.find("arm.bvh onto asset 'builtin': no joint name is shared"),
            std::string::npos)
      << unrelated.error().message;
  attach.set_name("renamed");
  auto named = client->load_asset(attach);
  ASSERT_FALSE(named);
  EXPECT_NE(named.error().message.find("load_asset.name must be empty with attach_to"),
            std::string::npos);
  auto list = client->list_assets();
  ASSERT_TRUE(list);
  const anim::v1::AssetInfo* builtin = find_asset(*list, "builtin");
  ASSERT_NE(builtin, nullptr);
  EXPECT_EQ(builtin->clips_size(), info.clips_size() + 1);
  EXPECT_EQ(daemon.stop(), 0) << daemon.log_tail();
}

}  // namespace bvh_assets_test
}  // namespace animtest
