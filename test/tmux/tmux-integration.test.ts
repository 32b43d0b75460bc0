import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { lastPaneLine } from '../../src/observe/pane-line.js';
import { CONTROL_SESSION } from '../../src/tmux/control-client.js';
import type { SessionInfo } from '../../src/tmux/list-format.js';
import { eventually, PRINTING_LOOP, privateTmux } from './real-tmux.js';

for (const control of [false, true])
  describe(`Tmux against a real tmux server, ${control ? 'over one control-mode client' : 'a tmux process per call'}`, () => {
    const t = privateTmux(control);
    const { tmux } = t;
    const session = async (name: string): Promise<SessionInfo | undefined> =>
      (await tmux.listSessions()).find((s) => s.name === name);

    /**
     * Waits for the pane to die, then up to 2 s more for its exit status. tmux 3.3a loses the status of some exits
     * under load (measured: 4 of 20 panes on a busy 2-core machine stay dead with no status), so a lost status is
     * accepted as null (and then tmux draws no "Pane is dead" line either) — which is why Leo only ever reports the
     * status, never decides on it.
     */
    const deadPane = async (name: string): Promise<SessionInfo> => {
      const dead = await eventually(`${name} to die`, async () => ((await session(name))?.paneDead ? true : undefined));
      assert.ok(dead);
      const withStatus = await eventually(
        `${name}'s exit status`,
        async () => {
          const s = await session(name);
          return s && (s.deadStatus !== null || s.deadSignal !== null) ? s : undefined;
        },
        2000,
      ).catch(() => undefined);
      return withStatus ?? (await session(name))!;
    };

    before(async () => {
      assert.deepEqual(await tmux.listSessions(), [], 'no server yet is no sessions');
    });
    after(() => t.cleanup());

    it('runs a command whose output moves the activity and whose last line reads back sanitized', async () => {
      await tmux.newSession({ name: 'printer', cwd: t.dir, command: PRINTING_LOOP, env: {} });
      const first = await eventually('the session', () => session('printer'));
      assert.equal(first.paneDead, false);
      assert.ok(first.panePid !== null && first.panePid > 0);
      assert.equal(first.attached, 0);
      // session_activity has 1-second resolution.
      const later = await eventually('an activity advance', async () => {
        const s = await session('printer');
        return s && s.activity > first.activity ? s : undefined;
      });
      assert.ok(later.activity > first.activity);
      const line = lastPaneLine(await tmux.capturePane('printer'));
      assert.match(String(line), /^tick \d+ +done$/);
    });

    it('captures many panes in one call, skipping one that does not exist', async () => {
      const panes = await tmux.capturePanes(['printer', 'no-such-session', 'printer'], 0);
      assert.deepEqual([...panes.keys()], ['printer']);
      assert.match(String(lastPaneLine(panes.get('printer') ?? '')), /^tick \d+ +done$/);
      assert.deepEqual([...(await tmux.capturePanes(['ghost'])).keys()], []);
    });

    it('a command that exits at once leaves a dead pane; its exit status when tmux records it', async () => {
      await tmux.newSession({ name: 'falls', cwd: t.dir, command: ['false'] });
      const dead = await deadPane('falls');
      assert.deepEqual([dead.deadStatus ?? 1, dead.deadSignal], [1, null]);
    });

    it('a crashed command keeps its last output and status; a signal is reported as such', async () => {
      await tmux.newSession({ name: 'crash', cwd: t.dir, command: ['sh', '-c', 'echo last words; sleep 0.5; exit 7'] });
      await tmux.newSession({ name: 'killed', cwd: t.dir, command: ['sh', '-c', 'sleep 0.2; kill -9 $$'] });
      const crash = await deadPane('crash');
      assert.equal(crash.deadStatus ?? 7, 7);
      const screen = await tmux.capturePane('crash');
      assert.match(screen, /last words/);
      // tmux draws its "Pane is dead" line only once it has the status.
      if (crash.deadStatus !== null) assert.match(screen, /Pane is dead \(status 7/);
      const killed = await deadPane('killed');
      assert.deepEqual([killed.deadStatus, killed.deadSignal ?? 9], [null, 9]);
    });

    it('passes argv, env and cwd through verbatim, whatever they contain', async () => {
      const cwd = path.join(t.dir, "we#{session_name}ird 'dir'");
      fs.mkdirSync(cwd);
      const nasty = `it's; $HOME \`id\` "q" \\ *;`;
      await tmux.newSession({
        name: 'argv',
        cwd,
        command: ['sh', '-c', 'printf "[%s][%s][%s]\\n" "$PWD" "$LEO_X" "$1"; sleep 30', 'sh', nasty],
        env: { LEO_X: nasty },
      });
      // The whole line, not lastPaneLine's: a suite's temp folder can make it longer than a pane line is shown.
      const line = await eventually('the printed line', async () =>
        (await tmux.capturePane('argv'))
          .split('\n')
          .map((l) => l.trimEnd())
          .findLast((l) => l !== ''),
      );
      assert.equal(line, `[${cwd}][${nasty}][${nasty}]`);
    });

    it('has, renames and kills sessions by exact name', async () => {
      await tmux.newSession({ name: 'alpha-long', cwd: t.dir, command: ['sleep', '30'] });
      assert.equal(await tmux.hasSession('alpha-long'), true);
      assert.equal(await tmux.hasSession('alpha'), false, 'a prefix is not a match');
      await tmux.renameSession('alpha-long', 'beta');
      assert.equal(await tmux.hasSession('alpha-long'), false);
      assert.equal(await tmux.hasSession('beta'), true);
      await assert.rejects(tmux.renameSession('nope', 'x'), /can't find session/);
      assert.equal(await tmux.killSession('beta'), true);
      assert.equal(await tmux.killSession('beta'), false);
      assert.equal(await tmux.hasSession('beta'), false);
      await assert.rejects(tmux.newSession({ name: 'printer', cwd: t.dir, command: ['true'] }), /duplicate session/);
    });

    it('a PATH in the env finds the program (tmux alone would ignore -e PATH)', async () => {
      const bin = path.join(t.dir, 'own-bin');
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(bin, 'only-here'), '#!/bin/sh\necho found-it; sleep 30\n', { mode: 0o755 });
      await tmux.newSession({
        name: 'pathy',
        cwd: t.dir,
        command: ['only-here'],
        env: { PATH: `${bin}:/usr/bin:/bin` },
      });
      const text = await eventually('output', async () => {
        const p = await tmux.capturePane('pathy');
        return p.includes('found-it') ? p : undefined;
      });
      assert.match(text, /found-it/);
    });

    it('killing the last session twice in a row is not an error, and the server stays for the next one', async () => {
      const solo = privateTmux(control);
      try {
        await solo.tmux.newSession({ name: 'only', cwd: solo.dir, command: ['sleep', '30'] });
        assert.equal(await solo.tmux.killSession('only'), true);
        assert.equal(await solo.tmux.killSession('only'), false);
        await solo.tmux.newSession({ name: 'only', cwd: solo.dir, command: ['sleep', '30'] });
        assert.equal(await solo.tmux.hasSession('only'), true);
      } finally {
        await solo.cleanup();
      }
    });

    it('pastes text and presses Enter', async () => {
      await tmux.newSession({ name: 'cat', cwd: t.dir, command: ['cat'] });
      await eventually('cat', () => session('cat'));
      await tmux.pasteText('cat', "pasted 'text'; with $stuff");
      await tmux.sendEnter('cat');
      const screen = await eventually('the echo', async () => {
        const s = await tmux.capturePane('cat');
        return s.split('\n').filter((l) => l === "pasted 'text'; with $stuff").length === 2 ? s : undefined;
      });
      assert.ok(screen);
      await assert.rejects(tmux.pasteText('nope', 'x'), /can't find/);
    });

    it('reads the line the cursor is on, and presses Enter after reading it in the same call', async () => {
      await tmux.newSession({ name: 'cursor', cwd: t.dir, command: ['sh', '-c', 'printf "one\\ntwo\\n"; exec cat'] });
      await eventually('the output', async () =>
        (await tmux.capturePane('cursor')).includes('two') ? true : undefined,
      );
      await tmux.pasteText('cursor', 'typed é 😀');
      assert.equal(
        await eventually('the echo', async () => (await tmux.cursorLine('cursor')) || undefined),
        'typed é 😀',
      );
      assert.equal(await tmux.cursorLine('cursor', { thenEnter: true }), 'typed é 😀', 'read before the Enter');
      // The terminal's echo ends the line before cat prints its copy, so wait for the copy rather than the new line.
      await eventually('cat echoing the entered line', async () =>
        (await tmux.capturePane('cursor')).split('\n').filter((l) => l === 'typed é 😀').length === 2
          ? true
          : undefined,
      );
    });

    it("refuses to paste into a dead pane, which would end tmux 3.3a's whole server", async () => {
      await tmux.newSession({ name: 'gone', cwd: t.dir, command: ['true'] });
      await tmux.newSession({ name: 'bystander', cwd: t.dir, command: ['sh', '-c', 'sleep 30'] });
      await deadPane('gone');
      await assert.rejects(tmux.pasteText('gone', 'hello'), /has exited: nothing was pasted/);
      assert.equal(await tmux.hasSession('bystander'), true, 'the server is still up');
      await tmux.pasteText('bystander', 'still pastes');
      assert.equal(await tmux.hasSession('bystander'), true);
    });

    it('pastes many lines, quotes, escapes and wide characters as one paste', async () => {
      await tmux.newSession({ name: 'cat2', cwd: t.dir, command: ['cat'] });
      await eventually('cat2', () => session('cat2'));
      const lines = ['first "double" \\back', 'second $HOME #{pane_id} ~/x ; {brace}', 'third é 日本 😀 \\t'];
      await tmux.pasteText('cat2', `${lines.join('\n')}\n`, { bracketed: false });
      const screen = await eventually('the echo', async () => {
        const s = await tmux.capturePane('cat2');
        return lines.every((l) => s.split('\n').filter((x) => x === l).length === 2) ? s : undefined;
      });
      assert.ok(screen);
    });

    it('a pane that prints control-mode framing is captured as text like any other', async () => {
      const framing = ['%end 1796016548 287 1', '%error 1 2 1', '%begin 1 2 1', '%exit', 'after'];
      await tmux.newSession({
        name: 'framing',
        cwd: t.dir,
        command: ['sh', '-c', `printf '%s\\n' ${framing.map((f) => `'${f}'`).join(' ')}; sleep 30`],
      });
      const text = await eventually('the framing lines', async () => {
        const s = await tmux.capturePane('framing', 0);
        return s.includes('after') ? s : undefined;
      });
      assert.deepEqual(text.split('\n').slice(0, framing.length), framing);
      assert.equal(await tmux.hasSession('framing'), true, 'the next call is answered in step');
    });

    it('lists only the sessions it started', async () => {
      const names = (await tmux.listSessions()).map((s) => s.name);
      assert.ok(names.includes('printer') && !names.includes(CONTROL_SESSION), names.join());
    });
  });
