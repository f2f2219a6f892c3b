// Throughput of the body checksum (CRC-32) as zlib and libdeflate compute it, and whether they agree: the figures
// behind Larder's switch from zlib's crc32 to libdeflate's. Built and run by Benchmarks/crc32.sh.
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

static double seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

int main(void) {
    const size_t largest = (size_t)64 << 20, total = (size_t)256 << 20;
    const size_t sizes[] = {1024, 16384, (size_t)1 << 20, largest};
    unsigned char *bytes = malloc(largest);
    if (!bytes) return 1;
    for (size_t i = 0; i < largest; i++) bytes[i] = (unsigned char)((i * 2654435761u) >> 24);
    printf("| body bytes | zlib GB/s | libdeflate GB/s | same CRC |\n|---:|---:|---:|---|\n");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t size = sizes[s], rounds = total / size;
        uLong fromZlib = 0;
        uint32_t fromDeflate = 0;
        double start = seconds();
        for (size_t r = 0; r < rounds; r++) fromZlib = crc32(fromZlib, bytes, (uInt)size);
        double middle = seconds();
        for (size_t r = 0; r < rounds; r++) fromDeflate = libdeflate_crc32(fromDeflate, bytes, size);
        double end = seconds();
        printf("| %zu | %.2f | %.2f | %s |\n", size, (double)total / (middle - start) / 1e9,
            (double)total / (end - middle) / 1e9, (uint32_t)fromZlib == fromDeflate ? "yes" : "NO");
    }
    free(bytes);
    return 0;
}
