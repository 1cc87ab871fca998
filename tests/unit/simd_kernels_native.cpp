// simd_kernels.h compiled on simd4.h's native implementation (SSE2 on x86-64).
#define ANIM_SIMD_KERNELS_NAME sse2_kernels
#include "simd_kernels.inc"
