/* Found only through rp_caller's RUNPATH (tests/programs/dlopen_pause.c). */
int rp_leaf_value(void) { return 7; }
