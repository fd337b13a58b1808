// Stack rows (issue 38): samples the runtime placed in a frame's slots (StackOwner, StackSlot)
// become rows of the locals STACK_NAMES names for them, else of the owning frame; [stack] keeps
// what was not placed. Built on a hand-made database, so the naming rules are checked without a
// compiler; tests/e2e/stack_locals.sh checks them on a real program.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model/report_model.h"
#include "output/formatters.h"
#include "profile_builder.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

enum : uint32_t { App = 0, Lib = 1 };
const Frame kKernelPc{App, 0x110}, kRegionPc{App, 0x210}, kSolvePc{Lib, 0x310}, kMain{App, 0x900};

Profile stack_database() {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("source", "soft");
  db.modules = {{"/opt/app/bin/app", "", 0}, {"/opt/app/lib/libsolve.so", "", 0}};
  Tree t = new_tree(0);
  stack_sample(t, kKernelPc, -24, 8, {kMain, kKernelPc}, 30);    // acc
  stack_sample(t, kKernelPc, -16, 8, {kMain, kKernelPc}, 10);    // acc again, another slot
  stack_sample(t, kKernelPc, -4096, 256, {kMain, kKernelPc}, 5); // the dynamic area: a temporary
  stack_sample(t, kKernelPc, -40, 8, {kMain, kKernelPc}, 2);     // a spill slot: the frame
  stack_sample(t, kRegionPc, -64, 8, {kMain, kRegionPc}, 20);    // priv in an OpenMP region
  stack_sample(t, kSolvePc, -8, 8, {kMain, kSolvePc}, 7);        // libsolve has no DWARF: no name
  unknown_sample(t, UnknownClass::Stack, {kMain, {App, 0x120}}, 3);  // not placed
  db.trees = {t};
  db.balance.rank_groups = 1;  // a merge's BALANCE, which names no local
  db.balance.thread_groups = 1;
  db.stack_vars = {{StackVarKind::Local, "acc", "kernel", "/src/k.c", 14, -32, 32, "double[4]"},
                   {StackVarKind::Local, "priv", "main._omp_fn.0", "/src/k.c", 30, -64, 8, "double"},
                   {StackVarKind::Temporary, "", "kernel", "", 0, 0, 0, ""},
                   {StackVarKind::Frame, "", "kernel", "", 0, 0, 0, ""}};
  db.stack_slots = {{kKernelPc, -4096, 256, 2}, {kKernelPc, -40, 8, 3}, {kKernelPc, -24, 8, 0},
                    {kKernelPc, -16, 8, 0},     {kRegionPc, -64, 8, 1}};
  std::map<Frame, std::vector<SourceLoc>> syms = {{kKernelPc, {{"kernel", "/src/k.c", 20}}},
                                                  {kRegionPc, {{"main._omp_fn.0", "/src/k.c", 33}}},
                                                  {kSolvePc, {{"solve(int)", "", 0}}},
                                                  {kMain, {{"main", "/src/k.c", 40}}},
                                                  {{App, 0x120}, {{"kernel", "/src/k.c", 21}}}};
  for (auto& [f, locs] : syms) db.symbols.push_back(Symbolized{f, locs});
  return db;
}

const Variable* find(const ReportModel& m, const std::string& name) {
  for (const Variable& v : m.variables)
    if (v.name == name) return &v;
  return nullptr;
}

TEST(StackRows, LocalsAreRowsOfTheirOwnNamedByTheirFrame) {
  const ReportModel m = build_report_model(stack_database());
  const Variable* acc = find(m, "acc (local of kernel, k.c:14)");
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->kind, VariableKind::Stack);
  EXPECT_EQ(acc->samples, 40u) << "both of its slots";
  EXPECT_EQ(acc->stack_nodes.size(), 2u);
  EXPECT_EQ(acc->owner, "kernel");
  EXPECT_EQ(acc->role, "local");
  EXPECT_EQ(acc->declared, "k.c:14");
  EXPECT_EQ(acc->type, "double[4]");
  EXPECT_EQ(acc->bytes, 32u);
  EXPECT_EQ(acc->module, "/opt/app/bin/app");
  ASSERT_FALSE(acc->accesses.empty());
  // Hot parts: its slots [-24, -16) and [-16, -8) are bytes 8-15 and 16-23 of its 32.
  ASSERT_TRUE(acc->has_offsets);
  EXPECT_EQ(acc->offset_min, 8u);
  EXPECT_EQ(acc->offset_max, 23u);
  ASSERT_EQ(acc->offset_bins.size(), kOffsetBins);
  EXPECT_EQ(acc->offset_bins[11], 30u);
  EXPECT_EQ(acc->offset_bins[19], 10u);

  const Variable* priv = find(m, "priv (private, main [omp region 0], k.c:30)");
  ASSERT_NE(priv, nullptr);
  EXPECT_EQ(priv->samples, 20u);
  EXPECT_EQ(priv->role, "private");

  const Variable* temp = find(m, "[array temporary of kernel]");
  ASSERT_NE(temp, nullptr);
  EXPECT_EQ(temp->samples, 5u);
  const Variable* frame = find(m, "[stack of kernel]");
  ASSERT_NE(frame, nullptr) << "the frame's own bytes: by the owning function";
  EXPECT_EQ(frame->samples, 2u);
  const Variable* solve = find(m, "[stack of solve]");
  ASSERT_NE(solve, nullptr) << "no DWARF: the owner by its symbol";
  EXPECT_EQ(solve->samples, 7u);
  EXPECT_EQ(solve->role, "frame");

  const Variable* unplaced = find(m, "[stack]");
  ASSERT_NE(unplaced, nullptr);
  EXPECT_EQ(unplaced->samples, 3u) << "only what was not placed";
  EXPECT_FALSE(acc->has_balance) << "BALANCE has no entry for a local, and there is no STACK_THREADS";
  EXPECT_EQ(m.stack_samples, 74u);
  EXPECT_EQ(m.stack_unplaced, 3u);
  EXPECT_EQ(m.unknown_samples, 3u);
}

