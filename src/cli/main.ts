import { Command, Option } from 'commander';
import { LEO_VERSION } from '../core/version.js';
import { registerAgentCommands } from './agent-commands.js';
import { registerServiceCommands } from './service-command.js';
import { listTokens, registerTokenCommands, revokeToken } from './token-commands.js';

/**
 * An action whose module is loaded only when its command runs. The harnesses run `leo hook` at every turn's start and
 * end: loaded eagerly, the daemon's whole module graph cost each hook about 0.75 s of CPU before it said a word.
 */
const lazy =
  <A extends unknown[]>(load: () => Promise<(...args: A) => unknown>) =>
  async (...args: A): Promise<void> => {
    await (
      await load()
    )(...args);
  };

const program = new Command()
  .name('leo')
  .description('Run a fleet of AI coding agents in tmux and talk to them from anywhere')
  .version(LEO_VERSION, '-V, --version-flag');

program
  .command('daemon')
  .description('run the daemon in the foreground (SIGTERM/SIGINT stop it, SIGHUP reloads leo.yaml)')
  .action(lazy(async () => (await import('./daemon-command.js')).runDaemonCommand));

program
  .command('doctor')
  .description('check tmux, ffmpeg, whisper-cli and its model, the config, and file permissions')
  .action(lazy(async () => (await import('./doctor-command.js')).runDoctorCommand));

program
  .command('hook <event>', { hidden: true })
  .description('run by agent harnesses (Claude Code hooks): hands the hook input to the daemon')
  .action(lazy(async () => (await import('./hook-command.js')).runHookCommand));

program
  .command('init')
  .description('write a commented leo.yaml with a claude, a codex and a shell template')
  .option('--force', 'replace an existing leo.yaml')
  .action(lazy(async () => (await import('./init-command.js')).runInitCommand));

const host = program
  .command('host')
  .description('several machines, one fleet: pair this daemon with a hub (invite) or follow hosts as the hub (add)');
host
  .command('invite <hub-name>')
  .description('on a host: print a one-time join link (10 minutes, one use) for the hub named <hub-name>')
  .option('--url <url>', 'where the hub reaches this daemon (default: the `leo remote` name, else the listen address)')
  .action(lazy(async () => (await import('./host-command.js')).runHostInvite));
host
  .command('add <name> <join-link>')
  .description('on the hub: follow the host whose join link this is, calling it <name>')
  .action(lazy(async () => (await import('./host-command.js')).runHostAdd));
host
  .command('list')
  .description('on the hub: the hosts it follows, each probed now (status, last seen, version, round trip)')
  .addOption(new Option('--json', 'print as JSON (for scripts)'))
  .action(lazy(async () => (await import('./host-command.js')).runHostList));
host
  .command('remove <name>')
  .description('on the hub: stop following a host; it is asked to revoke the hub’s token')
  .action(lazy(async () => (await import('./host-command.js')).runHostRemove));
host
  .command('peers')
  .description('on a host: the hubs that joined it')
  .addOption(new Option('--json', 'print as JSON (for scripts)'))
  .action((o: { json?: boolean }) => listTokens('peer', o.json));
host
  .command('revoke <hub-name>')
  .description('on a host: revoke a hub’s peer token; it can no longer reach this daemon')
  .action((name: string) => revokeToken('peer', name));

program
  .command('mcp-stdio')
  .description("Leo's agent tools over MCP stdio, for harnesses without HTTP MCP (relays to LEO_MCP_URL)")
  .option('--url <url>', 'the MCP endpoint (default: $LEO_MCP_URL)')
  .action(lazy(async () => (await import('./mcp-stdio-command.js')).runMcpStdio));

program
  .command('open')
  .description("pair this machine's browser with Leo Web in one click (prints the link and opens it)")
  .option('--no-browser', 'only print the link')
  .action(lazy(async () => (await import('./pair-command.js')).runOpenCommand));

program
  .command('remote <host>')
  .description(
    'reach Leo Web from a phone at https://<host>/: allows the host, prints the Tailscale Serve or proxy set-up and a pairing QR',
  )
  .option('--device <name>', 'the name the paired phone gets')
  .option('--fleet', 'let the phone run the fleet (spawn, environments, start/stop, rename, remove, run tasks)', false)
  .action(lazy(async () => (await import('./remote-command.js')).runRemoteCommand));

program
  .command('run <task>')
  .description('run a task now, in this process (a persistent task is fired in its agent by the daemon)')
  .action(lazy(async () => (await import('./run-command.js')).runTaskCommand));

program
  .command('status')
  .description('the running daemon: health, uptime, listeners, agents, open asks and prompts, task runs, warnings')
  .addOption(new Option('--json', 'print as JSON (for scripts)'))
  .action(lazy(async () => (await import('./status-command.js')).runStatusCommand));

program
  .command('version')
  .description('print the leo version')
  .addOption(new Option('--json', 'print as JSON'))
  .action((o: { json?: boolean }) => {
    console.log(o.json ? JSON.stringify({ leo_version: LEO_VERSION, node: process.version }) : `leo ${LEO_VERSION}`);
  });

registerTokenCommands(program);
registerAgentCommands(program);
registerServiceCommands(program);

await program.parseAsync(process.argv);
