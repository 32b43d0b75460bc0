// Issue 33: without gh, a pull request is opened on the forge's own page, found from the remote's URL in any of the
// forms git takes (https, ssh://, scp-like); git's output shown on a phone has the secrets URLs carry masked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareUrl, remoteRepo } from '../../../src/review/actions/forge-url.js';
import { maskSecrets } from '../../../src/review/actions/mask-secrets.js';

const draft = { head: 'feature/x', base: 'main', title: 'Fix the widget', body: 'Why:\n- it broke & 50% off' };

describe('the forge page for a pull request', () => {
  it('reads the host and owner/repo from https, ssh and scp-like URLs', () => {
    const widget = { host: 'github.com', repo: 'acme/widget' };
    for (const url of [
      'https://github.com/acme/widget.git',
      'https://github.com/acme/widget',
      'https://x-access-token:ghp_secret@github.com/acme/widget.git',
      'ssh://git@github.com/acme/widget.git',
      'ssh://git@github.com:22/acme/widget.git/',
      'git@github.com:acme/widget.git',
      'github.com:acme/widget',
    ])
      assert.deepEqual(remoteRepo(url), widget, url);
    assert.deepEqual(remoteRepo('https://gitlab.example.com:8443/group/sub/tool.git'), {
      host: 'gitlab.example.com:8443',
      repo: 'group/sub/tool',
    });
    assert.deepEqual(remoteRepo('ssh://git@gitlab.example.com:2222/group/tool.git'), {
      host: 'gitlab.example.com',
      repo: 'group/tool',
    });
    for (const local of ['/srv/git/widget.git', '../widget', 'file:///srv/git/widget.git', 'C:widget'])
      assert.equal(remoteRepo(local), null, local);
  });

  it('GitHub: compare base...head with the title and body', () => {
    const url = compareUrl({ host: 'github.com', repo: 'acme/widget' }, draft);
    assert.equal(
      url,
      'https://github.com/acme/widget/compare/main...feature/x?expand=1&title=Fix+the+widget&body=Why%3A%0A-+it+broke+%26+50%25+off',
    );
    const noBase = compareUrl({ host: 'github.com', repo: 'acme/widget' }, { ...draft, base: null });
    assert.match(noBase!, /^https:\/\/github\.com\/acme\/widget\/compare\/feature\/x\?expand=1&/);
  });

  it('GitLab (subgroups too): the new merge request page with source, target, title and description', () => {
    const url = new URL(compareUrl({ host: 'gitlab.com', repo: 'group/sub/tool' }, draft)!);
    assert.equal(url.origin + url.pathname, 'https://gitlab.com/group/sub/tool/-/merge_requests/new');
    assert.equal(url.searchParams.get('merge_request[source_branch]'), 'feature/x');
    assert.equal(url.searchParams.get('merge_request[target_branch]'), 'main');
    assert.equal(url.searchParams.get('merge_request[title]'), draft.title);
    assert.equal(url.searchParams.get('merge_request[description]'), draft.body);
  });

  it('Gitea and Forgejo (codeberg.org, hosts naming them): compare base...head', () => {
    for (const host of ['codeberg.org', 'gitea.example.com', 'git-forgejo.example.org']) {
      const url = new URL(compareUrl({ host, repo: 'acme/widget' }, draft)!);
      assert.equal(url.origin + url.pathname, `https://${host}/acme/widget/compare/main...feature/x`, host);
      assert.equal(url.searchParams.get('title'), draft.title);
    }
  });

  it('Bitbucket: the new pull request page with source and destination', () => {
    assert.equal(
      compareUrl({ host: 'bitbucket.org', repo: 'team/widget' }, draft),
      'https://bitbucket.org/team/widget/pull-requests/new?source=feature%2Fx&dest=main',
    );
  });

  it('no page on a host that is no known forge', () => {
    assert.equal(compareUrl({ host: 'git.example.com', repo: 'acme/widget' }, draft), null);
  });
});

describe("masking git's output", () => {
  it('masks passwords and http user tokens in URLs, and token query parameters; keeps ssh users', () => {
    const out = [
      "fatal: unable to access 'https://oauth2:glpat-SECRET1@gitlab.com/g/r.git/': 403",
      'remote: https://ghp_SECRET2@github.com/acme/widget.git',
      'To ssh://git@github.com/acme/widget.git',
      'https://example.com/r.git?private_token=SECRET3&x=1',
      'git@github.com:acme/widget.git',
    ].join('\n');
    const masked = maskSecrets(out);
    assert.doesNotMatch(masked, /SECRET/);
    assert.match(masked, /https:\/\/oauth2:\*\*\*@gitlab\.com/);
    assert.match(masked, /https:\/\/\*\*\*@github\.com/);
    assert.match(masked, /ssh:\/\/git@github\.com/);
    assert.match(masked, /private_token=\*\*\*&x=1/);
    assert.match(masked, /^git@github\.com:acme/m);
  });
});
