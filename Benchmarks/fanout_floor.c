/* The fan-out floor for `pushtop-benchmarks fanout`: the least a server can do to deliver one event to N
 * subscribers. It speaks just enough of the Pusher protocol for the benchmark's raw subscribers and publisher
 * (a WebSocket upgrade, `connection_established`, `subscription_succeeded` for any channel, and
 * `POST /apps/ID/events`), then for every published event builds the frame once and writes it to every
 * subscriber of the channel with one write() each, and answers the publisher. No signature check, no JSON
 * parsing beyond finding "data" and "channel", no TLS, no deflate; one thread, epoll.
 *     cc -O2 -o fanout_floor Benchmarks/fanout_floor.c && ./fanout_floor PORT &
 *     .build/release/pushtop-benchmarks fanout --port PORT --server-pid $! --subscribers 1000 --events 200
 * Compare its latency and CPU per delivery with `pushtop serve`'s in the same run (Benchmarks/README.md). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONNECTIONS 65536
#define INBUF (256 * 1024)

enum kind { HANDSHAKE, WEBSOCKET, SUBSCRIBER, PUBLISHER }; /* WEBSOCKET: upgraded, not subscribed yet */

struct connection {
    enum kind kind;
    char channel[200]; /* for a subscriber */
    unsigned char *in; /* what arrived and is not handled yet */
    size_t have;
    unsigned char *out; /* what a write() could not take yet */
    size_t pending, capacity;
};

static struct connection *connections[MAX_CONNECTIONS];
static int epoll_fd;
static int subscribers[MAX_CONNECTIONS];
static int subscriber_count;

static void drop(int fd) {
    struct connection *c = connections[fd];
    if (!c) return;
    if (c->kind == SUBSCRIBER)
        for (int i = 0; i < subscriber_count; i++)
            if (subscribers[i] == fd) { subscribers[i] = subscribers[--subscriber_count]; break; }
    free(c->in);
    free(c->out);
    free(c);
    connections[fd] = NULL;
    close(fd);
}

/* One write(); what it does not take is kept and written when the socket is writable again. */
static void send_bytes(int fd, const void *bytes, size_t length) {
    struct connection *c = connections[fd];
    ssize_t written = 0;
    if (c->pending == 0) {
        written = write(fd, bytes, length);
        if (written < 0) {
            if (errno != EAGAIN) { drop(fd); return; }
            written = 0;
        }
        if ((size_t)written == length) return;
        struct epoll_event event = {.events = EPOLLIN | EPOLLOUT, .data.fd = fd};
        epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event);
    }
    size_t rest = length - (size_t)written;
    if (c->pending + rest > c->capacity) {
        c->capacity = (c->pending + rest) * 2;
        c->out = realloc(c->out, c->capacity);
    }
    memcpy(c->out + c->pending, (const char *)bytes + written, rest);
    c->pending += rest;
}

static void flush_pending(int fd) {
    struct connection *c = connections[fd];
    ssize_t written = write(fd, c->out, c->pending);
    if (written < 0) { if (errno != EAGAIN) drop(fd); return; }
    memmove(c->out, c->out + written, c->pending - (size_t)written);
    c->pending -= (size_t)written;
    if (c->pending == 0) {
        struct epoll_event event = {.events = EPOLLIN, .data.fd = fd};
        epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event);
    }
}

/* An unmasked server text frame holding `text`, into `frame`; returns its length. */
static size_t text_frame(unsigned char *frame, const char *text, size_t length) {
    size_t h = 0;
    frame[h++] = 0x81;
    if (length < 126) {
        frame[h++] = (unsigned char)length;
    } else if (length < 65536) {
        frame[h++] = 126;
        frame[h++] = (unsigned char)(length >> 8);
        frame[h++] = (unsigned char)length;
    } else {
        frame[h++] = 127;
        for (int i = 7; i >= 0; i--) frame[h++] = (unsigned char)(length >> (8 * i));
    }
    memcpy(frame + h, text, length);
    return h + length;
}

static void send_text(int fd, const char *text) {
    static unsigned char frame[INBUF + 16];
    send_bytes(fd, frame, text_frame(frame, text, strlen(text)));
}

/* The JSON string value of `"key": "..."` in `body`, still escaped: its offset and length, or -1. */
static long json_string(const char *body, size_t length, const char *key, size_t *value_length) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    const char *end_of_body = body + length, *from = body, *found;
    while ((found = memmem(from, (size_t)(end_of_body - from), pattern, strlen(pattern)))) {
        const char *p = found + strlen(pattern);
        while (p < end_of_body && (*p == ' ' || *p == '\t')) p++;
        if (p < end_of_body && *p == ':') {
            p++;
            while (p < end_of_body && (*p == ' ' || *p == '\t')) p++;
            if (p >= end_of_body || *p != '"') return -1;
            const char *start = ++p;
            while (p < end_of_body && *p != '"') p += (*p == '\\') ? 2 : 1;
            if (p >= end_of_body) return -1;
            *value_length = (size_t)(p - start);
            return start - body;
        }
        from = found + 1;
    }
    return -1;
}

