#!/usr/bin/env python3
"""Counts what issue 38 measures of the Rust tree, so a refactor can report them before
and after with one command (docs/design-notes.md, "The engine in numbers"):

    scripts/code-counts.py [ROOT]          # tables on stdout
    scripts/code-counts.py --json [ROOT]   # the same as one JSON object

* the structs with the most fields (named fields at the struct's top level);
* the types whose inherent `impl` blocks are spread over the most files;
* `pub` items and fields against `pub(crate)` / `pub(super)` / `pub(in ..)` ones;
* lines of Rust (every `.rs` file outside `target/` and `fuzz/`), and per crate;
* comments that cite an issue number ("issue 20"), say "as before", or carry a
  measured figure (a number with a unit of time, memory or a ratio).

A line-based reading of the source, not a parser: good enough to compare one tree with
another, which is what it is for. Test modules count like the rest.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections import defaultdict

SKIP = {"target", "fuzz", ".git", "node_modules"}
ITEM = re.compile(r"^\s*pub(\((crate|super|in [^)]*)\))?\s+(async\s+|const\s+|unsafe\s+|extern\s+\"C\"\s+)*(fn|struct|enum|trait|type|const|static|mod|use|union)\b")
FIELD = re.compile(r"^\s*(pub(\((crate|super|in [^)]*)\))?\s+)?(r#)?[a-z_][a-z0-9_]*\s*:\s*[^:]")
STRUCT = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?struct\s+([A-Za-z0-9_]+)(<[^{]*>)?\s*(where[^{]*)?\{\s*$")
IMPL = re.compile(r"^\s*impl(<.*?>)?\s+([A-Za-z0-9_:]+)(<[^{]*>)?\s*(where.*)?\{?\s*$")
ISSUE = re.compile(r"//.*\bissues? \d+", re.I)
AS_BEFORE = re.compile(r"//.*\bas before\b", re.I)
FIGURE = re.compile(r"//.*\b\d[\d,.]*\s*(ms|µs|us|ns|MB|GB|KB|kB|MiB|GiB|x\b|%|s\b|seconds)", re.I)


def rust_files(root: str):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP and not x.startswith("."))
        for f in sorted(files):
            if f.endswith(".rs"):
                yield os.path.join(d, f)


def crate_of(root: str, path: str) -> str:
    return os.path.relpath(path, root).split(os.sep)[0]


def count(root: str) -> dict:
    structs: dict[str, tuple[int, str]] = {}
    impl_files: dict[str, set[str]] = defaultdict(set)
    pub_items = pub_fields = restricted_items = restricted_fields = 0
    lines = 0
    per_crate: dict[str, int] = defaultdict(int)
    issue = as_before = figure = 0
    for path in rust_files(root):
        rel = os.path.relpath(path, root)
        text = open(path, encoding="utf-8").read().splitlines()
        lines += len(text)
        per_crate[crate_of(root, path)] += len(text)
        in_struct = None
        depth = 0
        fields = 0
        for line in text:
            code = line.split("//", 1)[0]
            if ISSUE.search(line):
                issue += 1
            if AS_BEFORE.search(line):
                as_before += 1
            if FIGURE.search(line):
                figure += 1
            m = ITEM.match(code)
            if m:
                if m.group(1):
                    restricted_items += 1
                else:
                    pub_items += 1
            if in_struct is None:
                s = STRUCT.match(code)
                if s:
                    in_struct, depth, fields = s.group(3), 1, 0
                    continue
            else:
                if depth == 1 and FIELD.match(code):
                    fields += 1
                    if code.strip().startswith("pub(") or code.strip().startswith("pub ("):
                        restricted_fields += 1
                    elif code.strip().startswith("pub "):
                        pub_fields += 1
                depth += code.count("{") - code.count("}")
                if depth <= 0:
                    key = f"{in_struct} ({rel})"
                    structs[key] = (fields, rel)
                    in_struct = None
                continue
            i = IMPL.match(code)
            if i and " for " not in code:
                name = i.group(2).split("::")[-1]
                impl_files[name].add(rel)
    top_structs = sorted(structs.items(), key=lambda kv: -kv[1][0])[:8]
    top_impls = sorted(impl_files.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:8]
    return {
        "lines": lines,
        "lines_per_crate": dict(sorted(per_crate.items())),
        "largest_structs": [{"struct": k, "fields": v[0]} for k, v in top_structs],
        "impl_spread": [{"type": k, "files": len(v)} for k, v in top_impls],
        "pub_items": pub_items,
        "pub_fields": pub_fields,
        "restricted_items": restricted_items,
        "restricted_fields": restricted_fields,
        "comments_citing_issues": issue,
        "comments_as_before": as_before,
        "comments_with_figures": figure,
    }


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--json"]
    root = args[0] if args else "."
    c = count(root)
    if "--json" in sys.argv:
        print(json.dumps(c, indent=1))
        return
    print(f"lines of Rust: {c['lines']}")
    print("per crate: " + ", ".join(f"{k} {v}" for k, v in c["lines_per_crate"].items()))
    print("largest structs (fields): " + "; ".join(f"{s['struct']} {s['fields']}" for s in c["largest_structs"]))
    print("inherent impls spread over files: " + "; ".join(f"{s['type']} {s['files']}" for s in c["impl_spread"]))
    print(f"pub items {c['pub_items']}, pub fields {c['pub_fields']}; "
          f"pub(crate)/pub(super) items {c['restricted_items']}, fields {c['restricted_fields']}")
    print(f"comments citing an issue {c['comments_citing_issues']}, saying 'as before' "
          f"{c['comments_as_before']}, carrying a figure {c['comments_with_figures']}")


if __name__ == "__main__":
    main()
