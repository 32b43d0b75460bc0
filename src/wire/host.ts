import { z } from 'zod';
import { TokenName } from './tokens.js';

/**
 * The protocol hosts and hubs speak (issue 31). A hub follows a host of the same major; a minor adds only what an
 * older peer may ignore. Bumped by hand, here only.
 */
export const PROTOCOL = { major: 1, minor: 0 } as const;

/** `GET /api/v1/host`: who this daemon is, for a hub pairing with it and for any reader. */
export const HostInfo = z.object({
  /** A ULID made once per installation and kept in chat.db: it survives restarts, upgrades and renames. */
  host_id: z.string(),
  /** The machine's own name (its short host name), not the name a hub gives it. */
  name: z.string(),
  version: z.string(),
  protocol: z.object({ major: z.number().int(), minor: z.number().int() }),
  /** What the SSE hello advertises. */
  features: z.array(z.string()),
});
export type HostInfo = z.infer<typeof HostInfo>;

/**
 * The name a hub gives a host: the key under `client.hosts` and, in later slices, the `@host` of `agent@host`, so a
 * DNS label: lower-case letters, digits and inner hyphens.
 */
export const HostName = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'a host name is a DNS label: a-z, 0-9 and inner hyphens');

/** A URL a hub reaches a host at: http or https only. */
export const HostUrl = z
  .string()
  .max(2048)
  .refine((v) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol), 'an http(s) URL');

/**
 * The SHA-256 of the DER certificate a host's own TLS listener serves, `sha256:<64 lower-case hex digits>` (openssl's
 * `-fingerprint -sha256` without its colons): a hub holding it checks the certificate against it instead of a CA.
 */
export const HostPin = z
  .string()
  .regex(
    /^sha256:[0-9a-f]{64}$/,
    'a certificate pin: sha256: and 64 lower-case hex digits, as `leo host invite` writes it',
  );

/** `POST /api/v1/host/invites`: a join code for the hub `hub` (the peer's name here); url: where the hub reaches us. */
export const HostInviteBody = z.strictObject({ hub: TokenName, url: HostUrl.optional() });
export const HostInvite = z.object({
  hub: z.string(),
  /** The join link, `<url>/#join=<code>[&pin=<pin>]`; the code is in it and nowhere else. */
  link: z.string(),
  url: z.string(),
  /** The pin of the certificate this daemon serves, when the hub reaches its own TLS listener (also in the link). */
  pin: z.string().optional(),
  expires_at: z.string(),
});
export type HostInvite = z.infer<typeof HostInvite>;

/** `POST /api/v1/host/join`: a hub redeems a join code; hub: the name the hub's machine gives itself. */
export const JoinBody = z.strictObject({ code: z.string().min(1).max(128), hub: z.string().min(1).max(128) });
export const Joined = z.object({ token: z.string(), host: HostInfo });
export type Joined = z.infer<typeof Joined>;

/** `POST /api/v1/hosts` on a hub: pair with the host a join link names, calling it `name`. */
export const AddHostBody = z.strictObject({ name: HostName, link: z.string().min(1).max(4096) });

export const HostStatus = z.enum(['online', 'stale', 'offline']);
export type HostStatus = z.infer<typeof HostStatus>;

/** A host as the hub lists it. No token: peer tokens never leave the hub's state directory. */
export const HostEntry = z.object({
  name: z.string(),
  url: z.string(),
  /**
   * `online`: its event stream is live; `stale`: connected but silent for two heartbeat intervals; `offline`: the hub
   * cannot reach it. Its agents then show their last known state.
   */
  status: HostStatus,
  /** When the hub last heard from the host (RFC 3339), or null if it never has since pairing. */
  last_seen: z.string().nullable(),
  /** From the host's last answer (kept while it is offline, as last known); null if it never answered. */
  version: z.string().nullable(),
  host_id: z.string().nullable(),
  rtt_ms: z.number().nullable(),
  /** Why the host is offline, in words. */
  error: z.string().optional(),
});
export type HostEntry = z.infer<typeof HostEntry>;

/** The host_status event's payload: a followed host's status changed (the hub's `hosts` feature). */
export const HostStatusEvent = z.object({
  host: z.string(),
  status: HostStatus,
  last_seen: z.string().nullable(),
  /** Why it is stale or offline, in words; null while online. */
  error: z.string().nullable(),
});
export type HostStatusEvent = z.infer<typeof HostStatusEvent>;

export const RemovedHost = z.object({
  name: z.string(),
  /** Whether the host confirmed it revoked the hub's peer token; false when it could not be reached. */
  revoked: z.boolean(),
  note: z.string().optional(),
});
export type RemovedHost = z.infer<typeof RemovedHost>;

/**
 * On a hub's lists across machines (`GET /api/v1/chat/open`, `/api/v1/chat/threads`): the hosts, comma-separated, that
 * did not answer within the hub's deadline. Their items in the answer are the last the hub heard from them, if any.
 */
export const HOSTS_MISSING_HEADER = 'leo-hosts-missing';

/**
 * POST /api/v1/chat/:agent/messages passed on by a hub for one of its API clients: `client:<name>`, the name
 * percent-encoded (a header is Latin-1; a client's name may be any letters). A host believes it of a peer token only.
 */
export const SENDER_HEADER = 'leo-sender';

export const senderHeaderOf = (client: string) => `client:${encodeURIComponent(client)}`;

/** The message's `sender` a hub's header names, or null when it names no client a thread could keep. */
export function senderOfHeader(value: string): string | null {
  if (!value.startsWith('client:')) return null;
  let name: string;
  try {
    name = decodeURIComponent(value.slice('client:'.length));
  } catch {
    return null;
  }
  const parsed = TokenName.safeParse(name);
  return parsed.success && parsed.data === name ? `client:${name}` : null;
}
