// The cost of one small permessage-deflate inflate, hot and cold (issue 40).
//
// `pushtop serve` compresses each event (context takeover, raw deflate, a sync flush per message) and `watch`
// inflates it. In a profile of `watch` at 1,000 events/s zlib's inflate takes about 2 µs per event; back to back,
// the same inflate of the same message takes about 0.1 µs. This program shows where the difference goes: it
// compresses N events as `serve` does (the shape `pushtop bench` publishes, 152 bytes), then inflates them one at a
// time with a sleep between them (the thread waits as `watch`'s event loop waits in epoll_wait between events), and
// prints the mean time of the inflate call alone, without the sleep.
//
//     cc -O2 -o /tmp/inflate_cold Benchmarks/inflate_cold.c -lz
//     /tmp/inflate_cold 0 5000       # back to back
//     /tmp/inflate_cold 1000 3000    # one event a millisecond
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

enum { MAX_COMPRESSED = 256 };

static double nanoseconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s SLEEP_MICROSECONDS COUNT\n", argv[0]);
        return 64;
    }
    int sleep_us = atoi(argv[1]);
    int count = atoi(argv[2]);
    if (sleep_us < 0 || count <= 0) {
        fprintf(stderr, "%s: SLEEP_MICROSECONDS must be 0 or more and COUNT more than 0\n", argv[0]);
        return 64;
    }
    z_stream deflater = {0}, inflater = {0};
    if (deflateInit2(&deflater, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK ||
        inflateInit2(&inflater, -15) != Z_OK) {
        fprintf(stderr, "%s: zlib did not start\n", argv[0]);
        return 1;
    }
    unsigned char *compressed = malloc((size_t)MAX_COMPRESSED * count);
    int *lengths = malloc(sizeof(int) * count);
    if (!compressed || !lengths) return 1;
    char pad[61];
    memset(pad, 'x', 60);
    pad[60] = 0;
    for (int i = 0; i < count; i++) {
        char message[400];
        int n = snprintf(message, sizeof message,
                         "{\"event\":\"bench\",\"channel\":\"bench\",\"data\":\"{\\\"seq\\\":%d,\\\"t\\\":%ld,"
                         "\\\"pad\\\":\\\"%s\\\"}\"}",
                         i, 1733450000000000L + i * 997L, pad);
        deflater.next_in = (unsigned char *)message;
        deflater.avail_in = (unsigned)n;
        deflater.next_out = compressed + (size_t)MAX_COMPRESSED * i;
        deflater.avail_out = MAX_COMPRESSED;
        deflate(&deflater, Z_SYNC_FLUSH);  // the 00 00 ff ff tail stays: the client puts it back before inflating
        lengths[i] = MAX_COMPRESSED - (int)deflater.avail_out;
    }
    unsigned char out[4096];
    double total = 0;
    for (int i = 0; i < count; i++) {
        if (sleep_us) usleep((useconds_t)sleep_us);
        double start = nanoseconds();
        inflater.next_in = compressed + (size_t)MAX_COMPRESSED * i;
        inflater.avail_in = (unsigned)lengths[i];
        inflater.next_out = out;
        inflater.avail_out = sizeof out;
        if (inflate(&inflater, Z_NO_FLUSH) != Z_OK) {
            fprintf(stderr, "%s: inflate failed at message %d\n", argv[0], i);
            return 1;
        }
        total += nanoseconds() - start;
    }
    printf("inflate_cold: %d messages, %d us apart: %.0f ns per inflate\n", count, sleep_us, total / count);
    return 0;
}
