// Starts Debian's chromium through puppeteer-core, headless, with the flags that keep it from
// reaching the network on its own (see the machine notes): nothing is downloaded.
import puppeteer from "puppeteer-core";

export async function launch() {
  return puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--hide-scrollbars",
    ],
  });
}
