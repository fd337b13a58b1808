// The NUMA nodes read from sysfs and the move_pages probe (hpcrun/probe/numa_topology.h): what
// `hpcrun-lite --check` prints and the runtime's placement looks pages up against.
#include "hpcrun/probe/numa_topology.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace hpcrun;

namespace {

long failing_move_pages(unsigned long, void**, int*) { return -EPERM; }
long working_move_pages(unsigned long n, void**, int* status) {
  for (unsigned long i = 0; i < n; ++i) status[i] = 0;
  return 0;
}

TEST(NumaTopology, ProbeSaysWhetherMovePagesWorks) {
  set_move_pages_hook(failing_move_pages);
  EXPECT_EQ(numa_probe(), EPERM);
  set_move_pages_hook(working_move_pages);
  EXPECT_EQ(numa_probe(), 0);
  set_move_pages_hook(nullptr);
  errno = EDOM;
  numa_probe();  // the real system call, whatever this machine answers
  EXPECT_EQ(errno, EDOM);
}

void write_file(const std::string& path, const char* text) {
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  fputs(text, f);
  fclose(f);
}

// Two nodes in the kernel's cpulist spellings: ranges, single CPUs, a trailing newline.
TEST(NumaTopology, CpuListsOfEachNode) {
  char root[] = "/tmp/numa_topology_XXXXXX";
  ASSERT_NE(mkdtemp(root), nullptr);
  const std::string dir = std::string(root) + "/sys/devices/system/node";
  for (const char* d : {"/sys", "/sys/devices", "/sys/devices/system", "/sys/devices/system/node",
                        "/sys/devices/system/node/node0", "/sys/devices/system/node/node1",
                        "/sys/devices/system/node/possible_not_a_node"})
    ASSERT_EQ(mkdir((std::string(root) + d).c_str(), 0755), 0) << d;
  write_file(dir + "/node0/cpulist", "0-3,8\n");
  write_file(dir + "/node1/cpulist", "4-7,9-10\n");
  EXPECT_EQ(numa_init(root), 2);
  EXPECT_EQ(numa_node_count(), 2);
  EXPECT_FALSE(numa_single_node());
  for (uint32_t cpu : {0u, 3u, 8u}) EXPECT_EQ(numa_cpu_node(cpu), 0) << cpu;
  for (uint32_t cpu : {4u, 7u, 9u, 10u}) EXPECT_EQ(numa_cpu_node(cpu), 1) << cpu;
  EXPECT_EQ(numa_cpu_node(11), -1);  // listed by no node
  EXPECT_EQ(numa_cpu_node(uint32_t(kMaxNumaCpus)), -1);
  std::system(("rm -rf " + std::string(root)).c_str());
}

// A kernel without NUMA has no node directory: no node counted, every CPU on node 0, and
// nothing to look up.
TEST(NumaTopology, NoNodeDirectoryIsOneNode) {
  char root[] = "/tmp/numa_topology_XXXXXX";
  ASSERT_NE(mkdtemp(root), nullptr);
  EXPECT_EQ(numa_init(root), 0);
  EXPECT_TRUE(numa_single_node());
  EXPECT_EQ(numa_cpu_node(0), 0);
  EXPECT_EQ(numa_cpu_node(1000), 0);
  numa_set_cpu_node(1, 1);  // a test's map: looked up as on several nodes
  EXPECT_FALSE(numa_single_node());
  EXPECT_EQ(numa_cpu_node(1), 1);
  rmdir(root);
}

}  // namespace
