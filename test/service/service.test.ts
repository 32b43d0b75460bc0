import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Exec } from '../../src/core/exec.js';
import { findOnPath } from '../../src/native/programs.js';
import {
  ServiceError,
  installService,
  serviceFile,
  serviceLogs,
  uninstallService,
  type ServiceDeps,
} from '../../src/service/service-manager.js';
import { launchdPlist, systemdUnit, type ServiceSpec } from '../../src/service/unit-files.js';
import { LEO_BIN, runLeo } from '../helpers/cli.js';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'leo-service-'));

/** Paths with the characters a unit file would otherwise read as quoting, specifiers or variables. */
function awkwardSpec(dir: string): ServiceSpec {
  return {
    nodePath: process.execPath,
    leoBin: LEO_BIN,
    leoHome: path.join(dir, 'my "leo" 100% $HOME'),
    path: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
  };
}

/** A recording exec answering each program as the test says; anything unscripted succeeds silently. */
function recordingExec(
  answer: (file: string, args: readonly string[]) => { code: number; stderr?: string } | 'enoent',
) {
  const calls: string[] = [];
  const exec: Exec = async (file, args) => {
    calls.push([file, ...args].join(' '));
    const a = answer(file, args);
    if (a === 'enoent') throw Object.assign(new Error(`spawn ${file} ENOENT`), { code: 'ENOENT' });
    return { code: a.code, stdout: '', stderr: a.stderr ?? '' };
  };
  return { exec, calls };
}

function deps(dir: string, platform: NodeJS.Platform, exec: Exec, out: string[] = []): ServiceDeps {
  return {
    platform,
    env: { HOME: path.join(dir, 'home'), XDG_CONFIG_HOME: path.join(dir, 'xdg') },
    homeDir: path.join(dir, 'home'),
    uid: 501,
    spec: awkwardSpec(dir),
    exec,
    interactive: async () => 0,
    out: (l) => out.push(l),
  };
}

