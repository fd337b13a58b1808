/* Linked to dlopen_pause; its RUNPATH (and only it) names the directory of libhpcl_rp_leaf.so. */
#include <dlfcn.h>

int rp_caller_open(void) { return dlopen("libhpcl_rp_leaf.so", RTLD_NOW) != 0; }
