// The published page as readers meet it, in Debian's chromium: every width from a small phone
// (320 px) to a wide desktop (1440 px), light, and the phone (390 px) and desktop (1280 px) also
// dark; then print. For each view it reports what the first screen holds (as loaded), then, with
// every <details> opened: axe-core's violations, the document's width against the viewport, any
// box outside the viewport that no scrolling region holds, scrolling regions that are not
// focusable and labelled, each displayed figure's fit, its smallest label in CSS px, the lowest
// contrast of its labels and every chart line whose box crosses a label's box, console messages
// and network requests; then the standalone SVGs' label contrast, light and dark. It saves
// screenshots and the printed PDF.
//
// Usage: node article-check.mjs <article.html> <folder for screenshots and the PDF>
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { launch } from "./launch.mjs";

const require = createRequire(import.meta.url);
const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const [article, outDir] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });
const url = "file://" + path.resolve(article);

// In the page's context: every visible label of `svg` against the paint under its centre
// (its shapes composited over the background the drawing sits on), as WCAG contrast ratios; the
// lowest, and each label under 4.5:1.
const labelContrast = (svg) => {
  const rgba = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [r, g, b, a];
  };
  const paint = (el) => {
    const cs = getComputedStyle(el);
    if (cs.fill === "none" || cs.visibility === "hidden" || cs.display === "none") return null;
    const c = rgba(cs.fill);
    if (!c) return null;
    c[3] *= parseFloat(cs.fillOpacity) * parseFloat(cs.opacity);
    return c[3] > 0 ? c : null;
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3]));
  const lum = ([r, g, b]) => {
    const f = (v) => ((v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => {
    const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  // Under the drawing: the background of the nearest element that paints one (white if none).
  let base = [255, 255, 255];
  for (let a = svg.parentElement; a; a = a.parentElement) {
    const c = rgba(getComputedStyle(a).backgroundColor);
    if (c && c[3] > 0) {
      base = c.slice(0, 3);
      break;
    }
  }
  let lowest = Infinity;
  const low = [];
  for (const t of svg.querySelectorAll("text")) {
    // elementsFromPoint sees only what is in the viewport.
    t.scrollIntoView({ block: "center", inline: "center" });
    const r = t.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const layers = document.elementsFromPoint(x, y)
      .filter((e) => svg.contains(e) && e !== svg && e.tagName.toLowerCase() !== "text" && e.tagName.toLowerCase() !== "tspan")
      .map(paint)
      .filter(Boolean);
    let under = base;
    for (const l of layers.reverse()) under = over(l, under);
    const fg = paint(t);
    if (!fg) continue;
    const c = ratio(over(fg, under), under);
    lowest = Math.min(lowest, c);
    if (c < 4.5) low.push(`${t.textContent.trim().slice(0, 40)}: ${c.toFixed(2)}:1`);
  }
  return { lowest: Math.round(lowest * 100) / 100, low: low.slice(0, 20) };
};

const browser = await launch();
const report = { views: [], print: null };
try {
  const widths = [320, 360, 390, 480, 600, 641, 700, 760, 761, 768, 900, 1024, 1280, 1440];
  const views = widths.flatMap((w) => (w === 390 || w === 1280 ? [[w, "light"], [w, "dark"]] : [[w, "light"]]));
  for (const [width, scheme] of views) {
    const height = width < 641 ? 844 : 900;
    {
      const page = await browser.newPage();
      const consoleLines = [];
      const requests = [];
      page.on("console", (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
      page.on("pageerror", (e) => consoleLines.push(`pageerror: ${e.message}`));
      page.on("request", (r) => {
        if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) requests.push(r.url());
      });
      await page.setViewport({ width, height, deviceScaleFactor: 1 });
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
      await page.goto(url, { waitUntil: "load" });
      const shot = path.join(outDir, `article-${width}-${scheme}.png`);
      await page.screenshot({ path: shot, fullPage: true });
      await page.screenshot({ path: path.join(outDir, `first-screen-${width}-${scheme}.png`) });
      // The first screen, as the page loads: where the first highlighted number and figure 1
      // are, and the page's height.
      const first = await page.evaluate(() => {
        const value = document.querySelector('[data-value^="hl."][data-value$=".ratio"]');
        const fig = document.getElementById("figure-1");
        return {
          first_value: value ? value.textContent : null,
          first_value_bottom: value ? Math.round(value.getBoundingClientRect().bottom + scrollY) : null,
          figure_1_top: fig ? Math.round(fig.getBoundingClientRect().top + scrollY) : null,
          page_height: document.documentElement.scrollHeight,
        };
      });
      // Open every <details> for the checks (axe must see the tables inside them).
      await page.evaluate(() => document.querySelectorAll("details").forEach((d) => (d.open = true)));
      const layout = await page.evaluate((contrastSource) => {
        const labelContrast = eval(contrastSource);
        const vw = document.documentElement.clientWidth;
        const overflowing = [];
        // Inside a visually hidden container (clip:rect(...) 1px boxes: table heads read by
        // screen readers, .sr-only captions), nothing is on screen.
        const clipped = (el) => {
          for (let a = el; a; a = a.parentElement) {
            const cs = getComputedStyle(a);
            if (cs.clip !== "auto" && cs.position === "absolute") return true;
          }
          return false;
        };
        // A region that scrolls sideways by design holds what is wider than the page.
        const scroller = (el) => {
          for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
            if (["auto", "scroll"].includes(getComputedStyle(a).overflowX)) return a;
          }
          return null;
        };
        const regions = [];
        for (const el of document.querySelectorAll("body *")) {
          const r = el.getBoundingClientRect();
          if (r.width === 0 && r.height === 0) continue;
          if (clipped(el)) continue;
          const holder = scroller(el);
          const box = holder ? holder.getBoundingClientRect() : r;
          if (box.right > vw + 0.5 || box.left < -0.5) {
            const table = el.closest("table");
            overflowing.push(`${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${el.className && typeof el.className === "string" ? "." + el.className.split(" ")[0] : ""}${table ? " in table " + (table.id || table.caption?.textContent || "") : ""} [${Math.round(r.left)}, ${Math.round(r.right)}]`);
          }
          if (el.scrollWidth > el.clientWidth + 1 && ["auto", "scroll"].includes(getComputedStyle(el).overflowX)) {
            // It scrolls: a keyboard must reach it and a screen reader name it.
            const names = (el.getAttribute("aria-labelledby") || "").split(" ").filter(Boolean);
            const name = names.map((id) => document.getElementById(id)?.textContent.trim() || "").join(" ").trim();
            const ok = el.getAttribute("role") === "region" && el.tabIndex === 0 && name !== "";
            regions.push({ name, ok, width: el.scrollWidth, shown: el.clientWidth });
          }
        }
        const figures = [];
        for (const svg of document.querySelectorAll("figure svg")) {
          const box = svg.getBoundingClientRect();
          if (box.width === 0) continue; // the other layout, hidden
          const vb = svg.viewBox.baseVal;
          const scale = box.width / vb.width;
          let smallest = Infinity;
          let smallestText = "";
          for (const t of svg.querySelectorAll("text")) {
            const size = parseFloat(getComputedStyle(t).fontSize) * scale;
            const tb = t.getBoundingClientRect();
            if (tb.width > 0 && size < smallest) {
              smallest = size;
              smallestText = t.textContent;
            }
          }
          // Every label must lie inside its drawing.
          const outside = [...svg.querySelectorAll("text")]
            .filter((t) => {
              const tb = t.getBoundingClientRect();
              return tb.width > 0 && (tb.left < box.left - 0.5 || tb.right > box.right + 0.5);
            })
            .map((t) => t.textContent);
          // No chart line's box may cross a label's box (shared edges aside).
          const crossings = [];
          const shown = (e) => {
            const cs = getComputedStyle(e);
            return cs.display !== "none" && cs.visibility !== "hidden" && cs.stroke !== "none";
          };
          const labels = [...svg.querySelectorAll("text")]
            .map((t) => [t, t.getBoundingClientRect()])
            .filter(([, b]) => b.width > 0);
          for (const l of svg.querySelectorAll("line, polyline, path")) {
            if (!shown(l)) continue;
            const w = parseFloat(getComputedStyle(l).strokeWidth) * scale / 2;
            const lb = l.getBoundingClientRect();
            const [x0, x1, y0, y1] = [lb.left - w, lb.right + w, lb.top - w, lb.bottom + w];
            for (const [t, tb] of labels) {
              const dx = Math.min(x1, tb.right) - Math.max(x0, tb.left);
              const dy = Math.min(y1, tb.bottom) - Math.max(y0, tb.top);
              if (dx > 0.5 && dy > 0.5) {
                crossings.push(`${l.getAttribute("class")} × "${t.textContent.trim().slice(0, 30)}"`);
              }
            }
          }
          const contrast = labelContrast(svg);
          figures.push({
            id: svg.getAttribute("aria-labelledby"),
            lowest_contrast: contrast.lowest,
            low_contrast: contrast.low,
            width: Math.round(box.width),
            container: Math.round(svg.parentElement.getBoundingClientRect().width),
            smallest_label_px: Math.round(smallest * 100) / 100,
            smallest_label: smallestText,
            labels_outside: outside,
            lines_crossing_labels: [...new Set(crossings)].slice(0, 20),
          });
        }
        // A reflowed table cell shows its column's name before the value (a ::before label):
        // the cell must be tall enough for the label, or the label runs into the next cell.
        const labelsCut = [];
        for (const td of document.querySelectorAll("td[data-label]")) {
          const b = getComputedStyle(td, "::before");
          if (b.content === "none" || b.content === "normal" || b.display === "none") continue;
          const r = td.getBoundingClientRect();
          if (r.height === 0 || clipped(td)) continue;
          const probe = document.createElement("div");
          probe.textContent = td.dataset.label;
          Object.assign(probe.style, {
            position: "absolute", visibility: "hidden", left: "0", top: "0", padding: "0",
            boxSizing: "content-box", width: b.width, fontFamily: b.fontFamily, fontSize: b.fontSize,
            fontWeight: b.fontWeight, fontStyle: b.fontStyle, lineHeight: b.lineHeight,
            letterSpacing: b.letterSpacing, overflowWrap: b.overflowWrap, whiteSpace: b.whiteSpace,
          });
          document.body.appendChild(probe);
          const need = probe.getBoundingClientRect().height;
          probe.remove();
          if (need > r.height + 0.5) {
            labelsCut.push(`${td.dataset.label}: ${Math.round(need)} px in a ${Math.round(r.height)} px cell`);
          }
        }
        return {
          labels_cut: [...new Set(labelsCut)].slice(0, 20),
          viewport: vw,
          document_width: document.documentElement.scrollWidth,
          overflowing: overflowing.slice(0, 20),
          scrolling_regions: regions,
          figures,
        };
      }, labelContrast.toString());
      // Evaluated through CDP, which the page's Content-Security-Policy does not govern.
      await page.evaluate(axeSource);
      const axe = await page.evaluate(async () => {
        const r = await window.axe.run(document, { resultTypes: ["violations"] });
        return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help, first: v.nodes[0]?.target }));
      });
      report.views.push({ width, height, scheme, screenshot: shot, ...first, ...layout, axe, console: consoleLines, requests });
      await page.close();
    }
  }

  // The standalone figures beside the page, opened as files of their own, light and dark.
  report.standalone = [];
  for (const name of ["scenario-ratios.svg", "ratios-by-model.svg"]) {
    const file = path.resolve(path.dirname(article), name);
    if (!fs.existsSync(file)) continue;
    for (const scheme of ["light", "dark"]) {
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 900, deviceScaleFactor: 1 });
      await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
      await page.goto("file://" + file, { waitUntil: "load" });
      const contrast = await page.evaluate((src) => eval(src)(document.documentElement), labelContrast.toString());
      report.standalone.push({ file: name, scheme, lowest_contrast: contrast.lowest, low_contrast: contrast.low });
      await page.close();
    }
  }

  // Print: what the PDF holds, and the same in print emulation for the DOM-level checks.
  const page = await browser.newPage();
  await page.goto(url, { waitUntil: "load" });
  await page.emulateMediaType("print");
  const printed = await page.evaluate(() => {
    const closed = [...document.querySelectorAll("details")].filter((d) => !d.open);
    const hiddenContent = closed.filter((d) => {
      const inside = [...d.children].filter((c) => c.tagName !== "SUMMARY");
      // A closed <details> hides its content with content-visibility, under which layout
      // queries still measure it: ask whether it is rendered at all.
      return inside.length === 0 || inside.every((c) => !c.checkVisibility());
    }).map((d) => d.id);
    const link = document.querySelector('a[href^="https://arxiv.org"]');
    const after = link ? getComputedStyle(link, "::after").content : "";
    const relative = document.querySelector('a[href="pairs.csv"]');
    const relativeAfter = relative ? getComputedStyle(relative, "::after").content : "";
    return { closed_details: closed.length, details_hidden_in_print: hiddenContent, link_after: after, relative_link_after: relativeAfter };
  });
  const pdf = path.join(outDir, "article.pdf");
  await page.pdf({ path: pdf, format: "A4", printBackground: false });
  report.print = { pdf, ...printed };
  await page.close();
} finally {
  await browser.close();
}
console.log(JSON.stringify(report));
