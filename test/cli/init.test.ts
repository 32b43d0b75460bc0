import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfigFile } from '../../src/config/load.js';
import { runLeo } from '../helpers/cli.js';
import { makeTempHome } from '../helpers/temp-home.js';

/**
 * A home with no leo.yaml and no harness login: the new user's machine, with the harness CLIs `clis` on its PATH (stand-
 * ins: `leo init` and the doctor only look for the program).
 */
function freshHome(clis: string[] = []) {
  const t = makeTempHome();
  fs.rmSync(path.join(t.home, 'leo.yaml'));
  const bin = path.join(t.home, 'bin');
  fs.mkdirSync(bin);
  for (const cli of clis) fs.writeFileSync(path.join(bin, cli), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const env: NodeJS.ProcessEnv = {
    ...t.env,
    PATH: `${bin}:${process.env.PATH}`,
    CLAUDE_CONFIG_DIR: '',
    CODEX_HOME: path.join(t.home, '.codex'),
  };
  for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'OPENAI_API_KEY'])
    delete env[k];
  return { ...t, env, file: path.join(t.home, 'leo.yaml') };
}

const line = (out: string, name: string) =>
  out.split('\n').find((l) => new RegExp(`^\\w+\\s+${name}\\s`).test(l)) ?? '';

describe('leo init', () => {
  it('from a script: asks nothing, writes a commented 0600 leo.yaml the daemon loads, with claude, codex, opencode and shell', async () => {
    const t = freshHome(['claude', 'codex', 'opencode']);
    try {
      const r = runLeo(['init'], t.env);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^wrote ${t.file} \\(templates: claude, codex, opencode, shell\\)`));
      assert.doesNotMatch(r.stdout, /\?/, 'no question asked');
      assert.equal(fs.statSync(t.file).mode & 0o777, 0o600);
      const text = fs.readFileSync(t.file, 'utf8');
      assert.ok(text.split('\n').filter((l) => l.trim().startsWith('#')).length >= 10, 'commented');
      const loaded = await loadConfigFile(t.file, t.home);
      assert.ok(loaded.ok, JSON.stringify(loaded));
      assert.deepEqual(loaded.warnings, []);
      assert.deepEqual(Object.fromEntries(Object.entries(loaded.config.templates).map(([n, tp]) => [n, tp.harness])), {
        claude: 'claude',
        codex: 'codex',
        opencode: 'opencode',
        shell: 'shell',
      });
      assert.equal(loaded.config.templates.shell!.command, 'bash');
    } finally {
      t.cleanup();
    }
  });

  it('a harness whose CLI is not on PATH gets its template commented out, so the doctor has nothing to miss', async () => {
    const t = freshHome(['claude']);
    try {
      const r = runLeo(['init'], t.env);
      assert.equal(r.status, 0, r.stderr);
      assert.match(
        r.stdout,
        /\(templates: claude, shell; written commented out, their CLI not on PATH: codex, opencode\)/,
      );
      const text = fs.readFileSync(t.file, 'utf8');
      assert.match(
        text,
        /# Not installed here \(npm install -g @openai\/codex\); uncomment once it is\.\n {2}# codex:/,
      );
      const loaded = await loadConfigFile(t.file, t.home);
      assert.ok(loaded.ok, JSON.stringify(loaded));
      assert.deepEqual(Object.keys(loaded.config.templates), ['claude', 'shell']);
      const doctor = runLeo(['doctor'], t.env);
      assert.doesNotMatch(doctor.stdout, /required part/, doctor.stdout);
      assert.match(line(doctor.stdout, 'codex CLI'), /^ok\s.*\(no template uses it\)/);
      // Uncommented, as the comment says, it is a template like the others.
      fs.writeFileSync(
        t.file,
        text.replace(/^ {2}# (codex:|  harness: codex|  # model: gpt-5-codex|  # environments: \[openai\])$/gm, '  $1'),
      );
      const again = await loadConfigFile(t.file, t.home);
      assert.ok(again.ok, JSON.stringify(again));
      assert.equal(again.config.templates.codex?.harness, 'codex');
    } finally {
      t.cleanup();
    }
  });

  it('keeps an existing leo.yaml unless --force', () => {
    const t = freshHome();
    try {
      fs.writeFileSync(t.file, '# mine\n');
      const r = runLeo(['init'], t.env);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /exists; edit it, or run `leo init --force`/);
      assert.equal(fs.readFileSync(t.file, 'utf8'), '# mine\n');
      assert.equal(runLeo(['init', '--force'], t.env).status, 0);
      assert.match(fs.readFileSync(t.file, 'utf8'), /templates:/);
    } finally {
      t.cleanup();
    }
  });
});

describe('leo doctor: what each harness a template uses is missing', () => {
  it('no login: says so per harness with how to log in; a login file or the key env makes it ok', () => {
    const t = freshHome(['claude', 'codex', 'opencode']);
    try {
      assert.equal(runLeo(['init'], t.env).status, 0);
      let out = runLeo(['doctor'], t.env).stdout;
      assert.match(
        line(out, 'claude login'),
        /^missing\s+claude login\s+no login or API key found for template\(s\) claude$/,
      );
      assert.match(out, /fix: run `claude` once and log in, or put ANTHROPIC_API_KEY/);
      assert.match(line(out, 'codex login'), /^missing\s.*template\(s\) codex$/);
      assert.match(out, /fix: run `codex login`/);
      assert.match(line(out, 'opencode login'), /^missing\s.*template\(s\) opencode$/);
      assert.match(out, /fix: run `opencode auth login`/);
      assert.match(line(out, 'claude CLI'), /^\w+\s+claude CLI\s/);

      // Claude's login file in the user's home; codex configured for a provider whose env_key is set.
      fs.writeFileSync(path.join(t.home, '.claude.json'), '{}');
      fs.mkdirSync(path.join(t.home, '.codex'));
      fs.writeFileSync(
        path.join(t.home, '.codex', 'config.toml'),
        'model_provider = "corp"\n\n[model_providers.corp]\nbase_url = "https://llm.corp"\nenv_key = "CORP_KEY"\n',
      );
      out = runLeo(['doctor'], { ...t.env, CORP_KEY: 'k' }).stdout;
      assert.match(
        line(out, 'claude login'),
        new RegExp(`^ok\\s+claude login\\s+${path.join(t.home, '.claude.json')} exists`),
      );
      assert.match(line(out, 'codex login'), /^ok\s+codex login\s+CORP_KEY is set$/);
      // OPENAI_API_KEY is not what that provider reads.
      out = runLeo(['doctor'], { ...t.env, OPENAI_API_KEY: 'k' }).stdout;
      assert.match(line(out, 'codex login'), /^missing\s/);
      // A key in a named environment the template lists counts.
      const yaml = fs
        .readFileSync(t.file, 'utf8')
        .replace('environments: {}', 'environments:\n  corp: { CORP_KEY: secret }')
        .replace('    # environments: [openai]', '    environments: [corp]');
      fs.writeFileSync(t.file, yaml);
      out = runLeo(['doctor'], t.env).stdout;
      assert.match(line(out, 'codex login'), /^ok\s+codex login\s+CORP_KEY is set$/);
    } finally {
      t.cleanup();
    }
  });
});
