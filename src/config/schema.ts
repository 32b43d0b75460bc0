// Schema for $LEO_HOME/leo.yaml.
//
// Conventions:
// - Every object is a z.strictObject so unknown keys surface as
//   `unrecognized_keys` issues; the loader (load.ts) turns those into warnings,
//   strips the keys and re-validates.
// - Every field has a default or is optional, so an empty or missing file
//   yields a complete, valid Config.
// - Durations ("120s", "30m", "1h", "90d", or a number of seconds) become
//   milliseconds.
// - Paths with a leading `~` are expanded against the home directory given to
//   buildConfigSchema() — never os.homedir() implicitly.
import os from 'node:os';
import path from 'node:path';
import ms from 'ms';
import { z } from 'zod';
import { globProblem } from '../core/name-glob.js';
import { NameSchema } from '../wire/names.js';
import { HostName, HostPin, HostUrl } from '../wire/host.js';
import type { ChatEngine } from '../core/chat-engine.js';
import { Reasoning } from '../wire/sessions.js';

export const ENV_VAR_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const EnvVarNameSchema = z
  .string()
  .regex(ENV_VAR_PATTERN, { error: 'must be a valid environment variable name ([A-Za-z_][A-Za-z0-9_]*)' });

export const HARNESSES = ['claude', 'codex', 'opencode', 'shell'] as const;
export const HarnessSchema = z.enum(HARNESSES);
export type Harness = z.infer<typeof HarnessSchema>;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const MiB = 1024 * 1024;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// ---------------------------------------------------------------------------
// Building blocks

/** Turns an explicit YAML null (`chat:` with nothing under it) into "absent". */
function nullAsAbsent<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (v === null ? undefined : v), schema);
}

