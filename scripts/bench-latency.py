#!/usr/bin/env python3
"""Live-pipeline latency (scripts/bench's latency job): how long after the
record that closes a window is written to fwin's input does the window's
row come out of its output? Event time, 1-second tumbling windows, no
lateness: each round writes a few records of second i, then one record of
second i+1, whose arrival fires second i's window; the time from that
write to the row's arrival is one sample.

    bench-latency.py FWIN ROUNDS [fwin options...]

Prints: median_us p99_us max_us (of ROUNDS samples).
"""
import os
import subprocess
import sys
import time


def main():
    fwin, rounds = sys.argv[1], int(sys.argv[2])
    cmd = [fwin, "--csv", "-t", "1", "-k", "2", "--tumble", "1s",
           "--count"] + sys.argv[3:]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         bufsize=0)
    out = p.stdout
    samples = []
    t0 = 1700000000
    for i in range(rounds + 1):
        # records of second t0+i, in one write, then the next second's
        # first record alone: it moves the watermark past the window
        body = "".join(f"{t0 + i}.{j:03d},k{j % 3},1\n" for j in range(5))
        p.stdin.write(body.encode())
        time.sleep(0.002)
        start = time.perf_counter()
        p.stdin.write(f"{t0 + i + 1}.000,k0,1\n".encode())
        rows = 0
        buf = b""
        while rows < 3:  # three keys fire
            chunk = os.read(out.fileno(), 65536)
            if not chunk:
                sys.exit("fwin ended early")
            buf += chunk
            rows = buf.count(b"\n")
        if i > 0:  # the first round warms up
            samples.append((time.perf_counter() - start) * 1e6)
    p.stdin.close()
    p.wait()
    samples.sort()
    med = samples[len(samples) // 2]
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(f"{med:.0f} {p99:.0f} {samples[-1]:.0f}")


if __name__ == "__main__":
    main()
