// The codec's run-time CPU checks (codec_internal.h), named once for its dispatched paths.
#include "codec_internal.h"

namespace animcodec {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
bool cpu_has_x86_64_v3() {
  // AVX2 and BMI2 CPUs have BMI1 and LZCNT too (Intel from Haswell, AMD from Excavator).
  static const bool has = cpu_has_avx2() && __builtin_cpu_supports("bmi2");
  return has;
}
#else
bool cpu_has_avx2() {
  return false;
}
bool cpu_has_x86_64_v3() {
  return false;
}
#endif

}  // namespace animcodec
