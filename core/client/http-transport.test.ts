import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type RunningServer } from '../apiserver/serve.ts';
import { HttpTransport } from './http-transport.ts';
import { KubeconfigInvalid, loadKubeconfig } from './kubeconfig.ts';

function req(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const u = new URL(path, 'http://x');
  return {
    method,
    path: u.pathname,
    query: u.searchParams,
    headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? Buffer.from(JSON.stringify(body)) : undefined,
  };
}

describe('HttpTransport against a live server', () => {
  let dir: string;
  let running: RunningServer;
  let transport: HttpTransport;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-transport-'));
    running = await serve({ dataDir: dir, securePort: 0, bindAddress: '127.0.0.1', log: () => {} });
    transport = new HttpTransport(loadKubeconfig(running.kubeconfigPath));
  });

  after(async () => {
    transport.close();
    await running.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the server with the kubeconfig CA and reads /version', async () => {
    const r = await transport.request(req('GET', '/version'));
    assert.equal(r.status, 200);
    assert.equal(JSON.parse(String(r.body)).gitVersion, 'v1.27.0');
  });

  it('creates and reads objects, and returns Status bodies for errors', async () => {
    const c = await transport.request(req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 't1' }, data: { a: 'b' } }));
    assert.equal(c.status, 201);
    const dup = await transport.request(req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 't1' } }));
    assert.equal(dup.status, 409);
    assert.equal(JSON.parse(String(dup.body)).reason, 'AlreadyExists');
  });

  it('streams watch events', async () => {
    const r = await transport.request(req('GET', '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0'));
    assert.ok(r.stream);
    const lines: string[] = [];
    let buf = '';
    let notify: (() => void) | undefined;
    r.stream.start(
      (chunk) => {
        buf += String(chunk);
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          lines.push(buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
        notify?.();
        return true;
      },
      () => {},
    );
    const waitFor = (pred: () => boolean) =>
      new Promise<void>((resolve) => {
        if (pred()) return resolve();
        notify = () => pred() && resolve();
      });
    await waitFor(() => lines.some((l) => l.includes('"t1"')));
    await transport.request(req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 't2' } }));
    await waitFor(() => lines.some((l) => l.includes('"t2"')));
    const types = lines.map((l) => JSON.parse(l)).filter((e) => e.object.metadata.name === 't2').map((e) => e.type);
    assert.deepEqual(types, ['ADDED']);
    r.stream.cancel();
  });

  it('a kubeconfig without a usable server names the field', () => {
    const bad = join(dir, 'bad-kubeconfig');
    writeFileSync(bad, 'apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, cluster: {server: "ftp://x"}}]\n');
    assert.throws(() => loadKubeconfig(bad), (e: unknown) => e instanceof KubeconfigInvalid && /clusters\[k\]\.cluster\.server/.test(e.message));
    assert.throws(() => loadKubeconfig(join(dir, 'missing')), KubeconfigInvalid);
  });
});
