import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ControlParser,
  ListAnswer,
  controlWord,
  planControlLine,
  unvisLines,
  type ControlEvent,
} from '../../src/tmux/control-protocol.js';

function parse(...chunks: string[]): ControlEvent[] {
  const events: ControlEvent[] = [];
  const parser = new ControlParser((e) => events.push(e));
  for (const c of chunks) parser.push(c);
  return events;
}

describe('control mode: writing command lines', () => {
  it('quotes every word so that nothing in it is read by the parser, and keeps it on one line', () => {
    assert.equal(controlWord('plain'), '"plain"');
    assert.equal(controlWord('a "b" \\c $HOME'), '"a \\"b\\" \\\\c \\$HOME"');
    assert.equal(controlWord('line\nnext\r\ttab\u001b[0m\u007f'), '"line\\012next\\015\\011tab\\033[0m\\177"');
    assert.equal(controlWord("#{x} ~/y ; {z} 'q' é 😀"), `"#{x} ~/y ; {z} 'q' é 😀"`);
    assert.equal(controlWord(''), '""');
    assert.throws(() => controlWord('a\0b'), /NUL/);
  });

  it('joins commands with a bare separator and ends the line', () => {
    assert.deepEqual(
      planControlLine(
        [
          ['send-keys', '-t', '=a:', 'Enter'],
          ['set-buffer', ';'],
        ],
        () => 'unused',
      ),
      { line: '"send-keys" "-t" "=a:" "Enter" ; "set-buffer" ";"\n', blocks: ['output', 'output'] },
    );
    assert.throws(() => planControlLine([], () => 'b'), /empty/);
    assert.throws(() => planControlLine([[]], () => 'b'), /empty/);
  });

  it('expects the block of the branch if-shell runs after its own, and takes if-shell only last with both branches', () => {
    const ifShell = ['if-shell', '-F', '-t', '=a:', '#{pane_dead}', 'x', 'y'];
    assert.deepEqual(planControlLine([['set-buffer', 'b'], ifShell], () => 'unused').blocks, [
      'output',
      'ignored',
      'output',
    ]);
    assert.throws(() => planControlLine([ifShell, ['send-keys']], () => 'b'), /last command/);
    assert.throws(() => planControlLine([['if-shell', '-F', '#{x}', 'only-one']], () => 'b'), /both branches/);
  });

  it('sends a printed capture as a capture into a buffer of its own, shown and deleted', () => {
    let n = 0;
    const plan = planControlLine(
      [
        ['capture-pane', '-p', '-J', '-t', '=a:', '-S', '-0'],
        ['send-keys', '-t', '=a:', 'Enter'],
        ['capture-pane', '-p', '-t', '=b:'],
      ],
      () => `cap-${n++}`,
    );
    assert.equal(
      plan.line,
      [
        '"capture-pane" "-b" "cap-0" "-J" "-t" "=a:" "-S" "-0"',
        '"show-buffer" "-b" "cap-0"',
        '"delete-buffer" "-b" "cap-0"',
        '"send-keys" "-t" "=a:" "Enter"',
        '"capture-pane" "-b" "cap-1" "-t" "=b:"',
        '"show-buffer" "-b" "cap-1"',
        '"delete-buffer" "-b" "cap-1"',
      ].join(' ; ') + '\n',
    );
    assert.deepEqual(plan.blocks, ['ignored', 'buffer', 'ignored', 'output', 'ignored', 'buffer', 'ignored']);
  });

  it("decodes show-buffer's escapes back to the buffer, byte for byte", () => {
    // As tmux 3.3a printed a buffer of bytes 0-255, a newline, UTF-8 and a backslash before `x` and `$`.
    const printed = ['\\0\\001\\a\\b\\t', '\\v\\f\\r\\033 !"#$%&\\\\]^\\177\\200\\377', 'é日😀\\\\x\\\\\\$y', ''];
    assert.deepEqual(
      Buffer.from(unvisLines(printed), 'utf8'),
      Buffer.concat([
        Buffer.from([0, 1, 7, 8, 9, 10, 11, 12, 13, 27]),
        Buffer.from(' !"#$%&\\]^\u007f'),
        Buffer.from('\ufffd\ufffd\n', 'utf8'),
        Buffer.from('é日😀\\x\\$y\n'),
      ]),
    );
    assert.equal(unvisLines(['plain line', 'second', '']), 'plain line\nsecond\n');
    assert.equal(unvisLines([]), '');
  });
});

describe('control mode: reading answers', () => {
  it('answers each typed command with its output lines, skipping the start-up block and notifications', () => {
    assert.deepEqual(
      parse(
        '%begin 1 10 0\n%end 1 10 0\n%window-add @1\n%sessions-changed\n',
        '%begin 2 11 1\nfirst\n\nthird\n%end 2 11 1\n',
        "%begin 2 12 1\n%end 2 12 1\n%begin 2 13 1\ncan't find session: x\n%error 2 13 1\n",
      ),
      [
        { kind: 'block', lines: ['first', '', 'third'], failed: false },
        { kind: 'block', lines: [], failed: false },
        { kind: 'block', lines: ["can't find session: x"], failed: true },
      ],
    );
  });

  it('reassembles lines split across chunks, including multi-line output', () => {
    assert.deepEqual(parse('%be', 'gin 5 7 1\nhel', 'lo\nwor', 'ld\n%end 5 7', ' 1\n'), [
      { kind: 'block', lines: ['hello', 'world'], failed: false },
    ]);
  });

  it('takes output that looks like framing as output unless it repeats the opening number', () => {
    const events = parse(
      '%begin 9 40 1\n%end 9 41 1\n%error 9 39 1\n%begin 9 40 1\n%exit\nplain\n%end 9 40 1\n%begin 9 42 1\n%end 9 42 1\n',
    );
    assert.deepEqual(events, [
      { kind: 'block', lines: ['%end 9 41 1', '%error 9 39 1', '%begin 9 40 1', '%exit', 'plain'], failed: false },
      { kind: 'block', lines: [], failed: false },
    ]);
  });

  it('reports the client leaving, and any text outside a block as lost step', () => {
    assert.deepEqual(parse('%exit\n'), [{ kind: 'exit', reason: '' }]);
    assert.deepEqual(parse('%exit server exited\n'), [{ kind: 'exit', reason: 'server exited' }]);
    assert.deepEqual(parse('stray\n'), [{ kind: 'desync', line: 'stray' }]);
  });
});

describe('control mode: one answer per command list', () => {
  it('waits for a block per command and returns their outputs as a tmux process prints them', () => {
    const answer = new ListAnswer(['output', 'ignored', 'buffer', 'output']);
    assert.equal(answer.add({ lines: ['a', 'b'], failed: false }), null);
    assert.equal(answer.add({ lines: ['not shown'], failed: false }), null);
    assert.equal(answer.add({ lines: ['back\\\\slash', ''], failed: false }), null);
    assert.deepEqual(answer.add({ lines: [''], failed: false }), {
      code: 0,
      stdout: 'a\nb\nback\\slash\n\n',
      stderr: '',
    });
  });

  it('ends at the first failure, as tmux skips the rest of the list', () => {
    const answer = new ListAnswer(['output', 'output', 'output']);
    assert.equal(answer.add({ lines: ['kept'], failed: false }), null);
    assert.deepEqual(answer.add({ lines: ["can't find pane: x"], failed: true }), {
      code: 1,
      stdout: 'kept\n',
      stderr: "can't find pane: x\n",
    });
  });
});
