/* What the system calls of a warm call cost on this machine, each timed alone in a loop: the runner
 * opens its files by path (`/proc/<runtime pid>/fd/<n>`, `/dev/null`) on every call, and the server
 * reads the shell's cwd (`readlink /proc/<pid>/cwd`); a `dup`, a `close` and an `fcntl` are the
 * cheap kind for comparison. On a virtual machine with Spectre mitigations a path walk costs
 * microseconds, a descriptor operation a fraction of one.
 *
 *   cc -O2 -o /tmp/opencost bench/opencost.c
 *   taskset -c 0 /tmp/opencost
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

enum { ROUNDS = 200000 };

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void report(const char *what, double start) {
    printf("%-40s %6.2f us\n", what, (now_ns() - start) / ROUNDS / 1e3);
}

int main(void) {
    int pipe_fds[2];
    char fd_path[64], cwd_path[64], out[256];
    if (pipe(pipe_fds) != 0) return 1;
    snprintf(fd_path, sizeof fd_path, "/proc/%d/fd/%d", (int)getpid(), pipe_fds[0]);
    snprintf(cwd_path, sizeof cwd_path, "/proc/%d/cwd", (int)getpid());
    for (int round = 0; round < 3; round++) {
        double start = now_ns();
        for (int i = 0; i < ROUNDS; i++) close(open(fd_path, O_RDONLY));
        report("open + close /proc/<pid>/fd/<pipe>", start);
        start = now_ns();
        for (int i = 0; i < ROUNDS; i++) close(open("/dev/null", O_RDONLY));
        report("open + close /dev/null", start);
        start = now_ns();
        for (int i = 0; i < ROUNDS; i++) (void)readlink(cwd_path, out, sizeof out);
        report("readlink /proc/<pid>/cwd", start);
        start = now_ns();
        for (int i = 0; i < ROUNDS; i++) close(dup(pipe_fds[0]));
        report("dup + close", start);
        start = now_ns();
        for (int i = 0; i < ROUNDS; i++) fcntl(pipe_fds[0], F_GETFD);
        report("fcntl F_GETFD", start);
    }
    return 0;
}
