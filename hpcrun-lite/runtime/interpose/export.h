// The runtime's exported symbols: only the entry points it interposes (exports.map lists them);
// everything else is hidden by the version script.
#pragma once

#define HPCL_EXPORT __attribute__((visibility("default")))
