/* Writes to stdout and stderr, then exits with status 3. Under the tool the bytes on both streams
 * and the status must be exactly those of a native run. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  printf("stdout line 1: %d argument(s)\n", argc - 1);
  for (int i = 1; i < argc; i++)
    printf("argv[%d] = [%s]\n", i, argv[i]);
  fprintf(stderr, "stderr line 1\n");
  fflush(stdout);
  printf("stdout: last line has no newline");
  fprintf(stderr, "stderr: tab\there, utf-8 \xc3\xa9\n");
  exit(3); /* exit(), not return: atexit handlers and stdio flushing run as in any program */
}
