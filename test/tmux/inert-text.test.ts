import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inertText } from '../../src/tmux/inert-text.js';

/** Every character a terminal's input parser could act on: C0 but tab and newline, DEL, C1. */
const acting = (s: string) => [...s].filter((c) => /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(c));

describe('inertText: what a paste into an agent may carry', () => {
  it('an embedded end-of-paste marker loses its ESC, so what follows stays inside the paste', () => {
    assert.equal(inertText('just a harmless note\u001b[201~1'), 'just a harmless note\u241b[201~1');
    assert.equal(inertText('\u001b[200~x'), '\u241b[200~x');
  });

  it('Ctrl-C, Ctrl-D, Ctrl-Z, backspace, NUL, BEL and DEL become visible stand-ins, not keys', () => {
    assert.equal(inertText('a\u0003b\u0004c\u001ad\u0008e\u0000f\u0007g\u007fh'), 'a␃b␄c␚d␈e␀f␇g␡h');
  });

  it('C1 controls (the 8-bit CSI, OSC, …) become the replacement character', () => {
    assert.equal(inertText('x\u009b201~y\u009d0;t\u0085z'), 'x\ufffd201~y\ufffd0;t\ufffdz');
  });

  it('keeps newline and tab; CRLF and a lone CR (Enter in a raw-mode program) become newlines', () => {
    assert.equal(inertText('one\ttwo\nthree\r\nfour\rfive\r'), 'one\ttwo\nthree\nfour\nfive\n');
  });

  it('leaves ordinary text, non-Latin scripts, emoji and bidi marks as they are (they are not controls)', () => {
    const text = 'héllo 日本 😀 \u202eevil\u202c \u200f \u2028 [201~ ^C';
    assert.equal(inertText(text), text);
  });

  it('no character a terminal acts on survives any input', () => {
    let all = '';
    for (let c = 0; c < 0x200; c++) all += String.fromCharCode(c);
    assert.deepEqual(acting(inertText(all)), []);
    assert.equal(inertText(inertText(all)), inertText(all), 'idempotent');
  });
});
