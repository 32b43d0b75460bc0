import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, it } from 'node:test';
import { parseConfig } from '../../src/config/load.js';
import {
  ConfigSchema,
  buildConfigSchema,
  expandHome,
  parseDuration,
  parseListen,
  type Config,
} from '../../src/config/schema.js';
import { chatEngineFor } from '../../src/harnesses/index.js';

const HOME = '/home/tester';

function load(text: string): Config {
  const res = parseConfig(text, { file: 'leo.yaml', home: HOME, chatEngineFor });
  if (!res.ok) assert.fail(`expected ok, got errors:\n${res.errors.join('\n')}`);
  return res.config;
}

describe('config defaults', () => {
  for (const [label, text] of [
    ['empty file', ''],
    ['comments only', '# nothing here\n'],
    ['empty document', '---\n'],
    ['empty sections', 'web:\nchat:\ntemplates:\ntasks:\nenvironments:\nappearance_rules:\n'],
  ] as const) {
    it(`${label} yields a full valid config`, () => {
      const c = load(text);
      assert.deepEqual(c.web, {
        listen: '127.0.0.1:8370',
        allowed_hosts: [],
        body_limit: 1024 * 1024,
        sse_queue: 1024,
        request_timeout: 300_000,
        max_connections: 512,
        max_connections_per_token: 64,
        sse_max_subscribers: 256,
        sse_max_per_token: 32,
      });
      assert.deepEqual(c.log, { level: 'info' });
      assert.equal(c.pool.threads, Math.min(4, os.availableParallelism()));
      assert.equal(c.pool.max_queue, 1000);
      assert.equal(c.chat.enabled, true);
      assert.equal(c.chat.permission_timeout, 120_000);
      assert.equal(c.chat.question_timeout, 3_600_000);
      assert.equal(c.chat.attachment_max_bytes, 100 * 1024 * 1024);
      assert.equal(c.chat.attachment_retention, 90 * 24 * 3_600_000);
      assert.equal(c.chat.whisper_model, undefined);
      assert.equal(c.defaults.harness, 'claude');
      assert.deepEqual(c.defaults.environments, []);
      assert.deepEqual(c.templates, {});
      assert.deepEqual(c.tasks, {});
      assert.deepEqual(c.environments, {});
      assert.deepEqual(c.appearance_rules, []);
    });
  }

  it('the exported ConfigSchema parses {} to the same shape', () => {
    const c = ConfigSchema.parse({});
    assert.equal(c.web.listen, '127.0.0.1:8370');
    assert.equal(c.chat.question_timeout, 3_600_000);
  });

  it('task and template defaults are filled in', () => {
    const c = load(`
templates:
  bare:
tasks:
  nightly:
    schedule: "0 3 * * *"
    prompt: tidy up
`);
    assert.deepEqual(c.templates['bare'], {});
    const t = c.tasks['nightly'];
    assert.ok(t);
    assert.equal(t.enabled, true);
    assert.equal(t.runtime, 'oneshot');
    assert.equal(t.attempts, 1);
    assert.equal(t.timeout, 30 * 60_000);
    assert.equal(t.notify_on_fail, false);
  });
});

