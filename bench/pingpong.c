/* The cost of one wakeup round trip on this machine: two processes (or two threads with `t`) pass a
 * byte back and forth over two pipes. Every hop of a request (client -> server -> shell and back)
 * pays at least half of this.
 *
 *   cc -O2 -o /tmp/pingpong bench/pingpong.c -lpthread
 *   taskset -c 0 /tmp/pingpong; /tmp/pingpong      # one CPU, then two
 *   /tmp/pingpong t                                # threads of one process instead
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

enum { ROUNDS = 100000 };
static int there[2], back[2];

static void *echo(void *unused) {
    char c;
    (void)unused;
    for (int i = 0; i < ROUNDS; i++) {
        if (read(there[0], &c, 1) != 1 || write(back[1], &c, 1) != 1) break;
    }
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1;
    pthread_t thread;
    struct timespec start, end;
    char c = 'x';
    if (pipe(there) || pipe(back)) return 1;
    if (threads) {
        if (pthread_create(&thread, NULL, echo, NULL)) return 1;
    } else if (fork() == 0) {
        echo(NULL);
        _exit(0);
    }
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < ROUNDS; i++) {
        if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1) return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double ns = (end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec);
    printf("%s round trip: %.2f us\n", threads ? "thread" : "process", ns / ROUNDS / 1e3);
    return 0;
}
