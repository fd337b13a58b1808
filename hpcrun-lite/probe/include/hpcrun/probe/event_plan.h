// The perf events a hardware source opens on a given machine, decided as `perf mem` decides them
// (tools/perf/arch/x86/util/mem-events.c and pmu.c; the kernel's arch/x86/events/intel/core.c
// and amd/ibs.c say what each CPU accepts):
//
//  pebs-load   on every core PMU (cpu; or cpu_core and cpu_atom on hybrid parts: a thread runs
//              on either kind of core) that publishes events/mem-loads: that event with
//              ldlat=N (perf mem's default 30). Where the PMU also publishes mem-loads-aux
//              (Sapphire Rapids and later servers, the P-cores of Alder Lake and later), the
//              kernel refuses the load event unless its group is led by that event
//              (PMU_FL_MEM_LOADS_AUX): the plan is the group {mem-loads-aux, mem-loads}. The
//              leader only counts; its count is irrelevant, it only has to be scheduled with the
//              load event (the kernel's comment on it), so its records never mix with the loads'.
//  pebs-store  events/mem-stores on every core PMU that has it (Skylake: MEM_INST_RETIRED.
//              ALL_STORES, 0x82d0; Sapphire Rapids: 0x2cd, with a store latency).
//  ibs-op      the ibs_op PMU (AMD): its type, cnt_ctl (count ops, not cycles) and, when asked,
//              l3missonly, at the bits its format/ files name; swfilt (Linux 6.14) lets it
//              exclude kernel samples in software, which perf_event_paranoid=2 needs. The
//              registers come whole in PERF_SAMPLE_RAW, and the kernel's own decoding (Linux
//              6.1: ADDR, DATA_SRC and WEIGHT) is asked for beside them (hw_sample.h reads
//              whichever the record carries).
//
// Encodings come from sysfs (pmu_sysfs.h); only where sysfs is silent on the `cpu` PMU, and only
// on this machine, libpfm4's tables (pebs_attr.h). Precise levels are the highest the PMU says
// (caps/max_precise, else 3): probe_plan() lowers them to what this kernel accepts.
// Start-up code; without libpfm4 nothing here allocates.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

#include "options.h"
#include "hpcrun/probe/pebs_attr.h"

namespace hpcrun {

inline constexpr int kMaxPlannedEvents = 4;

struct PlannedEvent {
  char pmu[32] = {};
  perf_event_attr attr = {};
  int leader = 0;         // index in the plan of its group's leader (its own for a leader)
  bool sampling = false;  // writes records (an aux leader only counts)
  bool signals = false;   // its overflows are signalled to the thread (every sampling event of
                          // a real plan; the test stand-in signals through a waker instead)
};

struct EventPlan {
  int n = 0;              // 0: the source cannot run here; see reason
  PlannedEvent ev[kMaxPlannedEvents];
  char origin[48] = {};   // where the encodings came from: "sysfs", "libpfm4"
  char reason[256] = {};  // n == 0: why not
};

struct PlanRequest {
  uint64_t period = 0;       // 0: the source's default
  uint32_t ldlat = 0;        // pebs-load; 0: kDefaultLdlat
  bool l3miss = false;       // ibs-op: tag only ops that miss L3 (format/l3missonly)
  bool allow_libpfm = false; // may ask libpfm4 where sysfs is silent (this machine only)
};

// The plan of a precise source on the machine at `root`. False (plan->n == 0) with the reason.
bool plan_pebs(const char* root, PebsKind kind, const PlanRequest& req, EventPlan* plan);
bool plan_ibs_op(const char* root, const PlanRequest& req, EventPlan* plan);
// The plan of a requested kind (pebs-load, pebs-store, ibs-op); false for other kinds.
bool plan_for_kind(const char* root, SourceKind kind, const PlanRequest& req, EventPlan* plan);

// The sample_type of the IBS op plan: the registers in RAW and the kernel's decoding of them.
uint64_t ibs_op_sample_type();

// Opens the plan on the calling thread as the kernel would take it, lowering each sampling
// event's precise_ip from its planned level down to 1 (PEBS; IBS has none), then dropping
// PHYS_ADDR, then WEIGHT_STRUCT for the u64 WEIGHT (kernels before 5.12), and closes what it
// opened. On success the plan holds the accepted attributes. Errors other than EINVAL,
// EOPNOTSUPP and EACCES stop it at once (ENODATA: a load event without its aux leader).
// Returns 0 or the -errno of the event that failed, whose index goes to *failed.
int probe_plan(EventPlan* plan, int* failed);

// One line per plan for -v and the launcher: "cpu type 4 {config 0x8203 (counts), config 0x1cd
// config1 0x1e precise_ip 3}", or the reason.
void describe_plan(const EventPlan& plan, char* buf, size_t len);

}  // namespace hpcrun
