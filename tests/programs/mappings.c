/* mappings: arrays in four kinds of mapping, read in known proportions.
 *
 *   mappings DIR [ROUNDS]   (default 700 rounds, about 2.5 s with OMP_NUM_THREADS=2)
 *
 * map_anon: an anonymous private mapping (weight 3); map_shm: a POSIX shared-memory object
 * (shm_open, /dev/shm/hpcl-mappings-PID) mapped shared (weight 2); map_file: the file
 * DIR/mapped.bin mapped shared (weight 1); map_sysv: a System V segment (shmget IPC_PRIVATE,
 * shmat; weight 2). Each array is 4 MiB, read through the OpenMP kernel; each read times itself
 * (HPCL_TEST_TIMING_FILE, workload.h). Expected: four variables, none in [unknown data]: the
 * anonymous one named by map_anon, the shared object by its path /dev/shm/hpcl-mappings-PID,
 * the file by its path, the System V segment by its id; each with the share of the time its
 * reads measured. Everything is removed at the end.
 * Prints one checksum line; the output does not depend on timing or on the tool. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include "kernel.h"
#include "workload.h"

#define BYTES (TEST_ARRAY_DOUBLES * sizeof(double))

static void *check(void *p, const char *what) {
  if (p == MAP_FAILED || p == NULL || p == (void *)-1) {
    perror(what);
    exit(1);
  }
  return p;
}

__attribute__((noinline)) static double *map_anon(void) {
  return check(mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), "mmap");
}

__attribute__((noinline)) static double *map_shm(const char *name) {
  int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0 || ftruncate(fd, BYTES) != 0) {
    perror("shm_open");
    exit(1);
  }
  double *p = check(mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), "mmap shm");
  close(fd);
  return p;
}

__attribute__((noinline)) static double *map_file(const char *path) {
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || ftruncate(fd, BYTES) != 0) {
    perror(path);
    exit(1);
  }
  double *p = check(mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), "mmap file");
  close(fd);
  return p;
}

__attribute__((noinline)) static double *map_sysv(int *id) {
  *id = shmget(IPC_PRIVATE, BYTES, IPC_CREAT | 0600);
  if (*id < 0) {
    perror("shmget");
    exit(1);
  }
  return check(shmat(*id, NULL, 0), "shmat");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DIR [ROUNDS]\n", argv[0]);
    return 2;
  }
  int rounds = rounds_from_args(argc - 1, argv + 1, 700);
  char shm_name[64], path[4096];
  snprintf(shm_name, sizeof shm_name, "/hpcl-mappings-%ld", (long)getpid());
  snprintf(path, sizeof path, "%s/mapped.bin", argv[1]);
  int sysv_id;
  double *anon = map_anon(), *shm = map_shm(shm_name), *file = map_file(path), *sysv = map_sysv(&sysv_id);
  fill_array(anon, TEST_ARRAY_DOUBLES, 1.0);
  fill_array(shm, TEST_ARRAY_DOUBLES, 2.0);
  fill_array(file, TEST_ARRAY_DOUBLES, 3.0);
  fill_array(sysv, TEST_ARRAY_DOUBLES, 4.0);
  const struct test_array arrays[] = {
      {"anonymous", anon, 3}, {"shm_open", shm, 2}, {"file", file, 1}, {"sysv", sysv, 2}};
  double sum = run_weighted(arrays, 4, rounds);
  printf("mappings: 4 arrays, %d rounds, checksum %.12e\n", rounds, sum);
  munmap(anon, BYTES);
  munmap(shm, BYTES);
  munmap(file, BYTES);
  shmdt(sysv);
  shmctl(sysv_id, IPC_RMID, NULL);
  shm_unlink(shm_name);
  unlink(path);
  return 0;
}
