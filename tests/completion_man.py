#!/usr/bin/env python3
"""The generated completions in real shells, and the generated man page through groff.

usage: tests/completion_man.py BUILD_DIR

bash: sources `inferlint completion bash` in a real bash and asks its completion function
what it offers (COMP_WORDS/COMP_CWORD as bash sets them): every command after
`inferlint `, the options of a command, the engines after --engine, the formats after
--format, the tripwire codes and slugs after `explain`. zsh and fish (where installed;
scripts/bootstrap installs both): the scripts parse (`zsh -n`, `fish --no-execute`), and the
shells complete real lines: fish through `complete -C`, zsh through a pseudo-terminal, TAB
on a typed line. The man page (the build's
generated/inferlint.1, which must equal `inferlint --man`) renders with `groff -ww -man
-Tutf8` without a warning and names every command and tripwire; `man -l` reads it too.
Exit 77 (skipped) only when bash or groff is missing; 1 on any failure.
"""
from __future__ import annotations

import json
import os
import pathlib
import pty
import re
import select
import shutil
import subprocess
import sys
import time

failures: list[str] = []


def check(cond: bool, what: str) -> None:
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def offered(script: str, words: list[str]) -> list[str]:
    """What _inferlint puts in COMPREPLY for the command line `words` (the last one is being typed)."""
    prog = (f"source {script}\nCOMP_WORDS=({' '.join(repr(w) for w in words)})\n"
            f"COMP_CWORD={len(words) - 1}\n_inferlint\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", prog], capture_output=True, text=True, timeout=30)
    check(r.returncode == 0 and r.stderr == "", f"bash runs the completion for {words}: {r.stderr.strip()}")
    return [l for l in r.stdout.splitlines() if l]