// An owner node is no row of its own: a frame whose every sampled slot is a named local has no
// "[stack of F]" row without samples beside it.
TEST(StackRows, AFrameOfNamedLocalsIsNoRow) {
  Profile db = stack_database();
  Tree t = new_tree(0);
  stack_sample(t, kKernelPc, -24, 8, {kMain, kKernelPc}, 30);
  db.trees = {t};
  const ReportModel m = build_report_model(db);
  ASSERT_NE(find(m, "acc (local of kernel, k.c:14)"), nullptr);
  for (const Variable& v : m.variables) EXPECT_NE(v.name, "[stack of kernel]");
}

// The slot node of `owner` and `lo` in the database's tree.
uint32_t slot_node(const Profile& db, Frame owner, int64_t lo) {
  const Tree& t = db.trees[0];
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    if (n.kind == NodeKind::StackSlot && static_cast<int64_t>(n.b) == lo &&
        t.nodes[n.parent].a == owner.module && t.nodes[n.parent].b == owner.offset)
      return i;
  }
  ADD_FAILURE() << "no slot " << lo;
  return 0;
}

// A local's spread over the threads is its slots' samples per thread (STACK_THREADS), added up:
// acc's two slots split 20:20 over two threads (no imbalance) although each slot alone is lopsided;
// the private copy was read by one thread of the two.
TEST(StackRows, BalanceOfALocalAddsItsSlotsPerThread) {
  Profile db = stack_database();
  db.balance.rank_groups = 1;
  db.balance.thread_groups = 2;
  const GroupId t0{0, 100, 0}, t1{0, 100, 1};
  db.stack_threads = {{slot_node(db, kKernelPc, -24), t0, 20}, {slot_node(db, kKernelPc, -24), t1, 10},
                      {slot_node(db, kKernelPc, -16), t1, 10}, {slot_node(db, kRegionPc, -64), t0, 20},
                      {slot_node(db, kSolvePc, -8), t1, 7}};
  std::sort(db.stack_threads.begin(), db.stack_threads.end());
  const ReportModel m = build_report_model(db);
  const Variable* acc = find(m, "acc (local of kernel, k.c:14)");
  ASSERT_NE(acc, nullptr);
  ASSERT_TRUE(acc->has_balance);
  EXPECT_EQ(acc->threads.with, 2u);
  EXPECT_DOUBLE_EQ(acc->threads.imbalance, 1.0);
  EXPECT_DOUBLE_EQ(acc->threads.max, 20.0);
  EXPECT_EQ(acc->ranks.with, 1u) << "both threads are rank 0's";
  const Variable* priv = find(m, "priv (private, main [omp region 0], k.c:30)");
  ASSERT_NE(priv, nullptr);
  ASSERT_TRUE(priv->has_balance);
  EXPECT_EQ(priv->threads.with, 1u);
  EXPECT_DOUBLE_EQ(priv->threads.imbalance, 2.0);
  EXPECT_EQ(priv->threads.max_group, t0);
  EXPECT_DOUBLE_EQ(priv->threads.min, 0.0) << "the other thread read none of it";
  const Variable* solve = find(m, "[stack of solve]");
  ASSERT_NE(solve, nullptr);
  EXPECT_TRUE(solve->has_balance) << "a frame without DWARF has its spread too";
  EXPECT_EQ(solve->threads.max_group, t1);
  const Variable* unplaced = find(m, "[stack]");
  ASSERT_NE(unplaced, nullptr);
  EXPECT_FALSE(unplaced->has_balance) << "BALANCE counts every stack sample there: not [stack]'s own";

  // --sort thread-imbalance ranks the lopsided private copy above the balanced local.
  ReportModel sorted = build_report_model(db);
  sort_variables(sorted, VariableOrder::ThreadImbalance);
  size_t at_priv = 0, at_acc = 0;
  for (size_t i = 0; i < sorted.variables.size(); ++i) {
    if (sorted.variables[i].name == priv->name) at_priv = i;
    if (sorted.variables[i].name == acc->name) at_acc = i;
  }
  EXPECT_LT(at_priv, at_acc);
}

TEST(StackRows, JsonAndTextSayWhoseFrame) {
  const ReportModel m = build_report_model(stack_database());
  ReportOptions options;
  std::ostringstream json;
  write_json(m, options, json);
  const nlohmann::json j = nlohmann::json::parse(json.str());
  bool seen = false;
  for (const auto& v : j["variables"])
    if (v["name"] == "acc (local of kernel, k.c:14)") {
      seen = true;
      EXPECT_EQ(v["kind"], "stack");
      EXPECT_EQ(v["owner"]["function"], "kernel");
      EXPECT_EQ(v["owner"]["module"], "/opt/app/bin/app");
      EXPECT_EQ(v["role"], "local");
      EXPECT_EQ(v["declared"], "k.c:14");
    }
  EXPECT_TRUE(seen);
  EXPECT_EQ(j["totals"]["stack_samples"], 74);
  EXPECT_EQ(j["totals"]["stack_unplaced_samples"], 3);

  for (int width : {80, 120}) {
    options.width = width;
    std::ostringstream text;
    write_text(m, options, text);
    EXPECT_NE(text.str().find("stack data: 77 ("), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("acc (local of kernel"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("priv (private, main"), std::string::npos) << text.str();
  }
}

}  // namespace
}  // namespace hpcl::analysis
