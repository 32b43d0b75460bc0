import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pruneFiles } from '../../workers/prune.js';

describe('pruneFiles', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-prune-'));
  after(() => fs.rmSync(base, { recursive: true, force: true }));

  it("removes each attachment's folder under the root and refuses anything that would reach the root or outside", async () => {
    const root = path.join(base, 'attachments');
    const kept = path.join(base, 'elsewhere', 'x', 'file.txt');
    const old = path.join(root, 'alpha', '01ID', 'note.ogg');
    for (const f of [kept, old]) {
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, 'x');
    }
    const atRoot = path.join(root, 'stray.txt');
    fs.writeFileSync(atRoot, 'x');

    const gone = await pruneFiles({
      root,
      files: [old, kept, atRoot, path.join(root, '..', 'elsewhere', 'x', 'file.txt')],
    });

    assert.deepEqual(gone, [old]);
    assert.equal(fs.existsSync(path.dirname(old)), false);
    assert.equal(fs.existsSync(root), true, 'the root itself stays');
    assert.equal(fs.existsSync(atRoot), true);
    assert.equal(fs.existsSync(kept), true);
  });
});