/** Parses "120s" / "30m" / "1h" / "90d" (via `ms`) or a number of seconds into milliseconds. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') {
    return Number.isFinite(value) && value >= 0 ? Math.round(value * SECOND) : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const s = value.trim();
  // A bare numeric string means seconds, like a bare YAML number (ms() would read it as milliseconds).
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * SECOND);
  let out: number | undefined;
  try {
    out = ms(s as ms.StringValue) as number | undefined;
  } catch {
    return undefined;
  }
  return typeof out === 'number' && Number.isFinite(out) && out >= 0 ? Math.round(out) : undefined;
}

function fmtDuration(msValue: number): string {
  return ms(msValue, { long: false });
}

/** A duration field; output is milliseconds. Bounds are in milliseconds. */
export function duration(opts: { min?: number; max?: number } = {}) {
  return z.union([z.string(), z.number()]).transform((input, ctx) => {
    const out = parseDuration(input);
    if (out === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a duration like "30s", "5m", "1h", "90d" or a number of seconds, got ${JSON.stringify(input)}`,
      });
      return z.NEVER;
    }
    if (opts.min !== undefined && out < opts.min) {
      ctx.addIssue({
        code: 'custom',
        message: `must be at least ${fmtDuration(opts.min)}, got ${JSON.stringify(input)}`,
      });
      return z.NEVER;
    }
    if (opts.max !== undefined && out > opts.max) {
      ctx.addIssue({
        code: 'custom',
        message: `must be at most ${fmtDuration(opts.max)}, got ${JSON.stringify(input)}`,
      });
      return z.NEVER;
    }
    return out;
  });
}

/** Splits "host:port" / "[v6]:port". Returns undefined when malformed. */
export function parseListen(value: string): { host: string; port: number } | undefined {
  const m = /^\[([0-9A-Fa-f:.]+(?:%[\w.-]+)?)\]:(\d{1,5})$/.exec(value) ?? /^([A-Za-z0-9._-]+):(\d{1,5})$/.exec(value);
  if (!m || m[1] === undefined || m[2] === undefined) return undefined;
  const port = Number(m[2]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return undefined;
  if (m[0].startsWith('[') && !m[1].includes(':')) return undefined;
  return { host: m[1], port };
}

/** The origin a browser on this machine reaches a listener at: a wildcard bind is reached on loopback. Pure. */
export function listenOrigin(listen: { host: string; port: number }, secure: boolean): string {
  const host = listen.host === '0.0.0.0' || listen.host === '::' ? '127.0.0.1' : listen.host;
  return `${secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${listen.port}`;
}

const ListenSchema = z.string().superRefine((v, ctx) => {
  if (!parseListen(v)) {
    ctx.addIssue({ code: 'custom', message: `expected host:port, got ${JSON.stringify(v)}` });
  }
});

const nonEmpty = () => z.string().min(1, { error: 'must not be empty' });

/** Accepts numbers/booleans in env maps (`PORT: 8080`) and stores them as strings. */
const EnvValueSchema = z.preprocess(
  (v) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v),
  z.string(),
);
const EnvMapSchema = z.record(EnvVarNameSchema, EnvValueSchema);

function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export function expandHome(p: string, home: string | undefined): string {
  if (home === undefined) return p;
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return p;
}

/** Run object-level refinements even when a sibling field failed, so every error is reported at once. */
const evenWithIssues = {
  when: (payload: { value: unknown }) => payload.value !== null && typeof payload.value === 'object',
};

function defaultThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

/**
 * `mailto:<someone>@<a domain with a dot>` or `https://<a public-looking host>`: what Apple's push service accepts.
 * localhost and bare names are refused here rather than by the push service on every push.
 */
export const VapidSubject = z.string().refine(
  (s) => {
    const mail = /^mailto:[^@\s/]+@([^@\s/]+)$/.exec(s);
    if (mail) return isPublicName(mail[1]!);
    if (!/^https:\/\//.test(s)) return false;
    try {
      return isPublicName(new URL(s).hostname);
    } catch {
      return false;
    }
  },
  {
    error: (iss) =>
      `must be a real mailto: address or https: URL a push service can reach you at (e.g. "mailto:you@example.com"); Apple refuses others, got ${JSON.stringify(iss.input)}`,
  },
);

function isPublicName(host: string): boolean {
  const h = host.toLowerCase();
  return h.includes('.') && !h.endsWith('.') && h !== 'localhost' && !h.endsWith('.localhost') && !h.endsWith('.local');
}

// ---------------------------------------------------------------------------

export interface BuildOptions {
  /** Home directory used to expand a leading `~` in path fields. When omitted, `~` is left as-is. */
  home?: string;
  /**
   * The chat engine a template runs, as the harness table says (src/harnesses): a template's `chat.temperature` is
   * refused where that is claude-cli. Handed in because the table sits above the config; when omitted, not checked.
   */
  chatEngineFor?: ChatEngineFor;
}

export type ChatEngineFor = (configured: ChatEngine['name'] | undefined, harness: Harness) => ChatEngine['name'];

export function buildConfigSchema(opts: BuildOptions = {}) {
  const pathField = () =>
    z
      .string({
        // A bare `~` is YAML for null; point the user at the fix instead of "expected string, got null".
        error: (iss) =>
          iss.input === null ? 'expected a path, got null (a bare ~ is YAML null: write "~" or ~/...)' : undefined,
      })
      .min(1, { error: 'must not be empty' })
      .transform((p) => expandHome(p, opts.home));

  const WebSchema = z.strictObject({
    listen: ListenSchema.default('127.0.0.1:8370'),
    /** Extra Host/Origin names accepted besides loopback. */
    allowed_hosts: z.array(z.string().regex(/^[^\s/]+$/, { error: 'must be a host name' })).default([]),
    /** Max request body in bytes. */
    body_limit: z
      .number()
      .int()
      .positive()
      .default(1 * MiB),
    /** Max queued events per SSE subscriber before it is dropped. */
    sse_queue: z.number().int().positive().default(1024),
    /** Time allowed to receive a whole request (headers and body); slow uploads need it long. */
    request_timeout: duration({ min: SECOND }).default(5 * MINUTE),
    /**
     * Open TCP connections at most, counted before any TLS handshake (the unix socket has no cap). At the cap a new
     * connection pushes out one without a token yet, else the longest-idle one (a client's before the owner's);
     * lowered at start to what the open-file limit leaves room for.
     */
    max_connections: z.number().int().min(16).default(512),
    /**
     * Open TCP connections one token holds at most (never more than half the cap). Beyond it the token's own
     * longest-idle connection is closed, or its request refused (429) when all are busy.
     */
    max_connections_per_token: z.number().int().min(8).default(64),
    /** Open /api/v1/events streams over TCP at most, all tokens together (the socket's streams are not counted). */
    sse_max_subscribers: z.number().int().positive().default(256),
    /** Open /api/v1/events streams at most per token (one device, one API client, the operator token). */
    sse_max_per_token: z.number().int().positive().default(32),
    /** PEM files that make the TCP listener serve HTTPS; re-read when they change (adding or removing: a restart). */
    tls: z.strictObject({ cert: pathField(), key: pathField() }).optional(),
  });

  const LogSchema = z.strictObject({
    level: z.enum(LOG_LEVELS).default('info'),
  });

  const PoolSchema = z.strictObject({
    threads: z.number().int().min(1).max(64).default(defaultThreads),
    max_queue: z.number().int().nonnegative().default(1000),
  });

  const ChatSchema = z.strictObject({
    enabled: z.boolean().default(true),
    whisper_model: pathField().optional(),
    whisper_cli: pathField().optional(),
    ffmpeg: pathField().optional(),
    permission_timeout: duration({ min: SECOND }).default(120 * SECOND),
    question_timeout: duration({ min: SECOND, max: HOUR }).default(HOUR),
    /**
     * The VAPID subject push services may contact the operator at: a real mailto: address or https: URL (Apple's push
     * service refuses others, e.g. a mailto: at localhost). Read at start.
     */
    vapid_subject: VapidSubject.optional(),
    /** Webhook hosts (as written in the URL) that may resolve to loopback, private or link-local addresses. */
    webhook_allowed_hosts: z.array(z.string().regex(/^[^\s/]+$/, { error: 'must be a host name' })).default([]),
    attachment_max_bytes: z
      .number()
      .int()
      .positive()
      .default(100 * MiB),
    attachment_retention: duration({ min: MINUTE }).default(90 * DAY),
    /** Uploaded bytes kept per agent's thread (and for uploads not yet sent) before further uploads are refused. */
    attachment_quota_bytes: z
      .number()
      .int()
      .positive()
      .default(1024 * MiB),
    /** Undelivered messages (chat, agent→agent, operator) an agent may have waiting before more are refused (429). */
    max_pending_messages: z.number().int().positive().default(200),
    /** Agent chat endpoint sessions untouched this long are deleted with their messages. */
    session_retention: duration({ min: HOUR }).default(90 * DAY),
  });

  const DefaultsSchema = z.strictObject({
    harness: HarnessSchema.default('claude'),
    model: nonEmpty().optional(),
    environments: z.array(NameSchema).default([]),
    idle_suspend_after: duration({ min: SECOND }).optional(),
    workspace_root: pathField().optional(),
  });

  const TemplateSchema = z
    .strictObject({
      harness: HarnessSchema.optional(),
      command: nonEmpty().optional(),
      model: nonEmpty().optional(),
      workspace: pathField().optional(),
      repo: nonEmpty().optional(),
      branch: nonEmpty().optional(),
      /** Each agent gets its own git worktree of the workspace's repository, on `leo/<agent>` (issue 33). */
      worktree: z.boolean().optional(),
      environments: z.array(NameSchema).optional(),
      permissions: nullAsAbsent(
        z
          .strictObject({
            bypass_permissions: z.boolean().optional(),
            allow: z.array(nonEmpty()).optional(),
          })
          .optional(),
      ),
      chat: nullAsAbsent(
        z
          .strictObject({
            enabled: z.boolean().optional(),
            engine: z.enum(['openai', 'claude-cli']).optional(),
            base_url: z.url({ error: 'must be a URL' }).optional(),
            api_key_env: EnvVarNameSchema.optional(),
            model: nonEmpty().optional(),
            temperature: z.number().min(0).max(2).optional(),
            max_tokens: z.number().int().positive().optional(),
            /** The turn default under session and per-call overrides, as `overrides.reasoning` takes it. */
            reasoning: Reasoning.optional(),
            /** USD per million tokens, for the cost estimate. */
            price: z
              .strictObject({
                input: z.number().min(0),
                output: z.number().min(0),
                cache: z.number().min(0).optional(),
              })
              .optional(),
            max_iterations: z.number().int().min(1).max(200).default(25),
            max_duration: duration({ min: SECOND }).default(10 * MINUTE),
            budget: z
              .strictObject({
                max_tokens: z.number().int().positive().optional(),
                max_wall_seconds: z.number().positive().optional(),
              })
              .optional(),
          })
          .optional(),
      ),
      idle_suspend_after: duration({ min: SECOND }).optional(),
      env: EnvMapSchema.optional(),
    })
    .superRefine((t, ctx) => {
      if (t.harness === 'shell' && t.command === undefined) {
        ctx.addIssue({ code: 'custom', path: ['command'], message: 'required when harness is shell' });
      }
    }, evenWithIssues);

  const TaskSchema = z
    .strictObject({
      schedule: nonEmpty(),
      timezone: z
        .string()
        .refine(isValidTimeZone, { error: (iss) => `unknown time zone ${JSON.stringify(iss.input)}` })
        .optional(),
      enabled: z.boolean().default(true),
      runtime: z.enum(['oneshot', 'persistent']).default('oneshot'),
      template: NameSchema.optional(),
      workspace: pathField().optional(),
      model: nonEmpty().optional(),
      harness: HarnessSchema.optional(),
      /** Shell harness: the command a oneshot run starts (else the template's). */
      command: nonEmpty().optional(),
      /** What the run is asked; a oneshot shell task's command is the whole task and needs none. */
      prompt: nonEmpty().optional(),
      attempts: z.number().int().min(1).default(1),
      timeout: duration({ min: SECOND }).default(30 * MINUTE),
      notify_on_fail: z.boolean().default(false),
      owner: NameSchema.optional(),
      environments: z.array(NameSchema).optional(),
    })
    .superRefine((t, ctx) => {
      if (t.runtime === 'persistent' && t.template === undefined) {
        ctx.addIssue({ code: 'custom', path: ['template'], message: 'required when runtime is persistent' });
      }
      if (t.runtime === 'persistent' && t.prompt === undefined) {
        ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'required when runtime is persistent' });
      }
    }, evenWithIssues);

  const AppearanceRuleSchema = z
    .strictObject({
      match: nullAsAbsent(
        z
          .strictObject({
            /** Glob over the agent name (syntax in core/name-glob.ts). */
            name: nonEmpty()
              .superRefine((pattern, ctx) => {
                const problem = globProblem(pattern);
                if (problem) ctx.addIssue({ code: 'custom', message: `glob ${problem}` });
              })
              .optional(),
            template: NameSchema.optional(),
            harness: HarnessSchema.optional(),
          })
          .prefault({}),
      ),
      emoji: nonEmpty().optional(),
      color: nonEmpty().optional(),
    })
    .superRefine((r, ctx) => {
      if (r.emoji === undefined && r.color === undefined) {
        ctx.addIssue({ code: 'custom', message: 'set emoji or color (or both)' });
      }
    }, evenWithIssues);

  /** USD per million tokens of one model, for the cost of a turn whose harness reports no cost of its own. */
  const ModelPriceSchema = z.strictObject({
    input: z.number().min(0),
    output: z.number().min(0),
    cache_read: z.number().min(0).optional(),
    cache_write: z.number().min(0).optional(),
  });
  const UsageSchema = z.strictObject({
    /** Keyed by the model name the harness records (Claude's `message.model`, Codex's turn model). */
    prices: nullAsAbsent(z.record(nonEmpty(), ModelPriceSchema).default({})),
  });

  /**
   * This daemon as a hub (issue 31): the hosts it follows, by the name it gives them. Written by `leo host add`; the
   * peer token each is reached with lives in the state directory, never here. `pin`: the host's own TLS certificate,
   * from its join link, which its connections must present (hosts/cert-pin.ts).
   */
  const HostEntrySchema = z
    .strictObject({ url: HostUrl, pin: HostPin.optional() })
    .refine((h) => !h.pin || /^https:/i.test(h.url), { error: 'a pin needs an https url', path: ['pin'] });
  const ClientSchema = z.strictObject({
    hosts: nullAsAbsent(z.record(HostName, HostEntrySchema).default({})),
  });

  /** This daemon as a host a hub moves agents to and from (issue 32). */
  const HostsSchema = z.strictObject({
    /** The largest workspace a move or copy of one of this daemon's agents ships (WorkspacePacker.measure). */
    move_max_bytes: z
      .number()
      .int()
      .positive()
      .default(1024 * MiB),
  });

  return z
    .strictObject({
      web: nullAsAbsent(WebSchema.prefault({})),
      client: nullAsAbsent(ClientSchema.prefault({})),
      hosts: nullAsAbsent(HostsSchema.prefault({})),
      usage: nullAsAbsent(UsageSchema.prefault({})),
      log: nullAsAbsent(LogSchema.prefault({})),
      pool: nullAsAbsent(PoolSchema.prefault({})),
      chat: nullAsAbsent(ChatSchema.prefault({})),
      defaults: nullAsAbsent(DefaultsSchema.prefault({})),
      templates: nullAsAbsent(z.record(NameSchema, nullAsAbsent(TemplateSchema.prefault({}))).default({})),
      tasks: nullAsAbsent(z.record(NameSchema, TaskSchema).default({})),
      /** name → env map. Values can be secrets: never log or serve them. */
      environments: nullAsAbsent(z.record(NameSchema, nullAsAbsent(EnvMapSchema.prefault({}))).default({})),
      appearance_rules: nullAsAbsent(z.array(AppearanceRuleSchema).default([])),
    })
    .superRefine((c, ctx) => {
      // A claude, codex or opencode template's command names the program run in place of the harness's CLI: one path or
      // name, since the harness builds the arguments. A shell line there would be run as a (missing) program name.
      for (const [name, t] of Object.entries(c.templates)) {
        const harness = t.harness ?? c.defaults.harness;
        if (harness !== 'shell' && t.command !== undefined && /\s/.test(t.command.trim()))
          ctx.addIssue({
            code: 'custom',
            path: ['templates', name, 'command'],
            message: `for harness ${harness}, command names the program to run instead of \`${harness}\` (one path, no arguments); use harness: shell for a command line`,
          });
        if (t.chat?.temperature !== undefined && opts.chatEngineFor?.(t.chat.engine, harness) === 'claude-cli')
          ctx.addIssue({
            code: 'custom',
            path: ['templates', name, 'chat', 'temperature'],
            message:
              'the claude-cli chat engine cannot set a temperature (the Claude CLI has no such setting): remove it, or use engine: openai',
          });
      }
      // Only a task's own harness, its template's or the default says whether the run is an agent CLI that needs it.
      for (const [name, t] of Object.entries(c.tasks)) {
        const template = t.template ? c.templates[t.template] : undefined;
        const harness = t.harness ?? template?.harness ?? c.defaults.harness;
        if (t.prompt === undefined && t.runtime !== 'persistent' && harness !== 'shell')
          ctx.addIssue({
            code: 'custom',
            path: ['tasks', name, 'prompt'],
            message: `required for a ${harness} task (only a shell task runs without one)`,
          });
        // A persistent task's agent runs its template's command under the task's harness: refused here, by name,
        // rather than as an agent that cannot start at the first run.
        const command = template?.command?.trim();
        if (t.runtime === 'persistent' && t.harness !== undefined && template) {
          const why =
            harness === 'shell'
              ? command === undefined &&
                `harness shell runs the template's command, and template "${t.template}" has none`
              : command !== undefined &&
                /\s/.test(command) &&
                `template "${t.template}"'s command is a command line, and harness ${harness} takes one program in its place`;
          if (why) ctx.addIssue({ code: 'custom', path: ['tasks', name, 'harness'], message: why });
        }
      }
    }, evenWithIssues);
}

/** Schema without `~` expansion; use buildConfigSchema({ home }) to expand paths. */
export const ConfigSchema = buildConfigSchema();
export type Config = z.infer<typeof ConfigSchema>;
export type TaskConfig = Config['tasks'][string];
