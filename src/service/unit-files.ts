/**
 * The service definitions `leo service install` writes, as pure text: a systemd user unit (Linux) and a launchd agent
 * plist (macOS). Both run the built daemon (`node <abs>/bin/leo.js daemon`), never the set-up script: a service
 * restarting in a loop must not download or compile anything.
 */

export interface ServiceSpec {
  /** The node binary that runs Leo (the one installing it: the version the user chose). */
  nodePath: string;
  /** The absolute path of bin/leo.js. */
  leoBin: string;
  /** LEO_HOME as the installing shell resolved it, so the service and the CLI agree on one state folder. */
  leoHome: string;
  /** PATH for the daemon and the agents it starts: the harness CLIs (claude, codex, …) must be found on it. */
  path: string;
}

export const SYSTEMD_UNIT_NAME = 'leo.service';
export const LAUNCHD_LABEL = 'dev.leo.daemon';

/**
 * One quoted word of a unit line. systemd splits on spaces unless quoted, expands `%` specifiers and reads backslash
 * escapes inside quotes; ExecStart= also expands `$VAR` (Environment= does not). Each is neutralised so a path is
 * taken literally.
 */
export function systemdWord(s: string, expandsVariables = true): string {
  const escaped = s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  return `"${expandsVariables ? escaped.replace(/\$/g, '$$$$') : escaped}"`;
}

export function systemdUnit(spec: ServiceSpec): string {
  const env = (name: string, value: string) => `Environment=${systemdWord(`${name}=${value}`, false)}`;
  return [
    '# Written by `leo service install`; `leo service uninstall` removes it.',
    '[Unit]',
    'Description=Leo: AI coding agents in tmux, a chat thread each',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${[spec.nodePath, spec.leoBin, 'daemon'].map((w) => systemdWord(w)).join(' ')}`,
    env('LEO_HOME', spec.leoHome),
    env('PATH', spec.path),
    'Restart=on-failure',
    'RestartSec=5',
    // The agents run in Leo's own tmux server, which the daemon starts and which outlives it by design (a restarted
    // daemon finds its agents where they were). Only the daemon's process is signalled at stop.
    'KillMode=process',
    // SIGTERM is a graceful shutdown: held requests answered, the store closed.
    'TimeoutStopSec=30',
    'StandardOutput=journal',
    'StandardError=journal',
    'SyslogIdentifier=leo',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The launchd agent: started at login, restarted when it exits with an error, its output in a log file. */
export function launchdPlist(spec: ServiceSpec, logFile: string): string {
  const str = (s: string) => `<string>${xml(s)}</string>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `leo service install`; `leo service uninstall` removes it. -->',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key>${str(LAUNCHD_LABEL)}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...[spec.nodePath, spec.leoBin, 'daemon'].map((a) => `    ${str(a)}`),
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    `    <key>LEO_HOME</key>${str(spec.leoHome)}`,
    `    <key>PATH</key>${str(spec.path)}`,
    '  </dict>',
    '  <key>RunAtLoad</key><true/>',
    // Restart on a crash, not after a clean stop.
    '  <key>KeepAlive</key>',
    '  <dict><key>SuccessfulExit</key><false/></dict>',
    '  <key>ThrottleInterval</key><integer>5</integer>',
    // Leo's tmux server (and its agents) outlive the daemon by design; launchd would kill the job's group otherwise.
    '  <key>AbandonProcessGroup</key><true/>',
    '  <key>ProcessType</key>',
    '  <string>Interactive</string>',
    `  <key>StandardOutPath</key>${str(logFile)}`,
    `  <key>StandardErrorPath</key>${str(logFile)}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}
