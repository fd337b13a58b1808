/* One program, many ways to end. Each run first does known work on one heap array
 * (make_work_array, summed for about 0.3 s of CPU time), then ends the way its argument names.
 * Under the tool the exit status (or the terminating signal) and the output must be those of a
 * native run, and the profile must be written and hold the work.
 *
 *   return exit _exit abort segv term  fork system threads handlers handler_exit reset dlopen
 *   block rtsig trap trap_ignored trap_blocked overflow exec vfork closefrom
 * Built with WITH_MPI (mpi_endings), every rank works first, then:
 *   mpi_abort  rank 1 calls MPI_Abort(3) while rank 0 waits in a barrier
 *   killed     every rank works until mpirun's --timeout kills the job
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef WITH_MPI
#include <mpi.h>
#endif

#define WORK_DOUBLES (1 << 20) /* 8 MiB: out of cache, so its loads take the samples */

static double *work_array;
static volatile double sink;

__attribute__((noinline)) static double *make_work_array(void) {
  double *a = malloc(WORK_DOUBLES * sizeof *a);
  for (int i = 0; i < WORK_DOUBLES; i++) a[i] = i * 0.5;
  return a;
}

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void work(double seconds) {
  double start = cpu_seconds(), s = 0;
  while (cpu_seconds() - start < seconds)
    for (int i = 0; i < WORK_DOUBLES; i += 8) s += work_array[i];
  sink = s;
}

static void *short_thread(void *arg) {
  volatile double s = 0;
  for (int i = 0; i < 2000; i++) s += work_array[(i * 64 + (long)arg) % WORK_DOUBLES];
  return NULL;
}

/* Each level keeps 4 KiB on the stack until the 8 MiB stack is gone. */
__attribute__((noinline)) static int recurse(int depth) {
  volatile char frame[4096];
  frame[0] = (char)depth;
  if (depth < 0) return 0; /* never: depth only grows */
  return recurse(depth + 1) + frame[0];
}

static volatile sig_atomic_t handled;
static void count_handler(int sig) { (void)sig; handled++; }
static void exit_handler(int sig) { (void)sig; _exit(9); }

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "return";
  setvbuf(stdout, NULL, _IONBF, 0); /* every line is out before the process dies */
  if (!strcmp(how, "reset"))
    for (int s = 1; s < NSIG; s++) signal(s, SIG_DFL); /* as daemons and some launchers do */
  if (!strcmp(how, "block")) {
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
  }
  work_array = make_work_array();
