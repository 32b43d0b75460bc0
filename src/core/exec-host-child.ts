// The exec host's process (exec-host.ts): runs each requested program with realExec and answers over IPC. It holds
// no state; when the daemon goes, the IPC channel closes and so does this process.
import { realExec } from './exec.js';
import type { ExecReply, ExecRequest } from './exec-host.js';

const answer = (reply: ExecReply) => process.send?.(reply);

process.on('message', (req: ExecRequest) => {
  realExec(req.file, req.args, req.opts).then(
    (result) => answer({ id: req.id, result }),
    (err: NodeJS.ErrnoException) => answer({ id: req.id, error: err.message, ...(err.code ? { code: err.code } : {}) }),
  );
});
process.on('disconnect', () => process.exit(0));
