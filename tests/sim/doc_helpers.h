// Test helpers: run a scenario and read its fields and table columns.
#ifndef PERFLAB_TESTS_SIM_DOC_HELPERS_H_
#define PERFLAB_TESTS_SIM_DOC_HELPERS_H_

#include <cmath>
#include <string>
#include <vector>

#include "core/document.h"
#include "gtest/gtest.h"
#include "sim/scenarios/scenario.h"

namespace perflab::sim::testing_helpers {

inline core::Document RunDoc(const std::string& name,
                             const std::vector<std::string>& sets,
                             uint64_t seed = kDefaultSeed) {
  absl::StatusOr<core::Document> doc = RunScenario(name, sets, seed);
  EXPECT_TRUE(doc.ok()) << doc.status();
  return doc.ok() ? *doc : core::Document("failed");
}

inline const core::Value* Get(const core::Document& doc,
                              const std::string& key) {
  const core::Field* f = doc.FindField(key);
  return f == nullptr ? nullptr : &f->value;
}

inline double Num(const core::Document& doc, const std::string& key) {
  const core::Value* v = Get(doc, key);
  EXPECT_NE(v, nullptr) << key;
  return v == nullptr ? NAN : core::AsDouble(*v);
}

inline std::string Text(const core::Document& doc, const std::string& key) {
  const core::Value* v = Get(doc, key);
  if (v == nullptr || !std::holds_alternative<std::string>(*v)) return "";
  return std::get<std::string>(*v);
}

// true/false for a bool field; fails the test when it is missing.
inline bool Flag(const core::Document& doc, const std::string& key) {
  const core::Value* v = Get(doc, key);
  EXPECT_TRUE(v != nullptr && std::holds_alternative<bool>(*v)) << key;
  return v != nullptr && std::holds_alternative<bool>(*v) && std::get<bool>(*v);
}

inline std::vector<core::Value> Cells(const core::Document& doc,
                                      const std::string& table,
                                      const std::string& column) {
  std::vector<core::Value> out;
  const core::Table* t = doc.FindTable(table);
  if (t == nullptr) {
    ADD_FAILURE() << "no table " << table;
    return out;
  }
  size_t c = 0;
  while (c < t->columns.size() && t->columns[c].key != column) ++c;
  if (c == t->columns.size()) {
    ADD_FAILURE() << "no column " << column;
    return out;
  }
  for (const auto& row : t->rows) out.push_back(row[c]);
  return out;
}

inline std::vector<double> Nums(const core::Document& doc,
                                const std::string& table,
                                const std::string& column) {
  std::vector<double> out;
  for (const auto& v : Cells(doc, table, column)) {
    out.push_back(
        std::holds_alternative<std::monostate>(v) ? NAN : core::AsDouble(v));
  }
  return out;
}

inline bool AnyNoteHas(const core::Document& doc, const std::string& text) {
  for (const std::string& n : doc.notes()) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace perflab::sim::testing_helpers

#endif  // PERFLAB_TESTS_SIM_DOC_HELPERS_H_
