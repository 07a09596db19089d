"""`verikern report`: a self-contained sign-off document (HTML, Markdown),
rendered in a real headless Chromium when the system has one."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers_report import EXAMPLES, SAXPY, UNGUARDED, cli, copy

SECTIONS = ("run", "summary", "assumptions", "hashes", "kernels")


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def _headless(html: Path, tmp_path: Path, *mode: str) -> subprocess.CompletedProcess:
    browser = _chromium()
    if browser is None:
        pytest.skip("no headless Chromium: apt-get install chromium (the Debian package) to run this test")
    return subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
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
    assert "launch: dim=" in row and "confirmed by the simulator" in row
    assert "requires x.shape[0] == y.shape[0]" in text


def test_markdown_has_the_same_sections(tmp_path):
    bug = copy(UNGUARDED, tmp_path)
    code, out, _ = cli("report", bug, "--md")
    assert code == 1
    for heading in ("## Command and tools", "## Summary", "## What every proof assumes",
                    "## Hashes (sha256)", "### fill_unguarded: FAILED"):
        assert heading in out
    assert "  11      out[i] = 1.0    # <- bounds: FAILED, race: PROVED" in out


def test_html_renders_in_headless_chromium(tmp_path):
    saxpy, bug = copy(SAXPY, tmp_path), copy(UNGUARDED, tmp_path)
    out = tmp_path / "report.html"
    cli("report", saxpy, bug, "-o", out)
    dom = _headless(out, tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    for section in SECTIONS:
        assert f'id="{section}"' in dom.stdout
    assert 'id="kernel-0"' in dom.stdout and 'id="kernel-1"' in dom.stdout
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