describe('durations', () => {
  it('parseDuration handles ms-style strings and seconds', () => {
    assert.equal(parseDuration('120s'), 120_000);
    assert.equal(parseDuration('30m'), 1_800_000);
    assert.equal(parseDuration('1h'), 3_600_000);
    assert.equal(parseDuration('90d'), 90 * 86_400_000);
    assert.equal(parseDuration(45), 45_000);
    assert.equal(parseDuration(1.5), 1_500);
    assert.equal(parseDuration('45'), 45_000, 'a bare numeric string is seconds, like a bare number');
    assert.equal(parseDuration('abc'), undefined);
    assert.equal(parseDuration('-5s'), undefined);
    assert.equal(parseDuration(-1), undefined);
    assert.equal(parseDuration(true), undefined);
  });

  it('duration fields are milliseconds in the parsed config', () => {
    const c = load(`
chat:
  permission_timeout: 90s
  question_timeout: 30m
  attachment_retention: 7d
defaults:
  idle_suspend_after: 2h
templates:
  t:
    idle_suspend_after: 600
tasks:
  x:
    schedule: "@hourly"
    prompt: p
    timeout: 5m
`);
    assert.equal(c.chat.permission_timeout, 90_000);
    assert.equal(c.chat.question_timeout, 1_800_000);
    assert.equal(c.chat.attachment_retention, 7 * 86_400_000);
    assert.equal(c.defaults.idle_suspend_after, 7_200_000);
    assert.equal(c.templates['t']?.idle_suspend_after, 600_000);
    assert.equal(c.tasks['x']?.timeout, 300_000);
  });

  it('question_timeout is capped at 1h', () => {
    const res = parseConfig('chat:\n  question_timeout: 2h\n', { file: 'leo.yaml', home: HOME });
    assert.equal(res.ok, false);
    assert.deepEqual(!res.ok && res.errors, ['leo.yaml:2: chat.question_timeout: must be at most 1h, got "2h"']);
  });

  it("a template's chat block takes reasoning; temperature only where the engine can set it (issue 29 item 11)", () => {
    const c = load('templates:\n  t:\n    chat: { enabled: true, reasoning: { effort: high, max_tokens: 4000 } }\n');
    assert.deepEqual(c.templates['t']?.chat?.reasoning, { effort: 'high', max_tokens: 4000 });
    load('templates:\n  o:\n    harness: claude\n    chat: { engine: openai, temperature: 0.2 }\n');
    for (const chat of ['{ temperature: 0.2 }', '{ engine: claude-cli, temperature: 0.2 }']) {
      const res = parseConfig(`templates:\n  c:\n    harness: claude\n    chat: ${chat}\n`, {
        file: 'leo.yaml',
        home: HOME,
        chatEngineFor,
      });
      assert.equal(res.ok, false, chat);
      assert.match(
        !res.ok ? res.errors.join('\n') : '',
        /templates\.c\.chat\.temperature: the claude-cli chat engine cannot set a temperature/,
      );
    }
  });

  it('a malformed duration is an error naming the key and line', () => {
    const res = parseConfig('chat:\n\n  permission_timeout: soon\n', { file: 'leo.yaml', home: HOME });
    assert.equal(res.ok, false);
    assert.match(
      !res.ok ? (res.errors[0] ?? '') : '',
      /^leo\.yaml:3: chat\.permission_timeout: expected a duration .* got "soon"$/,
    );
  });
});

describe('listen', () => {
  it('parseListen accepts host:port and [v6]:port', () => {
    assert.deepEqual(parseListen('127.0.0.1:8370'), { host: '127.0.0.1', port: 8370 });
    assert.deepEqual(parseListen('localhost:80'), { host: 'localhost', port: 80 });
    assert.deepEqual(parseListen('[::1]:8370'), { host: '::1', port: 8370 });
    assert.equal(parseListen('abc'), undefined);
    assert.equal(parseListen('::1:8370'), undefined);
    assert.equal(parseListen('host:70000'), undefined);
    assert.equal(parseListen(':8370'), undefined);
    assert.equal(parseListen('[abc]:1'), undefined);
  });

  it('an IPv6 listen address loads', () => {
    assert.equal(load('web:\n  listen: "[::1]:8370"\n').web.listen, '[::1]:8370');
  });
});

