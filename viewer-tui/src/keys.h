// Key dispatch of hpcviewer-tui: one key in, the UI state and the view model changed. The keys
// are listed in kKeyHelp, which the help overlay and docs/VIEWER.md show.
#pragma once

#include "ui_state.h"

namespace hpcl::viewer {

void handle_key(UiState& ui, int key);

extern const char* const kKeyHelp[];  // lines of the help overlay, nullptr-terminated

}  // namespace hpcl::viewer
