// What the terminal layer remembers between keys: the view shown, each view's scroll position,
// the input mode (browsing, typing a search, choosing metrics, reading the help) and the
// message of the status line. The view model (analyzer/src/view_model.h) holds everything else.
#pragma once

#include <cstddef>
#include <string>

#include "hpcl/view/view_model.h"
#include "hpcl/view/view_source.h"

namespace hpcl::viewer {

enum class Mode { Browse, Search, Metrics, Help };

struct UiState {
  analysis::ViewModel* model = nullptr;
  std::string title;  // the database's path, printable
  analysis::ViewKind view = analysis::ViewKind::DataCentric;
  size_t top[analysis::kViewCount] = {};  // first row drawn, per view
  Mode mode = Mode::Browse;
  std::string input;       // the search being typed
  std::string query;       // the last search, for n and N
  std::string message;     // shown once on the status line
  size_t metric_cursor = 0;
  bool colour = false;
  bool utf8 = true;        // the terminal's locale is UTF-8; else non-ASCII is drawn as '?'
  bool quit = false;
  bool why = false;        // the bottom pane shows the selected row's access evidence, not its source
  analysis::SourceFiles sources;

  analysis::ViewTree& tree() { return model->view(view); }
};

}  // namespace hpcl::viewer
