// The author's loop, as the author meets it: the served page is open; a sentence is saved into
// content/article.md; the page must show it by itself. Then a broken edit must show its error in
// the page, and a fix must recover. Prints one JSON object with the measured delays.
//
// Usage: node serve-reload.mjs <url> <path of content/article.md>
import fs from "node:fs";
import { launch } from "./launch.mjs";

const [url, prose] = process.argv.slice(2);
const original = fs.readFileSync(prose, "utf8");
const browser = await launch();
const result = { reload_ms: [], error_shown: false, error_text: "", recovered: false, console: [] };
try {
  const page = await browser.newPage();
  page.on("console", (m) => result.console.push(m.text()));
  await page.goto(url, { waitUntil: "load" });

  // Saves `text` as the prose and waits for the page to reload itself; returns the delay in ms.
  async function saveAndWait(text) {
    const reloaded = page.waitForNavigation({ waitUntil: "load", timeout: 10000 });
    const t0 = performance.now();
    fs.writeFileSync(prose, text);
    await reloaded;
    return performance.now() - t0;
  }
  const body = () => page.evaluate(() => document.body.innerText);

  for (let i = 0; i < 5; i++) {
    const sentence = `This sentence was saved by the browser test, edit ${i}.`;
    const ms = await saveAndWait(original + "\n" + sentence + "\n");
    if (!(await body()).includes(sentence)) throw new Error(`edit ${i} did not show`);
    result.reload_ms.push(Math.round(ms));
  }
  await saveAndWait(original + "\nA broken edit: {{no_such_value}}\n");
  const banner = await page.$("#serve-error");
  result.error_shown = banner !== null;
  result.error_text = banner ? await page.evaluate((e) => e.innerText, banner) : "";
  await saveAndWait(original);
  result.recovered = (await page.$("#serve-error")) === null && (await body()).includes("Server/Offline");
} finally {
  fs.writeFileSync(prose, original);
  await browser.close();
}
console.log(JSON.stringify(result));
