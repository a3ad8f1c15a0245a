#!/usr/bin/env python3
"""Replays the findings of the safety issue (#9) against two builds of the tool and prints, per
finding, what each one did: the table of docs/before-after.md.

    python3 docs/before-after.py SEED NOW MIRROR VARIANTS > table.md

SEED and NOW are checkouts, each holding its release binary (target/release/scenario-ratios);
the project copies are made from their committed trees (`git archive HEAD`). MIRROR is the
upstream mirror. The seed compiled its prose and settings into the binary, so the cases that
edit them use seed binaries built with that one edit, in the folder VARIANTS (named after the
case: two-highlights, refresh, onclick, jslink, backslash-url), each the seed rebuilt after
making to its content/ the edit that CASES makes to NOW's copy; NOW reads them at run time and
the case edits the project copy. Every case runs in a new temporary folder; downloads run with
the network cut (`unshare -n`). Nothing here is read by the tests.
"""

import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

SEED, NOW, MIRROR, VARIANTS = (Path(a).resolve() for a in sys.argv[1:5])
TMP = Path(tempfile.mkdtemp(prefix="before-after-"))
KINDS = ("seed", "now")


class Tool:
    def __init__(self, kind):
        self.kind = kind
        self.checkout = SEED if kind == "seed" else NOW
        self.bin = self.checkout / "target/release/scenario-ratios"

    def project(self, case):
        """A fresh copy of the committed tree, in its own folder."""
        base = TMP / f"{self.kind}-{case}"
        base.mkdir()
        p = base / "project"
        p.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(self.checkout), "archive", "HEAD"], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(p)], input=archive, check=True)
        return p

    def cache_dir(self, p):
        return p / ("data/cache" if self.kind == "seed" else "data/upstream")

    def variant(self, name):
        """The binary for a case that edits the prose or settings (seed: a rebuilt binary)."""
        return VARIANTS / name if self.kind == "seed" else self.bin


