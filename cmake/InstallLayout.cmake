# Included by cmake_install.cmake (at install time, when CMAKE_INSTALL_PREFIX is the prefix
# really installed to: `cmake --install --prefix P`, or /usr under CPack): where the files
# that Debian keeps outside the prefix go.
#   prefix /usr (the .deb)   /etc/animd/...          /usr/lib/python3/dist-packages
#   any other prefix P       P/etc/animd/...          P/lib/python3.<minor>/dist-packages
# (/usr/local/lib/python3.<minor>/dist-packages is on Debian's python3 sys.path.)
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(ANIMD_ETC_DIR /etc/animd)
  set(ANIMD_PYTHON_DIR /usr/lib/python3/dist-packages)
else()
  set(ANIMD_ETC_DIR ${CMAKE_INSTALL_PREFIX}/etc/animd)
  set(ANIMD_PYTHON_DIR ${CMAKE_INSTALL_PREFIX}/lib/python${ANIMD_PYTHON_MINOR_VERSION}/dist-packages)
endif()
set(ANIMD_BIN_DIR ${CMAKE_INSTALL_PREFIX}/bin)
# Files generated at install time are written under the build tree first, in a directory of
# their own per destination, so that two installs running at once (the tests' prefix and
# CPack's staging tree) never share one.
string(MD5 ANIMD_INSTALL_KEY "$ENV{DESTDIR}|${CMAKE_INSTALL_PREFIX}")
set(ANIMD_INSTALL_SCRATCH ${ANIMD_STAGING_DIR}/install-${ANIMD_INSTALL_KEY})

# The unit from deploy/animd.service, for this prefix: ExecStart is the installed animd with
# the installed config, and the service runs as the system user `animd` (the Debian package
# creates it) rather than a DynamicUser. The example config becomes animd.toml.
function(animd_install_unit_and_config)
  file(READ ${ANIMD_UNIT_TEMPLATE} unit)
  string(REGEX REPLACE "^(#[^\n]*\n)+" "" unit "${unit}")
  string(REPLACE "ExecStart=/usr/local/bin/animd --config /etc/animd/animd.toml"
                 "ExecStart=${ANIMD_BIN_DIR}/animd --config ${ANIMD_ETC_DIR}/animd.toml" unit "${unit}")
  string(REPLACE "DynamicUser=yes" "User=animd\nGroup=animd" unit "${unit}")
  if(NOT unit MATCHES "ExecStart=${ANIMD_BIN_DIR}/animd" OR NOT unit MATCHES "User=animd")
    message(FATAL_ERROR "deploy/animd.service: ExecStart or DynamicUser line not as expected")
  endif()
  set(header "# animd systemd unit, installed with animd (from deploy/animd.service).\n")
  string(APPEND header "# Operations guide: docs/operations.md. Local changes: systemctl edit animd\n")
  file(WRITE ${ANIMD_INSTALL_SCRATCH}/animd.service "${header}${unit}")
  file(INSTALL DESTINATION ${CMAKE_INSTALL_PREFIX}/lib/systemd/system TYPE FILE
       FILES ${ANIMD_INSTALL_SCRATCH}/animd.service)
  file(INSTALL DESTINATION ${ANIMD_ETC_DIR} TYPE FILE RENAME animd.toml
       FILES ${ANIMD_CONFIG_EXAMPLE})
endfunction()
