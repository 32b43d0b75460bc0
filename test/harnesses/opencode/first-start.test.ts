// opencode installs @opencode-ai/plugin into its config folders before its first answer (measured with 1.18.33):
// Leo says so in the thread when that start is coming, and stays quiet for a returning user.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  needsPluginInstall,
  opencodeConfigDirs,
  opencodeStartNote,
} from '../../../src/harnesses/opencode/first-start.js';
import { startTestDaemon } from '../../helpers/daemon.js';
import { request } from '../../helpers/http.js';
import { tempDir } from '../../helpers/temp-home.js';
import { until } from '../../helpers/wait.js';

/** What opencode leaves in a config folder after its install (a returning user's). */
function installed(dir: string, extra: Record<string, string> = {}): void {
  fs.mkdirSync(path.join(dir, 'node_modules', '@opencode-ai', 'plugin'), { recursive: true });
  const deps = { '@opencode-ai/plugin': '1.18.33', ...extra };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ dependencies: deps }));
  fs.writeFileSync(
    path.join(dir, 'package-lock.json'),
    JSON.stringify({ packages: { '': { dependencies: { '@opencode-ai/plugin': '1.18.33' } } } }),
  );
}

describe("opencode's first start", () => {
  it('an install is due in a folder without node_modules or whose lock lacks a dependency, not otherwise', () => {
    const root = tempDir('leo-oc-deps-');
    const fresh = path.join(root, 'fresh', 'opencode');
    fs.mkdirSync(path.dirname(fresh));
    assert.equal(needsPluginInstall(fresh), true, 'missing: opencode creates it and installs');
    const done = path.join(root, 'done');
    installed(done);
    assert.equal(needsPluginInstall(done), false);
    const more = path.join(root, 'more');
    installed(more, { 'left-pad': '1.3.0' });
    assert.equal(needsPluginInstall(more), true, 'a declared dependency the lock does not have');
    const locked = path.join(root, 'locked');
    fs.mkdirSync(locked, { mode: 0o500 });
    if (process.getuid?.() !== 0) assert.equal(needsPluginInstall(locked), false, 'not writable: skipped');
  });

  it('the folders: the global one, .opencode up to the repository, ~/.opencode, OPENCODE_CONFIG_DIR', () => {
    const root = tempDir('leo-oc-dirs-');
    const repo = path.join(root, 'repo');
    fs.mkdirSync(path.join(repo, '.git'), { recursive: true });
    fs.mkdirSync(path.join(repo, '.opencode'));
    fs.mkdirSync(path.join(repo, 'pkg', '.opencode'), { recursive: true });
    fs.mkdirSync(path.join(root, '.opencode'));
    const env = { HOME: root, XDG_CONFIG_HOME: path.join(root, 'xdg'), OPENCODE_CONFIG_DIR: path.join(root, 'own') };
    assert.deepEqual(opencodeConfigDirs(env, path.join(repo, 'pkg')), [
      path.join(root, 'xdg', 'opencode'),
      path.join(repo, 'pkg', '.opencode'),
      path.join(repo, '.opencode'),
      path.join(root, '.opencode'),
      path.join(root, 'own'),
    ]);
    assert.equal(opencodeConfigDirs({ HOME: root }, repo)[0], path.join(root, '.config', 'opencode'));
    installed(path.join(root, 'xdg', 'opencode'));
    assert.match(
      opencodeStartNote({ HOME: root, XDG_CONFIG_HOME: path.join(root, 'xdg') }, repo) ?? '',
      new RegExp(`^Preparing opencode… .*${path.join(repo, '.opencode')}`),
    );
  });

  it('the thread says "Preparing opencode…" as a new user’s agent starts, and nothing for a returning user', async () => {
    const root = tempDir('leo-oc-start-');
    const bin = path.join(root, 'fake-opencode');
    fs.writeFileSync(bin, '#!/bin/sh\nexec cat\n', { mode: 0o755 });
    for (const who of ['new', 'back']) fs.mkdirSync(path.join(root, who, 'opencode'), { recursive: true });
    installed(path.join(root, 'back', 'opencode'));
    const t = await startTestDaemon({
      config: `environments:
  new: { XDG_CONFIG_HOME: ${JSON.stringify(path.join(root, 'new'))} }
  back: { XDG_CONFIG_HOME: ${JSON.stringify(path.join(root, 'back'))} }
templates:
  fresh: { harness: opencode, command: ${JSON.stringify(bin)}, environments: [new] }
  known: { harness: opencode, command: ${JSON.stringify(bin)}, environments: [back] }
`,
    });
    try {
      const op = t.daemon.operatorToken;
      const notes = async (agent: string) =>
        (await request(t.tcp, 'GET', `/api/v1/chat/${agent}/messages`, { token: op })).json.data.messages
          .filter((m: { kind: string }) => m.kind === 'system')
          .map((m: { text: string }) => m.text) as string[];
      for (const [name, template] of [
        ['nova', 'fresh'],
        ['vet', 'known'],
      ]) {
        const r = await request(t.tcp, 'POST', '/api/v1/agents/spawn', { token: op, body: { template, name } });
        assert.equal(r.status, 201, r.text);
      }
      const said = await until(
        'the note',
        async () => (await notes('nova')).find((n) => n.startsWith('Preparing')),
        10_000,
      );
      assert.ok(said.includes(path.join(root, 'new', 'opencode')), said);
      assert.deepEqual(
        (await notes('vet')).filter((n) => n.startsWith('Preparing')),
        [],
      );
    } finally {
      await t.stop();
    }
  });
});
