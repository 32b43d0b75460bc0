import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { paneReady } from '../helpers/harness-agent.js';

/** test/fixtures/panes, found from dist/test/helpers/ or test/helpers/ alike. */
function fixture(name: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const up of ['../..', '../../..']) {
    const file = path.resolve(here, up, 'test', 'fixtures', 'panes', name);
    if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8');
  }
  throw new Error(`no fixture ${name}`);
}

describe('paneReady (the smoke tests’ wait, on real captures)', () => {
  it('codex: ready only once the footer shows the session and the composer is empty', () => {
    assert.equal(paneReady('codex', fixture('codex-ready.txt')), true);
    assert.equal(paneReady('codex', fixture('codex-reply-done.txt')), true);
    for (const f of [
      'codex-before-tui-echo.txt',
      'codex-loading.txt',
      'codex-starting.txt',
      'codex-typed-unsubmitted.txt',
      'codex-early-text-unsubmitted.txt',
      'codex-trust-dialog.txt',
      'codex-hooks-review-dialog.txt',
    ])
      assert.equal(paneReady('codex', fixture(f)), false, f);
  });

  it('opencode: ready once its prompt box is drawn, not while the pane is blank or holds typed text', () => {
    assert.equal(paneReady('opencode', fixture('opencode-ready.txt')), true);
    assert.equal(paneReady('opencode', fixture('opencode-ready-mcp-connected.txt')), true);
    for (const f of ['opencode-before-tui-echo.txt', 'opencode-starting-blank.txt', 'opencode-typed-unsubmitted.txt'])
      assert.equal(paneReady('opencode', fixture(f)), false, f);
  });
});
