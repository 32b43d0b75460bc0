// The quick start as a new user meets it (issue 16): `npm start` in a terminal runs `leo daemon`, which prints Leo
// Web's address and a one-time pairing link with its QR code; opening that link in a browser pairs it and shows the
// fleet. The daemon runs under `script`, so its stderr is a real terminal, as in a person's shell.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { LEO_BIN, runLeoAsync, waitForExit } from '../helpers/cli.js';
import { makeTempHome, testConfig } from '../helpers/temp-home.js';
import { launchBrowser, watchPage } from './browser.js';

const sh = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

describe('Leo Web: the first start in a terminal', () => {
  const home = makeTempHome(testConfig());
  let browser: Browser | undefined;
  after(async () => {
    await browser?.close();
    home.cleanup();
  });

  it('prints a pairing link and a QR code; the link pairs the first browser to open it, once', async () => {
    const child = spawn('script', ['-qfec', `${sh(process.execPath)} ${sh(LEO_BIN)} daemon`, '/dev/null'], {
      env: home.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      const link = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no pairing link printed:\n${out}`)), 30_000);
        child.stdout.on('data', () => {
          // The whole link (its line ended) and the QR code drawn under it.
          const m = /(http:\/\/127\.0\.0\.1:\d+\/#pair=[\w-]+)\r?\n/.exec(out);
          if (
            m &&
            out
              .slice(m.index)
              .split('\n')
              .filter((row) => /[█▀▄]/.test(row)).length >= 15
          ) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
      });
      assert.match(out, /Leo Web: http:\/\/127\.0\.0\.1:\d+\//);
      assert.doesNotMatch(out, /leo_[a-z]+_[A-Za-z0-9]{20,}/, 'no token is printed');
      // The first link is the owner's own browser: it may run the fleet (issue 29).
      assert.match(out, /it may run the fleet/);

      browser = await launchBrowser();
      const page = watchPage(await browser.newPage());
      await page.goto(link);
      await page.locator('[data-connection="live"]').waitFor();
      await page.locator('.fleet-screen h1', { hasText: 'Fleet' }).waitFor();
      assert.doesNotMatch(page.url(), /pair=/, 'the code leaves the address bar');
      await page.locator('.new-link').waitFor();
      const listed = await runLeoAsync(['device', 'list', '--json'], home.env);
      assert.deepEqual(
        (JSON.parse(listed.stdout) as { name: string; fleet: boolean }[]).map((d) => [
          /^browser /.test(d.name),
          d.fleet,
        ]),
        [[true, true]],
      );
      // The link was for one browser: a second use is refused.
      const again = watchPage(await browser.newPage());
      await again.goto(link);
      await again.locator('[data-screen="unpaired"]').waitFor();
    } finally {
      child.kill('SIGTERM');
      await waitForExit(child).catch(() => child.kill('SIGKILL'));
    }
  });
});