def limit():
    """At most 4 GiB of address space, so that a runaway allocation fails instead of the machine."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def run(binary, args, cwd, env=None, timeout=300, net=True):
    """Runs the binary; returns (outcome, stderr, peak RSS in MB)."""
    rss = Path(tempfile.mktemp(dir=TMP))
    cmd = ["/usr/bin/time", "-q", "-f", "%M", "-o", str(rss), str(binary), *args]
    if not net:
        cmd = ["unshare", "-n", *cmd]
    e = dict(os.environ)
    e.pop("SOURCE_DATE_EPOCH", None)
    e.pop("UPSTREAM_MIRROR", None)
    e.update(env or {})
    try:
        r = subprocess.run(cmd, cwd=cwd, env=e, capture_output=True, timeout=timeout, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return f"still running after {timeout} s (killed)", "", None
    text = rss.read_text().strip().splitlines()
    peak = int(text[-1]) / 1024 if text and text[-1].isdigit() else None
    code = r.returncode
    signalled = [l for l in text if l.startswith("Command terminated by signal")]
    err = r.stderr.decode("utf-8", "replace")
    if signalled:
        outcome = f"killed by signal {signalled[0].split()[-1]}"
    else:
        outcome = f"exit {code}"
    return outcome, err, peak


def line(err, limit=200):
    """The line a user sees: the first error/panic line of stderr, quoted and shortened."""
    lines = [l for l in err.splitlines() if l.strip()]
    pick = next(
        (l for l in lines if re.match(r"(error|warning|note|thread .|memory allocation|fatal)", l)),
        lines[-1] if lines else "",
    )
    if pick.startswith("thread '") and pick in lines and lines.index(pick) + 1 < len(lines):
        pick = "panicked: " + lines[lines.index(pick) + 1]
    pick = re.sub(re.escape(str(TMP)) + r"/[^/ ]+", "<tmp>", pick)
    if len(pick) > limit:
        pick = pick[:limit] + f"… ({len(pick)} characters)"
    return pick.replace("|", "\\|").replace("`", "'")


def said(outcome, err):
    """The outcome, with the line a user sees when it is an error, warning or crash."""
    l = line(err)
    return f"{outcome}: “{l}”" if re.match(r"(error|warning|note|panicked|memory|fatal)", l) else outcome


def mb(x):
    return "n/a" if x is None else f"{x:.0f} MB"


def build_args(mirror, *extra):
    return ["build", "--mirror", str(mirror), *extra]


def sha(b):
    return hashlib.sha256(b).hexdigest()


def git_sha1(b):
    return hashlib.sha1(b"blob %d\0" % len(b) + b).hexdigest()


def private(tool, p, changes, manifest_edit=None):
    """A private mirror and manifest with some inputs replaced: {name: bytes or callable(path)}.
    Returns the args that build from them with a new cache."""
    mirror = p.parent / "mirror"
    shutil.copytree(MIRROR, mirror, symlinks=True)
    manifest = json.loads((p / "data/inputs.json").read_text())
    for entry in manifest["inputs"]:
        change = changes.get(entry["name"])
        if change is None:
            continue
        path = mirror / entry["repository"] / entry["path"]
        path.unlink()
        if callable(change):
            change(path)
        else:
            path.write_bytes(change)
            entry["size"] = len(change)
            entry["sha256"] = sha(change)
            entry["git_blob_sha1"] = git_sha1(change)
    if manifest_edit:
        manifest_edit(manifest)
    mpath = p.parent / "inputs.json"
    mpath.write_text(json.dumps(manifest, indent=2))
    return ["build", "--manifest", str(mpath), "--mirror", str(mirror), "--cache", str(p.parent / "cache")]


def summaries():
    d = MIRROR / "mlcommons/inference_results_v6.1"
    return (d / "summary.csv").read_text(), (d / "summary.json").read_text()


def both(csv_edit, json_edit):
    csv, js = summaries()
    return {"summary.csv": csv_edit(csv).encode(), "summary.json": json_edit(js).encode()}


def once(text, old, new):
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


def json_row(js, rid, old, new):
    """Replaces `old` by `new` inside row `rid` of summary.json (text edit, formatting kept)."""
    start = re.search(rf'"{rid}":\s*{{', js).start()
    end = js.index("}", start)
    row = js[start:end]
    assert old in row, (rid, old)
    return js[:start] + row.replace(old, new, 1) + js[end:]


# ---------------------------------------------------------------- the output folder


def out_project(t):
    p = t.project("out-project")
    o, err, _ = run(t.bin, build_args(MIRROR, "--out", str(p)), p)
    kept = (p / "Cargo.toml").exists() and (p / "src").is_dir()
    return f"{said(o, err)}; the project is {'intact' if kept else 'gone (Cargo.toml and src/ deleted)'}"


def out_src(t):
    p = t.project("out-src")
    before = sorted(x.name for x in (p / "src").iterdir())
    o, err, _ = run(t.bin, build_args(MIRROR, "--out", "src"), p)
    after = sorted(x.name for x in (p / "src").iterdir()) if (p / "src").is_dir() else []
    fate = "src/ intact" if after == before else f"src/ replaced by the output ({', '.join(after[:3])}…)"
    return f"{said(o, err)}; {fate}"


def out_others(t):
    p = t.project("out-others")
    (p / "photos").mkdir()
    (p / "photos/holiday.jpg").write_bytes(b"\xff\xd8 a photo")
    o, err, _ = run(t.bin, build_args(MIRROR, "--out", "photos"), p)
    kept = (p / "photos/holiday.jpg").exists()
    return f"{said(o, err)}; holiday.jpg {'kept' if kept else 'deleted'}"


def out_file(t):
    p = t.project("out-file")
    (p / "notes.txt").write_text("my notes\n")
    o, err, _ = run(t.bin, build_args(MIRROR, "--out", "notes.txt"), p)
    same = (p / "notes.txt").is_file() and (p / "notes.txt").read_text() == "my notes\n"
    moved = [x.name for x in p.iterdir() if x.name.startswith("notes.txt.")]
    fate = "notes.txt left as it was" if same and not moved else f"notes.txt moved aside to {moved}"
    return f"{said(o, err)}; {fate}"


def complete(out):
    sums = out / "SHA256SUMS"
    if not sums.is_file():
        return False
    for l in sums.read_text().splitlines():
        digest, name = l.split("  ", 1)
        f = out / name
        if not f.is_file() or sha(f.read_bytes()) != digest:
            return False
    return True


def leftovers(p):
    return sorted(x.name for x in p.iterdir() if re.match(r"dist\.(tmp|old|new)", x.name))


def sigkill(t):
    p = t.project("sigkill")
    args = build_args(MIRROR)
    run(t.bin, args, p)
    start = time.monotonic()
    run(t.bin, args, p)
    took = time.monotonic() - start
    rng = random.Random(9)
    broken = 0
    for _ in range(40):
        child = subprocess.Popen([str(t.bin), *args], cwd=p, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, took * 1.2))
        child.send_signal(signal.SIGKILL)
        child.wait()
        if not complete(p / "dist"):
            broken += 1
    after_kills = leftovers(p)
    o, err, _ = run(t.bin, args, p)
    after_next = leftovers(p)
    return (
        f"40 kills in the first {took * 1.2 * 1000:.0f} ms: {broken} left `dist/` missing or partial; "
        f"{len(after_kills)} leftovers after them, {len(after_next)} after the next build ({o})"
    )


def sigkill_renames(t):
    """Kills the build just before its n-th rename (strace makes that rename fail and sends
    SIGKILL), for every n, then runs a normal build."""
    p = t.project("sigkill-renames")
    args = build_args(MIRROR)
    run(t.bin, args, p)
    run(t.bin, args, p)
    renames = "rename,renameat,renameat2"
    broken, left, n = [], 0, 0
    while n < 20:
        n += 1
        r = subprocess.run(
            ["strace", "-f", "-qq", "-o", "/dev/null", "-e", f"trace={renames}",
             "-e", f"inject={renames}:error=EINTR:signal=SIGKILL:when={n}", str(t.bin), *args],
            cwd=p, capture_output=True,
        )
        if r.returncode == 0:
            break
        if not complete(p / "dist"):
            broken.append(n)
        run(t.bin, args, p)
        left += len(leftovers(p))
    return (
        f"{n - 1} rename(s) in a build, a kill before each in turn: `dist/` missing or partial after "
        + (f"kill {', '.join(map(str, broken))}" if broken else "none")
        + f"; {left} leftovers in all after the next builds"
    )


def parallel(t):
    p = t.project("parallel")
    args = build_args(MIRROR)
    run(t.bin, args, p)
    kids = [subprocess.Popen([str(t.bin), *args], cwd=p, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(4)]
    codes = [k.wait() for k in kids]
    errs = [k.stderr.read().decode("utf-8", "replace") for k in kids]
    failed = [line(e) for c, e in zip(codes, errs) if c != 0]
    ok = complete(p / "dist")
    return (
        f"4 builds at once: {codes.count(0)} exit 0"
        + (f", {len(failed)} fail (“{failed[0]}”)" if failed else "")
        + f"; `dist/` {'complete' if ok else 'broken'}, {len(leftovers(p))} leftovers"
    )


# ---------------------------------------------------------------- memory


def absurd_offline(t):
    p = t.project("absurd-offline")
    csv, _ = summaries()
    # Row 6: AMD 8xMI355X gpt-oss-120b Offline, 121818.0 tokens/s.
    assert '"8xMI355X_2xEPYC_9575F","gpt-oss-120b","gpt-oss-120b","Offline","121818.0"' in csv
    change = both(
        lambda c: once(c, '"Offline","121818.0"', '"Offline","0.0001"'),
        lambda j: json_row(j, 6, '"Result":121818.0', '"Result":0.0001'),
    )
    o, err, peak = run(t.bin, private(t, p, change), p)
    page = p / "dist/article.html"
    note = re.search(r"[^>.]*beyond[^<.]*", page.read_text()) if o == "exit 0" and page.exists() else None
    return f"{said(o, err)}; peak {mb(peak)}" + (f"; the figure's note: “{note.group(0).strip()}”" if note else "")


def big_mirror_file(t):
    p = t.project("big-mirror-file")

    def big(path):
        with open(path, "wb") as f:
            f.truncate(2 << 30)

    o, err, peak = run(t.bin, private(t, p, {"summary.csv": big}), p, net=False)
    return f"{said(o, err)}; peak {mb(peak)}"


def huge_size(m):
    m["inputs"][0]["size"] = 2**64 - 1


def manifest_size(t):
    p = t.project("manifest-size")
    o, err, _ = run(t.bin, private(t, p, {}, huge_size), p, net=False)
    return "the file in the mirror: " + said(o, err)


def manifest_size_download(t):
    p = t.project("manifest-size-download")
    csv, _ = summaries()
    with Server({"mlcommons/inference_results_v6.1/7bf15fd8089655a71fb75c81a744d7ba5a632424/summary.csv": csv.encode()}) as base:
        args = private(t, p, {"summary.csv": lambda path: None}, huge_size)
        o, err, _ = run(t.bin, args, p, env={"SCENARIO_RATIOS_DOWNLOAD_BASE": base})
    return "downloaded (from 127.0.0.1): " + said(o, err)


class Server:
    """Python's http.server on 127.0.0.1 serving {path: bytes}, for the download cases."""

    def __init__(self, files):
        self.root = Path(tempfile.mkdtemp(dir=TMP))
        for name, data in files.items():
            (self.root / name).parent.mkdir(parents=True, exist_ok=True)
            (self.root / name).write_bytes(data)

    def __enter__(self):
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(self.root)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


