// What Swift's Glibc module leaves out: epoll, eventfd and thread names for the event loops, the CPU affinity mask for
// how many lanes to run, and malloc tuning. (No _GNU_SOURCE here: it would change Glibc's own types under Swift's
// feet, so the affinity mask is read with the raw system call.)
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>

/// Names the calling thread (at most 15 bytes show), for `top -H`, `perf` and core dumps.
static inline void larder_name_thread(const char *name) {
    prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

/// The CPUs this process may run on (its affinity mask, as `taskset` or systemd's CPUAffinity= set it), at least 1.
static inline int larder_usable_cpu_count(void) {
    unsigned long mask[16] = {0};  // 1024 CPUs
    long written = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
    if (written > 0) {
        int count = 0;
        for (long word = 0; word < written / (long)sizeof mask[0]; word++) count += __builtin_popcountl(mask[word]);
        if (count > 0) return count;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

