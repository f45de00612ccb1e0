/* What a page written after a `fork` costs the process that forked: the first write to each page
 * shared with a child faults, a copy while the child still holds the page and a cheaper reuse once
 * the child has exited or called `exec`. The long-lived shell pays one such fault per page its loop
 * writes, on every call that runs a program (BENCHMARKS.md counts those pages); this times one of
 * each kind, and a write that does not fault, for comparison.
 *
 *   cc -O2 -o /tmp/cowfault bench/cowfault.c
 *   taskset -c 0 /tmp/cowfault
 */
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { PAGES = 64, ROUNDS = 2000, PAGE = 4096 };

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Writes one byte to each page; returns the time taken. */
static double touch(volatile char *pages) {
    double start = now_ns();
    for (int i = 0; i < PAGES; i++) pages[i * PAGE]++;
    return now_ns() - start;
}

int main(void) {
    char *pages = mmap(0, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) return perror("mmap"), 1;
    touch(pages);
    double reuse = 0, copy = 0, plain = 0;
    for (int round = 0; round < ROUNDS; round++) {
        /* The child is gone: every page is the parent's alone, yet still write-protected. */
        pid_t child = fork();
        if (child < 0) return perror("fork"), 1;
        if (child == 0) _exit(0);
        waitpid(child, 0, 0);
        reuse += touch(pages);
        plain += touch(pages);
        /* The child is alive and holds every page: each write copies one. */
        int gate[2];
        if (pipe(gate) < 0) return perror("pipe"), 1;
        child = fork();
        if (child < 0) return perror("fork"), 1;
        if (child == 0) {
            char byte;
            (void)!read(gate[0], &byte, 1);
            _exit(0);
        }
        copy += touch(pages);
        (void)!write(gate[1], "x", 1);
        waitpid(child, 0, 0);
        close(gate[0]);
        close(gate[1]);
    }
    double per = (double)ROUNDS * PAGES * 1e3;
    printf("per page written after a fork: %.2f us (the child gone), %.2f us (the child alive); "
           "without a fork %.3f us\n", reuse / per, copy / per, plain / per);
    return 0;
}