def manifest_dev_zero(t):
    p = t.project("dev-zero")
    o, err, peak = run(t.bin, build_args(MIRROR, "--manifest", "/dev/zero"), p, timeout=60)
    return f"{said(o, err)}; peak {mb(peak)}"


def manifest_fifo(t):
    p = t.project("fifo")
    os.mkfifo(p.parent / "manifest.fifo")
    o, err, _ = run(t.bin, build_args(MIRROR, "--manifest", str(p.parent / "manifest.fifo")), p, timeout=20)
    return said(o, err)


def real_build(t):
    p = t.project("real-build")
    run(t.bin, build_args(MIRROR), p)
    o, err, peak = run(t.bin, build_args(MIRROR), p)
    return f"{o}; peak {mb(peak)}"


# ---------------------------------------------------------------- verify


def built(t, case):
    p = t.project(case)
    run(t.bin, build_args(MIRROR), p)
    d = p.parent / "download"
    shutil.copytree(p / "dist", d)
    return p, d


def resum(d, name):
    """Rewrites the SHA256SUMS line of `name` for its current bytes."""
    sums = d / "SHA256SUMS"
    out = []
    for l in sums.read_text().splitlines():
        digest, n = l.split("  ", 1)
        if n == name:
            digest = sha((d / name).read_bytes())
        out.append(f"{digest}  {n}")
    sums.write_text("\n".join(out) + "\n")