describe('~ expansion', () => {
  it('expands with the given home, never the real one', () => {
    const c = load(`
chat:
  whisper_model: ~/.leo/models/ggml.bin
  whisper_cli: ~/bin/whisper-cli
  ffmpeg: /opt/homebrew/bin/ffmpeg
defaults:
  workspace_root: "~"
templates:
  w:
    workspace: ~/src/w
tasks:
  t:
    schedule: "@daily"
    prompt: p
    workspace: "~/src/t"
`);
    assert.equal(c.chat.whisper_model, '/home/tester/.leo/models/ggml.bin');
    assert.equal(c.chat.whisper_cli, '/home/tester/bin/whisper-cli');
    assert.equal(c.chat.ffmpeg, '/opt/homebrew/bin/ffmpeg');
    assert.equal(c.defaults.workspace_root, '/home/tester');
    assert.equal(c.templates['w']?.workspace, '/home/tester/src/w');
    assert.equal(c.tasks['t']?.workspace, '/home/tester/src/t');
  });

  it('a bare ~ (YAML null) on a path field gets a helpful error', () => {
    const res = parseConfig('defaults:\n  workspace_root: ~\n', { file: 'leo.yaml', home: HOME });
    assert.deepEqual(!res.ok && res.errors, [
      'leo.yaml:2: defaults.workspace_root: expected a path, got null (a bare ~ is YAML null: write "~" or ~/...)',
    ]);
  });

  it('expandHome leaves other paths and ~user alone', () => {
    assert.equal(expandHome('~other/x', HOME), '~other/x');
    assert.equal(expandHome('rel/~/x', HOME), 'rel/~/x');
    assert.equal(expandHome('~/x', undefined), '~/x');
  });

  it('the schema without a home leaves ~ as-is', () => {
    assert.equal(ConfigSchema.parse({ chat: { whisper_model: '~/m.bin' } }).chat.whisper_model, '~/m.bin');
    assert.equal(
      buildConfigSchema({ home: '/h' }).parse({ chat: { whisper_model: '~/m.bin' } }).chat.whisper_model,
      '/h/m.bin',
    );
  });
});

describe('sections', () => {
  it('a full config round-trips', () => {
    const c = load(`
web:
  listen: 0.0.0.0:9000
  allowed_hosts: [leo.local, mac.tailnet.ts.net]
  body_limit: 2097152
  sse_queue: 64
log:
  level: debug
pool:
  threads: 2
  max_queue: 10
defaults:
  harness: codex
  model: gpt-5
  environments: [base]
templates:
  fable:
    harness: claude
    model: opus
    repo: git@example.com:me/fable.git
    branch: main
    environments: [base, work]
    permissions:
      bypass_permissions: true
      allow: ["Bash(git *)"]
    chat:
      enabled: true
      engine: openai
      base_url: http://127.0.0.1:11434/v1
      api_key_env: OPENAI_API_KEY
      model: llama
    env:
      PORT: 8080
      DEBUG: true
  sh:
    harness: shell
    command: htop
tasks:
  daily-news:
    schedule: "0 8 * * *"
    timezone: Europe/Paris
    runtime: persistent
    template: fable
    prompt: news please
    attempts: 3
    notify_on_fail: true
    owner: assistant
environments:
  base:
    EDITOR: vim
  work:
    GH_TOKEN: secret
appearance_rules:
  - match: { name: "fable-*" }
    emoji: "🐉"
  - match: { harness: shell }
    color: teal
`);
    assert.deepEqual(c.web.allowed_hosts, ['leo.local', 'mac.tailnet.ts.net']);
    assert.equal(c.log.level, 'debug');
    assert.equal(c.pool.threads, 2);
    assert.equal(c.defaults.harness, 'codex');
    assert.deepEqual(c.templates['fable']?.env, { PORT: '8080', DEBUG: 'true' });
    assert.equal(c.templates['fable']?.chat?.engine, 'openai');
    assert.equal(c.templates['sh']?.command, 'htop');
    assert.equal(c.tasks['daily-news']?.runtime, 'persistent');
    assert.deepEqual(c.environments['work'], { GH_TOKEN: 'secret' });
    assert.deepEqual(c.appearance_rules[1], { match: { harness: 'shell' }, color: 'teal' });
  });
});

describe('appearance_rules name globs', () => {
  it('refuses a glob whose braces multiply past the cap, saying why', () => {
    const res = parseConfig(
      'appearance_rules:\n  - match: { name: "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}" }\n    emoji: x\n',
      {
        file: 'leo.yaml',
        home: HOME,
      },
    );
    assert.ok(!res.ok);
    assert.match(res.errors.join('\n'), /glob expands to more than 64 alternatives/);
  });
});

