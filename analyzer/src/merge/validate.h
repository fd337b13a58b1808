// Structural checks on a profile read from disk, beyond what the reader guarantees: every index
// (module, site, static, parent) in range and the tree in parent-before-child order. The merge
// and the report index tables with these values, so a damaged file must be refused here rather
// than crash (or silently misattribute) later.
#pragma once

#include <string>

#include "hpcl/profile.h"

namespace hpcl::analysis {

// Returns "" when the profile is usable, else a short reason ("tree 2 node 7: site 12 out of range").
std::string validate_profile(const Profile& profile);

}  // namespace hpcl::analysis
