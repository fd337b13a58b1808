/* Calls hpcl_got_victim (victim.c) through its GOT, and keeps its address in data through a
 * 64-bit relocation: got_patch_test points both at a replacement. */
int hpcl_got_victim(void);
int (*hpcl_got_victim_ptr)(void) = hpcl_got_victim;
int hpcl_got_call(void) { return hpcl_got_victim(); }
int hpcl_got_call_ptr(void) { return hpcl_got_victim_ptr(); }
