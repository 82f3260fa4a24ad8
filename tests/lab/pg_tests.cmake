# The PostgreSQL lab's tests (label pg), built when libpq is found. One ctest
# test runs the whole binary, so the server starts once per run (a few
# seconds) rather than once per test case; where the server binaries are
# absent it is skipped (exit 77) with a line naming the package.
if(PERFLAB_POSTGRESQL)
  add_executable(lab_pg_test pg_cluster_test.cc pg_orders_test.cc pg_test_main.cc)
  perflab_defaults(lab_pg_test)
  target_link_libraries(lab_pg_test PRIVATE perflab::lab_pg GTest::gmock GTest::gtest)
  add_test(NAME lab.pg COMMAND lab_pg_test WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(lab.pg PROPERTIES
    LABELS "pg;unit" SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
