/* free() and malloc() must leave errno as the program set it (glibc 2.33 and POSIX promise it for
 * free), also when a system call the runtime makes inside them fails. After start-up the program
 * installs a seccomp filter that makes move_pages fail with EPERM (as a sandboxed job's would),
 * then for about a second allocates 1 MiB blocks, reads them (samples land in them, and their
 * pages wait for a NUMA lookup) and frees them, with errno set to EDOM before each call. It
 * prints how many calls changed errno and exits 1 if any did; natively none does.
 * usage: errno_free [SECONDS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

static int deny_move_pages(void) {
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_move_pages, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {sizeof filter / sizeof filter[0], filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  if (deny_move_pages() != 0) {
    perror("errno_free: seccomp");
    return 2;
  }
  const size_t n = (1 << 20) / sizeof(double);
  long calls = 0, changed_by_free = 0, changed_by_malloc = 0;
  volatile double sink = 0;
  double start = cpu_seconds();
  /* Through a volatile pointer: GCC knows that free leaves errno alone and would drop the check. */
  int *volatile err = &errno;
  while (cpu_seconds() - start < seconds) {
    *err = EDOM;
    double *a = malloc(n * sizeof *a);
    if (*err != EDOM) ++changed_by_malloc;
    if (!a) return 3;
    for (size_t i = 0; i < n; i++) a[i] = (double)i;
    double s = 0;
    for (int r = 0; r < 4; r++)
      for (size_t i = 0; i < n; i += 8) s += a[i];
    sink += s;
    *err = EDOM;
    free(a);
    if (*err != EDOM) ++changed_by_free;
    ++calls;
  }
  printf("%s: errno changed by free %ld, by malloc %ld\n", calls > 0 ? "done" : "no calls",
         changed_by_free, changed_by_malloc);
  return changed_by_free || changed_by_malloc ? 1 : 0;
}
