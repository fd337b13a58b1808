/* fork while other threads unwind (issue 11): one thread starts short-lived threads one after
 * another, each of which allocates (a new thread unwinds with a cold libunwind cache, so
 * libunwind takes its global mutex), while the main thread forks; each child allocates from a
 * call site of its own and exits. A child that inherited libunwind's mutex locked would hang in
 * its first unwind, and the parent with it, in waitpid.
 *
 * Usage: fork_churn [FORKS]   (default 40). Prints one fixed line and exits with status 0. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int stop;

static void *short_lived(void *arg) {
  (void)arg;
  char *p = malloc(16384);
  if (!p) exit(2);
  memset(p, 1, 16384);
  free(p);
  return NULL;
}

static void *churn(void *arg) {
  (void)arg;
  while (!stop) {
    pthread_t t;
    if (pthread_create(&t, NULL, short_lived, NULL) != 0) exit(2);
    pthread_join(t, NULL);
  }
  return NULL;
}

__attribute__((noinline)) static int in_child(void) {
  char *p = malloc(32768);
  if (!p) return 2;
  memset(p, 2, 32768);
  int r = p[100] == 2 ? 0 : 3;
  free(p);
  return r;
}

int main(int argc, char **argv) {
  int forks = argc > 1 ? atoi(argv[1]) : 40;
  pthread_t t[2];
  for (int i = 0; i < 2; ++i)
    if (pthread_create(&t[i], NULL, churn, NULL) != 0) return 2;
  int bad = 0;
  for (int i = 0; i < forks; ++i) {
    usleep(2000);
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) _exit(in_child());
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ++bad;
  }
  stop = 1;
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  printf("fork_churn: %d forks, %d children failed\n", forks, bad);
  return bad ? 1 : 0;
}
