"""`verikern report`: a self-contained sign-off document (HTML, Markdown),
rendered in a real headless Chromium when the system has one."""
from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from helpers_report import EXAMPLES, SAXPY, UNGUARDED, cli, copy

SECTIONS = ("verdict", "run", "provenance", "qualification", "summary", "assumptions", "hashes", "kernels",
            "signoff")


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def _headless(html: Path, tmp_path: Path, *mode: str) -> subprocess.CompletedProcess:
    browser = _chromium()
    if browser is None:
        pytest.skip("no headless Chromium (/usr/bin/chromium): apt-get install chromium (the Debian "
                    "package; .ci/run installs it) to run this test")
    return subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         f"--user-data-dir={tmp_path / 'chromium-profile'}", "--window-size=1400,3000", *mode,
         html.resolve().as_uri()], capture_output=True, text=True, timeout=180)


def _check_html(text: str, kernels: list[str], sha: dict[str, str]) -> None:
    assert text.startswith("<!DOCTYPE html>")
    for section in SECTIONS:
        assert f'id="{section}"' in text, section
    # self-contained: no scripts, stylesheets, images or frames fetched from anywhere
    assert not re.search(r"<(script|link|img|iframe|object|embed)\b", text, re.I)
    assert not re.search(r"""(src|href)\s*=\s*["'](?!#)""", text, re.I)
    assert "url(" not in text and "@import" not in text
    for name in kernels:
        assert f"</span> {name} <span" in text
    for digest in sha.values():
        assert digest in text


def test_html_has_every_section_marks_and_hashes(tmp_path):
    import hashlib

    saxpy, bug = copy(SAXPY, tmp_path), copy(UNGUARDED, tmp_path)
    out = tmp_path / "report.html"
    code, _, err = cli("report", saxpy, bug, "-o", out)
    assert code == 1 and "wrote" in err
    text = out.read_text()
    _check_html(text, ["saxpy", "fill_unguarded"],
                {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (saxpy, bug)})
    assert f"<code>verikern report {saxpy} {bug} -o {out}</code>" in text
    # the failing line is marked red with its kind, the proved lines green
    assert re.search(r'<span class="ln l-failed" data-line="11">.*out\[i\] = 1\.0.*bounds: FAILED', text)
    assert '<span class="ln l-proved" data-line="17">' in text
    # the failed obligation's row: status, engine, budget, counterexample, confirmation
    row = re.search(r"<tr><td>1</td><td>bounds</td><td>11:5</td>(.*?)</tr>", text, re.S).group(1)
    assert "FAILED" in row and "CPU simulator replay" in row and "10M units/check" in row
    assert "launch: dim=" in row and "simulator replay confirmed: the simulator raised" in row
    assert "confirmed by replay" not in text           # the verdict is said once
    assert "requires x.shape[0] == y.shape[0]" in text


def test_markdown_has_the_same_sections(tmp_path):
    bug = copy(UNGUARDED, tmp_path)
    code, out, _ = cli("report", bug, "--md")
    assert code == 1
    for heading in ("## Command and tools", "## Summary", "## What every proof assumes",
                    "## Hashes (sha256)", "### fill_unguarded: FAILED"):
        assert heading in out
    assert "  11      out[i] = 1.0    # <- bounds: FAILED, race: PROVED" in out


class _Text(HTMLParser):
    """The text a browser shows for a DOM dump (style contents left out)."""

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self._style = False

    def handle_starttag(self, tag, attrs):
        self._style = tag == "style"
        if tag in ("p", "div", "li", "tr", "h1", "h2", "h3", "pre", "span", "table", "section"):
            self.parts.append("\n")

    def handle_endtag(self, tag):
        self._style = False
        if tag in ("td", "th"):
            self.parts.append(" ")

    def handle_data(self, data):
        if not self._style:
            self.parts.append(data)


def _page_text(dom: str) -> str:
    parser = _Text()
    parser.feed(dom)
    return " ".join("".join(parser.parts).split())


def test_html_renders_in_headless_chromium(tmp_path):
    saxpy, bug = copy(SAXPY, tmp_path), copy(UNGUARDED, tmp_path)
    out = tmp_path / "report.html"
    cli("report", saxpy, bug, "-o", out, "--no-cache")
    dom = _headless(out, tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    for section in SECTIONS:
        assert f'id="{section}"' in dom.stdout
    assert 'id="kernel-0"' in dom.stdout and 'id="kernel-1"' in dom.stdout
    # the page as a reader sees it: the banner first, the failure's remedy, the sign-off fields last
    text = _page_text(dom.stdout)
    assert text.index("NOT PROVED: 1 of 2 kernels not proved (1 proved, 1 failed, 0 unknown, 0 error)") \
        < text.index("Command and tools")
    assert "why: an index can leave its array on this launch" in text
    assert "suggested contract (paste it above the kernel" in text and "verdict under it: proved" in text
    assert f"project root: {tmp_path}" in text and "bounds_unguarded_write.py" in text
    assert str(bug) not in text.replace(f"verikern report {saxpy} {bug}", "")   # relative names only
    assert "shipped corpus: " in text and "self-test: not run with this report" in text
    assert text.rstrip().endswith("signature")
    assert text.index("Sign-off") < text.index("reviewer (name, role)") < text.index("decision (accepted")
    if shutil.which("pdftotext"):                      # the printed page says the same
        pdf = tmp_path / "report.pdf"
        assert _headless(out, tmp_path, f"--print-to-pdf={pdf}", "--no-pdf-header-footer").returncode == 0
        printed = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                                 timeout=60).stdout
        assert "NOT PROVED: 1 of 2 kernels not proved" in " ".join(printed.split())
    png = tmp_path / "report.png"
    shot = _headless(out, tmp_path, f"--screenshot={png}")
    assert shot.returncode == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 20_000          # a rendered page, not a blank one


@pytest.mark.slow
def test_the_examples_report_renders_in_headless_chromium(tmp_path):
    out = tmp_path / "examples.html"
    code, _, _ = cli("report", EXAMPLES, "-o", out, "--jobs", "2")
    assert code == 0
    names = sorted({m for m in re.findall(r'<a href="#kernel-\d+">([^<]+)</a>', out.read_text())})
    assert len(names) >= 10
    dom = _headless(out, tmp_path, "--dump-dom")
    assert dom.returncode == 0
    for section in SECTIONS:
        assert f'id="{section}"' in dom.stdout
    assert dom.stdout.count('class="kernel"') == len(re.findall(r'<a href="#kernel-', out.read_text()))
    png = tmp_path / "examples.png"
    assert _headless(out, tmp_path, f"--screenshot={png}").returncode == 0
    assert png.stat().st_size > 50_000
