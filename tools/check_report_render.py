#!/usr/bin/python3
"""Renders an ntpbench HTML report in headless Chromium and checks that its charts show.

  tools/check_report_render.py report.html [--png out.png] [--min-charts N]

Every chart of the report is an inline SVG on one background colour (src/report/svg.h,
kChartBackground): the check finds those regions in the screenshot and requires at least N of
them, each with coloured drawing in it (bars, points, ceilings; labels and grid lines are grey
and do not count). Exit 0: they
show; 1: they do not; 77: no chromium or no Python imaging here (the test skips).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

BACKGROUND = (0xF7, 0xF7, 0xFB)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--png", help="keep the screenshot here")
    ap.add_argument("--min-charts", type=int, default=3)
    ap.add_argument("--height", type=int, default=6000)
    args = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from PIL import Image
    except ImportError:
        print("skipped: no Python imaging (python3-pil)")
        return 77
    if not chromium:
        print("skipped: no chromium (apt-get install chromium)")
        return 77
    png = args.png or os.path.join(tempfile.mkdtemp(), "report.png")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", "--user-data-dir=" + profile,
                        f"--window-size=1280,{args.height}", "--screenshot=" + png,
                        "file://" + os.path.abspath(args.report)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)
    if not os.path.exists(png):
        print("chromium wrote no screenshot")
        return 1
    image = Image.open(png).convert("RGB")
    width, height = image.size
    pixels = image.load()
    # Chart regions: runs of rows holding many background pixels (bars and text interrupt them;
    # a grid line is a gap of a row or two).
    def background(y):
        xs = [x for x in range(0, width, 2) if pixels[x, y] == BACKGROUND]
        return (len(xs) * 2, xs[0], xs[-1]) if xs else (0, 0, 0)
    rows = [background(y) for y in range(height)]
    charts = []
    y = 0
    while y < height:
        if rows[y][0] < 150:
            y += 1
            continue
        top = y
        x0, x1 = width, 0
        while y < height and any(rows[yy][0] >= 150 for yy in range(y, min(height, y + 4))):
            if rows[y][0] >= 150:
                x0, x1 = min(x0, rows[y][1]), max(x1, rows[y][2])
            y += 1
        if y - top < 30:
            continue
        drawn = total = 0
        for yy in range(top, y, 2):
            for xx in range(x0, x1, 2):
                total += 1
                r, g, b = pixels[xx, yy]
                # Bars, points and ceilings are coloured; labels and grid lines are grey.
                drawn += max(r, g, b) - min(r, g, b) > 40
        charts.append((top, y, drawn / max(total, 1)))
    blank = [c for c in charts if c[2] < 0.001]
    print(f"{len(charts)} charts found in {png}; drawn share per chart: "
          + ", ".join(f"{c[2]:.1%}" for c in charts))
    if len(charts) < args.min_charts:
        print(f"expected at least {args.min_charts} charts")
        return 1
    if blank:
        print(f"{len(blank)} chart(s) blank (rows {[(c[0], c[1]) for c in blank]})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
