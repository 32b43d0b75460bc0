import { z } from 'zod';

// Pure (zod only): the web app validates names with the daemon's own rules.

/** Names of agents, templates, tasks and environments. */
const NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,62}$/;
export const NameSchema = z.string().regex(NAME_PATTERN, {
  error: "must start with a letter or digit and contain only letters, digits, '.', '_' or '-' (max 63 characters)",
});

/** Unlike config names, no `.`: tmux rewrites dots in session names, and `leo-<name>` must map back 1:1. */
export const AgentName = z
  .string()
  .regex(
    /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,62}$/,
    "must start with a letter or digit and hold only letters, digits, '_' or '-' (max 63)",
  );
