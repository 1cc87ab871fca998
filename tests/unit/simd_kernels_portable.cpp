// simd_kernels.h compiled on simd4.h's portable fallback.
#define ANIM_SIMD_FORCE_PORTABLE 1
#define ANIM_SIMD_KERNELS_NAME portable_kernels
#include "simd_kernels.inc"
