// One Chromium for a test run: the files that drive Leo Web connect to it (test/web/browser.ts reads
// LEO_CHROMIUM_WS) instead of each launching and closing a browser of its own, about a CPU-second apiece.
import fs from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';

/**
 * A browser server when one of `files` launches a browser and Chromium is installed, else null; `env`: the run's own
 * (its HOME and TMPDIR), so the browser's profile lives and goes with the run.
 */
export async function sharedChromium(files, env) {
  if (!fs.existsSync(CHROMIUM)) return null;
  if (!files.some((f) => fs.readFileSync(f, 'utf8').includes('launchBrowser('))) return null;
  const { chromium } = await import('playwright-core');
  return chromium.launchServer({ executablePath: CHROMIUM, env });
}
