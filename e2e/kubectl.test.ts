// The real kubectl (oldest and newest installed: 1.27 and 1.33) against one in-process orrery
// server. Each binary gets its own namespaces, HOME and discovery cache; the two suites run side by
// side, the tests inside a suite in order (later tests build on the objects earlier ones made).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { serve, type RunningServer } from '../core/apiserver/serve.ts';
import { Kubectl, kubectlBinaries, makeTempDir, removeTempDir, type BackgroundProcess } from './harness.ts';

const binaries = kubectlBinaries();
let server: RunningServer | undefined;
let workDir = '';
const serverLog: string[] = [];

before(async () => {
  workDir = makeTempDir('kubectl');
  server = await serve({ dataDir: join(workDir, 'data'), securePort: 0, bindAddress: '127.0.0.1', log: (l) => serverLog.push(l) });
});

after(async () => {
  await server?.stop();
  removeTempDir(workDir);
});

/** Names printed by `-o name` (e.g. `configmap/a`), sorted, optionally only those with a prefix after the slash. */
function names(out: string, prefix = ''): string[] {
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && l.slice(l.indexOf('/') + 1).startsWith(prefix))
    .sort();
}

describe('kubectl against orrery', { concurrency: true }, () => {
  for (const bin of binaries) {
    describe(`kubectl ${bin.version}`, { concurrency: 1 }, () => {
      const v = bin.version.replace('.', '');
      const ns = `e2e-${v}`;
      let k: Kubectl;
      let dir = '';
      const file = (name: string, doc: unknown): string => {
        const p = join(dir, name);
        writeFileSync(p, typeof doc === 'string' ? doc : YAML.stringify(doc));
        return p;
      };
      const deployment = (labels: Record<string, string>, containers: unknown[]) => ({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
        },
      });

      before(() => {
        dir = makeTempDir(`kubectl-${v}`);
        k = new Kubectl(bin, server!.kubeconfigPath, dir);
      });
      after(() => removeTempDir(dir));

      it('version reports the client and the server', async () => {
        const out = await k.json(['version']);
        assert.equal(out.clientVersion.major, '1');
        assert.equal(out.clientVersion.minor.replace(/\D+$/, ''), bin.version.split('.')[1]);
        assert.equal(out.serverVersion.major, '1');
        assert.match(out.serverVersion.minor, /^\d+\+?$/);
        assert.match(out.serverVersion.gitVersion, /^v1\.\d+\.\d+/);
        assert.match(out.serverVersion.platform, /\//);
      });

      it('api-resources lists the served kinds with short names, groups and scope', async () => {
        const table = await k.ok(['api-resources']);
        assert.match(table, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\s*$/m);
        assert.match(table, /^pods\s+po\s+v1\s+true\s+Pod\s*$/m);
        assert.match(table, /^namespaces\s+ns\s+v1\s+false\s+Namespace\s*$/m);
        assert.match(table, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment\s*$/m);
        assert.match(table, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap\s*$/m);
        const apps = names(await k.ok(['api-resources', '--api-group=apps', '-o', 'name']));
        assert.ok(apps.includes('deployments.apps') && apps.includes('statefulsets.apps'), apps.join(' '));
        assert.ok(apps.every((n) => n.endsWith('.apps')), `--api-group=apps printed ${apps.join(' ')}`);
        const cluster = names(await k.ok(['api-resources', '--namespaced=false', '-o', 'name']));
        assert.ok(cluster.includes('namespaces') && cluster.includes('nodes'), cluster.join(' '));
        assert.ok(!cluster.includes('pods') && !cluster.includes('configmaps'), cluster.join(' '));
      });

      it('create namespace (generator) and create -f of a namespace, configmap and pod', async () => {
        assert.match(await k.ok(['create', 'namespace', ns]), new RegExp(`^namespace/${ns} created$`, 'm'));
        const created = await k.json(['get', 'namespace', ns]);
        assert.equal(created.metadata.name, ns);
        assert.equal(created.status.phase, 'Active');
        assert.ok(created.metadata.uid, 'uid set');
        assert.match(created.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

        const nsFile = file('ns.yaml', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${ns}-file`, labels: { team: 'e2e' } } });
        assert.match(await k.ok(['create', '-f', nsFile]), new RegExp(`^namespace/${ns}-file created$`, 'm'));
        assert.equal((await k.json(['get', 'namespace', `${ns}-file`])).metadata.labels.team, 'e2e');
        const again = await k.fails(['create', '-f', nsFile]);
        assert.match(again.stderr, new RegExp(`AlreadyExists.*namespaces "${ns}-file" already exists`));

        const cmFile = file('cm.yaml', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', labels: { app: 'cfg' } }, data: { a: '1', b: '2' } });
        assert.match(await k.ok(['create', '-n', ns, '-f', cmFile]), /^configmap\/cfg created$/m);
        const cm = await k.json(['get', '-n', ns, 'configmap', 'cfg']);
        assert.deepEqual(cm.data, { a: '1', b: '2' });
        assert.equal(cm.metadata.namespace, ns);

        assert.match(await k.ok(['create', '-n', ns, 'configmap', 'literal', '--from-literal=greeting=hello', '--from-literal=n=1']), /^configmap\/literal created$/m);
        assert.deepEqual((await k.json(['get', '-n', ns, 'cm', 'literal'])).data, { greeting: 'hello', n: '1' });

        const podFile = file('pod.yaml', {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'web-0', labels: { app: 'web', role: 'frontend' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] },
        });
        assert.match(await k.ok(['create', '-n', ns, '-f', podFile]), /^pod\/web-0 created$/m);
        const pod = await k.json(['get', '-n', ns, 'pod', 'web-0']);
        assert.equal(pod.spec.containers[0].image, 'nginx:1.25');
        assert.equal(pod.spec.containers[0].imagePullPolicy, 'IfNotPresent');
        assert.equal(pod.spec.restartPolicy, 'Always');
        assert.equal(pod.spec.dnsPolicy, 'ClusterFirst');
        assert.equal(pod.status.phase, 'Pending');
      });

      it('get -o wide prints the wide pod columns from the server', async () => {
        const out = await k.ok(['get', '-n', ns, 'pods', '-o', 'wide']);
        const [header, ...rows] = out.trimEnd().split('\n');
        assert.match(header!, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\s*$/);
        assert.equal(rows.length, 1, out);
        assert.match(rows[0]!, /^web-0\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s+<none>\s+<none>\s*$/);
      });

      it('get -o yaml prints the object', async () => {
        const doc = YAML.parse(await k.ok(['get', '-n', ns, 'configmap', 'cfg', '-o', 'yaml']));
        assert.equal(doc.apiVersion, 'v1');
        assert.equal(doc.kind, 'ConfigMap');
        assert.equal(doc.metadata.name, 'cfg');
        assert.deepEqual(doc.data, { a: '1', b: '2' });
        assert.match(doc.metadata.resourceVersion, /^\d+$/);
      });

      it('apply creates, then updates by strategic merge patch (removed label and container are gone)', async () => {
        const first = file('deploy-1.yaml', deployment({ app: 'web', tier: 'frontend' }, [
          { name: 'web', image: 'nginx:1.25' },
          { name: 'sidecar', image: 'busybox:1.36', command: ['sleep', 'infinity'] },
        ]));
        assert.match(await k.ok(['apply', '-n', ns, '-f', first]), /^deployment\.apps\/web created$/m);
        const d1 = await k.json(['get', '-n', ns, 'deployment', 'web']);
        assert.deepEqual(d1.metadata.labels, { app: 'web', tier: 'frontend' });
        assert.deepEqual(d1.spec.template.spec.containers.map((c: any) => c.name), ['web', 'sidecar']);
        const applied1 = JSON.parse(d1.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
        assert.equal(applied1.metadata.labels.tier, 'frontend');

        const second = file('deploy-2.yaml', deployment({ app: 'web', track: 'stable' }, [{ name: 'web', image: 'nginx:1.26' }]));
        assert.match(await k.ok(['apply', '-n', ns, '-f', second]), /^deployment\.apps\/web configured$/m);
        const d2 = await k.json(['get', '-n', ns, 'deployment', 'web']);
        assert.deepEqual(d2.metadata.labels, { app: 'web', track: 'stable' });
        assert.equal(d2.metadata.labels.tier, undefined);
        assert.deepEqual(d2.spec.template.spec.containers.map((c: any) => [c.name, c.image]), [['web', 'nginx:1.26']]);
        assert.equal(d2.metadata.uid, d1.metadata.uid);
        assert.ok(Number(d2.metadata.resourceVersion) > Number(d1.metadata.resourceVersion));
        assert.equal(d2.metadata.generation, d1.metadata.generation + 1);
        const applied2 = JSON.parse(d2.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
        assert.deepEqual(applied2.metadata.labels, { app: 'web', track: 'stable' });

        assert.match(await k.ok(['apply', '-n', ns, '-f', second]), /^deployment\.apps\/web unchanged$/m);
        assert.equal((await k.json(['get', '-n', ns, 'deployment', 'web'])).metadata.resourceVersion, d2.metadata.resourceVersion);
      });

      it('apply --server-side creates, updates, reports a conflict with kubectl scale, and --force-conflicts takes over', async () => {
        const ssa = (image: string) => file(`ssa-${image.replace(/\W/g, '')}.yaml`, { ...deployment({ app: 'web' }, [{ name: 'web', image }]), metadata: { name: 'ssa', labels: { app: 'web' } } });
        assert.match(await k.ok(['apply', '--server-side', '-n', ns, '-f', ssa('nginx:1.25')]), /deployment\.apps\/ssa serverside-applied/);
        assert.match(await k.ok(['apply', '--server-side', '-n', ns, '-f', ssa('nginx:1.26')]), /serverside-applied/);
        const d = await k.json(['get', '-n', ns, 'deployment', 'ssa', '--show-managed-fields']);
        assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.26');
        assert.ok(d.metadata.managedFields.some((e: any) => e.manager === 'kubectl' && e.operation === 'Apply'));
        await k.ok(['scale', '-n', ns, 'deployment/ssa', '--replicas=4']);
        const conflict = await k.fails(['apply', '--server-side', '-n', ns, '-f', ssa('nginx:1.26')]);
        assert.match(conflict.stderr, /conflict with .* \.spec\.replicas/);
        await k.ok(['apply', '--server-side', '--force-conflicts', '-n', ns, '-f', ssa('nginx:1.26')]);
        assert.equal((await k.json(['get', '-n', ns, 'deployment', 'ssa'])).spec.replicas, 1);
      });

      it('get with label and field selectors', async () => {
        const list = file('selectors.yaml', {
          apiVersion: 'v1',
          kind: 'List',
          items: [
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sel-a', labels: { env: 'prod', tier: 'db' } } },
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sel-b', labels: { env: 'dev' } } },
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sel-c' } },
          ],
        });
        await k.ok(['create', '-n', ns, '-f', list]);
        const sel = async (...args: string[]) => names(await k.ok(['get', '-n', ns, 'configmaps', '-o', 'name', ...args]), 'sel-');
        assert.deepEqual(await sel('-l', 'env=prod'), ['configmap/sel-a']);
        assert.deepEqual(await sel('-l', 'env in (prod,dev)'), ['configmap/sel-a', 'configmap/sel-b']);
        assert.deepEqual(await sel('-l', '!env'), ['configmap/sel-c']);
        assert.deepEqual(await sel('-l', 'env!=prod'), ['configmap/sel-b', 'configmap/sel-c']);
        assert.deepEqual(await sel('-l', 'env=prod,tier=db'), ['configmap/sel-a']);
        assert.deepEqual(await sel('-l', 'env'), ['configmap/sel-a', 'configmap/sel-b']);
        assert.deepEqual(await sel('--field-selector', 'metadata.name=sel-b'), ['configmap/sel-b']);
        const none = await k.run(['get', '-n', ns, 'configmaps', '-l', 'env=staging']);
        assert.equal(none.code, 0, none.stderr);
        assert.match(none.stderr, new RegExp(`No resources found in ${ns} namespace`));
      });

      it('get --chunk-size pages through all items with continue tokens', async () => {
        const chunkNs = `${ns}-chunk`;
        await k.ok(['create', 'namespace', chunkNs]);
        const items = Array.from({ length: 7 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `chunk-${i}` }, data: { i: String(i) } }));
        await k.ok(['create', '-n', chunkNs, '-f', file('chunk.yaml', { apiVersion: 'v1', kind: 'List', items })]);
        const r = await k.run(['get', '-n', chunkNs, 'configmaps', '--chunk-size=2', '-o', 'name', '-v=6']);
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(names(r.stdout, 'chunk-'), items.map((i) => `configmap/${i.metadata.name}`));
        const requests = r.stderr.split('\n').filter((l) => l.includes('GET') && /\/configmaps\?\S*limit=2/.test(l));
        assert.ok(requests.length >= 4, `expected >= 4 paged requests, saw:\n${requests.join('\n')}`);
        assert.ok(requests.filter((l) => /[?&]continue=/.test(l)).length >= 3, `expected continue tokens:\n${requests.join('\n')}`);
        const table = await k.ok(['get', '-n', chunkNs, 'configmaps', '--chunk-size=2']);
        const lines = table.trimEnd().split('\n');
        assert.equal(lines.filter((l) => /^NAME\s+DATA\s+AGE/.test(l)).length, 1, table);
        assert.deepEqual(lines.filter((l) => l.startsWith('chunk-')).map((l) => l.split(/\s+/).slice(0, 2)), items.map((i) => [i.metadata.name, '1']));
      });

      it('label adds, refuses to overwrite without --overwrite, overwrites and removes', async () => {
        assert.match(await k.ok(['label', '-n', ns, 'configmap', 'sel-b', 'color=blue']), /^configmap\/sel-b labeled$/m);
        assert.equal((await k.json(['get', '-n', ns, 'cm', 'sel-b'])).metadata.labels.color, 'blue');
        const refused = await k.fails(['label', '-n', ns, 'configmap', 'sel-b', 'color=red']);
        assert.match(refused.stderr, /already has a value \(blue\)/);
        await k.ok(['label', '-n', ns, 'configmap', 'sel-b', 'color=red', '--overwrite']);
        assert.deepEqual((await k.json(['get', '-n', ns, 'cm', 'sel-b'])).metadata.labels, { env: 'dev', color: 'red' });
        assert.match(await k.ok(['label', '-n', ns, 'configmap', 'sel-b', 'color-']), /^configmap\/sel-b unlabeled$/m);
        assert.deepEqual((await k.json(['get', '-n', ns, 'cm', 'sel-b'])).metadata.labels, { env: 'dev' });
      });

      it('annotate adds, overwrites and removes annotations', async () => {
        // kubectl 1.27 prints "annotate", later releases "annotated".
        assert.match(await k.ok(['annotate', '-n', ns, 'configmap', 'cfg', 'note=hello world']), /^configmap\/cfg annotated?$/m);
        assert.equal((await k.json(['get', '-n', ns, 'cm', 'cfg'])).metadata.annotations.note, 'hello world');
        await k.ok(['annotate', '-n', ns, 'configmap', 'cfg', 'note=bye', '--overwrite']);
        assert.equal((await k.json(['get', '-n', ns, 'cm', 'cfg'])).metadata.annotations.note, 'bye');
        await k.ok(['annotate', '-n', ns, 'configmap', 'cfg', 'note-']);
        assert.equal((await k.json(['get', '-n', ns, 'cm', 'cfg'])).metadata.annotations?.note, undefined);
      });

      it('patch --type merge, --type json and --type strategic', async () => {
        assert.match(await k.ok(['patch', '-n', ns, 'configmap', 'cfg', '--type', 'merge', '-p', '{"data":{"a":null,"b":"20","c":"3"}}']), /^configmap\/cfg patched$/m);
        assert.deepEqual((await k.json(['get', '-n', ns, 'cm', 'cfg'])).data, { b: '20', c: '3' });

        await k.ok(['patch', '-n', ns, 'configmap', 'cfg', '--type', 'json', '-p', '[{"op":"add","path":"/data/d","value":"4"},{"op":"replace","path":"/data/b","value":"200"},{"op":"remove","path":"/data/c"}]']);
        const afterJson = await k.json(['get', '-n', ns, 'cm', 'cfg']);
        assert.deepEqual(afterJson.data, { b: '200', d: '4' });
        const failedTest = await k.fails(['patch', '-n', ns, 'configmap', 'cfg', '--type', 'json', '-p', '[{"op":"test","path":"/data/b","value":"nope"},{"op":"replace","path":"/data/b","value":"x"}]']);
        assert.match(failedTest.stderr, /Error from server|error/i);
        assert.equal((await k.json(['get', '-n', ns, 'cm', 'cfg'])).metadata.resourceVersion, afterJson.metadata.resourceVersion);

        // Strategic merge: containers merge by name, so a new container is added beside the existing one
        // and a changed image keeps the container's other fields (a merge patch would replace the list).
        await k.ok(['patch', '-n', ns, 'deployment', 'web', '--type', 'strategic', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"log","image":"busybox:1.36"}]}}}}']);
        const d = await k.json(['get', '-n', ns, 'deployment', 'web']);
        assert.deepEqual(d.spec.template.spec.containers.map((c: any) => `${c.name}=${c.image}`).sort(), ['log=busybox:1.36', 'web=nginx:1.26']);
        await k.ok(['patch', '-n', ns, 'pod', 'web-0', '-p', '{"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"}]}}']);
        const pod = await k.json(['get', '-n', ns, 'pod', 'web-0']);
        assert.equal(pod.spec.containers.length, 1);
        assert.equal(pod.spec.containers[0].image, 'nginx:1.26');
        assert.deepEqual(pod.spec.containers[0].ports.map((p: any) => p.containerPort), [80]);
      });

      it('scale sets spec.replicas and honours --current-replicas', async () => {
        assert.match(await k.ok(['scale', '-n', ns, 'deployment', 'web', '--replicas=3']), /^deployment\.apps\/web scaled$/m);
        assert.equal((await k.json(['get', '-n', ns, 'deployment', 'web'])).spec.replicas, 3);
        const refused = await k.fails(['scale', '-n', ns, 'deployment', 'web', '--current-replicas=2', '--replicas=5']);
        assert.match(refused.stderr, /[Ee]xpected.*2|precondition|conflict/);
        assert.equal((await k.json(['get', '-n', ns, 'deployment', 'web'])).spec.replicas, 3);
        await k.ok(['scale', '-n', ns, 'deployment', 'web', '--current-replicas=3', '--replicas=2']);
        assert.equal((await k.json(['get', '-n', ns, 'deployment', 'web'])).spec.replicas, 2);
      });

      it('get --watch prints objects as they are created and modified', async () => {
        let watcher: BackgroundProcess | undefined;
        try {
          watcher = k.background(['get', '-n', ns, 'configmaps', '--watch', '-o', 'name']);
          await watcher.waitForLine((l) => l.trim() === 'configmap/cfg', 15_000, 'the initial list (configmap/cfg)');
          await k.ok(['create', '-n', ns, 'configmap', 'watched-1', '--from-literal=k=v']);
          await watcher.waitForLine((l) => l.trim() === 'configmap/watched-1', 15_000, 'configmap/watched-1 after its creation');
          await k.ok(['label', '-n', ns, 'configmap', 'watched-1', 'seen=yes']);
          await watcher.waitForLine((l) => l.trim() === 'configmap/watched-1', 15_000, 'a second configmap/watched-1 after its modification', 2);
          assert.ok(watcher.running, `kubectl --watch exited early: ${watcher.stderr}`);
        } finally {
          await watcher?.stop();
        }
      });

      it('describe pod shows its details', async () => {
        const out = await k.ok(['describe', '-n', ns, 'pod', 'web-0']);
        assert.match(out, /^Name:\s+web-0$/m);
        assert.match(out, new RegExp(`^Namespace:\\s+${ns}$`, 'm'));
        assert.match(out, /^Labels:\s+app=web$/m);
        assert.match(out, /^\s+role=frontend$/m);
        assert.match(out, /^Status:\s+Pending$/m);
        assert.match(out, /^Containers:$/m);
        assert.match(out, /^\s+nginx:$/m);
        assert.match(out, /^\s+Image:\s+nginx:1\.26$/m);
        assert.match(out, /^\s+Port:\s+80\/TCP$/m);
        assert.match(out, /^Events:/m);
      });

      it('get all lists the "all" category and nothing else', async () => {
        const byName = names(await k.ok(['get', 'all', '-n', ns, '-o', 'name']));
        assert.ok(byName.includes('pod/web-0'), byName.join(' '));
        assert.ok(byName.includes('deployment.apps/web'), byName.join(' '));
        assert.ok(!byName.some((n) => n.startsWith('configmap/')), `configmaps are not in "all": ${byName.join(' ')}`);
        const table = await k.ok(['get', 'all', '-n', ns]);
        assert.match(table, /^pod\/web-0\s+0\/1\s+Pending\s+0\s+/m);
        assert.match(table, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s*$/m);
        assert.match(table, /^deployment\.apps\/web\s+0\/2\s+0\s+0\s+/m);
      });

      it('delete removes objects, by name and by label selector', async () => {
        assert.match(await k.ok(['delete', '-n', ns, 'configmap', 'cfg']), /^configmap "cfg" deleted/m);
        const gone = await k.fails(['get', '-n', ns, 'configmap', 'cfg']);
        assert.match(gone.stderr, /Error from server \(NotFound\): configmaps "cfg" not found/);

        const out = await k.ok(['delete', '-n', ns, 'configmaps', '-l', 'env']);
        assert.match(out, /configmap "sel-a" deleted/);
        assert.match(out, /configmap "sel-b" deleted/);
        assert.deepEqual(names(await k.ok(['get', '-n', ns, 'configmaps', '-o', 'name']), 'sel-'), ['configmap/sel-c']);

        assert.match(await k.ok(['delete', '-n', ns, 'pod', 'web-0', '--timeout=20s'], { timeoutMs: 30_000 }), /^pod "web-0" deleted/m);
        const podGone = await k.fails(['get', '-n', ns, 'pod', 'web-0']);
        assert.match(podGone.stderr, /NotFound.*pods "web-0" not found/);
      });

      it('explain describes fields from the OpenAPI documents', async () => {
        const out = await k.ok(['explain', 'pods.spec.containers']);
        assert.match(out, /KIND:\s+Pod/);
        assert.match(out, /VERSION:\s+v1/);
        assert.match(out, /DESCRIPTION:/);
        assert.match(out, /^\s+image\s+<string>/m);
        assert.match(out, /^\s+imagePullPolicy\s+<string>/m);
        // kubectl <= 1.32 explains from OpenAPI v2 (<Object>), 1.33 from v3 (the type name).
        assert.match(out, /^\s+livenessProbe\s+<(Object|Probe)>/m);
        assert.match(out, /^\s+name\s+<string>\s+-required-/m);
        const replicas = await k.ok(['explain', 'deployment.spec.replicas']);
        assert.match(replicas, /GROUP:\s+apps|KIND:\s+Deployment/);
        assert.match(replicas, /<integer>/);
      });

      it('get --raw of /healthz, /readyz?verbose, /livez and /metrics', async () => {
        assert.equal((await k.ok(['get', '--raw', '/healthz'])).trim(), 'ok');
        assert.equal((await k.ok(['get', '--raw', '/livez'])).trim(), 'ok');
        const ready = await k.ok(['get', '--raw', '/readyz?verbose']);
        assert.match(ready, /^\[\+\]\S+ ok$/m);
        assert.match(ready, /readyz check passed/);
        const metrics = await k.ok(['get', '--raw', '/metrics']);
        assert.match(metrics, /^# TYPE apiserver_request_total counter$/m);
        assert.match(metrics, /^apiserver_request_total\{[^}]*verb="GET"[^}]*\} \d+/m);
        const nsDoc = JSON.parse(await k.ok(['get', '--raw', `/api/v1/namespaces/${ns}`]));
        assert.equal(nsDoc.kind, 'Namespace');
        assert.equal(nsDoc.metadata.name, ns);
      });
    });
  }
});
