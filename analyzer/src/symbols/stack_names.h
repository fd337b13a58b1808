// Names the stack slots of a merged database (format 1.10, STACK_NAMES): for each slot below a
// frame that owns stack storage (node kinds StackOwner and StackSlot), the local variable of
// that frame whose storage the slot lies in, from the owning module's DWARF (stack_locals.h).
// Done once, at merge time, with the modules at hand, so that every report of the database
// names its locals without them.
#pragma once

#include "hpcl/profile.h"

namespace hpcl::analysis {

// Fills db.stack_vars and db.stack_slots. Slots of modules that cannot be opened or have no
// DWARF at their pc get no entry (a report names them by their owning function).
void name_stack_slots(Profile& db);

}  // namespace hpcl::analysis