def verify(t, target, cwd):
    o, err, peak = run(t.bin, ["verify", str(target)], cwd, timeout=600)
    return o, err, peak


def verify_empty(t):
    p, d = built(t, "verify-empty")
    (d / "SHA256SUMS").write_text("")
    return said(*verify(t, d, p.parent)[:2])


def verify_escape(t):
    p, d = built(t, "verify-escape")
    (p.parent / "outside.txt").write_text("outside\n")
    with open(d / "SHA256SUMS", "a") as f:
        f.write(f"{sha(b'outside' + bytes([10]))}  ../outside.txt\n")
    o, err, _ = verify(t, d, p.parent)
    return said(o, err)


def verify_published_copy(t):
    p, d = built(t, "verify-published")
    with open(d / "pairs.csv", "a") as f:
        f.write("a row added after the build\n")
    resum(d, "pairs.csv")
    return said(*verify(t, d, p.parent)[:2])


def rezip(src, dst, edit):
    """Copies a zip entry by entry, letting `edit(name, bytes)` return new bytes (or None)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = edit(info.filename, zin.read(info))
            zout.writestr(info, data, compress_type=info.compress_type)


def verify_bundled_pins(t):
    p, d = built(t, "verify-pins")
    z = d / "reproducibility.zip"
    with zipfile.ZipFile(z) as zf:
        name = next(n for n in zf.namelist() if n.endswith("/summary.csv") or n == "summary.csv" or n.endswith("cache/summary.csv") or re.search(r"(^|/)summary\.csv$", n))
        old = zf.read(name)
    new = old.replace(b"AMD", b"AMX", 1)

    def fix(value):
        if isinstance(value, dict):
            if value.get("sha256") == sha(old):
                value["sha256"] = sha(new)
                if "git_blob_sha1" in value:
                    value["git_blob_sha1"] = git_sha1(new)
                if "size" in value:
                    value["size"] = len(new)
            for v in value.values():
                fix(v)
        elif isinstance(value, list):
            for v in value:
                fix(v)

    def edit(n, data):
        if n == name:
            return new
        if n.endswith("provenance.json"):
            doc = json.loads(data)
            fix(doc)
            return (json.dumps(doc, indent=2) + "\n").encode()
        return data

    tmp = z.with_suffix(".new")
    rezip(z, tmp, edit)
    tmp.replace(z)
    resum(d, "reproducibility.zip")
    return f"`{name.split('/')[-1]}` and its provenance.json entry changed together: " + said(*verify(t, d, p.parent)[:2])


def verify_duplicate(t):
    p, d = built(t, "verify-duplicate")
    z = d / "reproducibility.zip"
    with zipfile.ZipFile(z) as zf:
        name = next(n for n in zf.namelist() if n.endswith("README.md"))
    import warnings

    warnings.simplefilter("ignore")
    with zipfile.ZipFile(z, "a") as zf:
        zf.writestr(name, b"a second README, hidden behind the first\n")
    resum(d, "reproducibility.zip")
    return f"a second `{name.split('/')[-1]}` entry appended: " + said(*verify(t, d, p.parent)[:2])


def raw_zip(name, size, data):
    """A stored zip entry whose zip64 field declares `size` bytes (the rest is honest)."""
    n = name.encode()
    extra = struct.pack("<HHQQ", 1, 16, size, len(data))
    common = struct.pack("<HHHIIIHH", 0, 0, 0, zlib.crc32(data), 0xFFFFFFFF, 0xFFFFFFFF, len(n), len(extra))
    local = b"PK\x03\x04" + struct.pack("<HH", 45, 0) + common + n + extra + data
    central = b"PK\x01\x02" + struct.pack("<HHH", 45 | 3 << 8, 45, 0) + common + bytes(10) + struct.pack("<I", 0) + n + extra
    end = b"PK\x05\x06" + bytes(4) + struct.pack("<HHII", 1, 1, len(central), len(local)) + bytes(2)
    return local + central + end


def verify_declared_huge(t):
    p = t.project("verify-huge")
    z = p.parent / "huge.zip"
    z.write_bytes(raw_zip("a.txt", 1 << 62, b"x"))
    o, err, peak = verify(t, z, p.parent)
    return f"a {z.stat().st_size}-byte zip: {said(o, err)}; peak {mb(peak)}"


def verify_bomb(t):
    p, d = built(t, "verify-bomb")
    z = d / "reproducibility.zip"
    with zipfile.ZipFile(z) as zf:
        name = next(n for n in zf.namelist() if re.search(r"(^|/)summary\.csv$", n))
        infos = zf.infolist()
    bomb = p.parent / "bomb.zip"
    with zipfile.ZipFile(z) as zin, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
        for info in infos:
            if info.filename == name:
                big = zipfile.ZipInfo(name, info.date_time)
                big.compress_type = zipfile.ZIP_DEFLATED
                with zout.open(big, "w", force_zip64=True) as w:
                    chunk = bytes(1 << 20)
                    for _ in range(1024):
                        w.write(chunk)
            else:
                zout.writestr(info, zin.read(info), compress_type=info.compress_type)
    size = bomb.stat().st_size
    start = time.monotonic()
    o, err, peak = verify(t, bomb, p.parent)
    took = time.monotonic() - start
    return f"the bundle with summary.csv as 1 GiB of zeros ({size / 2**20:.1f} MiB zip): {said(o, err)}; peak {mb(peak)}, {took:.1f} s"


# ---------------------------------------------------------------- cache and mirror


def cache_corrupt(t):
    p = t.project("cache-corrupt")
    run(t.bin, build_args(MIRROR), p)
    cached = next(x for x in t.cache_dir(p).rglob("summary.csv"))
    b = bytearray(cached.read_bytes())
    b[100] ^= 1
    cached.write_bytes(bytes(b))
    o, err, _ = run(t.bin, build_args(MIRROR), p)
    o2, _, _ = run(t.bin, build_args(MIRROR), p)
    return f"{said(o, err)}; the next build: {o2}"


def partial_files(t):
    p = t.project("partial")
    cache = p.parent / "cache"
    cache.mkdir()
    # A cache on a 200 KiB file system: writing the 297 KB summary.csv fails half-way.
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", str(cache)], check=True)
    try:
        o, err, _ = run(t.bin, build_args(MIRROR, "--cache", str(cache)), p)
        partial = sorted(x.name for x in cache.rglob("*") if "partial" in x.name)
    finally:
        subprocess.run(["umount", str(cache)], check=True)
    return f"a cache that fills up: {said(o, err)}; {len(partial)} temporary file(s) left in it {partial}"


def mirror_special(t, what):
    p = t.project(f"mirror-{what}")

    def make(path):
        if what == "folder":
            path.mkdir()
        else:
            os.mkfifo(path)

    o, err, _ = run(t.bin, private(t, p, {"summary.csv": make}), p, net=False, timeout=20)
    return said(o, err)


# ---------------------------------------------------------------- encoding and settings


def epoch(t, how):
    p = t.project(f"epoch-{how}")
    if how == "env":
        o, err, _ = run(t.bin, build_args(MIRROR), p, env={"SOURCE_DATE_EPOCH": "100"})
    else:
        o, err, _ = run(t.bin, build_args(MIRROR, "--source-date-epoch", "100"), p)
    if o != "exit 0":
        return said(o, err)
    with zipfile.ZipFile(p / "dist/reproducibility.zip") as zf:
        dt = zf.infolist()[0].date_time
    prov = json.loads((p / "dist/provenance.json").read_text())
    stamp = prov.get("source_date_epoch", prov.get("bundle", {}).get("source_date_epoch", "none"))
    return f"{said(o, err)}; zip entries dated {dt[0]:04}-{dt[1]:02}-{dt[2]:02}, provenance.json's source_date_epoch {stamp}"


def huge_value(t):
    p = t.project("huge-value")
    _, js = summaries()
    start = re.search(r'"0":\s*{', js).start()
    m = re.compile(r'"notes":\s*"(?:[^"\\]|\\.)*"').search(js, start)
    js2 = js[: m.start()] + '"notes":"' + "x" * (40 << 20) + '"' + js[m.end():]
    csv, _ = summaries()
    o, err, _ = run(t.bin, private(t, p, {"summary.csv": csv.encode(), "summary.json": js2.encode()}), p)
    return f"row 0's notes 40 MiB in summary.json only: {o}, an error of {len(err.encode())} bytes: “{line(err, 90)}”"


PAIR_NAME = "smci355-ccs-aus-m13-13 (AS -4126GS-NMR-LCC)"


def renamed(t, case, csv_name, json_name):
    p = t.project(case)
    change = both(lambda c: c.replace(f'"{PAIR_NAME}"', csv_name), lambda j: j.replace(f'"{PAIR_NAME}"', json_name))
    o, err, _ = run(t.bin, private(t, p, change), p)
    return p, o, err


def formula(t):
    p, o, err = renamed(
        t,
        "formula",
        '"=HYPERLINK(""https://evil.example"",""B300"")"',
        json.dumps('=HYPERLINK("https://evil.example","B300")'),
    )
    pairs = p / "dist/pairs.csv"
    if o != "exit 0" or not pairs.exists():
        return said(o, err)
    cell = next(
        (c for row in __import__("csv").reader(io.StringIO(pairs.read_text())) for c in row if "HYPERLINK" in c), None
    )
    return f"{o}; the pairs.csv cell reads `{cell[:12]}…`" + (" (a live formula)" if cell.startswith("=") else " (text)")


def control(t):
    p, o, err = renamed(t, "control", f'"{PAIR_NAME}\a"', json.dumps(PAIR_NAME + "\a"))
    if o != "exit 0":
        return said(o, err)
    raw = [f for f in ("article.html", "pairs.csv", "results.json") if b"\a" in (p / "dist" / f).read_bytes()]
    return f"{o}; the raw BEL byte is in {', '.join(raw) or 'no output'}"


def src_in_data(t):
    p, o, err = renamed(t, "src-in-data", '"smci355 src=fast"', json.dumps("smci355 src=fast"))
    return said(o, err)


def edited(t, case, variant, edit):
    p = t.project(case)
    if t.kind == "now":
        edit(p)
    o, err, _ = run(t.variant(variant), build_args(MIRROR), p)
    return said(o, err)


def edit_json(change):
    def edit(p):
        path = p / "content/article.json"
        path.write_text(change(path.read_text()))

    return edit


def append_prose(text):
    def edit(p):
        with open(p / "content/article.md", "a") as f:
            f.write(text)

    return edit


CASES = [
    ("`--out` the project folder", out_project),
    ("`--out src`", out_src),
    ("`--out` someone else's folder", out_others),
    ("`--out` a regular file", out_file),
    ("SIGKILL at random moments", sigkill),
    ("SIGKILL just before each rename", sigkill_renames),
    ("4 builds into one folder at once", parallel),
    ("an Offline Result of `0.0001` (a typo)", absurd_offline),
    ("a 2 GiB file in the mirror", big_mirror_file),
    ("a manifest size of 2^64-1", manifest_size),
    ("a manifest size of 2^64-1", manifest_size_download),
    ("`--manifest /dev/zero`", manifest_dev_zero),
    ("`--manifest` a named pipe", manifest_fifo),
    ("a real build", real_build),
    ("`verify`: an empty SHA256SUMS", verify_empty),
    ("`verify`: `../outside.txt` in SHA256SUMS", verify_escape),
    ("`verify`: pairs.csv changed after the build (its SHA256SUMS line updated), the bundle's copy not", verify_published_copy),
    ("`verify`: a bundled input and provenance.json changed, the bundled manifest not", verify_bundled_pins),
    ("`verify`: duplicate zip entries", verify_duplicate),
    ("`verify`: a zip declaring a 2^62-byte entry", verify_declared_huge),
    ("`verify`: a zip inflating to 1 GiB", verify_bomb),
    ("a cache entry failing its hash", cache_corrupt),
    ("temporary files after a failed write", partial_files),
    ("a mirror entry that is a folder (network cut)", lambda t: mirror_special(t, "folder")),
    ("a mirror entry that is a FIFO (network cut)", lambda t: mirror_special(t, "fifo")),
    ("`SOURCE_DATE_EPOCH=100` in the environment", lambda t: epoch(t, "env")),
    ("`--source-date-epoch 100`", lambda t: epoch(t, "flag")),
    ("a 40 MB value in a mismatch", huge_value),
    ("`=HYPERLINK(...)` as a system name", formula),
    ("a BEL control character in a system name", control),
    ("a system name holding ` src=`", src_in_data),
    (
        "two highlights selecting one pair",
        lambda t: edited(
            t,
            "two-highlights",
            "two-highlights",
            edit_json(lambda s: s.replace("GB200-NVL72_GB200-186GB_aarch64x72_TRT", "B300-SXM-270GBx8_TRT", 1)),
        ),
    ),
    (
        "`<meta http-equiv=\"refresh\">` in the prose",
        lambda t: edited(t, "refresh", "refresh", append_prose('\n<meta http-equiv="refresh" content="0; url=https://evil.example/">\n')),
    ),
    (
        "an `onclick=` attribute in the prose",
        lambda t: edited(t, "onclick", "onclick", append_prose('\n<p onclick="alert(1)">Read more</p>\n')),
    ),
    (
        "a `javascript:` link in the prose",
        lambda t: edited(t, "jslink", "jslink", append_prose("\n[Read more](javascript:alert(1))\n")),
    ),
    (
        "`author_url` `/\\evil.example/`",
        lambda t: edited(
            t,
            "backslash-url",
            "backslash-url",
            edit_json(lambda s: re.sub(r'"author_url": "[^"]*"', lambda _: '"author_url": "/\\\\evil.example/"', s)),
        ),
    ),
]


def main():
    only = sys.argv[5:] or None
    print("| finding | before (seed `" + subprocess.run(["git", "-C", str(SEED), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() + "`) | now |")
    print("| --- | --- | --- |")
    for title, case in CASES:
        if only and case.__name__ not in only and title not in only:
            continue
        cells = []
        for kind in KINDS:
            try:
                cells.append(case(Tool(kind)))
            except Exception as e:  # a harness failure is reported, never hidden
                cells.append(f"(harness error: {type(e).__name__}: {e})")
        print(f"| {title} | {cells[0]} | {cells[1]} |", flush=True)
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
