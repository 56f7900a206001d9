// A live cluster in one test process: `serve()` on a temp dir, a fleet of 3 node agents in piscina
// worker threads and the live scheduler (with leader election) over HTTPS against its kubeconfig,
// checked with the real kubectl 1.33: Ready nodes, a pod scheduled and Running, then deleted.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { serve, type RunningServer } from '../core/apiserver/serve.ts';
import { FleetWorkerFailed, runNodeAgentFleet, type NodeAgentFleet } from '../core/nodeagent/fleet.ts';
import { runLiveScheduler, type LiveScheduler } from '../core/scheduler/live.ts';
import { Kubectl, eventually, kubectlBinaries, makeTempDir, removeTempDir } from './harness.ts';

const NODES = ['e2e-node-0', 'e2e-node-1', 'e2e-node-2'];

describe('live node agents and scheduler against orrery serve', { timeout: 60_000 }, () => {
  let workDir = '';
  let server: RunningServer | undefined;
  let fleet: NodeAgentFleet | undefined;
  let scheduler: LiveScheduler | undefined;
  let kubectl: Kubectl;
  const workerErrors: FleetWorkerFailed[] = [];
  const schedulerErrors: unknown[] = [];
  let leadingChanges: boolean[] = [];

  before(async () => {
    workDir = makeTempDir('live-cluster');
    server = await serve({ dataDir: join(workDir, 'data'), securePort: 0, bindAddress: '127.0.0.1', log: () => undefined });
    kubectl = new Kubectl(kubectlBinaries(['1.33'])[0]!, server.kubeconfigPath, workDir);
    fleet = await runNodeAgentFleet({
      kubeconfigPath: server.kubeconfigPath,
      count: NODES.length,
      namePrefix: 'e2e-node-',
      threads: 2,
      pullLatencyMs: 50,
      startLatencyMs: 50,
      flags: { 'node-status-update-frequency': '2s' },
      onWorkerError: (e) => workerErrors.push(e),
    });
    scheduler = await runLiveScheduler({
      kubeconfigPath: server.kubeconfigPath,
      leaderElect: true,
      identity: 'e2e-scheduler',
      onError: (e) => schedulerErrors.push(e),
      onLeading: (l) => (leadingChanges = [...leadingChanges, l]),
    });
  });

  after(async () => {
    await scheduler?.stop();
    await fleet?.stop();
    await server?.stop();
    removeTempDir(workDir);
  });

  it('registers every agent of the fleet', async () => {
    await fleet!.ready;
    assert.equal(fleet!.registered(), NODES.length);
    assert.deepEqual(workerErrors, []);
  });

  it('kubectl get nodes shows 3 Ready nodes', async () => {
    const table = await eventually(
      'three Ready nodes in `kubectl get nodes`',
      async () => {
        const out = await kubectl.ok(['get', 'nodes', '--no-headers']);
        const rows = out.trim().split('\n').map((l) => l.trim().split(/\s+/));
        return rows.length === NODES.length && rows.every((r) => r[1] === 'Ready') ? rows : undefined;
      },
      15_000,
      200,
    );
    assert.deepEqual(table.map((r) => r[0]).sort(), NODES);
    const nodes = await kubectl.json(['get', 'nodes']);
    for (const n of nodes.items) {
      const ready = n.status.conditions.find((c: any) => c.type === 'Ready');
      assert.equal(ready?.status, 'True', `${n.metadata.name} Ready`);
      assert.equal(n.status.nodeInfo.kubeletVersion, 'v1.27.0');
      assert.ok(Number(n.status.allocatable.pods) > 0);
    }
    const leases = await kubectl.json(['get', 'leases', '-n', 'kube-node-lease']);
    assert.deepEqual(leases.items.map((l: any) => l.spec.holderIdentity).sort(), NODES);
  });

  it('holds the kube-scheduler Lease while scheduling', async () => {
    const lease = await eventually('the kube-scheduler Lease', async () => (await kubectl.json(['get', 'lease', 'kube-scheduler', '-n', 'kube-system'])).spec, 10_000, 200);
    assert.equal(lease.holderIdentity, 'e2e-scheduler');
    assert.equal(scheduler!.leading(), true);
    assert.deepEqual(leadingChanges, [true]);
  });

  it('a pod created with kubectl run is scheduled, reaches Running, and is deleted', async () => {
    await kubectl.ok(['run', 'web', '--image=nginx:1.25', '--restart=Never', '--labels=app=web']);
    const pod = await eventually(
      'pod web Running',
      async () => {
        const p = await kubectl.json(['get', 'pod', 'web']);
        return p.status?.phase === 'Running' ? p : undefined;
      },
      30_000,
      200,
    );
    assert.ok(NODES.includes(pod.spec.nodeName), `scheduled to a fleet node, got ${pod.spec.nodeName}`);
    const scheduled = pod.status.conditions.find((c: any) => c.type === 'PodScheduled');
    assert.equal(scheduled?.status, 'True');
    assert.equal(pod.status.containerStatuses[0].ready, true);
    assert.match(pod.status.podIP, /^10\.64\.[0-2]\.\d+$/);
    const decision = scheduler!.scheduler()!.decisions.find((d) => d.pod === 'default/web');
    assert.equal(decision?.result, 'Scheduled');
    assert.equal(decision?.node, pod.spec.nodeName);

    const wide = await kubectl.ok(['get', 'pod', 'web', '-o', 'wide', '--no-headers']);
    assert.match(wide, new RegExp(`^web\\s+1/1\\s+Running\\s.*\\s${pod.spec.nodeName}\\s`));

    // The scheduler's and the node agent's Events, as `kubectl describe` and `kubectl get events` show them.
    const reasons = await eventually(
      'the pod lifecycle Events of web',
      async () => {
        const list = await kubectl.json(['get', 'events', '--field-selector', 'involvedObject.name=web']);
        const seen = new Set(list.items.map((e: any) => e.reason));
        return ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started'].every((r) => seen.has(r)) ? list.items : undefined;
      },
      10_000,
      200,
    );
    const started = reasons.find((e: any) => e.reason === 'Started');
    assert.equal(started.source.host, pod.spec.nodeName);
    assert.equal(started.involvedObject.fieldPath, 'spec.containers{web}');
    const describe = await kubectl.ok(['describe', 'pod', 'web']);
    assert.match(describe, /Normal\s+Scheduled\s+.*default-scheduler\s+Successfully assigned default\/web to /);
    assert.match(describe, /Normal\s+Started\s+.*kubelet\s+Started container web/);

    const watch = kubectl.background(['get', 'pods', '--watch', '--output-watch-events', '-o', 'custom-columns=EVENT:.type,NAME:.object.metadata.name,DELETING:.object.metadata.deletionTimestamp,PHASE:.object.status.phase']);
    try {
      await watch.waitForLine((l) => /^ADDED\s+web\s/.test(l), 10_000, 'the ADDED event of web');
      await kubectl.ok(['delete', 'pod', 'web', '--wait=true', '--timeout=30s']);
      await watch.waitForLine((l) => /^DELETED\s+web\s/.test(l), 10_000, 'the DELETED event of web');
      const events = watch.lines.map((l) => l.trim().split(/\s+/)).filter((c) => c[1] === 'web');
      const deletedAt = events.findIndex((c) => c[0] === 'DELETED');
      const graceful = events.findIndex((c) => c[0] === 'MODIFIED' && c[2] !== '<none>');
      assert.ok(graceful >= 0 && graceful < deletedAt, `graceful deletion (deletionTimestamp set) before the agent confirmed it:\n${watch.lines.join('\n')}`);
    } finally {
      await watch.stop();
    }
    const gone = await kubectl.run(['get', 'pod', 'web']);
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /pods "web" not found/);
  });

  it('releases the kube-scheduler Lease when the scheduler stops', async () => {
    await scheduler!.stop();
    assert.equal(scheduler!.leading(), false);
    assert.deepEqual(leadingChanges, [true, false]);
    const lease = await kubectl.json(['get', 'lease', 'kube-scheduler', '-n', 'kube-system']);
    assert.equal(lease.spec.holderIdentity ?? '', '');
  });
});