#ifdef WITH_MPI
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  work(0.3);
  if (!strcmp(how, "mpi_abort")) {
    if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (!strcmp(how, "killed"))
    for (;;) work(1.0);
  MPI_Finalize();
  return 0;
#endif
  work(0.3);
  printf("worked: %s\n", how);

  if (!strcmp(how, "return")) return 0;
  if (!strcmp(how, "exit")) exit(5);
  if (!strcmp(how, "_exit")) _exit(6);
  if (!strcmp(how, "abort")) abort();
  if (!strcmp(how, "segv")) {
    volatile int *nowhere = NULL;
    *nowhere = 1;
  }
  if (!strcmp(how, "term")) {
    kill(getpid(), SIGTERM);
    for (;;) pause();
  }
  if (!strcmp(how, "fork")) {
    pid_t child = fork();
    if (child == 0) {
      work(0.3);
      printf("child worked\n");
      _exit(7); /* as forked children end */
    }
    int status = 0;
    waitpid(child, &status, 0);
    printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
  }
  if (!strcmp(how, "system")) {
    int status = system("exit 4");
    printf("system status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 2;
  }
  if (!strcmp(how, "threads")) {
    for (long i = 0; i < 3000; i++) {
      pthread_t t;
      if (pthread_create(&t, NULL, short_thread, (void *)i) != 0) return 1;
      pthread_join(t, NULL);
    }
    printf("3000 threads joined\n");
    return 0;
  }
  if (!strcmp(how, "handlers")) {
    /* The program's own handlers run and do what they did without the tool. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = count_handler;
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGUSR1, count_handler);
    raise(SIGTERM);
    raise(SIGUSR1);
    struct sigaction back;
    sigaction(SIGTERM, NULL, &back);
    printf("handled %d, handler kept %d\n", (int)handled, back.sa_handler == count_handler);
    return 0;
  }
  if (!strcmp(how, "handler_exit")) {
    signal(SIGTERM, exit_handler);
    raise(SIGTERM);
    return 1; /* not reached */
  }
  if (!strcmp(how, "reset")) {
    work(0.2); /* sampled with every handler at its default */
    struct sigaction back;
    sigaction(SIGRTMIN + 4, NULL, &back);
    printf("SIGRTMIN+4 reads back as default: %d\n", back.sa_handler == SIG_DFL);
    return 0;
  }
  if (!strcmp(how, "dlopen")) {
    for (int i = 0; i < 200; i++) {
      void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
      if (!h) return 1;
      double (*cosine)(double) = (double (*)(double))dlsym(h, "cos");
      sink += cosine(i);
      dlclose(h);
    }
    printf("dlopen loop done\n");
    return 0;
  }
  if (!strcmp(how, "block")) {
    work(0.2); /* every signal blocked: the samples still come */
    sigset_t now;
    sigprocmask(SIG_SETMASK, NULL, &now);
    printf("SIGRTMIN+4 reads back as blocked: %d\n", sigismember(&now, SIGRTMIN + 4));
    printf("SIGTRAP reads back as blocked: %d\n", sigismember(&now, SIGTRAP));
    return 0;
  }
  if (!strcmp(how, "rtsig")) {
    /* The program's handler for the tool's default sampling signal gets the program's signals. */
    signal(SIGRTMIN + 4, count_handler);
    for (int i = 0; i < 3; i++) raise(SIGRTMIN + 4);
    work(0.2);
    printf("handled %d\n", (int)handled);
    signal(SIGRTMIN + 4, SIG_DFL);
    work(0.1); /* samples must not kill the program now */
    printf("still alive\n");
    return 0;
  }
  if (!strcmp(how, "trap")) {
    /* SIGTRAP, which the tool's timer may send too: the program's handler gets the program's
     * breakpoints and raises (and none of the timer's), and at its default a breakpoint still
     * kills the program. */
    signal(SIGTRAP, count_handler);
    raise(SIGTRAP);
    __asm__ volatile("int3");
    work(0.2);
    printf("handled %d\n", (int)handled);
    signal(SIGTRAP, SIG_DFL);
    work(0.1); /* samples must not kill the program now */
    printf("still alive\n");
    __asm__ volatile("int3");
    return 1; /* not reached: SIGTRAP's default action ends the process */
  }
  if (!strcmp(how, "trap_ignored") || !strcmp(how, "trap_blocked")) {
    /* A breakpoint while the program ignores or blocks SIGTRAP: the kernel puts back the
     * default action and the process dies of it, although the tool's timer owns SIGTRAP. */
    if (how[5] == 'i') {
      signal(SIGTRAP, SIG_IGN);
    } else {
      signal(SIGTRAP, count_handler); /* blocked, its handler does not run either */
      sigset_t trap;
      sigemptyset(&trap);
      sigaddset(&trap, SIGTRAP);
      sigprocmask(SIG_BLOCK, &trap, NULL);
    }
    work(0.1);
    __asm__ volatile("int3");
    printf("survived a breakpoint\n");
    return 1; /* not reached */
  }
  if (!strcmp(how, "overflow")) return recurse(0); /* SIGSEGV on a full stack */
  if (!strcmp(how, "exec")) {
    /* The image ends by exec; the new image (the same program, the same pid) works again. */
    execl("/proc/self/exe", argv[0], "return", (char *)NULL);
    return 1;
  }
  if (!strcmp(how, "closefrom")) {
    /* A program that tidies its descriptors, as daemons and launchers do, then works on. */
    closefrom(3);
    for (int fd = 3; fd < 2048; fd++) close(fd);
    for (int fd = 1000; fd < 1008; fd++) dup2(1, fd);
    const char line[] = "dup2 onto 1000 works\n";
    if (write(1000, line, sizeof line - 1) != (ssize_t)(sizeof line - 1)) return 1;
    work(0.3);
    return 0;
  }
  if (!strcmp(how, "vfork")) {
    /* The child shares the parent's memory until it ends: it must not write a profile. */
    pid_t child = vfork();
    if (child == 0) _exit(8);
    int status = 0;
    waitpid(child, &status, 0);
    printf("vfork child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    work(0.1);
    return 0;
  }
  fprintf(stderr, "unknown way to end: %s\n", how);
  return 64;
}
