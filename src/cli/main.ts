import { Command, Option } from 'commander';
import { LEO_VERSION } from '../core/version.js';
import { registerAgentCommands } from './agent-commands.js';
import { runDaemonCommand } from './daemon-command.js';
import { runDoctorCommand } from './doctor-command.js';
import { runHookCommand } from './hook-command.js';
import { runInitCommand } from './init-command.js';
import { runOpenCommand } from './pair-command.js';
import { runRemoteCommand } from './remote-command.js';
import { runMcpStdio } from './mcp-stdio-command.js';
import { runTaskCommand } from './run-command.js';
import { registerServiceCommands } from './service-command.js';
import { runStatusCommand } from './status-command.js';
import { registerTokenCommands } from './token-commands.js';

const program = new Command()
  .name('leo')
  .description('Run a fleet of AI coding agents in tmux and talk to them from anywhere')
  .version(LEO_VERSION, '-V, --version-flag');

program
  .command('daemon')
  .description('run the daemon in the foreground (SIGTERM/SIGINT stop it, SIGHUP reloads leo.yaml)')
  .action(runDaemonCommand);

program
  .command('doctor')
  .description('check tmux, ffmpeg, whisper-cli and its model, the config, and file permissions')
  .action(runDoctorCommand);

program
  .command('hook <event>', { hidden: true })
  .description('run by agent harnesses (Claude Code hooks): hands the hook input to the daemon')
  .action(runHookCommand);

program
  .command('init')
  .description('write a commented leo.yaml with a claude, a codex and a shell template')
  .option('--force', 'replace an existing leo.yaml')
  .action(runInitCommand);

program
  .command('mcp-stdio')
  .description("Leo's agent tools over MCP stdio, for harnesses without HTTP MCP (relays to LEO_MCP_URL)")
  .option('--url <url>', 'the MCP endpoint (default: $LEO_MCP_URL)')
  .action(runMcpStdio);

program
  .command('open')
  .description("pair this machine's browser with Leo Web in one click (prints the link and opens it)")
  .option('--no-browser', 'only print the link')
  .action(runOpenCommand);

program
  .command('remote <host>')
  .description(
    'reach Leo Web from a phone at https://<host>/: allows the host, prints the Tailscale Serve or proxy set-up and a pairing QR',
  )
  .option('--device <name>', 'the name the paired phone gets')
  .option('--fleet', 'let the phone run the fleet (spawn, environments, start/stop, rename, remove, run tasks)', false)
  .action(runRemoteCommand);

program
  .command('run <task>')
  .description('run a task now, in this process (a persistent task is fired in its agent by the daemon)')
  .action(runTaskCommand);

program
  .command('status')
  .description('the running daemon: health, uptime, listeners, agents, open asks and prompts, task runs, warnings')
  .addOption(new Option('--json', 'print as JSON (for scripts)'))
  .action(runStatusCommand);

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
