import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setConfigKey } from '../../src/config/config-file.js';

describe('setConfigKey', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-config-file-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'leo.yaml');

  it('adds a nested key keeping comments, and deleting the last one leaves no empty parent behind', () => {
    fs.writeFileSync(file, '# my machine\nweb:\n  listen: 127.0.0.1:18480 # the port\n');
    assert.deepEqual(setConfigKey(file, ['client', 'hosts', 'desk'], { url: 'http://10.0.0.2:8484' }, dir), {
      ok: true,
    });
    assert.deepEqual(setConfigKey(file, ['client', 'hosts', 'box'], { url: 'https://box.example' }, dir), { ok: true });
    assert.match(
      fs.readFileSync(file, 'utf8'),
      /# my machine[\s\S]*# the port[\s\S]*desk:\n\s+url: http:\/\/10\.0\.0\.2:8484/,
    );

    assert.deepEqual(setConfigKey(file, ['client', 'hosts', 'desk'], undefined, dir), { ok: true });
    assert.match(fs.readFileSync(file, 'utf8'), /hosts:\n\s+box:/, 'a parent that still holds a host stays');
    assert.deepEqual(setConfigKey(file, ['client', 'hosts', 'box'], undefined, dir), { ok: true });
    assert.equal(fs.readFileSync(file, 'utf8'), '# my machine\nweb:\n  listen: 127.0.0.1:18480 # the port\n');
  });
});
