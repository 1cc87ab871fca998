# Install rules and the CMake package `animd` (animdConfig.cmake), in one place.
#
# Included by the top-level CMakeLists.txt after every subdirectory, so that it can see all
# targets. The libraries a game server links are listed once, in ANIMD_INSTALLED_LIBRARIES
# (top-level CMakeLists.txt); a new library needs one entry there and nothing here.
#
# Layout under the install prefix P (`cmake --install BUILD --prefix P`):
#   P/bin/                      animd, animctl, animload, animview, animd-py-example
#   P/lib/                      lib<name>.a and lib<name>.so for every listed library
#   P/lib/cmake/animd/          animdConfig.cmake (+ version, targets)
#   P/lib/pkgconfig/            animd-<component>.pc
#   P/include/animd/            public headers (anim/*.h from core, anim/loaders/*.h from
#                               loaders, anim/v1/*.pb.h, animclient/*.h)
#   P/share/animd/proto/        the .proto files (anim/v1/*.proto)
#   P/share/man/man1/           one page per program, from its --help
#   P/lib/systemd/system/       animd.service (ExecStart = P/bin/animd)
#   P/etc/animd/animd.toml      the example configuration
# When P is /usr (the Debian package), the configuration goes to /etc/animd and the Python
# package to /usr/lib/python3/dist-packages, as Debian policy has it; that choice is made at
# install time (cmake_install.cmake sees the real prefix), so one build tree serves both a
# temp-prefix install and CPack (packaging/CPackConfig.cmake, CPACK_INSTALL_PREFIX=/usr).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ANIMD_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/animd)
set(ANIMD_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/animd)
set(ANIMD_EXPORT_SET animdTargets)

# Imported targets are visible only in the directory that found them: find the packages the
# installed libraries link here too. animdConfig.cmake finds the same list.
set(ANIMD_FIND_DEPENDENCIES "")
foreach(dep IN LISTS ANIMD_PACKAGE_DEPENDENCIES)
  separate_arguments(args UNIX_COMMAND "${dep}")
  find_package(${args} REQUIRED)
  string(APPEND ANIMD_FIND_DEPENDENCIES "find_dependency(${dep})\n")
endforeach()

# Entries of a static library's link interface that name one of our libraries become the
# shared twin in the shared one; $<LINK_ONLY:...> entries (the static library's private
# dependencies) are dropped from the shared library's interface.
function(_animd_shared_link_list out_var input keep_link_only)
  set(result)
  foreach(item IN LISTS input)
    if(item MATCHES "^\\$<LINK_ONLY:(.+)>$")
      if(NOT keep_link_only)
        continue()
      endif()
      set(item "${CMAKE_MATCH_1}")
    endif()
    if(TARGET "${item}_shared")
      get_target_property(is_twin "${item}_shared" ANIMD_SHARED_TWIN)
      if(is_twin)
        set(item "${item}_shared")
      endif()
    endif()
    list(APPEND result "${item}")
  endforeach()
  set(${out_var} "${result}" PARENT_SCOPE)
endfunction()

# Include directories as given in a subdirectory (absolute build/source paths) are valid
# only in this tree: wrap them, and point installed consumers at include/animd.
function(_animd_relocatable_includes target property)
  get_target_property(dirs ${target} ${property})
  if(NOT dirs)
    return()
  endif()
  set(wrapped)
  foreach(dir IN LISTS dirs)
    if(dir MATCHES "^\\$<")
      list(APPEND wrapped "${dir}")
    else()
      list(APPEND wrapped "$<BUILD_INTERFACE:${dir}>")
    endif()
  endforeach()
  list(APPEND wrapped "$<INSTALL_INTERFACE:${ANIMD_INSTALL_INCLUDEDIR}>")
  list(REMOVE_DUPLICATES wrapped)
  set_target_properties(${target} PROPERTIES ${property} "${wrapped}")
endfunction()

