/* The floor for compare_clients.py: the least a consumer of the same stream can do. It opens a WebSocket to
 * `pushtop serve`, subscribes to one channel, then for every message does one blocking read() of the socket
 * (when no whole frame is buffered) and one write() of the payload plus a newline to stdout.
 *     cc -O2 -o floor_consumer Benchmarks/floor_consumer.c && ./floor_consumer 127.0.0.1 PORT KEY CHANNEL
 * Not a client: no TLS, no deflate, no pings (runs are short), unmasked-only server frames. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char buf[1 << 20];
static size_t have = 0;

static int fill(int fd) {
    ssize_t n = read(fd, buf + have, sizeof buf - have);
    if (n <= 0) return -1;
    have += (size_t)n;
    return 0;
}

static void send_text(int fd, const char *text) {
    size_t len = strlen(text);
    unsigned char frame[512];
    size_t h = 0;
    frame[h++] = 0x81;
    frame[h++] = 0x80 | (unsigned char)len; /* len < 126 here */
    unsigned char mask[4] = {1, 2, 3, 4};
    memcpy(frame + h, mask, 4);
    h += 4;
    for (size_t i = 0; i < len; i++) frame[h + i] = (unsigned char)text[i] ^ mask[i % 4];
    if (write(fd, frame, h + len) < 0) exit(1);
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: floor_consumer HOST PORT KEY CHANNEL\n"); return 64; }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
    inet_pton(AF_INET, argv[1], &addr.sin_addr);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) { perror("connect"); return 1; }
    char req[512];
    snprintf(req, sizeof req,
             "GET /app/%s?protocol=7&client=floor HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\n"
             "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
             argv[3], argv[1], argv[2]);
    if (write(fd, req, strlen(req)) < 0) return 1;
    for (;;) { /* the 101 response */
        if (fill(fd) != 0) return 1;
        unsigned char *end = (unsigned char *)memmem(buf, have, "\r\n\r\n", 4);
        if (end) { size_t used = (size_t)(end + 4 - buf); memmove(buf, buf + used, have - used); have -= used; break; }
    }
    char sub[256];
    snprintf(sub, sizeof sub, "{\"event\":\"pusher:subscribe\",\"data\":{\"channel\":\"%s\"}}", argv[4]);
    send_text(fd, sub);
    size_t off = 0; /* start of the next frame in buf */
    for (;;) {
        size_t need = 2, len;
        if (have - off < 16 && off > 0) { memmove(buf, buf + off, have - off); have -= off; off = 0; }
        while (have - off < need) if (fill(fd) != 0) return 0;
        unsigned char *f = buf + off;
        len = f[1] & 0x7f;
        if (len == 126) {
            need = 4; while (have - off < need) if (fill(fd) != 0) return 0;
            f = buf + off; len = ((size_t)f[2] << 8) | f[3];
        } else if (len == 127) {
            need = 10; while (have - off < need) if (fill(fd) != 0) return 0;
            f = buf + off; len = 0; for (int i = 2; i < 10; i++) len = (len << 8) | f[i];
        }
        size_t total = need + len;
        if (total + 1 > sizeof buf) return 2;
        if (off + total + 1 > sizeof buf) { memmove(buf, buf + off, have - off); have -= off; off = 0; }
        while (have - off < total) if (fill(fd) != 0) return 0;
        f = buf + off;
        unsigned char saved = f[total];
        f[total] = '\n';
        if (write(1, f + need, len + 1) < 0) return 0;
        f[total] = saved;
        off += total;
    }
}
