#!/usr/bin/env python3
"""Per-process breakdown of a system-wide `perf record` (no call graphs): samples per process, and per process the
shares of its DSOs and its top symbols. Usage: perf script -i F -F pid,tid,comm,dso,sym | by-process.py [top]"""
import collections, re, subprocess, sys
top = int(sys.argv[1]) if len(sys.argv) > 1 else 12
line_re = re.compile(r'^\s*(.*?)\s+(\d+)/(\d+)\s+(.*)$')
samples = collections.Counter(); dsos = collections.defaultdict(collections.Counter)
syms = collections.defaultdict(collections.Counter); names = {}
for line in sys.stdin:
    m = line_re.match(line)
    if not m: continue
    comm, pid, tid, rest = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
    d = re.search(r'\(([^)]*)\)\s*$', rest)
    dso = d.group(1).split('/')[-1] if d else '?'
    sym = re.sub(r'\s*\([^)]*\)\s*$', '', rest).strip()
    sym = re.sub(r'^[0-9a-f]+\s+', '', sym)
    sym = re.sub(r'\+0x[0-9a-f]+$', '', sym)
    samples[pid] += 1; dsos[pid][dso] += 1; syms[pid][(sym, dso)] += 1
    if tid == pid or pid not in names: names[pid] = comm
allsyms = sorted({s for c in syms.values() for s, _ in c})
dem = dict(zip(allsyms, subprocess.run(['swift', 'demangle', '--simplified'], input='\n'.join(allsyms), capture_output=True,
                                       text=True).stdout.split('\n'))) if allsyms else {}
total = sum(samples.values())
print(f"{total} samples")
for pid, n in samples.most_common():
    if n < total * 0.01: break
    exe = [d for d, _ in dsos[pid].most_common() if '.so' not in d and not d.startswith('[') and d != '?']
    print(f"\n== {exe[0] if exe else names[pid]} (pid {pid}): {n} samples, {100*n/total:.1f} % of all")
    print("   by library: " + ", ".join(f"{d} {100*c/n:.0f} %" for d, c in dsos[pid].most_common(6)))
    for (s, d), c in syms[pid].most_common(top):
        print(f"   {100*c/n:5.1f} %  {dem.get(s, s)[:110]}  [{d}]")