describe('the systemd user unit', () => {
  it('runs the built daemon with LEO_HOME and PATH, restarts on failure, logs to the journal', () => {
    const spec = awkwardSpec('/srv');
    const unit = systemdUnit(spec);
    assert.match(unit, new RegExp(`^ExecStart="${process.execPath}" "${LEO_BIN}" "daemon"$`, 'm'));
    assert.doesNotMatch(unit, /setup/);
    assert.match(unit, /^Restart=on-failure$/m);
    assert.match(unit, /^StandardOutput=journal$/m);
    assert.match(
      unit,
      /^KillMode=process$/m,
      'agents live in the tmux server the daemon started: stopping it keeps them',
    );
    assert.match(unit, /^WantedBy=default\.target$/m);
    // Quotes escaped, `%` doubled (not a specifier), `$` literal in Environment= (it expands no variables).
    assert.ok(unit.includes('Environment="LEO_HOME=/srv/my \\"leo\\" 100%% $HOME"'), unit);
    assert.ok(unit.includes(`Environment="PATH=${spec.path}"`), unit);
  });

  it('passes systemd-analyze verify', (t) => {
    const analyze = findOnPath('systemd-analyze');
    if (!analyze) return t.skip('systemd-analyze is not installed (Debian: apt-get install systemd)');
    const dir = tempDir();
    try {
      const file = path.join(dir, 'leo.service');
      fs.writeFileSync(file, systemdUnit(awkwardSpec(dir)));
      const ok = spawnSync(analyze, ['verify', file], { encoding: 'utf8' });
      assert.equal(ok.status, 0, ok.stderr);
      assert.equal(ok.stderr.trim(), '', 'no warnings either');
      // The check is real: a unit naming a program that is not there fails it.
      fs.writeFileSync(file, systemdUnit({ ...awkwardSpec(dir), nodePath: path.join(dir, 'no-node') }));
      assert.notEqual(spawnSync(analyze, ['verify', file]).status, 0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the launchd agent plist', () => {
  it('is a valid plist running the built daemon, kept alive after a crash, logging to a file', (t) => {
    const spec = awkwardSpec('/Users/ann');
    const text = launchdPlist(spec, '/Users/ann/.leo/state/daemon.log');
    assert.ok(text.includes('<string>/Users/ann/my &quot;leo&quot; 100% $HOME</string>'), text);
    const dir = tempDir();
    try {
      const file = path.join(dir, 'dev.leo.daemon.plist');
      fs.writeFileSync(file, text);
      const plutil = findOnPath('plutil');
      if (plutil) assert.equal(spawnSync(plutil, ['-lint', file]).status, 0);
      // Off macOS, Python's plistlib parses it the way launchd would read it.
      const python = findOnPath('python3');
      if (!python && !plutil) return t.skip('neither plutil nor python3 is here to parse the plist');
      if (!python) return;
      const read = spawnSync(
        python,
        ['-c', 'import json,plistlib,sys;print(json.dumps(plistlib.load(open(sys.argv[1],"rb"))))', file],
        {
          encoding: 'utf8',
        },
      );
      assert.equal(read.status, 0, read.stderr);
      assert.deepEqual(JSON.parse(read.stdout), {
        Label: 'dev.leo.daemon',
        ProgramArguments: [process.execPath, LEO_BIN, 'daemon'],
        EnvironmentVariables: { LEO_HOME: spec.leoHome, PATH: spec.path },
        RunAtLoad: true,
        KeepAlive: { SuccessfulExit: false },
        ThrottleInterval: 5,
        AbandonProcessGroup: true,
        ProcessType: 'Interactive',
        StandardOutPath: '/Users/ann/.leo/state/daemon.log',
        StandardErrorPath: '/Users/ann/.leo/state/daemon.log',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('leo service install / uninstall / logs', () => {
  it('Linux: writes the unit under XDG_CONFIG_HOME, reloads systemd --user and enables it now', async () => {
    const dir = tempDir();
    try {
      const r = recordingExec(() => ({ code: 0 }));
      const out: string[] = [];
      await installService(deps(dir, 'linux', r.exec, out));
      const file = path.join(dir, 'xdg', 'systemd', 'user', 'leo.service');
      assert.equal(serviceFile(deps(dir, 'linux', r.exec)), file);
      assert.equal(fs.readFileSync(file, 'utf8'), systemdUnit(awkwardSpec(dir)));
      assert.deepEqual(r.calls, ['systemctl --user daemon-reload', 'systemctl --user enable --now leo.service']);
      assert.match(out.join('\n'), /started leo\.service/);

      await uninstallService(deps(dir, 'linux', r.exec, out));
      assert.ok(!fs.existsSync(file));
      assert.deepEqual(r.calls.slice(2), [
        'systemctl --user disable --now leo.service',
        'systemctl --user daemon-reload',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Linux without a user bus: keeps the unit and says how to enable it from a login session', async () => {
    const dir = tempDir();
    try {
      const r = recordingExec(() => ({ code: 1, stderr: 'Failed to connect to bus: No medium found' }));
      const err = await installService(deps(dir, 'linux', r.exec)).catch((e: Error) => e);
      assert.ok(err instanceof ServiceError);
      assert.match(err.message, /Failed to connect to bus/);
      assert.match(err.message, /systemctl --user daemon-reload && systemctl --user enable --now leo/);
      assert.match(err.message, /leo daemon/);
      assert.ok(fs.existsSync(path.join(dir, 'xdg', 'systemd', 'user', 'leo.service')));
      // Without systemctl at all, the same.
      const none = recordingExec(() => 'enoent');
      const err2 = await installService(deps(dir, 'linux', none.exec)).catch((e: Error) => e);
      assert.match(String(err2), /cannot run here[\s\S]*enable --now leo/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('macOS: writes the plist to ~/Library/LaunchAgents, lints it, reloads it in the gui domain', async () => {
    const dir = tempDir();
    try {
      const r = recordingExec(() => ({ code: 0 }));
      await installService(deps(dir, 'darwin', r.exec));
      const file = path.join(dir, 'home', 'Library', 'LaunchAgents', 'dev.leo.daemon.plist');
      assert.match(fs.readFileSync(file, 'utf8'), /<key>Label<\/key><string>dev\.leo\.daemon<\/string>/);
      assert.deepEqual(r.calls, [
        `plutil -lint ${file}`,
        'launchctl bootout gui/501/dev.leo.daemon',
        `launchctl bootstrap gui/501 ${file}`,
      ]);
      const lintFails = recordingExec((f) => ({ code: f === 'plutil' ? 1 : 0 }));
      await assert.rejects(installService(deps(dir, 'darwin', lintFails.exec)), /plutil rejects/);
      assert.ok(!lintFails.calls.some((c) => c.includes('bootstrap')), 'a plist plutil rejects is not loaded');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('logs: the journal on Linux, the log file on macOS', async () => {
    const dir = tempDir();
    try {
      const seen: string[] = [];
      const d = (platform: NodeJS.Platform) => ({
        ...deps(dir, platform, recordingExec(() => ({ code: 0 })).exec),
        interactive: async (f: string, a: readonly string[]) => (seen.push([f, ...a].join(' ')), 0),
      });
      await serviceLogs(d('linux'), { follow: true, lines: 50 });
      await serviceLogs(d('darwin'), { follow: false, lines: 10 });
      assert.deepEqual(seen, [
        'journalctl --user -u leo.service -n 50 --no-pager -f',
        `tail -n 10 ${path.join(awkwardSpec(dir).leoHome, 'state', 'daemon.log')}`,
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the real command where systemd --user is unreachable: writes the unit for this leo, prints the way on, exits 1', () => {
    const dir = tempDir();
    try {
      // A systemctl that answers as it does in a container or an SSH session without a user bus.
      const bin = path.join(dir, 'bin');
      fs.mkdirSync(bin);
      fs.writeFileSync(
        path.join(bin, 'systemctl'),
        `#!/bin/sh\necho "$@" >> ${dir}/systemctl.calls\necho "Failed to connect to bus: No medium found" >&2\nexit 1\n`,
        { mode: 0o755 },
      );
      const env = {
        ...process.env,
        HOME: path.join(dir, 'home'),
        XDG_CONFIG_HOME: path.join(dir, 'xdg'),
        LEO_HOME: path.join(dir, 'leo-home'),
        PATH: `${bin}:${process.env.PATH}`,
      };
      const r = runLeo(['service', 'install'], env);
      assert.equal(r.status, 1, r.stdout + r.stderr);
      const file = path.join(dir, 'xdg', 'systemd', 'user', 'leo.service');
      assert.match(r.stdout, new RegExp(`wrote ${file}`));
      assert.match(r.stderr, /Failed to connect to bus[\s\S]*systemctl --user enable --now leo[\s\S]*leo daemon/);
      const unit = fs.readFileSync(file, 'utf8');
      assert.match(unit, new RegExp(`^ExecStart="${process.execPath}" "${LEO_BIN}" "daemon"$`, 'm'));
      assert.ok(unit.includes(`Environment="LEO_HOME=${env.LEO_HOME}"`));
      assert.match(unit, new RegExp(`^Environment="PATH=[^"]*${bin}`, 'm'));
      assert.equal(fs.readFileSync(path.join(dir, 'systemctl.calls'), 'utf8'), '--user daemon-reload\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
