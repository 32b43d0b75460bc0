import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lastPaneLine, stripTerminalControls, truncateCodePoints } from '../../src/observe/pane-line.js';

const E = '\x1b';

describe('lastPaneLine', () => {
  it('is the last line with visible text, trimmed', () => {
    assert.equal(lastPaneLine('first\nsecond\n\n   \n'), 'second');
    assert.equal(lastPaneLine('  padded  \n'), 'padded');
    assert.equal(lastPaneLine('only'), 'only');
  });

  it('is null for a blank pane', () => {
    assert.equal(lastPaneLine(''), null);
    assert.equal(lastPaneLine('\n\n\n'), null);
    assert.equal(lastPaneLine('   \n\t\n \r\n'), null);
    assert.equal(lastPaneLine(`${E}[31m${E}[0m\n${E}]0;title${E}\\\n`), null);
  });

  it('strips colours and other CSI sequences', () => {
    assert.equal(
      lastPaneLine(`${E}[1;32m✔${E}[0m Running ${E}[38;2;255;0;0mgo test${E}[m ./...`),
      '✔ Running go test ./...',
    );
    assert.equal(lastPaneLine(`${E}[2J${E}[H${E}[?25l${E}[10;5Hcursor moved${E}[K${E}[?2004h`), 'cursor moved');
    assert.equal(lastPaneLine(`${E}[>4;1m${E}[ qbar`), 'bar');
  });

  it('strips OSC titles and hyperlinks ended by BEL or ST, and other control strings', () => {
    assert.equal(lastPaneLine(`${E}]0;window title\x07prompt $`), 'prompt $');
    assert.equal(lastPaneLine(`${E}]8;;https://x.test${E}\\link${E}]8;;${E}\\ text`), 'link text');
    assert.equal(lastPaneLine(`${E}P1$r0m${E}\\dcs gone`), 'dcs gone');
    assert.equal(lastPaneLine(`${E}_apc${E}\\ ${E}^pm\x07ok`), 'ok');
  });

  it('an unterminated OSC ends at its line, not the end of the pane', () => {
    assert.equal(lastPaneLine(`${E}]0;never closed\nnext line`), 'next line');
    assert.equal(lastPaneLine(`text ${E}]0;never closed`), 'text');
  });

  it('strips single-character escapes and nF sequences', () => {
    assert.equal(lastPaneLine(`${E}7saved${E}8 ${E}(Bcharset${E}=${E}>`), 'saved charset');
    assert.equal(lastPaneLine(`trailing escape${E}`), 'trailing escape');
  });

  it('strips C0, DEL and C1 controls, including 8-bit CSI and OSC', () => {
    assert.equal(lastPaneLine('bell\x07 back\x08space\x00nul\x7fdel'), 'bell backspacenuldel');
    assert.equal(lastPaneLine('c1\x85\x8d text'), 'c1 text');
    assert.equal(lastPaneLine('\x9b31mred\x9b0m \x9d0;t\x9cplain'), 'red plain');
  });

  it('strips bidi controls that would reorder the text', () => {
    assert.equal(lastPaneLine('abc\u202edcb\u202c end\u2066x\u2069'), 'abcdcb endx');
  });

  it('tabs become spaces; CRLF and bare CR end lines', () => {
    assert.equal(lastPaneLine('a\tb\r\n\r\n'), 'a b');
    assert.equal(lastPaneLine('progress 10%\rprogress 90%\n'), 'progress 90%');
    assert.equal(lastPaneLine('line\r\n'), 'line');
  });

  it('keeps emoji and wide text and cuts at 120 code points, never inside a surrogate pair', () => {
    assert.equal(lastPaneLine('ship it 🚀 日本語'), 'ship it 🚀 日本語');
    const long = '🎉'.repeat(130);
    const cut = lastPaneLine(long);
    assert.equal(Array.from(cut ?? '').length, 120);
    assert.equal(cut, '🎉'.repeat(120));
    assert.equal(lastPaneLine('x'.repeat(119) + '🎉🎉'), 'x'.repeat(119) + '🎉');
    assert.equal(lastPaneLine('y'.repeat(200)), 'y'.repeat(120));
    assert.equal(lastPaneLine('a'.repeat(119) + ' b'), 'a'.repeat(119), 'no trailing space after the cut');
  });

  it('handles a large capture', () => {
    const big = `${'z'.repeat(200)}\n`.repeat(2000) + 'end';
    assert.equal(lastPaneLine(big), 'end');
  });
});

describe('stripTerminalControls / truncateCodePoints', () => {
  it('keeps line structure', () => {
    assert.equal(stripTerminalControls(`a${E}[0m\r\nb\rc\n`), 'a\nb\nc\n');
  });

  it('counts code points', () => {
    assert.equal(truncateCodePoints('a🎉b', 2), 'a🎉');
    assert.equal(truncateCodePoints('ab', 5), 'ab');
    assert.equal(truncateCodePoints('ab', 0), '');
  });
});
