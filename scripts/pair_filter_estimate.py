"""How many postings an exact filter on adjacent trigram pairs would read for a full name, against
the trigram counting the index does (issue 42, twenty-third session; docs/performance.md).

Usage: python3 scripts/pair_filter_estimate.py [PLAYERS]   (default 1,000,000; about 40 s)

The names are registry_load.py's NAMES=varied spread (a first name of two and a surname of three
syllables from 16, folded, and a number); the queries 300 full names of them. For each: the
postings the index counts today (its `m` shortest trigram lists, `walk/count.rs`), and the
postings of the shortest pair lists a name must appear in to hold the pairs pg_trgm's word
similarity of 0.6 implies (an extent holding `c` of the text's `k` trigrams with `u` distinct
trigrams has `c / (k + u - c) >= 0.6`, so at most `c / 0.6 - k` foreign trigrams, and in a name
without a repeated trigram at least `c - (c / 0.6 - k) - 1` adjacent pairs of the text's
trigrams). Not an engine: list lengths only.
"""
import random, math, re, sys
from collections import Counter
random.seed(7)
SYL = ["kar","o","sten","ma","lu","kasz","ber","ga","ni","so","ri","ta","je","lo","vik","ha"]
N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
def seq(name):
    out = []
    for w in re.findall(r"[a-z0-9]+", name):
        p = "  " + w + " "
        out.extend(p[i:i+3] for i in range(len(p) - 2))
    return out
tri = Counter(); pair = Counter(); repeats = 0
names = []
for g in range(1, N + 1):
    s = [random.randrange(16) for _ in range(5)]
    name = SYL[s[0]] + SYL[s[1]] + " " + SYL[s[2]] + SYL[s[3]] + SYL[s[4]] + " " + str(g)
    names.append(name)
    sq = seq(name)
    st = set(sq)
    if len(st) < len(sq):
        repeats += 1
    tri.update(st)
    pair.update(set(zip(sq, sq[1:])))
print("names", N, "distinct trigrams", len(tri), "pairs", len(pair), "postings tri", sum(tri.values()), "pair", sum(pair.values()), "names with a repeated trigram", repeats)
def compatible(a, b):
    return a[1:] == b[:2] or (a[2] == " " and b[:2] == "  ")
tot_cur = tot_pair = tot_pair_m = 0
rows = []
for qi in range(300):
    q = names[random.randrange(N)]
    Q = sorted(set(seq(q)))
    k = len(Q); need = math.ceil(0.6 * k - 1e-9)
    L = sorted(tri[t] for t in Q)
    m = max(k + 3 - need, sum(1 for x in L if x * 32 < N))
    m = min(m, k)
    cur = sum(L[:m])
    P = min(max(0, c - math.floor(c / 0.6 - k + 1e-9) - 1) for c in range(need, k + 1))
    PQ = [pair[(a, b)] for a in Q for b in Q if compatible(a, b)]
    PL = sorted(x for x in PQ)
    # lists present or not: a name must hold P of the |PQ| pairs: prefix of |PQ|-P+1 shortest
    npq = len(PL)
    pref = sum(PL[:max(0, npq - P + 1)]) if P > 0 else None
    # like the current rule: counted m' = pref + 3 lists
    m2 = min(npq, npq - P + 1 + 2) if P > 0 else None
    pm = sum(PL[:m2]) if P > 0 else None
    rows.append((q, k, need, cur, P, npq, pref, pm))
    tot_cur += cur; tot_pair += pref or 0; tot_pair_m += pm or 0
for r in rows[:12]:
    print(r)
print("mean postings current", tot_cur / 300, "pair prefix", tot_pair / 300, "pair prefix+2", tot_pair_m / 300)
