/* Queues itself the signal the kernel sends when a user's queue of real-time signals is full
 * and a sampling event's signal cannot be queued: SIGIO with si_code SI_KERNEL. Natively its
 * default action kills the program (status 128+29 from a shell); under the tool it is a lost
 * sample, and the program must go on. Then a SIGIO from kill(), which is the program's: with
 * SIGIO at its default it ends the program in both runs. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  si.si_signo = SIGIO;
  si.si_code = SI_KERNEL;
  syscall(SYS_rt_sigqueueinfo, getpid(), SIGIO, &si);
  printf("survived the kernel's SIGIO\n");
  fflush(stdout);
  if (argc > 1) kill(getpid(), SIGIO);
  return 0;
}
