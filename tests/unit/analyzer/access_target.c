/* The code and DWARF types the access evidence reads (code_facts_test.cpp), built -O2 -g into a
 * shared object the test opens: records read two fields at a time (and initialised whole), a static 2-D array walked by
 * columns, a static array of records, a linked list, a pointer in a structure, a block from
 * malloc, a column walk whose row length is a parameter, and a local array of records. */
#include <stdlib.h>

struct rec {
  double x, a, b, c, d, e, f, y;
};

struct node {
  long val;
  struct node *next;
  long pad[4];
};

struct wrap {
  int n;
  double *data;
};

double grid[512][512];
struct rec table[1024];

double sum_records(const struct rec *r, long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += r[i].x * r[i].y;
  return s;
}

/* Writes every field: the initialisation whose samples must not dilute sum_records' fields. */
void init_records(struct rec *r, long n) {
  for (long i = 0; i < n; i++) {
    r[i].x = (double)i;
    r[i].a = 1;
    r[i].b = 2;
    r[i].c = 3;
    r[i].d = 4;
    r[i].e = 5;
    r[i].f = 6;
    r[i].y = 7;
  }
}

/* A local array of records, read two fields at a time: its loop's address starts from the frame
 * (the entry rsp), and the record type is the local's. The asm keeps the array in memory. */
double sum_local_records(long reps) {
  struct rec local[256];
  for (long i = 0; i < 256; i++) local[i].x = local[i].b = (double)i;
  __asm__ volatile("" : : "r"(local) : "memory");
  double s = 0;
  for (long r = 0; r < reps; r++) {
    for (long i = 0; i < 256; i++) s += local[i].x * local[i].b;
    __asm__ volatile("" : : "r"(local) : "memory");
  }
  return s;
}

/* The same records inside a local structure (as std::array inside a C++ object): the elements
 * the loop walks are the member array's, not the structure's. */
struct box {
  long n;
  struct rec parts[256];
};
double sum_local_box(long reps) {
  struct box b;
  b.n = 256;
  for (long i = 0; i < 256; i++) b.parts[i].x = b.parts[i].y = (double)i;
  __asm__ volatile("" : : "r"(&b) : "memory");
  double s = 0;
  for (long r = 0; r < reps; r++) {
    for (long i = 0; i < 256; i++) s += b.parts[i].x * b.parts[i].y;
    __asm__ volatile("" : : "r"(&b) : "memory");
  }
  return s;
}

double sum_grid_columns(void) {
  double s = 0;
  for (int j = 0; j < 512; j++)
    for (int i = 0; i < 512; i++) s += grid[i][j];
  return s;
}

double sum_table(void) {
  double s = 0;
  for (int i = 0; i < 1024; i++) s += table[i].a;
  return s;
}

long walk(const struct node *p) {
  long s = 0;
  for (; p; p = p->next) s += p->val;
  return s;
}

double sum_wrapped(const struct wrap *w) {
  double s = 0;
  for (int i = 0; i < w->n; i++) s += w->data[i];
  return s;
}

double *make_ramp(long n) {
  double *p = malloc(sizeof(double) * (size_t)n);
  if (!p) return p;
  for (long i = 0; i < n; i++) p[i] = (double)i;
  return p;
}

double sum_columns_of(const double *a, long n) {
  double s = 0;
  for (long j = 0; j < n; j++)
    for (long i = 0; i < n; i++) s += a[i * n + j];
  return s;
}
