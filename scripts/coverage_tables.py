#!/usr/bin/env python3
# Tables of scripts/coverage: per-directory line/branch figures of the C++ (from gcovr's JSON
# summary) and per-RTL-file line/toggle/cover-property figures (from the merged verilator_coverage
# data file). Each writes a Markdown table, a JSON file and a list of the uncovered points.
#
#   coverage_tables.py cpp <gcovr summary.json> <repo> <out dir>
#   coverage_tables.py rtl <merged coverage.dat> <repo> <out dir>
import collections
import json
import os
import re
import sys

LINE_TARGET = 90.0
TOGGLE_TARGET = 80.0
TOGGLE_MIN_CHANGES = 2


def pct(covered, total):
    return 100.0 * covered / total if total else 100.0


def fmt_pct(covered, total):
    return f"{pct(covered, total):5.1f} % ({covered}/{total})" if total else "   -"


def mark(covered, total, target):
    return "" if not total or pct(covered, total) >= target else " (below target)"


# ---------------------------------------------------------------- C++ (gcovr --json-summary)

def cpp_group(rel):
    """The row a source file counts in: hw/<block>, or sim/<lib>, base/<lib>."""
    parts = rel.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def cpp(summary_path, repo, out):
    with open(summary_path) as f:
        summary = json.load(f)
    rows = collections.OrderedDict()
    files = []
    for entry in summary["files"]:
        rel = os.path.relpath(os.path.join(repo, entry["filename"]), repo)
        files.append(rel)
        g = cpp_group(rel)
        r = rows.setdefault(g, [0, 0, 0, 0])
        r[0] += entry["line_covered"]
        r[1] += entry["line_total"]
        r[2] += entry["branch_covered"]
        r[3] += entry["branch_total"]
    table = []
    for g in sorted(rows):
        table.append((g,) + tuple(rows[g]))
    # Layer totals, and the hardware C++ (the target's subject) on its own.
    totals = collections.OrderedDict()
    for layer in ("hw", "sim", "base"):
        acc = [0, 0, 0, 0]
        for g, *v in table:
            if g == layer or g.startswith(layer + "/"):
                acc = [a + b for a, b in zip(acc, v)]
        totals[layer] = acc
    allv = [sum(v[i] for v in totals.values()) for i in range(4)]

    lines = ["| directory | lines | branches |", "|---|---|---|"]
    for g, lc, lt, bc, bt in table:
        target = mark(lc, lt, LINE_TARGET) if g.startswith("hw/") else ""
        lines.append(f"| {g} | {fmt_pct(lc, lt)}{target} | {fmt_pct(bc, bt)} |")
    for layer, (lc, lt, bc, bt) in totals.items():
        target = mark(lc, lt, LINE_TARGET) if layer == "hw" else ""
        lines.append(f"| **{layer}/ total** | {fmt_pct(lc, lt)}{target} | {fmt_pct(bc, bt)} |")
    lines.append(f"| **all** | {fmt_pct(allv[0], allv[1])} | {fmt_pct(allv[2], allv[3])} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "cpp_summary.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "cpp_summary.json"), "w") as f:
        json.dump({"target_lines_hw_pct": LINE_TARGET,
                   "rows": [{"dir": g, "lines_covered": lc, "lines_total": lt, "lines_pct": round(pct(lc, lt), 2),
                             "branches_covered": bc, "branches_total": bt,
                             "branches_pct": round(pct(bc, bt), 2)} for g, lc, lt, bc, bt in table],
                   "totals": {k: {"lines_covered": v[0], "lines_total": v[1], "lines_pct": round(pct(v[0], v[1]), 2),
                                  "branches_covered": v[2], "branches_total": v[3],
                                  "branches_pct": round(pct(v[2], v[3]), 2)} for k, v in totals.items()}},
                  f, indent=1)
    print(text)


def cpp_uncovered(detail_path, repo, out):
    """Uncovered lines of hw/ (gcovr --json detail), one `file:line` list per file."""
    with open(detail_path) as f:
        detail = json.load(f)
    res = []
    for entry in detail["files"]:
        rel = os.path.relpath(os.path.join(repo, entry["file"]), repo)
        if not rel.startswith("hw/"):
            continue
        miss = [ln["line_number"] for ln in entry["lines"] if not ln.get("gcovr/noncode") and ln["count"] == 0]
        if miss:
            res.append(f"{rel}: {compress(miss)}")
    with open(os.path.join(out, "cpp_uncovered_hw.txt"), "w") as f:
        f.write("\n".join(res) + "\n")


def compress(nums):
    nums = sorted(set(nums))
    out, start, prev = [], None, None
    for n in nums:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = n
    if start is not None:
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ",".join(out)


# ---------------------------------------------------------------- RTL (verilator_coverage data)

ITEM = re.compile(r"^C '(.*)' (\d+)$")


def parse_dat(path):
    """Yields (dict of keys, count) for each point of a Verilator coverage data file."""
    with open(path, encoding="latin-1") as f:
        for line in f:
            m = ITEM.match(line.rstrip("\n"))
            if not m:
                continue
            fields = {}
            for kv in m.group(1).split("\x01"):
                if "\x02" in kv:
                    k, v = kv.split("\x02", 1)
                    fields[k] = v
            yield fields, int(m.group(2))


