# What `cmake --install` puts under the prefix: the perflab CLI, the static
# libraries a model is written against (perflab::core, perflab::models,
# perflab::sim), their public headers, and a CMake package so that an outside
# project can write
#
#   find_package(perflab 0.1 REQUIRED)
#   target_link_libraries(my_model PRIVATE perflab::sim)
#
# (tests/install/ builds such a project against a fresh install tree).
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PERFLAB_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/perflab)

install(TARGETS perflab RUNTIME DESTINATION bin)

# What the installed perflab reads at run time (core/data_paths.h), in the
# checkout's layout under share/perflab: calibrate's benchmark map and seed,
# and history's scripts. It finds them as ../share/perflab from bin/
# (core::kInstalledDataDir), so both folders are fixed here rather than
# taken from GNUInstallDirs' cache.
set(PERFLAB_INSTALL_DATADIR share/perflab)
install(FILES ${PROJECT_SOURCE_DIR}/bench/benchmarks.json
  DESTINATION ${PERFLAB_INSTALL_DATADIR}/bench)
install(FILES ${PROJECT_SOURCE_DIR}/fixtures/calibration/seed-h2.json
  DESTINATION ${PERFLAB_INSTALL_DATADIR}/fixtures/calibration)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/bench-commits
  DESTINATION ${PERFLAB_INSTALL_DATADIR}/tools)
install(FILES ${PROJECT_SOURCE_DIR}/tools/plots/history.py
              ${PROJECT_SOURCE_DIR}/tools/plots/style.py
  DESTINATION ${PERFLAB_INSTALL_DATADIR}/tools/plots)

# RapidJSON's Debian package gives no target; core's public json.h includes
# it, so the target standing for it is exported beside the libraries.
set_target_properties(perflab_rapidjson PROPERTIES EXPORT_NAME rapidjson)
install(TARGETS perflab_core perflab_models perflab_sim perflab_rapidjson
  EXPORT perflabTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

# The public headers: core's, the models', and the simulator's engine and
# components with their internal/ event queue (the order service's model and
# the scenarios are applications of the library, not part of it).
foreach(dir core models sim sim/internal)
  file(GLOB headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.h)
  install(FILES ${headers} DESTINATION ${PERFLAB_INSTALL_INCLUDEDIR}/${dir})
endforeach()

install(EXPORT perflabTargets
  NAMESPACE perflab::
  DESTINATION ${PERFLAB_CMAKE_INSTALL_DIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/perflabConfig.cmake.in
  ${PROJECT_BINARY_DIR}/perflabConfig.cmake
  INSTALL_DESTINATION ${PERFLAB_CMAKE_INSTALL_DIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/perflabConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/perflabConfig.cmake
              ${PROJECT_BINARY_DIR}/perflabConfigVersion.cmake
  DESTINATION ${PERFLAB_CMAKE_INSTALL_DIR})
