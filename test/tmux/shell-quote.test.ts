import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { tmuxFormatLiteral, tmuxWord } from '../../src/tmux/escape.js';
import { shellQuote, shellQuoteArgv } from '../../src/tmux/shell-quote.js';

/** What /bin/sh makes of a command line: the words `printf` receives, NUL-separated. */
function shWords(line: string): string[] {
  const out = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

const NASTY = [
  '',
  ' ',
  'plain',
  'with space',
  "it's",
  "''",
  "'",
  '"double"',
  '$HOME',
  '${HOME}',
  '$(id)',
  '`id`',
  'a\\b',
  'a\\\\b',
  '\\',
  'glob*?[a]',
  '~',
  '~root',
  '#comment',
  'a=b',
  '-n',
  '--flag=x',
  'semi;colon;',
  'pipe|amp&',
  'new\nline',
  'tab\there',
  'emoji 🎉 日本',
  '!history',
  '{a,b}',
];

describe('shellQuote', () => {
  it('leaves plain words alone and wraps everything else in single quotes', () => {
    assert.equal(shellQuote('claude'), 'claude');
    assert.equal(shellQuote('--model=x'), "'--model=x'");
    assert.equal(shellQuote('/usr/bin/env'), '/usr/bin/env');
    assert.equal(shellQuote(''), "''");
    assert.equal(shellQuote("it's"), "'it'\\''s'");
    assert.equal(shellQuote('a b'), "'a b'");
  });

  it('every argument survives a real /bin/sh word for word', () => {
    for (const arg of NASTY) assert.deepEqual(shWords(shellQuote(arg)), [arg], JSON.stringify(arg));
    assert.deepEqual(shWords(shellQuoteArgv(NASTY)), NASTY);
  });

  it('an assignment-looking word is not an assignment, even first', () => {
    assert.equal(shellQuote('A=1'), "'A=1'");
  });

  it('refuses what an argv cannot hold', () => {
    assert.throws(() => shellQuote('a\0b'), /NUL/);
    assert.throws(() => shellQuoteArgv([]), /empty/);
  });
});

describe('tmux command-file words', () => {
  it('single-quotes every word, splicing a quote in from double quotes', () => {
    assert.equal(tmuxWord('plain'), "'plain'");
    assert.equal(tmuxWord('a;'), "'a;'");
    assert.equal(tmuxWord(''), "''");
    assert.equal(tmuxWord("it's $HOME #{x} \\"), `'it'"'"'s $HOME #{x} \\'`);
  });

  it('format-expanded arguments keep a literal #', () => {
    assert.equal(tmuxFormatLiteral('/tmp/#{session_name}/x'), '/tmp/##{session_name}/x');
    assert.equal(tmuxFormatLiteral('/tmp/a;'), '/tmp/a;');
  });
});
