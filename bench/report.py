#!/usr/bin/env python3
"""Prints the summary of one bench/run.sh run (a results directory) as Markdown tables."""

import csv
import json
import os
import statistics
import sys

GIB = 1 << 30
MIB = 1 << 20


def load(out, name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def cmd(result, label):
    return next(c for c in result["commands"] if c["label"] == label)


def ms(s, digits=1):
    return f"{s * 1e3:.{digits}f} ms"


def verdict(ok):
    return "**met**" if ok else "**missed**"


def main():
    out = sys.argv[1]
    with open(os.path.join(out, "machine.txt")) as f:
        text = f.read().rstrip()
    busy_path = os.path.join(out, "busy.tsv")
    if os.path.exists(busy_path):
        with open(busy_path) as f:
            busy = list(csv.DictReader(f, delimiter="\t"))
        text += "\nbusy (others, % of CPUs, 2 s before each section): " + ", ".join(
            f"{b['section']} {b['busy_pct_before']}%" for b in busy)
    print("```\n" + text + "\n```\n")

    print("### Bulk output vs the plain-bash floor: `head -c 100M /dev/zero | base64` (141,649,744 bytes)\n")
    print("Medians of interleaved rounds; ratio = median / median of the floor, paired = median of the")
    print("per-round ratios (p10–p90). CPU = user + sys of the whole process tree.\n")
    print("| placement | command | median | p10–p90 | CPU | ratio | paired ratio | target ≤ 1.3 |")
    print("|---|---|---|---|---|---|---|---|")
    for cpus in (1, 2):
        r = load(out, f"bulk-100M-{cpus}cpu.json")
        if not r:
            continue
        place = "1 CPU (`taskset -c 0`)" if cpus == 1 else "2 CPUs (`taskset -c 0,1`)"
        for c in r["commands"]:
            target = verdict(c["ratio_of_medians"] <= 1.3) if c["label"] == "bashrt" else ""
            paired = f"{c['median_paired_ratio']:.2f} ({c['paired_ratio_p10']:.2f}–{c['paired_ratio_p90']:.2f})"
            print(f"| {place} | {c['label']} | {ms(c['wall_median'])} | {c['wall_p10'] * 1e3:.1f}–{ms(c['wall_p90'])} "
                  f"| {ms(c['cpu_median'])} | {c['ratio_of_medians']:.2f} | {paired} | {target} |")
            place = ""
    print()

    print("### 1 GiB of raw output end to end: `head -c 1G /dev/zero`\n")
    print("| placement | command | median | throughput | ratio to floor-pipe-to-file |")
    print("|---|---|---|---|---|")
    for cpus in (1, 2):
        r = load(out, f"e2e-1GiB-{cpus}cpu.json")
        if not r:
            continue
        place = "1 CPU" if cpus == 1 else "2 CPUs"
        ref = cmd(r, "floor-pipe-to-file")["wall_median"]
        for c in r["commands"]:
            print(f"| {place} | {c['label']} | {ms(c['wall_median'])} | {GIB / c['wall_median'] / GIB:.2f} GiB/s "
                  f"| {c['wall_median'] / ref:.2f} |")
            place = ""
    print()

    s = load(out, "startup-1cpu.json")
    if s:
        print("### Start-up per call (hyperfine -N, 1 CPU), informational\n")
        print("| command | median | mean ± σ | ratio |")
        print("|---|---|---|---|")
        base = s["results"][0]["median"]
        for res in s["results"]:
            exe = res["command"].split()[0]
            shown = res["command"].replace(exe, os.path.basename(exe), 1)
            print(f"| `{shown}` | {ms(res['median'], 2)} | {ms(res['mean'], 2)} ± {ms(res['stddev'], 2)} "
                  f"| {res['median'] / base:.2f} |")
        print(f"\nOverhead of `bashrt run` over `bash -c`: {ms(s['results'][1]['median'] - base, 2)} per call.\n")

    rss_path = os.path.join(out, "rss.tsv")
    if os.path.exists(rss_path):
        with open(rss_path) as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        sizes = []
        for row in rows:
            if row["size"] not in sizes:
                sizes.append(row["size"])
        print("### Peak RSS of `bashrt run` (`/usr/bin/time -f %M`, 2 CPUs)\n")
        print("| output | bytes spilled | peak RSS (median) | all runs | wall (median) | target < 20 MiB |")
        print("|---|---|---|---|---|---|")
        peaks = {}
        for size in sizes:
            rs = [r for r in rows if r["size"] == size]
            kib = [int(r["maxrss_kib"]) for r in rs]
            peaks[size] = statistics.median(kib)
            label = "`true` (none)" if size == "true" else size
            print(f"| {label} | {int(rs[0]['bytes']):,} | {peaks[size] / 1024:.1f} MiB "
                  f"| {', '.join(f'{k / 1024:.1f}' for k in kib)} | {statistics.median(float(r['seconds']) for r in rs):.2f} s "
                  f"| {verdict(max(kib) < 20 * 1024)} |")
        spilled = [s for s in sizes if s != "true"]
        if len(spilled) >= 2:
            growth = (peaks[spilled[-1]] - peaks[spilled[0]]) / 1024
            print(f"\nGrowth from {spilled[0]} to {spilled[-1]} of output: {growth:+.1f} MiB (median to median).\n")

    rows = []
    for b in ("64KiB_chunks-with_spill", "64KiB_chunks-tail_only", "1MiB_chunks-with_spill"):
        e = load(out, f"criterion-{b}.json")
        smp = load(out, f"criterion-{b}-sample.json")
        if e:
            per_iter = [t / i for t, i in zip(smp["times"], smp["iters"])] if smp else []
            rows.append((b, e["median"]["point_estimate"] / 1e9, per_iter))
    if rows:
        print("### The sink alone (criterion, 1 CPU): 1 GiB of base64-like text pushed through `OutputSink`\n")
        print("| chunks | sink | median | min–max of samples | throughput (median) | target ≥ 1 GiB/s |")
        print("|---|---|---|---|---|---|")
        for b, med, per in rows:
            chunks, kind = b.split("-")
            rng = f"{min(per) / 1e6:.1f}–{ms(max(per) / 1e9)}" if per else ""
            target = verdict(1 / med >= 1.0) if b == "64KiB_chunks-with_spill" else ""
            print(f"| {chunks.split('_')[0]} | {kind.replace('_', ' ')} | {ms(med)} | {rng} | {1 / med:.2f} GiB/s | {target} |")
        print()

    print("### Summary against the issue's targets\n")
    print("| target | measured | verdict |")
    print("|---|---|---|")
    for cpus in (1, 2):
        r = load(out, f"bulk-100M-{cpus}cpu.json")
        if r:
            b, f = cmd(r, "bashrt"), cmd(r, "floor")
            print(f"| `bashrt run` ≤ 1.3× the producer alone, {cpus} CPU{'s' if cpus > 1 else ''} "
                  f"| {ms(b['wall_median'])} vs {ms(f['wall_median'])}: **{b['ratio_of_medians']:.2f}×** "
                  f"(paired {b['median_paired_ratio']:.2f}×) | {verdict(b['ratio_of_medians'] <= 1.3)} |")
    for cpus in (1, 2):
        r = load(out, f"bulk-100M-{cpus}cpu.json")
        if r:
            b, c = cmd(r, "bashrt"), cmd(r, "floor-pipe-to-file")
            print(f"| (informational) `bashrt run` vs `producer \\| cat > file`, {cpus} CPU{'s' if cpus > 1 else ''} "
                  f"| {ms(b['wall_median'])} vs {ms(c['wall_median'])}: {b['wall_median'] / c['wall_median']:.2f}× | |")
    if rows:
        b, med, _ = rows[0]
        print(f"| sink with spill ≥ 1 GiB/s (1 GiB) | {1 / med:.2f} GiB/s | {verdict(1 / med >= 1.0)} |")
    if os.path.exists(rss_path):
        spilled = [s for s in peaks if s != "true"]
        top = max(peaks[s] for s in spilled) / 1024
        low = min(peaks[s] for s in spilled) / 1024
        print(f"| peak RSS < 20 MiB, 1 MB–1 GB, flat | {low:.1f}–{top:.1f} MiB (medians) "
              f"| {verdict(top < 20)} |")


if __name__ == "__main__":
    main()
