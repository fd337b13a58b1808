/* The function whose calls got_patch_test redirects: defined here, called from caller.c through
 * the caller's GOT. */
int hpcl_got_victim(void) { return 1; }
