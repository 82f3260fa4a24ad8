// The --sensitivity part of a composition's document (composer_output.cc
// renders the rest): only ToDocument calls these. Pure functions.
#ifndef PERFLAB_TOOLS_CAPSTONE_INTERNAL_SENSITIVITY_OUTPUT_H_
#define PERFLAB_TOOLS_CAPSTONE_INTERNAL_SENSITIVITY_OUTPUT_H_

#include <vector>

#include "core/document.h"
#include "tools/capstone/composer.h"

namespace perflab::capstone::internal {

// The tables "what_to_fix_next" (each step's three most negative
// elasticities) and "sensitivity" (every one measured); with several
// sensitivity seeds, each one's range and which ranks are apart. Nothing
// without --sensitivity.
void AddSensitivityTables(core::Document& doc, const Composition& c);

// The note on how the +-delta runs were made; nothing without them.
void AddSensitivityNote(core::Document& doc, const Composition& c);

// A step record's elasticity to every cost and its three to fix first;
// with several seeds (`ranges`), also each one's lowest and highest and
// whether each of the three is apart from its neighbours.
void SetElasticity(core::Node& step, const std::vector<Elasticity>& row,
                   bool ranges);

}  // namespace perflab::capstone::internal

#endif  // PERFLAB_TOOLS_CAPSTONE_INTERNAL_SENSITIVITY_OUTPUT_H_
