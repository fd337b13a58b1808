/* Takes every pthread key in its constructor, which runs before the preloaded runtime's (a
 * library the program links runs its constructor first), so the runtime cannot create the key
 * whose destructor tells it that a thread ended. key_exhaust.c gives them back in main. */
#include <limits.h>
#include <pthread.h>

#include "key_exhaust.h"

static pthread_key_t keys[PTHREAD_KEYS_MAX];
static int nkeys;

__attribute__((constructor)) static void take_all_keys(void) {
  while (nkeys < PTHREAD_KEYS_MAX && pthread_key_create(&keys[nkeys], NULL) == 0) ++nkeys;
}

int key_exhaust_release(void) {
  int n = nkeys;
  while (nkeys > 0) pthread_key_delete(keys[--nkeys]);
  return n;
}
