// The harness table: every row a caller may meet is whole, and a name Leo does not know reads as no adapter.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HARNESSES as NAMES } from '../../src/config/schema.js';
import { adapterOf, HARNESSES, interruptKey } from '../../src/harnesses/index.js';
import { transcriptFormat } from '../../src/harnesses/transcript-format.js';
import { TRANSCRIPT_READERS } from '../../src/harnesses/transcript-readers.js';

describe('HARNESSES', () => {
  it('has one row per harness the config accepts', () => {
    assert.deepEqual(Object.keys(HARNESSES).sort(), [...NAMES].sort());
  });

  it('finds a row by a name read from a record, and none for a name it lacks', () => {
    for (const h of NAMES) assert.equal(adapterOf(h), HARNESSES[h]);
    assert.equal(adapterOf('toString'), null);
    assert.equal(adapterOf('gemini'), null);
    assert.equal(adapterOf(undefined), null);
  });

  it("reads every harness's transcript with a reader it has, and an unknown one's as Claude's", () => {
    for (const h of NAMES) assert.equal(typeof TRANSCRIPT_READERS[transcriptFormat(h)].parse, 'function', h);
    assert.equal(transcriptFormat('gemini'), 'claude');
  });

  it('gives every CLI with a program of its own a login check, and a command-line harness neither', () => {
    for (const [h, a] of Object.entries(HARNESSES)) {
      assert.equal(a.login !== undefined, a.program !== undefined, h);
      if (a.runsCommandLine) assert.equal(a.program, undefined, h);
    }
  });

  it("interrupts a TUI with Escape and a shell's program with C-c, an unknown harness as a TUI", () => {
    assert.equal(interruptKey('claude'), 'Escape');
    assert.equal(interruptKey('shell'), 'C-c');
    assert.equal(interruptKey('gemini'), 'Escape');
    assert.equal(interruptKey(undefined), 'Escape');
  });
});
