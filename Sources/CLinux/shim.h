// What Swift's Glibc module leaves out: epoll and eventfd for the lanes' event loops, and the CPU affinity mask
// for how many lanes to run.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

/// The CPUs this process may run on (its affinity mask, as `taskset` or systemd's CPUAffinity= set it), at least 1.
static inline int larder_usable_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}
