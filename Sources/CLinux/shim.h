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

#include <malloc.h>

/// Keeps freed memory from piling up in malloc (see tuneMalloc in Sources/larder/Serve.swift): at most
/// `arenas` arenas instead of 8 per CPU, and a fixed mmap threshold, so blocks of `mmap_threshold` bytes or more
/// (hash-table storage, growing arrays) always get pages of their own that go back to the kernel when freed. Left
/// alone, glibc raises the threshold after each such free, up to 32 MiB, and later big blocks land in the heap,
/// where their space stays resident after they are freed. Returns 1 when both settings took.
static inline int larder_tune_malloc(int arenas, int mmap_threshold) {
    return mallopt(M_ARENA_MAX, arenas) && mallopt(M_MMAP_THRESHOLD, mmap_threshold);
}
