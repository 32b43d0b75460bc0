import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultConfig, formatKeyPath, loadConfigFile, parseConfig } from '../../src/config/load.js';

const HOME = '/home/tester';

function errorsOf(text: string): string[] {
  const res = parseConfig(text, { file: 'leo.yaml', home: HOME });
  if (res.ok) assert.fail('expected errors, config loaded');
  return res.errors;
}

describe('errors name the key and line', () => {
  it('bad listen', () => {
    assert.deepEqual(errorsOf('# leo\nlog:\n  level: info\nweb:\n  listen: abc\n'), [
      'leo.yaml:5: web.listen: expected host:port, got "abc"',
    ]);
  });

  it('wrong type nested in templates', () => {
    const errors = errorsOf(`templates:
  fable:
    model: opus
  other:
    permissions:
      bypass_permissions: "yes"
      allow: [1]
`);
    assert.deepEqual(errors, [
      'leo.yaml:6: templates.other.permissions.bypass_permissions: expected boolean, got "yes"',
      'leo.yaml:7: templates.other.permissions.allow[0]: expected string, got number 1',
    ]);
  });

  it('shell template without command points at the template', () => {
    assert.deepEqual(errorsOf('templates:\n  sh:\n    harness: shell\n'), [
      'leo.yaml:2: templates.sh.command: required when harness is shell',
    ]);
  });

  it('persistent task without template', () => {
    const errors = errorsOf(`tasks:
  ok:
    schedule: "@daily"
    prompt: p
  pers:
    schedule: "@daily"
    prompt: p
    runtime: persistent
`);
    assert.deepEqual(errors, ['leo.yaml:5: tasks.pers.template: required when runtime is persistent']);
  });

  it('missing required task fields and a bad enum are all reported, in line order', () => {
    const errors = errorsOf(`tasks:
  t:
    runtime: sometimes
    timeout: later
`);
    assert.deepEqual(errors, [
      'leo.yaml:2: tasks.t.schedule: required',
      'leo.yaml:2: tasks.t.prompt: required for a claude task (only a shell task runs without one)',
      'leo.yaml:3: tasks.t.runtime: expected one of oneshot, persistent, got "sometimes"',
      'leo.yaml:4: tasks.t.timeout: expected a duration like "30s", "5m", "1h", "90d" or a number of seconds, got "later"',
    ]);
  });

  it('a prompt is required of every task but a oneshot shell one', () => {
    const res = parseConfig(
      `templates:
  sh:
    harness: shell
    command: ./backup.sh
tasks:
  backup:
    schedule: "@daily"
    template: sh
  own-command:
    schedule: "@daily"
    harness: shell
    command: ./sync.sh
`,
      { file: 'leo.yaml', home: HOME },
    );
    assert.ok(res.ok, res.ok ? '' : res.errors.join('\n'));
    assert.equal(res.config.tasks['backup']?.prompt, undefined);
    const errors = errorsOf(`templates:
  sh:
    harness: shell
    command: ./backup.sh
  coder:
    harness: codex
tasks:
  ask-codex:
    schedule: "@daily"
    template: coder
  ask-default:
    schedule: "@daily"
  kept-shell:
    schedule: "@daily"
    template: sh
    runtime: persistent
`);
    assert.deepEqual(errors, [
      'leo.yaml:8: tasks.ask-codex.prompt: required for a codex task (only a shell task runs without one)',
      'leo.yaml:11: tasks.ask-default.prompt: required for a claude task (only a shell task runs without one)',
      'leo.yaml:13: tasks.kept-shell.prompt: required when runtime is persistent',
    ]);
  });

  it('invalid names', () => {
    const errors = errorsOf('templates:\n  ok: {}\n  "-bad": {}\nenvironments:\n  "has space":\n    A: b\n');
    assert.equal(errors.length, 2);
    assert.match(
      errors[0] ?? '',
      /^leo\.yaml:3: templates\.-bad: invalid name "-bad": must start with a letter or digit/,
    );
    assert.match(errors[1] ?? '', /^leo\.yaml:5: environments\.has space: invalid name "has space"/);
  });

  it('appearance rule without emoji or color', () => {
    assert.deepEqual(errorsOf("appearance_rules:\n  - emoji: x\n  - match: { name: 'a*' }\n"), [
      'leo.yaml:3: appearance_rules[1]: set emoji or color (or both)',
    ]);
  });

  it('a section of the wrong shape', () => {
    assert.deepEqual(errorsOf('web: 8370\n'), ['leo.yaml:1: web: expected a mapping, got number 8370']);
    assert.deepEqual(errorsOf('appearance_rules:\n  emoji: x\n'), [
      'leo.yaml:1: appearance_rules: expected a list, got a mapping',
    ]);
  });

  it('out-of-range numbers', () => {
    assert.deepEqual(errorsOf('pool:\n  threads: 65\n'), ['leo.yaml:2: pool.threads: must be <= 64, got number 65']);
  });

  it('YAML syntax error gives the line', () => {
    const errors = errorsOf('web:\n  listen: 127.0.0.1:8370\n  allowed_hosts: [a, b\nlog:\n  level: info\n');
    assert.ok(errors.length >= 1);
    for (const e of errors) assert.match(e, /^leo\.yaml:\d+: YAML syntax error: /);
    assert.match(errors[0] ?? '', /^leo\.yaml:[34]: /);
  });

  it('bad indentation is a syntax error with its line', () => {
    const errors = errorsOf('web:\n  listen: a:1\n body_limit: 3\n');
    assert.match(errors[0] ?? '', /^leo\.yaml:3: YAML syntax error: /);
  });

  it('duplicate keys are an error', () => {
    const errors = errorsOf('web:\n  listen: a:1\n  listen: b:2\n');
    assert.match(errors[0] ?? '', /^leo\.yaml:3: YAML syntax error: .*[Uu]nique/);
  });

  it('non-mapping top level is an error', () => {
    assert.deepEqual(errorsOf('- web\n- log\n'), ['leo.yaml:1: top level must be a mapping of sections, got a list']);
    assert.deepEqual(errorsOf('\n\nhello\n'), ['leo.yaml:3: top level must be a mapping of sections, got a scalar']);
  });

  it('the file name in messages is the one given', () => {
    const res = parseConfig('web:\n  listen: x\n', { file: '/etc/leo/leo.yaml', home: HOME });
    assert.deepEqual(!res.ok && res.errors, ['/etc/leo/leo.yaml:2: web.listen: expected host:port, got "x"']);
  });
});

