// Durability across kill -9: `orrery serve` runs as a child process; several writers stream
// ConfigMap creates over HTTPS; the child is SIGKILLed mid-stream and restarted on the same data
// dir. Every create that was acknowledged (201) must survive, with its data, and resourceVersions
// must keep increasing after the restart.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { join } from 'node:path';
import { makeTempDir, readKubeconfig, removeTempDir, request, startServerProcess, type ServerProcess } from './harness.ts';

const WRITERS = 8;
const KILL_AFTER_ACKS = 120;

describe('kill -9 of orrery serve', () => {
  const dir = makeTempDir('crash');
  const dataDir = join(dir, 'data');
  const servers: ServerProcess[] = [];

  after(async () => {
    for (const s of servers) await s.stop('SIGKILL');
    removeTempDir(dir);
  });

  it('keeps every acknowledged create and keeps resourceVersions increasing', async () => {
    const first = await startServerProcess(dataDir);
    servers.push(first);
    const access = readKubeconfig(first.kubeconfigPath);
    const agent = new https.Agent({ keepAlive: true, maxSockets: WRITERS });

    const acked = new Map<string, { rv: number; payload: string }>();
    let maxAckedRv = 0;
    let killed = false;
    let rejectedBeforeKill: string[] = [];
    let seq = 0;
    let inFlight = 0;
    let inFlightAtKill = 0;
    let killDone: Promise<unknown> | undefined;

    const writer = async (w: number) => {
      while (!killed) {
        const name = `crash-${w}-${seq++}`;
        const payload = `${name}:${'x'.repeat(64)}`;
        inFlight++;
        try {
          const r = await request(access, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload } }, { agent, timeoutMs: 10_000 });
          if (r.status === 201) {
            const rv = Number(r.body.metadata.resourceVersion);
            acked.set(name, { rv, payload });
            maxAckedRv = Math.max(maxAckedRv, rv);
            if (acked.size >= KILL_AFTER_ACKS && !killed) {
              killed = true;
              inFlightAtKill = inFlight - 1;
              killDone = first.stop('SIGKILL');
            }
          } else if (!killed) {
            rejectedBeforeKill.push(`${name}: ${r.status} ${r.text.slice(0, 200)}`);
          }
        } catch (e) {
          if (!killed) rejectedBeforeKill.push(`${name}: ${String(e)}`);
        } finally {
          inFlight--;
        }
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    const exit = (await killDone) as { code: number | null; signal: NodeJS.Signals | null };
    agent.destroy();
    assert.equal(exit.signal, 'SIGKILL', 'the server died by SIGKILL, not by a clean exit');
    assert.deepEqual(rejectedBeforeKill, [], 'no create failed before the kill');
    assert.ok(acked.size >= KILL_AFTER_ACKS);
    assert.ok(inFlightAtKill > 0, 'the kill came while creates were in flight');
    // The acknowledged resourceVersions are distinct: every create got its own revision.
    assert.equal(new Set([...acked.values()].map((a) => a.rv)).size, acked.size);
    rejectedBeforeKill = [];

    const second = await startServerProcess(dataDir);
    servers.push(second);
    const access2 = readKubeconfig(second.kubeconfigPath);

    const list = await request(access2, 'GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(list.status, 200, list.text);
    const found = new Map<string, any>(list.body.items.map((i: any) => [i.metadata.name, i]));
    const lost = [...acked.keys()].filter((n) => !found.has(n));
    assert.deepEqual(lost, [], `${lost.length} of ${acked.size} acknowledged creates were lost`);
    for (const [name, a] of acked) {
      const obj = found.get(name);
      assert.equal(obj.data.payload, a.payload, `${name} kept its data`);
      assert.equal(Number(obj.metadata.resourceVersion), a.rv, `${name} kept its resourceVersion`);
    }
    assert.ok(Number(list.body.metadata.resourceVersion) >= maxAckedRv, `list resourceVersion ${list.body.metadata.resourceVersion} < newest acknowledged ${maxAckedRv}`);

    const maxSeenRv = Math.max(maxAckedRv, ...list.body.items.map((i: any) => Number(i.metadata.resourceVersion)));
    const after1 = await request(access2, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-restart-1' } });
    assert.equal(after1.status, 201, after1.text);
    const rv1 = Number(after1.body.metadata.resourceVersion);
    assert.ok(rv1 > maxSeenRv, `resourceVersion after restart ${rv1} must exceed every one seen before (${maxSeenRv})`);
    const after2 = await request(access2, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-restart-2' } });
    assert.equal(after2.status, 201, after2.text);
    assert.ok(Number(after2.body.metadata.resourceVersion) > rv1);

    // A name acknowledged before the crash is still taken.
    const [someName] = acked.keys();
    const dup = await request(access2, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: someName } });
    assert.equal(dup.status, 409, dup.text);
    assert.equal(dup.body.reason, 'AlreadyExists');

    const stopped = await second.stop('SIGTERM');
    assert.equal(stopped.code, 0, `clean shutdown on SIGTERM; stderr:\n${second.stderr()}`);
  });
});
