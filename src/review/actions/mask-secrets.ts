/**
 * Pure: git's output with the secrets a remote URL can carry masked (issue 33 shows git's errors in full on a
 * phone). In `scheme://user:password@host` the password goes; in an http(s) URL a bare `user@` goes too, since
 * forges take a token there (`https://ghp_…@github.com`); an ssh user name is kept. Token query parameters go as well.
 */
export function maskSecrets(text: string): string {
  return text
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^/\s@:]*):([^/\s@]*)@/gi, '$1$2:***@')
    .replace(/\b(https?:\/\/)([^/\s@:]+)@/gi, '$1***@')
    .replace(/([?&](?:access_token|private_token|token|password)=)[^&\s]+/gi, '$1***');
}
