# glm as every part of animd compiles it, named once.
#
# glm's constructors are inline functions: a program whose parts compiled them with different
# configurations holds two definitions of each, and the linker keeps either one for all of
# them. That happened: animview's own files compiled glm without GLM_FORCE_CTOR_INIT while the
# codec it links had it, and the clang build kept the uninitialized constructor for the codec
# too (a root transform of garbage, every palette NaN). So every target that uses glm links
# it through animd_link_glm(), which makes the configuration part of the target's interface:
# whatever links the target, in this build or installed (the exported targets carry it), compiles
# glm the same way. The pkg-config files carry it as ANIMD_PC_GLM_CFLAGS.
#
# GLM_FORCE_CTOR_INIT: glm's vectors, quaternions and matrices start as zero / identity, as the
# core's types promise (a default Trs is the identity transform).
set(ANIMD_GLM_DEFINITIONS GLM_FORCE_CTOR_INIT)
list(TRANSFORM ANIMD_GLM_DEFINITIONS PREPEND "-D" OUTPUT_VARIABLE _animd_glm_flags)
list(JOIN _animd_glm_flags " " ANIMD_PC_GLM_CFLAGS)

# animd_link_glm(TARGET): TARGET uses glm, configured as above, and so does whatever links it.
function(animd_link_glm target)
  target_link_libraries(${target} PUBLIC glm::glm)
  target_compile_definitions(${target} PUBLIC ${ANIMD_GLM_DEFINITIONS})
endfunction()
