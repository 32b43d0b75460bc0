import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatSize } from '../../src/sessions/format-size.js';
import { expandMentions } from '../../src/sessions/mentions.js';

const PREAMBLE =
  "System: contents of the @-mentioned paths above, auto-attached for reference. This block is hidden from the user's chat display.";

describe('expandMentions', () => {
  let tmp: string;
  let workspace: string;
  let outside: string;
  let state: string;
  const expand = (message: string) => expandMentions(message, { workspace, deniedRoots: [`${state}/`] });
  const write = (rel: string, content: string | Buffer, root = workspace) => {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    return file;
  };
  const block = (expanded: string) => {
    const start = expanded.indexOf('<veil-attachments>');
    return start < 0 ? null : expanded.slice(start);
  };
  const headers = (expanded: string) => (block(expanded) ?? '').split('\n').filter((l) => l.startsWith('## '));

  before(() => {
    // realpath: on some systems the temp dir itself sits behind a symlink.
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'leo-mentions-')));
    workspace = path.join(tmp, 'workspace');
    outside = path.join(tmp, 'outside');
    state = path.join(tmp, 'leo-home', 'state');
    fs.mkdirSync(workspace);
    fs.mkdirSync(outside);
    write('src/config.js', 'x'.repeat(1229));
    write('a.txt', 'hello\n');
    write('b.txt', 'bee');
    write('notes(1).md', 'paren');
    write('my notes/todo list.txt', 'spaces');
    write('auth.json', '{"token":"secret"}', state);
    write('outside.txt', 'far away', outside);
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('appends the hidden block exactly as the spec lays it out', async () => {
    assert.equal(
      await expand('Look at @a.txt please'),
      [
        'Look at @a.txt please',
        '',
        '<veil-attachments>',
        PREAMBLE,
        '',
        '## @a.txt (file, 6 B)',
        '```',
        'hello',
        '```',
        '</veil-attachments>',
      ].join('\n'),
    );
  });

  it('formats sizes like the spec', () => {
    assert.deepEqual([0, 1023, 1229, 3174, 2 * 1024 * 1024 + 1, 5 * 1024 ** 3].map(formatSize), [
      '0 B',
      '1023 B',
      '1.2 KB',
      '3.1 KB',
      '2.0 MB',
      '5.0 GB',
    ]);
  });

  it('resolves relative paths against the workspace and absolute paths anywhere', async () => {
    assert.deepEqual(headers(await expand(`see @src/config.js and @${outside}/outside.txt`)), [
      '## @src/config.js (file, 1.2 KB)',
      `## @${outside}/outside.txt (file, 8 B)`,
    ]);
    assert.match(await expand(`@${outside}/outside.txt`), /far away/);
  });

  it('reads the quoted syntax for paths with spaces', async () => {
    const out = await expand('check @"my notes/todo list.txt" now');
    assert.deepEqual(headers(out), ['## @"my notes/todo list.txt" (file, 6 B)']);
    assert.match(out, /```\nspaces\n```/);
  });

  it('strips trailing sentence punctuation, but keeps it when the path has it', async () => {
    assert.deepEqual(headers(await expand('Read @a.txt, then (@b.txt). And @notes(1).md.')), [
      '## @a.txt (file, 6 B)',
      '## @b.txt (file, 3 B)',
      '## @notes(1).md (file, 5 B)',
    ]);
    assert.deepEqual(headers(await expand('Is it @a.txt?!')), ['## @a.txt (file, 6 B)']);
  });

  it('ignores emails, decorators, @names and missing paths', async () => {
    for (const message of [
      'mail bob@a.txt about it',
      '@Component({}) class X {}',
      'ask @alice',
      'open @missing/file.ts',
      'a lone @ sign',
      '@"no such file"',
    ]) {
      assert.equal(await expand(message), message);
    }
  });

  it('attaches a path mentioned twice once', async () => {
    assert.equal(headers(await expand('@a.txt and again @./a.txt and @a.txt')).length, 1);
  });

  it('attaches at most 8 mentions', async () => {
    const names = Array.from({ length: 9 }, (_, i) => `many/f${i}.txt`);
    for (const n of names) write(n, n);
    const out = await expand(names.map((n) => `@${n}`).join(' '));
    assert.deepEqual(
      headers(out),
      names.slice(0, 8).map((n) => `## @${n} (file, ${n.length} B)`),
    );
  });

  it('cuts a file at 50 000 characters', async () => {
    write('long.txt', 'a'.repeat(60_000));
    const out = await expand('@long.txt');
    assert.match(out, new RegExp(`\`\`\`\\na{50000}\\n\`\`\`\\n\\(truncated: first 50000 of 60000 characters\\)`));
  });

  it('stops inlining at 150 000 characters in total', async () => {
    for (const [name, n] of [
      ['t1', 50_000],
      ['t2', 50_000],
      ['t3', 40_000],
      ['t4', 30_000],
      ['t5', 10],
    ] as const) {
      write(`total/${name}.txt`, name.repeat(n / 2));
    }
    const out = await expand('@total/t1.txt @total/t2.txt @total/t3.txt @total/t4.txt @total/t5.txt');
    assert.equal(headers(out).length, 5);
    assert.match(out, /\(truncated: first 10000 of 30000 characters\)/);
    assert.match(
      out,
      /## @total\/t5.txt \(file, 10 B\)\nNot inlined: the 150000-character total for @-mentions is used up\./,
    );
    assert.equal((out.match(/t[1-4]/g) ?? []).length - 8, 150_000 / 2); // minus the 4 mentions and 4 headers
  });

  it('lists a directory: folders first, sizes for files, 20 entries then a footer', async () => {
    for (let i = 0; i < 23; i++) write(`big/file${String(i).padStart(2, '0')}.txt`, 'x'.repeat(i));
    fs.mkdirSync(path.join(workspace, 'big/zeta'));
    fs.mkdirSync(path.join(workspace, 'big/alpha'));
    const lines = (block(await expand('what is in @big/ ?')) ?? '').split('\n');
    const start = lines.indexOf('## @big/ (directory, 25 entries)');
    assert.ok(start > 0, lines.join('\n'));
    assert.deepEqual(lines.slice(start + 1, start + 5), [
      '- alpha/',
      '- zeta/',
      '- file00.txt (0 B)',
      '- file01.txt (1 B)',
    ]);
    assert.equal(lines[start + 20], '- file17.txt (17 B)');
    assert.equal(lines[start + 21], '… and 5 more entries');
    assert.equal(lines[start + 22], '</veil-attachments>');
  });

  it('describes binary files and files over 2 MB by name and size only', async () => {
    write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    write('huge.log', 'y'.repeat(2 * 1024 * 1024 + 1));
    write('two-mb.log', 'z'.repeat(2 * 1024 * 1024));
    const out = await expand('@logo.png @huge.log @two-mb.log');
    assert.match(out, /## @logo.png \(file, 6 B\)\nNot inlined: binary file\.\n/);
    assert.match(out, /## @huge.log \(file, 2.0 MB\)\nNot inlined: larger than 2 MB\.\n/);
    assert.doesNotMatch(out, /yyy/);
    assert.match(out, /## @two-mb.log \(file, 2.0 MB\)\n```\nzzz/);
  });

  it('never attaches anything whose realpath is in a denied root, symlinks included', async () => {
    fs.symlinkSync(path.join(state, 'auth.json'), path.join(workspace, 'innocent.json'));
    fs.symlinkSync(state, path.join(workspace, 'state-link'));
    for (const message of [
      '@innocent.json',
      '@state-link',
      '@state-link/auth.json',
      `@${state}/auth.json`,
      `@${state}`,
    ]) {
      assert.equal(await expand(message), message);
    }
    assert.doesNotMatch(block(await expand('@innocent.json @a.txt')) ?? '', /secret|innocent/);
  });

  it('lists a symlink into a denied root by name only', async () => {
    fs.mkdirSync(path.join(workspace, 'links'));
    fs.symlinkSync(path.join(state, 'auth.json'), path.join(workspace, 'links/auth'));
    fs.symlinkSync(path.join(workspace, 'a.txt'), path.join(workspace, 'links/ok'));
    const out = await expand('@links');
    assert.match(out, /## @links \(directory, 2 entries\)\n- auth\n- ok \(6 B\)\n/);
  });

  it('ignores special files', async () => {
    assert.equal(await expand('@/dev/null'), '@/dev/null');
  });

  it('fences a file containing backticks with a longer fence', async () => {
    write('readme.md', 'text\n```js\ncode\n```\n');
    assert.match(await expand('@readme.md'), /\n````\ntext\n```js\ncode\n```\n````\n/);
  });

  it('passes a message that already carries a block through unchanged', async () => {
    const message = 'edited @a.txt\n\n<veil-attachments>\nold\n</veil-attachments>';
    assert.equal(await expand(message), message);
  });
});