def zsh_completes(fdir: pathlib.Path, typed: str, want: str) -> str | None:
    """The line a real interactive zsh runs after TAB on `typed`, with the completion in
    fdir and `inferlint` a function that prints its arguments."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe("zsh", ["zsh", "-f", "-i"], {"PATH": os.environ["PATH"], "TERM": "dumb", "HOME": str(fdir)})
    out = b""

    def read_until(token: bytes, seconds: float = 10) -> None:
        nonlocal out
        end = time.monotonic() + seconds
        while token not in out and time.monotonic() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    out += os.read(fd, 4096)
                except OSError:
                    return

    try:
        os.write(fd, (f"PS1='> '; fpath=({fdir} $fpath); autoload -U compinit; compinit -u -D; "
                      "inferlint() { print -r -- \"ARGS<$*>\" }; print READY\n").encode())
        read_until(b"READY\r\n")
        out = b""
        os.write(fd, typed.encode() + b"\t")
        # The completion runs (slower on a busy machine); once the line shows the word
        # wanted, or after 5 s, the line is run as it stands.
        read_until(want.split()[-1].encode(), 5)
        time.sleep(0.1)
        os.write(fd, b"\n")
        read_until(b">\r\n")
        os.write(fd, b"exit\n")
    finally:
        os.close(fd)
        os.waitpid(pid, 0)
    m = re.search(rb"ARGS<(.*?)>\r\n", out)
    return m.group(1).decode() if m else None


def main() -> int:
    build = pathlib.Path(sys.argv[1]).resolve()
    binary = str(build / "inferlint")
    if not shutil.which("bash") or not shutil.which("groff"):
        print("completion_man: skipped (bash or groff is not installed)")
        return 77
    tmp = build / "completion-test"
    tmp.mkdir(exist_ok=True)
    script = tmp / "inferlint.bash"
    script.write_bytes(subprocess.run([binary, "completion", "bash"], capture_output=True, check=True).stdout)
    help_text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    # The commands --help lists: "  name   summary" under each group's heading.
    commands = {l.split()[0] for l in help_text.splitlines()
                if l.startswith("  ") and not l.startswith("   ") and l.split()[0][0].isalpha()}
    got = set(offered(str(script), ["inferlint", ""]))
    check({"xray", "report", "explain", "completion", "series", "check-log"} <= got, f"commands offered: {sorted(got)}")
    check(commands <= got, f"every command --help lists is offered (missing: {sorted(commands - got)})")
    check(set(offered(str(script), ["inferlint", "pre"])) == {"preemption", "prefix-cache"}, "pre<TAB>")
    opts = offered(str(script), ["inferlint", "report", "--"])
    for o in ("--format", "--output-file", "--color", "--json", "--strict", "--engine", "--requested", "--title"):
        check(o in opts, f"report -- offers {o}")
    check(offered(str(script), ["inferlint", "series", "--engine", ""]) == ["vllm", "sglang", "trtllm"],
          "--engine offers the engines")
    check(offered(str(script), ["inferlint", "xray", "--format", "j"]) == ["json", "junit"], "--format j")
    explain = offered(str(script), ["inferlint", "explain", ""])
    ids = [l.split()[0] for l in subprocess.run([binary, "explain"], capture_output=True, text=True).stdout.splitlines()
           if l.startswith("T") and l.split()[0][1:].isdigit()]
    check(bool(ids) and set(ids) <= set(explain), f"explain offers every tripwire code ({len(ids)})")
    check("silent-preemption" in explain, "explain offers the slugs")
    check(offered(str(script), ["inferlint", "explain", "silent-p"]) == ["silent-preemption"], "explain silent-p")
    check(offered(str(script), ["inferlint", "completion", ""]) == ["bash", "zsh", "fish"], "completion's shells")
    for shell, argv in (("zsh", ["zsh", "-n"]), ("fish", ["fish", "--no-execute"])):
        text = subprocess.run([binary, "completion", shell], capture_output=True, text=True).stdout
        check("explain" in text and "--output-file" in text[text.find("xray"):] if shell == "zsh" else
              "explain" in text and "output-file" in text, f"{shell} script names the commands and options")
        if shutil.which(argv[0]):
            f = tmp / f"inferlint.{shell}"
            f.write_text(text)
            r = subprocess.run([*argv, str(f)], capture_output=True, text=True)
            check(r.returncode == 0, f"{shell} parses its script: {r.stderr.strip()}")
        else:
            print(f"note: {shell} is not installed; its script is not parsed")
    # What each shell really completes, asked the way each is asked: fish with `complete -C`,
    # zsh through a terminal (TAB on a typed line; what ran then is the completed line).
    cases = [("inferlint expl", "explain"), ("inferlint explain silent-p", "explain silent-preemption"),
             ("inferlint series --engi", "series --engine"), ("inferlint series --engine sgl", "series --engine sglang"),
             ("inferlint xray --format jun", "xray --format junit"), ("inferlint completion fi", "completion fish")]
    if shutil.which("fish"):
        f = tmp / "inferlint.fish"
        f.write_bytes(subprocess.run([binary, "completion", "fish"], capture_output=True, check=True).stdout)
        for typed, want in cases:
            r = subprocess.run(["fish", "--no-config", "-c", f"source {f}; complete -C '{typed}'"], capture_output=True,
                               text=True, timeout=30)
            got = [l.split("\t")[0] for l in r.stdout.splitlines()]
            last = want.split()[-1]
            check(last in got and all(g.startswith(typed.split()[-1]) for g in got),
                  f"fish completes {typed!r} with {last!r}: {got}")
    else:
        print("note: fish is not installed; its completions are not run")
    if shutil.which("zsh"):
        zdir = tmp / "zsh"
        zdir.mkdir(exist_ok=True)
        (zdir / "_inferlint").write_bytes(subprocess.run([binary, "completion", "zsh"], capture_output=True,
                                                         check=True).stdout)
        for typed, want in cases:
            got = zsh_completes(zdir, typed, want)
            check(got == want, f"zsh completes {typed!r} to {want!r}: {got!r}")
    else:
        print("note: zsh is not installed; its completions are not run")

    page = build / "generated" / "inferlint.1"
    man = subprocess.run([binary, "--man"], capture_output=True).stdout
    check(page.is_file() and page.read_bytes() == man, "the build made generated/inferlint.1, equal to --man")
    r = subprocess.run(["groff", "-ww", "-man", "-Tutf8", "-z"], input=man, capture_output=True)
    check(r.returncode == 0 and r.stderr == b"", f"groff -ww renders it without a warning: {r.stderr[:500]!r}")
    r = subprocess.run(["groff", "-man", "-Tutf8", "-P", "-cbou"], input=man, capture_output=True)
    text = r.stdout.decode(errors="replace")
    for c in sorted(commands):
        check(f"inferlint {c}" in text, f"the man page has the command {c}")
    for t in ids:
        check(f"\n       {t} (" in text, f"the man page lists {t}")
    if shutil.which("man"):
        r = subprocess.run(["man", "-l", str(page)], capture_output=True, env={**os.environ, "MANPAGER": "cat",
                                                                                "MANWIDTH": "100"})
        check(r.returncode == 0 and b"TRIPWIRES" in r.stdout, f"man -l reads it: {r.stderr[:300]!r}")
    print(f"completion_man: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
