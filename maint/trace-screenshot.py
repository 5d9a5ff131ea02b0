#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A picture of a gpushim trace, taken in a real browser: the trace's complete events
drawn one track per thread (the load's stages, the driver calls by name, GPU spans) on
a page of its own, rendered by headless Chromium to a PNG. Offline: the page embeds
the trace and draws it on a canvas.

usage: maint/trace-screenshot.py TRACE.json OUT.png [TITLE]   (chromium on PATH)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

PAGE = """<!doctype html><meta charset="utf-8"><title>gpushim trace</title>
<style>body{margin:0;background:#fff;font:12px sans-serif}</style>
<canvas id="c" width="1400" height="HEIGHT"></canvas>
<script>
(() => {
const events = EVENTS, title = TITLE;
const tracks = [...new Set(events.map(e => e.pid + "/" + e.tid))];
const t0 = Math.min(...events.map(e => e.ts)), t1 = Math.max(...events.map(e => e.ts + e.dur));
const c = document.getElementById("c").getContext("2d");
const left = 150, width = 1400 - left - 20, top = 60, row = 34;
const x = t => left + (t - t0) / (t1 - t0) * width;
const colors = {load: "#9e9e9e", cuda: "#3f7fbf", driver: "#5fa35f", gpu: "#d9822b"};
c.fillStyle = "#000"; c.font = "bold 15px sans-serif"; c.fillText(title, 10, 22);
c.font = "12px sans-serif";
for (let i = 0; i <= 10; i++) {
  const t = t0 + (t1 - t0) * i / 10, px = x(t);
  c.fillStyle = "#ddd"; c.fillRect(px, top - 8, 1, tracks.length * row + 8);
  c.fillStyle = "#555"; if (i < 10) c.fillText(((t - t0) / 1000).toFixed(1) + " ms", px + 2, top - 12);
}
tracks.forEach((k, i) => {
  const [pid, tid] = k.split("/");
  c.fillStyle = i % 2 ? "#f6f6f6" : "#fff"; c.fillRect(0, top + i * row, 1400, row);
  c.fillStyle = "#000"; c.fillText("pid " + pid + " tid " + tid, 8, top + i * row + 20);
});
for (const e of events) {
  const i = tracks.indexOf(e.pid + "/" + e.tid), px = x(e.ts), w = Math.max(1.5, x(e.ts + e.dur) - px);
  c.fillStyle = colors[e.cat] || "#888"; c.fillRect(px, top + i * row + 5, w, row - 10);
  if (w > 60) { c.fillStyle = "#fff"; c.fillText(e.name, px + 3, top + i * row + 21, w - 6); }
}
const ly = top + tracks.length * row + 24;
Object.entries({"gpushim load": "load", "driver call (libgpushim-cuda)": "cuda", "driver call (gpushim API)": "driver",
                "GPU span": "gpu"}).forEach(([label, cat], i) => {
  c.fillStyle = colors[cat]; c.fillRect(left + i * 230, ly - 10, 14, 12);
  c.fillStyle = "#000"; c.fillText(label, left + i * 230 + 20, ly);
});
})();
</script>"""


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    trace, out = sys.argv[1], os.path.abspath(sys.argv[2])
    title = sys.argv[3] if len(sys.argv) > 3 else os.path.basename(trace)
    with open(trace) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    if not events:
        sys.exit(f"{trace}: no complete events")
    keep = [{k: e[k] for k in ("name", "cat", "pid", "tid", "ts", "dur")} for e in events]
    tracks = len({(e["pid"], e["tid"]) for e in keep})
    height = 60 + tracks * 34 + 40
    page = (PAGE.replace("HEIGHT", str(height))
            .replace("EVENTS", json.dumps(keep).replace("</", "<\\/"))
            .replace("TITLE", json.dumps(title).replace("</", "<\\/")))
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or sys.exit("no chromium on PATH")
    with tempfile.TemporaryDirectory() as d:
        html = os.path.join(d, "trace.html")
        with open(html, "w") as f:
            f.write(page)
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--window-size=1400,{height}", f"--screenshot={out}", "file://" + html],
                       check=True, capture_output=True, timeout=120)
    print(f"{out}: {len(keep)} events on {tracks} tracks")


if __name__ == "__main__":
    main()
