// A malloc counter for a whole process, preloaded: every malloc, calloc, realloc and aligned allocation of every
// thread is counted, and a thread of its own (20 wake-ups a second, no allocation) writes the count to $MALLOC_COUNT_FILE every 50 ms ("allocations N\n"), so a
// benchmark reads it before and after its window and divides by the events of the window.
//
//     cc -O2 -shared -fPIC -o /tmp/malloc_count.so Benchmarks/malloc_count.c -lpthread
//     MALLOC_COUNT_FILE=/tmp/watch.mallocs LD_PRELOAD=/tmp/malloc_count.so pushtop watch ...
//
// glibc's own entry points (__libc_malloc and friends) do the work, so no dlsym is needed before the first
// allocation. Used by Benchmarks/wakeup_costs.sh.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_ulong count;

void *malloc(size_t size) {
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size) {
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return __libc_realloc(p, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    void *p = __libc_memalign(alignment, size);
    if (!p) return 12;  // ENOMEM
    *out = p;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return __libc_memalign(alignment, size);
}

static void *reporter(void *path) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", (const char *)path);
    struct timespec pause = {0, 50 * 1000 * 1000};
    for (;;) {
        // open and write, not stdio: the reporter allocates nothing itself.
        char line[64];
        int length = snprintf(line, sizeof line, "allocations %lu\n", atomic_load(&count));
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            if (write(fd, line, (size_t)length) == length) rename(tmp, (const char *)path);
            close(fd);
        }
        nanosleep(&pause, NULL);
    }
    return NULL;
}

__attribute__((constructor)) static void start(void) {
    const char *path = getenv("MALLOC_COUNT_FILE");
    if (!path || !*path) return;
    pthread_t thread;
    pthread_create(&thread, NULL, reporter, strdup(path));
    pthread_detach(thread);
}