describe('chat.vapid_subject', () => {
  it('takes a real mailto: address or https: URL', () => {
    for (const subject of ['mailto:ops@example.com', 'https://leo.example.org/contact']) {
      const res = parseConfig(`chat:\n  vapid_subject: "${subject}"\n`, { file: 'leo.yaml', home: HOME });
      assert.equal(res.ok && res.config.chat.vapid_subject, subject);
    }
  });

  it('refuses what Apple’s push service refuses, with an error saying what to write', () => {
    for (const subject of [
      'ops@example.com',
      'mailto:leo@localhost',
      'mailto:me@box',
      'http://example.com',
      'https://localhost',
    ]) {
      const res = parseConfig(`chat:\n  vapid_subject: "${subject}"\n`, { file: 'leo.yaml', home: HOME });
      assert.equal(res.ok, false, subject);
      assert.match(
        !res.ok ? (res.errors[0] ?? '') : '',
        /^leo\.yaml:2: chat\.vapid_subject: must be a real mailto: address or https: URL .*"mailto:you@example\.com".*Apple/,
      );
    }
  });
});

describe("a persistent task's harness", () => {
  const withTask = (template: string, harness: string) =>
    parseConfig(
      `templates:\n  t: ${template}\ntasks:\n  job:\n    schedule: "0 6 * * *"\n    runtime: persistent\n` +
        `    template: t\n    harness: ${harness}\n    prompt: go\n`,
      { file: 'leo.yaml', home: HOME },
    );
  it('is refused, by name, where its agent could not run the template command under it', () => {
    const shellOnly = withTask('{ harness: shell, command: "exec cat" }', 'claude');
    assert.ok(!shellOnly.ok);
    assert.match(shellOnly.errors.join('\n'), /tasks\.job\.harness.*command is a command line, and harness claude/);
    const noCommand = withTask('{ harness: claude }', 'shell');
    assert.ok(!noCommand.ok);
    assert.match(noCommand.errors.join('\n'), /tasks\.job\.harness.*harness shell runs the template's command/);
  });
  it('is taken where it can run: another CLI, or shell over a program path', () => {
    assert.ok(withTask('{ harness: claude }', 'codex').ok);
    assert.ok(withTask('{ harness: claude, command: /bin/cat }', 'shell').ok);
  });
});

describe('client.hosts', () => {
  const PIN = `sha256:${'0123456789abcdef'.repeat(4)}`;
  const hosts = (entry: string) =>
    parseConfig(`client:\n  hosts:\n    box: ${entry}\n`, { file: 'leo.yaml', home: HOME });
  it('keeps a host’s url, and the pin of its certificate over https', () => {
    assert.deepEqual(
      load(`client:\n  hosts:\n    box: { url: "https://10.0.0.5:8370", pin: "${PIN}" }\n`).client.hosts,
      {
        box: { url: 'https://10.0.0.5:8370', pin: PIN },
      },
    );
    assert.deepEqual(load('client:\n  hosts:\n    box: { url: "http://127.0.0.1:9000" }\n').client.hosts.box, {
      url: 'http://127.0.0.1:9000',
    });
  });
  it('refuses a malformed pin, and a pin on a plain-http host, by name', () => {
    for (const [entry, why] of [
      [`{ url: "https://box", pin: "${PIN.toUpperCase()}" }`, /client\.hosts\.box\.pin: a certificate pin: sha256:/],
      [`{ url: "https://box", pin: "${PIN.slice(0, -2)}" }`, /client\.hosts\.box\.pin: a certificate pin/],
      [`{ url: "http://box:8370", pin: "${PIN}" }`, /client\.hosts\.box\.pin: a pin needs an https url/],
    ] as const) {
      const res = hosts(entry);
      assert.ok(!res.ok, entry);
      assert.match(res.errors.join('\n'), why, entry);
    }
  });
});