# animd_install_library(TARGET EXPORT_NAME COMPONENT)
#   TARGET       an existing STATIC library (its name keeps working for the rest of the build)
#   EXPORT_NAME  the package's name for it: animd::<name>_static and animd::<name>_shared
#   COMPONENT    the find_package component that brings it in (core, client, ...)
# Adds TARGET_shared, a SHARED library built from TARGET's object files (compiled once, PIC),
# named lib<TARGET>.so, and installs both with the public headers found in TARGET's include
# directories (*.h) under include/animd.
function(animd_install_library target export_name component)
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "STATIC_LIBRARY")
    message(FATAL_ERROR "animd_install_library: ${target} is ${type}, expected STATIC_LIBRARY")
  endif()
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON
                                             EXPORT_NAME ${export_name}_static)

  # Headers: every *.h below the target's own include directories (before wrapping).
  get_target_property(include_dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  foreach(dir IN LISTS include_dirs)
    if(NOT dir MATCHES "^\\$<")
      install(DIRECTORY ${dir}/ DESTINATION ${ANIMD_INSTALL_INCLUDEDIR} COMPONENT dev
              FILES_MATCHING PATTERN "*.h")
    endif()
  endforeach()
  _animd_relocatable_includes(${target} INTERFACE_INCLUDE_DIRECTORIES)
  _animd_relocatable_includes(${target} INTERFACE_SYSTEM_INCLUDE_DIRECTORIES)

  set(twin ${target}_shared)
  add_library(${twin} SHARED $<TARGET_OBJECTS:${target}>)
  get_target_property(link ${target} LINK_LIBRARIES)
  get_target_property(iface ${target} INTERFACE_LINK_LIBRARIES)
  _animd_shared_link_list(twin_link "${link}" ON)
  _animd_shared_link_list(twin_iface "${iface}" OFF)
  set_target_properties(${twin} PROPERTIES
    ANIMD_SHARED_TWIN ON
    OUTPUT_NAME ${target}
    EXPORT_NAME ${export_name}_shared
    VERSION ${PROJECT_VERSION}
    # 0.x: every minor release may change the ABI.
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
    # A library's private dependencies among ours (libanimclient -> libanimcodec) are found
    # beside it: a program's RUNPATH covers only its direct dependencies, and a prefix other
    # than /usr is not on the loader's path.
    INSTALL_RPATH "$ORIGIN"
    LINK_LIBRARIES "${twin_link}"
    INTERFACE_LINK_LIBRARIES "${twin_iface}")
  foreach(prop INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES
               INTERFACE_COMPILE_DEFINITIONS INTERFACE_COMPILE_OPTIONS INTERFACE_COMPILE_FEATURES)
    get_target_property(value ${target} ${prop})
    if(value)
      set_target_properties(${twin} PROPERTIES ${prop} "${value}")
    endif()
  endforeach()

  install(TARGETS ${target} ${twin} EXPORT ${ANIMD_EXPORT_SET}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev)

  set_property(GLOBAL APPEND PROPERTY ANIMD_PACKAGE_COMPONENTS ${component})
  set_property(GLOBAL APPEND PROPERTY ANIMD_COMPONENT_${component}_TARGETS ${export_name})
  set_property(GLOBAL APPEND PROPERTY ANIMD_COMPONENT_${component}_LIBRARIES ${target})
endfunction()

# Programs: whichever of the listed targets this build has (presets leave some out).
function(animd_install_programs)
  foreach(program IN LISTS ARGN)
    if(TARGET ${program})
      install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
    endif()
  endforeach()
endfunction()

# The package files: animdConfig.cmake, its version file and the exported targets, plus one
# pkg-config file per component. Call once, after every animd_install_library().
function(animd_install_package)
  install(EXPORT ${ANIMD_EXPORT_SET} NAMESPACE animd:: FILE animdTargets.cmake
          DESTINATION ${ANIMD_INSTALL_CMAKEDIR} COMPONENT dev)
  get_property(components GLOBAL PROPERTY ANIMD_PACKAGE_COMPONENTS)
  list(REMOVE_DUPLICATES components)
  set(ANIMD_COMPONENT_TABLE "")
  foreach(component IN LISTS components)
    get_property(names GLOBAL PROPERTY ANIMD_COMPONENT_${component}_TARGETS)
    string(APPEND ANIMD_COMPONENT_TABLE "set(_animd_component_${component} ${names})\n")
  endforeach()
  set(ANIMD_COMPONENTS "${components}")
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/animdConfig.cmake.in
    ${PROJECT_BINARY_DIR}/package/animdConfig.cmake INSTALL_DESTINATION ${ANIMD_INSTALL_CMAKEDIR})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/animdConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/package/animdConfig.cmake
                ${PROJECT_BINARY_DIR}/package/animdConfigVersion.cmake
          DESTINATION ${ANIMD_INSTALL_CMAKEDIR} COMPONENT dev)

  foreach(component IN LISTS components)
    set(template ${PROJECT_SOURCE_DIR}/cmake/pkgconfig/animd-${component}.pc.in)
    if(EXISTS ${template})
      # Libs: the component's libraries, users before what they use (the list is the other
      # way round), e.g. "-lanimclient -lanimproto".
      get_property(libraries GLOBAL PROPERTY ANIMD_COMPONENT_${component}_LIBRARIES)
      list(REVERSE libraries)
      list(TRANSFORM libraries PREPEND "-l")
      list(JOIN libraries " " ANIMD_PC_LIBS)
      configure_file(${template} ${PROJECT_BINARY_DIR}/package/animd-${component}.pc @ONLY)
      install(FILES ${PROJECT_BINARY_DIR}/package/animd-${component}.pc
              DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
    endif()
  endforeach()
endfunction()

# Files beside the programs: the .proto files, the systemd unit and the example config (both
# placed by cmake/InstallLayout.cmake at install time, see the top of this file) and a man
# page per program, made from its --help by help2man at build time.
function(animd_install_runtime_files)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/proto/anim DESTINATION ${CMAKE_INSTALL_DATADIR}/animd/proto
          COMPONENT dev FILES_MATCHING PATTERN "*.proto")
  if(TARGET animd)
    install(CODE "
      set(ANIMD_UNIT_TEMPLATE \"${PROJECT_SOURCE_DIR}/deploy/animd.service\")
      set(ANIMD_CONFIG_EXAMPLE \"${PROJECT_SOURCE_DIR}/deploy/animd.example.toml\")
      set(ANIMD_STAGING_DIR \"${PROJECT_BINARY_DIR}/package\")
      include(\"${PROJECT_SOURCE_DIR}/cmake/InstallLayout.cmake\")
      animd_install_unit_and_config()" COMPONENT runtime)
  endif()

  find_program(ANIMD_HELP2MAN help2man)
  if(NOT ANIMD_HELP2MAN)
    message(STATUS "help2man not found: no man pages (deploy/install-deps.sh installs it)")
    return()
  endif()
  set(pages)
  foreach(entry IN LISTS ARGN)
    string(REPLACE "|" ";" entry "${entry}")
    list(GET entry 0 program)
    list(GET entry 1 summary)
    if(NOT TARGET ${program})
      continue()
    endif()
    set(page ${PROJECT_BINARY_DIR}/man/${program}.1)
    # ASAN_OPTIONS: the sanitizer builds' programs print --help and exit like the others.
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 ${ANIMD_HELP2MAN} --no-info
              --version-string=${PROJECT_VERSION} --name=${summary} --output=${page}
              $<TARGET_FILE:${program}>
      DEPENDS ${program}
      COMMENT "help2man: ${program}.1"
      VERBATIM)
    list(APPEND pages ${page})
  endforeach()
  if(pages)
    add_custom_target(animd_man_pages ALL DEPENDS ${pages})
    install(FILES ${pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
  endif()
endfunction()