describe('unknown keys', () => {
  it('are warned with key and line and the config still loads', () => {
    const res = parseConfig(
      `web:
  listen: 127.0.0.1:9999
  port: 1
templates:
  foo:
    model: opus
    colour: red
surprise: true
`,
      { file: 'leo.yaml', home: HOME },
    );
    assert.ok(res.ok, !res.ok ? res.errors.join('\n') : '');
    assert.deepEqual(res.warnings, [
      'leo.yaml:3: unknown key web.port (ignored)',
      'leo.yaml:7: unknown key templates.foo.colour (ignored)',
      'leo.yaml:8: unknown key surprise (ignored)',
    ]);
    assert.equal(res.config.web.listen, '127.0.0.1:9999');
    assert.deepEqual(res.config.templates['foo'], { model: 'opus' });
    assert.equal('surprise' in res.config, false);
    assert.equal('colour' in (res.config.templates['foo'] ?? {}), false);
  });

  it('do not hide real errors, and errors keep the warnings', () => {
    const res = parseConfig('templates:\n  sh:\n    harness: shell\n    comand: ls\n', {
      file: 'leo.yaml',
      home: HOME,
    });
    assert.equal(res.ok, false);
    assert.deepEqual(res.warnings, ['leo.yaml:4: unknown key templates.sh.comand (ignored)']);
    assert.deepEqual(!res.ok && res.errors, ['leo.yaml:2: templates.sh.command: required when harness is shell']);
  });

  it('inside list items', () => {
    const res = parseConfig('appearance_rules:\n  - emoji: x\n    colour: red\n', { file: 'leo.yaml', home: HOME });
    assert.ok(res.ok);
    assert.deepEqual(res.warnings, ['leo.yaml:3: unknown key appearance_rules[0].colour (ignored)']);
  });

  it('name every environment a default, template or task lists but nobody defines', () => {
    const res = parseConfig(
      `environments:
  base: {}
defaults:
  environments: [base, gone]
templates:
  t: { harness: shell, command: ls, environments: [base] }
  u:
    harness: shell
    command: ls
    environments:
      - base
      - missing
tasks:
  nightly: { schedule: "0 3 * * *", prompt: go, environments: [absent] }
`,
      { file: 'leo.yaml', home: HOME },
    );
    assert.ok(res.ok, !res.ok ? res.errors.join('\n') : '');
    assert.deepEqual(res.warnings, [
      'leo.yaml:4: defaults.environments: environment "gone" is not defined in environments',
      'leo.yaml:12: templates.u.environments: environment "missing" is not defined in environments',
      'leo.yaml:14: tasks.nightly.environments: environment "absent" is not defined in environments',
    ]);
  });
});

describe('helpers', () => {
  it('formatKeyPath', () => {
    assert.equal(formatKeyPath(['templates', 'foo', 'model']), 'templates.foo.model');
    assert.equal(formatKeyPath(['appearance_rules', 2, 'match', 'name']), 'appearance_rules[2].match.name');
    assert.equal(formatKeyPath([]), '');
  });

  it('defaultConfig', () => {
    assert.equal(defaultConfig(HOME).web.listen, '127.0.0.1:8370');
  });
});

describe('loadConfigFile', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'leo-config-load-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a missing file yields defaults with no warnings', async () => {
    const res = await loadConfigFile(path.join(dir, 'missing.yaml'), HOME);
    assert.ok(res.ok);
    assert.deepEqual(res.warnings, []);
    assert.deepEqual(res.config, defaultConfig(HOME));
  });

  it('reads and parses a file, prefixing messages with its path', async () => {
    const file = path.join(dir, 'leo.yaml');
    await writeFile(file, 'chat:\n  whisper_model: ~/m.bin\n');
    const ok = await loadConfigFile(file, HOME);
    assert.ok(ok.ok);
    assert.equal(ok.config.chat.whisper_model, '/home/tester/m.bin');

    await writeFile(file, 'chat:\n  enabled: maybe\n');
    const bad = await loadConfigFile(file, HOME);
    assert.deepEqual(!bad.ok && bad.errors, [`${file}:2: chat.enabled: expected boolean, got "maybe"`]);
  });

  it('an unreadable file is an error', async () => {
    const asDir = path.join(dir, 'is-a-dir.yaml');
    await mkdir(asDir);
    const res = await loadConfigFile(asDir, HOME);
    assert.equal(res.ok, false);
    assert.match(!res.ok ? (res.errors[0] ?? '') : '', /is-a-dir\.yaml: cannot read config: .*EISDIR/);
  });
});