describe('a node agent fleet whose workers fail', { timeout: 30_000 }, () => {
  it('reports every failed worker, rejects ready and still stops cleanly', async () => {
    const dir = makeTempDir('fleet-fail');
    try {
      const server = await serve({ dataDir: join(dir, 'data'), securePort: 0, bindAddress: '127.0.0.1', log: () => undefined });
      try {
        const kubeconfig = join(dir, 'kubeconfig');
        copyFileSync(server.kubeconfigPath, kubeconfig);
        const failed: FleetWorkerFailed[] = [];
        const f = await runNodeAgentFleet({ kubeconfigPath: kubeconfig, count: 4, threads: 2, namePrefix: 'doomed-', onWorkerError: (e) => failed.push(e) });
        rmSync(kubeconfig);
        await assert.rejects(f.ready, (err: any) => err instanceof AggregateError && err.errors.length >= 1 && /ENOENT/.test(err.message));
        await eventually('both workers reported', () => failed.length === 2, 10_000);
        assert.ok(failed.every((e) => e instanceof FleetWorkerFailed && e.code === 'FLEET_WORKER_FAILED'));
        assert.deepEqual(failed.map((e) => [...e.nodeNames]).sort(), [['doomed-0', 'doomed-2'], ['doomed-1', 'doomed-3']]);
        assert.deepEqual(f.failures().length, 2);
        assert.equal(f.registered(), 0);
        await f.stop();
      } finally {
        await server.stop();
      }
    } finally {
      removeTempDir(dir);
    }
  });
});
