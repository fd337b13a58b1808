// Drawing one frame of hpcviewer-tui from the UI state and the view model: title with the
// views, column headers, the rows, the source pane, the status line, and the help and metric
// overlays. Reads the terminal size every frame, so a resize needs only a redraw.
#pragma once

#include "ui_state.h"

namespace hpcl::viewer {

void init_colours(UiState& ui);
void draw(UiState& ui);
// Rows of the tree area at the current terminal size (page up/down move by this).
int tree_rows();

}  // namespace hpcl::viewer
