// The rank of this process, for the profile's META and file name: the launcher's environment
// first (process_env.h), else the rank MPI itself gave when the program initialised it (a
// singleton run without mpirun, or a launcher we do not know), else -1.
//
// The MPI rank is asked without MPI headers and without linking MPI: after a successful
// MPI_Init the runtime looks up PMPI_Comm_rank and the library's MPI_COMM_WORLD handle by name.
// Open MPI's handle is the address of its symbol `ompi_mpi_comm_world`; the MPICH family
// (MPICH, Intel MPI, MVAPICH, Cray MPICH) uses the integer constant 0x44000000, recognised by
// PMPI_Get_library_version's text. Any other library is not guessed at: the rank stays unknown
// rather than calling PMPI_Comm_rank with a handle it would not understand.
#pragma once

namespace hpcrun {

// Finds a symbol of the program's MPI library by name, or nullptr (dlsym(RTLD_NEXT) in the
// runtime; a table in the unit tests).
using SymbolLookup = void* (*)(const char* name);

// MPI_COMM_WORLD's rank as the MPI library found through `lookup` reports it, or -1 when the
// library is not one we know or the call fails. Call only after MPI_Init succeeded. Never
// called from a signal handler; `what`, when given, receives the library family ("Open MPI",
// "MPICH") or nullptr.
int query_mpi_rank(SymbolLookup lookup, const char** what = nullptr);

// Remembers the rank MPI gave (the MPI_Init wrappers call this).
void record_mpi_rank(int rank);

// The environment's rank, else the recorded MPI rank, else -1. Reads the environment at each
// call, so the writer gets the rank in effect at exit.
int process_rank();

}  // namespace hpcrun