/* A POST with its whole body in: deliver it, answer 200. Returns the bytes used, 0 when incomplete. */
static size_t handle_request(int fd, struct connection *c) {
    unsigned char *head_end = memmem(c->in, c->have, "\r\n\r\n", 4);
    if (!head_end) return 0;
    size_t head = (size_t)(head_end + 4 - c->in);
    size_t body_length = 0;
    const char *cl = memmem(c->in, head, "Content-Length:", 15);
    if (!cl) cl = memmem(c->in, head, "content-length:", 15);
    if (cl) body_length = strtoul(cl + 15, NULL, 10);
    if (c->have < head + body_length) return 0;
    const char *body = (const char *)c->in + head;
    size_t data_length = 0, channel_length = 0, name_length = 0;
    long data = json_string(body, body_length, "data", &data_length);
    long channel = json_string(body, body_length, "channel", &channel_length);
    long name = json_string(body, body_length, "name", &name_length);
    if (data >= 0 && channel >= 0 && name >= 0) {
        static char text[INBUF];
        int length = snprintf(text, sizeof text, "{\"event\":\"%.*s\",\"channel\":\"%.*s\",\"data\":\"%.*s\"}",
                              (int)name_length, body + name, (int)channel_length, body + channel,
                              (int)data_length, body + data);
        static unsigned char frame[INBUF + 16];
        size_t frame_length = text_frame(frame, text, (size_t)length);
        for (int i = 0; i < subscriber_count; i++) {
            struct connection *s = connections[subscribers[i]];
            if (strlen(s->channel) == channel_length && memcmp(s->channel, body + channel, channel_length) == 0)
                send_bytes(subscribers[i], frame, frame_length);
        }
    }
    static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
    send_bytes(fd, ok, sizeof ok - 1);
    return head + body_length;
}

/* Masked client frames: answers pusher:subscribe, ignores the rest. Returns the bytes used. */
static size_t handle_frames(int fd, struct connection *c) {
    size_t used = 0;
    while (c->have - used >= 6) {
        unsigned char *f = c->in + used;
        size_t length = f[1] & 0x7f, header = 2;
        if (length == 126) { length = ((size_t)f[2] << 8) | f[3]; header = 4; }
        else if (length == 127) return used; /* no client frame here is that big */
        if (c->have - used < header + 4 + length) break;
        unsigned char *mask = f + header, *payload = f + header + 4;
        for (size_t i = 0; i < length; i++) payload[i] ^= mask[i % 4];
        size_t channel_length;
        long channel = json_string((char *)payload, length, "channel", &channel_length);
        if ((f[0] & 0x0f) == 1 && memmem(payload, length, "pusher:subscribe", 16) && channel >= 0 &&
            channel_length < sizeof c->channel) {
            memcpy(c->channel, payload + channel, channel_length);
            c->channel[channel_length] = 0;
            if (c->kind != SUBSCRIBER) { c->kind = SUBSCRIBER; subscribers[subscriber_count++] = fd; }
            char reply[512];
            snprintf(reply, sizeof reply,
                     "{\"event\":\"pusher_internal:subscription_succeeded\",\"channel\":\"%s\",\"data\":\"{}\"}",
                     c->channel);
            send_text(fd, reply);
        }
        used += header + 4 + length;
    }
    return used;
}

static void readable(int fd) {
    struct connection *c = connections[fd];
    for (;;) {
        if (c->have == INBUF) { drop(fd); return; }
        ssize_t n = read(fd, c->in + c->have, INBUF - c->have);
        if (n == 0 || (n < 0 && errno != EAGAIN)) { drop(fd); return; }
        if (n < 0) break;
        c->have += (size_t)n;
    }
    for (;;) {
        size_t used = 0;
        if (c->kind == HANDSHAKE) {
            unsigned char *end = memmem(c->in, c->have, "\r\n\r\n", 4);
            if (!end) return;
            if (memcmp(c->in, "GET ", 4) == 0) {
                used = (size_t)(end + 4 - c->in);
                static const char upgrade[] = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                                              "Connection: Upgrade\r\nSec-WebSocket-Accept: floor\r\n\r\n";
                send_bytes(fd, upgrade, sizeof upgrade - 1);
                send_text(fd, "{\"event\":\"pusher:connection_established\",\"data\":"
                              "\"{\\\"socket_id\\\":\\\"1.1\\\",\\\"activity_timeout\\\":120}\"}");
                c->kind = WEBSOCKET;
            } else {
                c->kind = PUBLISHER;
                continue;
            }
        } else if (c->kind == PUBLISHER) {
            used = handle_request(fd, c);
        } else {
            used = handle_frames(fd, c);
        }
        if (connections[fd] != c) return; /* dropped */
        if (used == 0) return;
        memmove(c->in, c->in + used, c->have - used);
        c->have -= used;
    }
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: fanout_floor PORT\n"); return 64; }
    signal(SIGPIPE, SIG_IGN);
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 4096) != 0) {
        perror("fanout_floor: bind");
        return 1;
    }
    epoll_fd = epoll_create1(0);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listener, &event);
    static struct epoll_event events[1024];
    for (;;) {
        int ready = epoll_wait(epoll_fd, events, 1024, -1);
        for (int i = 0; i < ready; i++) {
            int fd = events[i].data.fd;
            if (fd == listener) {
                int client;
                while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    if (client >= MAX_CONNECTIONS) { close(client); continue; }
                    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct connection *c = calloc(1, sizeof *c);
                    c->in = malloc(INBUF);
                    connections[client] = c;
                    struct epoll_event added = {.events = EPOLLIN, .data.fd = client};
                    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, client, &added);
                }
                continue;
            }
            if (!connections[fd]) continue;
            if ((events[i].events & EPOLLOUT) && connections[fd]->pending > 0) flush_pending(fd);
            if (connections[fd] && (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) readable(fd);
        }
    }
}