def rtl(dat_path, repo, out):
    # A point is the same in every instance of its module (several PEs, lanes, FIFOs): it counts
    # once per module, with the count of its busiest instance. Key: the point without its hierarchy.
    points = {}
    for fields, count in parse_dat(dat_path):
        page = fields.get("page", "")
        kind = page.split("/")[0].replace("v_", "")  # line, branch, toggle, user, expr
        fname = os.path.relpath(fields.get("f", "?"), repo) if fields.get("f", "?").startswith("/") else fields.get("f", "?")
        key = (fname, kind, fields.get("l"), fields.get("n"), fields.get("o"), fields.get("S"))
        points[key] = max(points.get(key, 0), count)
    rows = collections.defaultdict(lambda: collections.Counter())
    uncovered = collections.defaultdict(list)
    for (fname, kind, line, _n, comment, _s), count in points.items():
        # Verilator's line coverage is its statement blocks and the branch arms of if/case.
        cat = {"line": "line", "branch": "line", "toggle": "toggle", "user": "user"}.get(kind, kind)
        rows[fname][cat + "_total"] += 1
        # Verilator counts every change of a toggled bit, the first one possibly from the random
        # power-up value to the reset value; two changes are one rise and one fall.
        if count >= (TOGGLE_MIN_CHANGES if cat == "toggle" else 1):
            rows[fname][cat + "_covered"] += 1
        else:
            uncovered[fname].append((cat, int(line or 0), comment or ""))
    lines = ["| RTL file | lines (blocks + branch arms) | toggles (bits) | cover properties |", "|---|---|---|---|"]
    tot = collections.Counter()
    js = []
    for fname in sorted(rows):
        r = rows[fname]
        tot.update(r)
        lines.append(f"| {fname} | {fmt_pct(r['line_covered'], r['line_total'])}{mark(r['line_covered'], r['line_total'], LINE_TARGET)}"
                     f" | {fmt_pct(r['toggle_covered'], r['toggle_total'])}{mark(r['toggle_covered'], r['toggle_total'], TOGGLE_TARGET)}"
                     f" | {fmt_pct(r['user_covered'], r['user_total'])} |")
        js.append({"file": fname, **{k: r[k] for k in ("line_covered", "line_total", "toggle_covered",
                                                         "toggle_total", "user_covered", "user_total")},
                   "line_pct": round(pct(r["line_covered"], r["line_total"]), 2),
                   "toggle_pct": round(pct(r["toggle_covered"], r["toggle_total"]), 2)})
    lines.append(f"| **all** | {fmt_pct(tot['line_covered'], tot['line_total'])} | "
                 f"{fmt_pct(tot['toggle_covered'], tot['toggle_total'])} | {fmt_pct(tot['user_covered'], tot['user_total'])} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "rtl_summary.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "rtl_summary.json"), "w") as f:
        json.dump({"target_lines_pct": LINE_TARGET, "target_toggles_pct": TOGGLE_TARGET, "rows": js,
                   "all": {k: tot[k] for k in ("line_covered", "line_total", "toggle_covered", "toggle_total",
                                               "user_covered", "user_total")}}, f, indent=1)
    with open(os.path.join(out, "rtl_uncovered.txt"), "w") as f:
        for fname in sorted(uncovered):
            for cat, line, comment in sorted(uncovered[fname], key=lambda t: (t[0], t[1], t[2])):
                f.write(f"{fname}:{line}: {cat}: {comment}\n")
    # Uncovered toggle bits per signal (the reasons in docs/verification.md are per signal group):
    # file, signal, uncovered bits / its bits, most uncovered first.
    bits = collections.defaultdict(lambda: [0, 0])
    for (fname, kind, _line, _n, comment, _s), count in points.items():
        if kind != "toggle":
            continue
        b = bits[(fname, re.sub(r"\[[0-9]+\]", "", comment or ""))]
        b[1] += 1
        if count < TOGGLE_MIN_CHANGES:
            b[0] += 1
    with open(os.path.join(out, "rtl_toggle_signals.txt"), "w") as f:
        for (fname, sig), (miss, total) in sorted(bits.items(), key=lambda kv: (kv[0][0], -kv[1][0], kv[0][1])):
            if miss:
                f.write(f"{fname} {sig}: {miss}/{total} bits never toggled\n")
    print(text)


def main(argv):
    if len(argv) < 5 or argv[1] not in ("cpp", "rtl"):
        sys.stderr.write(__doc__ if __doc__ else "usage: coverage_tables.py cpp|rtl <input> <repo> <out dir>\n")
        return 2
    mode, inp, repo, out = argv[1:5]
    if mode == "cpp":
        cpp(inp, repo, out)
        detail = os.path.join(out, "cpp_detail.json")
        if os.path.exists(detail):
            cpp_uncovered(detail, repo, out)
    else:
        rtl(inp, repo, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
