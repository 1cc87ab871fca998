# The Debian packages, from `cpack -G DEB` in a configured and built tree (README "Debian
# package"; the release preset for packages to deploy):
#   animd_<version>_<arch>.deb      components `runtime` (animd, animctl, animload, animview,
#                                   the shared libraries, man pages, the systemd unit,
#                                   /etc/animd/animd.toml) and `python` (the animd-client
#                                   module in /usr/lib/python3/dist-packages, animd-py-example)
#   animd-dev_<version>_<arch>.deb  component `dev`: headers, static libraries, the CMake
#                                   package, pkg-config files, the .proto files
#
# Layout: CPack installs with DESTDIR into its staging tree and CMAKE_INSTALL_PREFIX=/usr, so
# cmake/InstallLayout.cmake puts the config in /etc/animd (a conffile) and the Python package
# in /usr/lib/python3/dist-packages. Depends: from dpkg-shlibdeps over the programs, plus
# python3-protobuf for the client and adduser for the maintainer scripts.
# Components: cmake/AnimdInstall.cmake and client/python/CMakeLists.txt.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME animd)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "animd developers")
set(CPACK_PACKAGE_CONTACT "animd developers <animd@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "server-authoritative skeletal animation daemon")
set(CPACK_PACKAGE_DESCRIPTION
    "animd runs skeletal animation for game servers: characters are spawned and driven over a
TCP or TLS protocol, posed at a fixed tick and streamed to subscribers. This package holds the
daemon (a systemd service on the system user animd, configured in /etc/animd/animd.toml), the
animctl, animload and animview tools, and the Python client module animd_client.")

set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Two packages from the install components: animd (runtime + python) and animd-dev (dev).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime python dev)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENT_RUNTIME_GROUP animd)
set(CPACK_COMPONENT_PYTHON_GROUP animd)
set(CPACK_COMPONENT_DEV_GROUP dev)
set(CPACK_STRIP_FILES OFF)  # release builds are small already; keeps symbols for crash dumps

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <package>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libanimclient.so needs libanimproto.so and libanimloaders.so needs libanimcore.so, which are
# in the package itself.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/lib)

set(CPACK_DEBIAN_ANIMD_PACKAGE_NAME animd)
set(CPACK_DEBIAN_ANIMD_PACKAGE_DEPENDS "adduser, python3, python3-protobuf")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME animd-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# What animdConfig.cmake and the headers need; the static libraries' private dependencies too.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "animd (= ${PROJECT_VERSION}), libglm-dev, libtinygltf-dev, libprotobuf-dev, libssl-dev, libboost-system-dev")
# First line: the synopsis; the rest: the long description.
set(CPACK_DEBIAN_ANIMD_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}
${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_DEBIAN_DEV_DESCRIPTION "animd libraries for C++ game servers (development files)
Headers, static libraries and the link names of libanimcore (the animation runtime),
libanimloaders (glTF, MD5 and BVH loaders, the built-in character) and libanimclient, the CMake
package (find_package(animd COMPONENTS core loaders client)), pkg-config files (animd-core,
animd-loaders, animd-client) and the protocol's .proto files.")

set(deb_dir ${CMAKE_CURRENT_LIST_DIR}/debian)
configure_file(${deb_dir}/conffiles ${PROJECT_BINARY_DIR}/package/debian/conffiles COPYONLY)
foreach(script postinst prerm postrm)
  configure_file(${deb_dir}/${script} ${PROJECT_BINARY_DIR}/package/debian/${script} COPYONLY)
  file(CHMOD ${PROJECT_BINARY_DIR}/package/debian/${script}
       PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
                   WORLD_EXECUTE)
endforeach()
set(CPACK_DEBIAN_ANIMD_PACKAGE_CONTROL_EXTRA
    ${PROJECT_BINARY_DIR}/package/debian/conffiles ${PROJECT_BINARY_DIR}/package/debian/postinst
    ${PROJECT_BINARY_DIR}/package/debian/prerm ${PROJECT_BINARY_DIR}/package/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

include(CPack)
