// Which run a measured process belongs to. Two runs into one measurement directory (a job
// resubmitted with the same -o) would otherwise merge as one run of twice the processes: the
// launcher exports a run id (HPCRUN_LITE_RUN_ID), the runtime writes it to META run_id, and
// merge keeps the profiles of one run.
#pragma once

#include <string>

namespace hpcrun {

// The run id for a launch with this environment. Under MPI every rank's launcher computes it
// alone, so it must come out equal on every rank of one job and differ between jobs: a hash of
// what the MPI launcher and the batch system give every rank of a job alike (PMIX_NAMESPACE,
// Open MPI's OMPI_MCA_orte_hnp_uri and OMPI_MCA_ess_base_jobid, the Slurm job and step ids, and
// the other batch systems' job ids); "" when none of them is set (merge then tells runs apart by
// their processes' lifetimes). Without MPI, `random` hex digits (each launch is its own run).
// Lower-case hex, at most kMaxRunId characters.
std::string run_id_for_launch(bool under_mpi, const std::string& random);

// 16 random hex digits from getrandom, or from the clock and pid if it fails.
std::string random_run_id();

}  // namespace hpcrun
