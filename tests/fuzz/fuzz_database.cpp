// libFuzzer target: the database reader as `report` uses it, then the report model and the three
// formats. Any input must be refused with a message naming it or reported without a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "model/database.h"
#include "output/formatters.h"
#include "model/report_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hpcl::analysis;
  hpcl::Profile db;
  std::string error;
  if (!load_database_bytes(data, size, "fuzz.hpcdb", &db, &error)) {
    if (error.rfind("fuzz.hpcdb: ", 0) != 0) std::abort();
    return 0;
  }
  for (View view : {View::Data, View::Code}) {
    ReportModel model = build_report_model(db);
    sort_variables(model, VariableOrder::Imbalance);
    ReportOptions options;
    options.view = view;
    options.all = true;
    std::ostringstream out;
    write_text(model, options, out);
    write_json(model, options, out);
    write_csv(model, options, out);
  }
  return 0;
}
