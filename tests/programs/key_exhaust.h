/* See key_exhaust_lib.c. Returns how many keys the constructor took. */
int key_exhaust_release(void);
