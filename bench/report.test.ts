import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LatencySamples, fileTimestamp, fmtBytes, fmtMs, fmtPercent, markdownTable, ratioOf, renderMarkdown, verdictAtLeast, type BenchReport, type LoadRun } from './report.ts';
import https from 'node:https';
import { generate } from 'selfsigned';
import { parseBaselineRoute, startBaselineServer, staticJsonBody } from './baseline-server.ts';
import { LineSplitter, SENT_AT_ANNOTATION, benchStamp, scanWatchEvent } from './watch-delivery.ts';
import { targetFromKubeconfig } from './apiserver.ts';

test('LatencySamples: nearest-rank percentiles over 1..100 and growth past the initial capacity', () => {
  const s = new LatencySamples();
  for (let i = 100; i >= 1; i--) s.record(i);
  assert.equal(s.count, 100);
  assert.equal(s.percentile(50), 50);
  assert.equal(s.percentile(99), 99);
  assert.equal(s.percentile(100), 100);
  assert.equal(s.percentile(0.5), 1);
  assert.equal(s.mean(), 50.5);
  const big = new LatencySamples();
  for (let i = 0; i < 5000; i++) big.record(i % 10);
  assert.equal(big.count, 5000);
  assert.equal(big.percentile(100), 9);
  assert.equal(big.percentile(10), 0);
  assert.equal(big.percentile(11), 1);
});

test('LatencySamples: records after a percentile query are still sorted in', () => {
  const s = new LatencySamples();
  s.record(5);
  s.record(1);
  assert.equal(s.percentile(100), 5);
  s.record(10);
  assert.equal(s.percentile(100), 10);
  assert.equal(s.percentile(34), 5);
});

test('LatencySamples: empty gives NaN; bad input is refused', () => {
  const s = new LatencySamples();
  assert.ok(Number.isNaN(s.percentile(50)));
  assert.ok(Number.isNaN(s.summary().max));
  assert.throws(() => s.record(NaN), RangeError);
  assert.throws(() => s.percentile(0), RangeError);
  assert.throws(() => s.percentile(101), RangeError);
});

test('formatting helpers', () => {
  assert.equal(ratioOf(1, 4), 0.25);
  assert.ok(Number.isNaN(ratioOf(1, 0)));
  assert.equal(fmtPercent(0.456), '46%');
  assert.equal(fmtPercent(NaN), '–');
  assert.equal(fmtMs(1.234), '1.23');
  assert.equal(fmtMs(12.34), '12.3');
  assert.equal(fmtMs(1234.5), '1,235');
  assert.equal(fmtBytes(512), '512 B');
  assert.equal(fmtBytes(2048), '2.0 KiB');
  assert.equal(verdictAtLeast(0.5, 0.5), 'met');
  assert.equal(verdictAtLeast(0.49, 0.5), 'missed');
  assert.equal(verdictAtLeast(0.1, undefined), '');
  assert.equal(fileTimestamp(new Date(Date.UTC(2024, 4, 1, 12, 30, 5, 123))), '2024-05-01T12-30-05Z');
});

test('markdownTable escapes pipes, aligns columns and pads short rows', () => {
  const t = markdownTable(['a', 'b'], [['x|y', '1'], ['z']], ['l', 'r']);
  assert.equal(t, '| a | b |\n|---|---:|\n| x\\|y | 1 |\n| z |  |');
});

function run(rps: number, p99: number): LoadRun {
  return {
    requestsPerSecond: rps,
    latency: { count: 10, mean: 1, p50: 1, p90: 2, p99, max: p99 },
    errors: 0,
    non2xx: 3,
    statusCodes: { '200': 7, '409': 3 },
    responseBytes: 1500,
    serverCpu: 0.98,
    clientCpu: 0.5,
    otherCpu: 0.05,
    durationSeconds: 10,
  };
}

test('renderMarkdown shows each scenario with ratio and verdict, the watch row and failures', () => {
  const report: BenchReport = {
    startedAt: '2024-05-01T12:30:05.000Z',
    command: 'make bench',
    settings: { durationSeconds: 10, warmupSeconds: 2, connections: 10 },
    machine: { cpus: 2, cpuModel: 'Test CPU', memoryGiB: 8, node: 'v20.0.0', platform: 'linux x64', loadAverage: [0.5, 0.4, 0.3], pinning: 'not pinned' },
    scenarios: [{ name: 'get', description: 'GET one pod', orrery: run(4000, 5.5), baseline: run(10000, 2), ratio: 0.4, targetRatio: 0.5 }],
    watches: [
      {
        watchers: 1000,
        watchersEstablished: 1000,
        connectSeconds: 2.5,
        targetEventsPerSecond: 500,
        achievedEventsPerSecond: 498,
        writes: { measured: 4980, failed: 0, unacknowledged: 0, skipped: 0, latency: { count: 4980, mean: 2, p50: 2, p90: 3, p99: 4, max: 9 } },
        expectedDeliveries: 4_980_000,
        delivered: 4_980_000,
        receivedPerSecond: 497_000,
        streamsEndedEarly: 0,
        errorEvents: 0,
        fromSent: { count: 4_980_000, mean: 20, p50: 15, p90: 50, p99: 80, max: 120 },
        fromAck: { count: 4_980_000, mean: 18, p50: 13, p90: 45, p99: 75, max: 110 },
        targetP99Ms: 100,
        serverCpu: 1,
        clientCpu: 0.9,
        otherCpu: NaN,
        clientEventLoopDelayP99Ms: 12,
        durationSeconds: 10,
      },
    ],
    failures: [{ name: 'list', error: 'boom' }],
  };
  const md = renderMarkdown(report);
  assert.match(md, /Command: `make bench`/);
  assert.match(md, /2 × Test CPU/);
  assert.match(md, /\| GET one pod \| 1\.5 KiB \| 4,000 \| 1\.00 \| 5\.50 \| 0 \/ 3 \| 10,000 \| 2\.00 \| 40% \| ≥ 50% missed \| 98% \/ 50% \/ 5% \| 98% \/ 50% \|/);
  assert.doesNotMatch(md, /lower bound/);
  assert.doesNotMatch(md, /Warning/);
  assert.match(md, /\| 1,000 \(2\.5 s\) \| 500 \(498\) \| 0 \/ 0 \/ 0 \| 4\.00 \| 497,000 \| 4,980,000 \/ 4,980,000 \(100%\) \|/);
  assert.match(md, /\| ≤ 100 ms met \|/);
  assert.match(md, /- list: boom/);
  report.watches[0]!.writes.skipped = 1;
  assert.match(renderMarkdown(report), /\| 0 \/ 0 \/ 1 \|/);
  assert.match(renderMarkdown(report), /\| ≤ 100 ms missed \|/);
  report.watches[0]!.writes.skipped = 0;
  report.watches[0]!.delivered = 4_000_000;
  assert.match(renderMarkdown(report), /\| ≤ 100 ms missed \|/);
  report.watches[0]!.delivered = 4_980_000;
  report.watches[0]!.fromSent.p99 = 101;
  assert.match(renderMarkdown(report), /\| ≤ 100 ms missed \|/);
  report.scenarios[0]!.baseline.otherCpu = 0.6;
  assert.match(renderMarkdown(report), /Warning: other processes used up to 60% of a core/);
  report.scenarios[0]!.baseline.clientCpu = 0.95;
  const bound = renderMarkdown(report);
  assert.match(bound, /\| 10,000\* \|/);
  assert.match(bound, /req\/s is a lower bound and the ratio an upper bound/);
  report.scenarios = [];
  const watchOnly = renderMarkdown(report);
  assert.doesNotMatch(watchOnly, /\| scenario \|/);
  assert.match(watchOnly, /\| watchers open \|/);
});

test('staticJsonBody is valid JSON of exactly the requested length', () => {
  for (const n of [2, 3, 10, 27, 28, 29, 100, 4096]) {
    const body = staticJsonBody(n);
    assert.equal(Buffer.byteLength(body), n, `size ${n}`);
    assert.doesNotThrow(() => JSON.parse(body));
  }
  assert.throws(() => staticJsonBody(1), RangeError);
});

test('parseBaselineRoute reads size and status and refuses anything else', () => {
  assert.deepEqual(parseBaselineRoute('/bytes/1500'), { bytes: 1500, status: 200 });
  assert.deepEqual(parseBaselineRoute('/bytes/900?status=201'), { bytes: 900, status: 201 });
  assert.equal(parseBaselineRoute('/bytes/1'), undefined);
  assert.equal(parseBaselineRoute('/bytes/x'), undefined);
  assert.equal(parseBaselineRoute('/api/v1/pods'), undefined);
  assert.equal(parseBaselineRoute('/bytes/10?status=99'), undefined);
});

test('scanWatchEvent finds the write stamp in a compact line, ignoring managedFields', () => {
  const obj = {
    type: 'MODIFIED',
    object: {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: {
        name: 'seed-1',
        namespace: 'bench-watch',
        resourceVersion: '1234',
        annotations: { [SENT_AT_ANNOTATION]: benchStamp(1700000000123.456, 42) },
        managedFields: [{ manager: 'x', fieldsV1: { 'f:metadata': { 'f:annotations': { [`f:${SENT_AT_ANNOTATION}`]: {} } } } }],
      },
    },
  };
  const line = JSON.stringify(obj);
  const prefix = '{"type":"ADDED","object":{}}\n';
  const text = prefix + line + '\n{"type":"MODIFIED","object":{"x":"@1/2"}}';
  assert.deepEqual(scanWatchEvent(text, prefix.length, prefix.length + line.length), { type: 'MODIFIED', sentAt: 1700000000123.456, writeIndex: 42 });
  assert.deepEqual(scanWatchEvent(text, 0, prefix.length - 1), { type: 'ADDED' });
});

test('scanWatchEvent falls back to JSON.parse for a malformed stamp and reports ERROR events', () => {
  const odd = JSON.stringify({ type: 'ADDED', object: { metadata: { labels: { a: '@x' }, annotations: { [SENT_AT_ANNOTATION]: benchStamp(5, 7) } } } });
  assert.deepEqual(scanWatchEvent(odd), { type: 'ADDED', sentAt: 5, writeIndex: 7 });
  const err = JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
  assert.deepEqual(scanWatchEvent(err), { type: 'ERROR' });
  assert.deepEqual(scanWatchEvent('not json'), {});
});

test('LineSplitter delivers complete lines across chunk boundaries and keeps the partial tail', () => {
  const lines: string[] = [];
  const s = new LineSplitter((text, start, end) => lines.push(text.slice(start, end)));
  s.push('{"a":1}\n{"b"');
  assert.deepEqual(lines, ['{"a":1}']);
  assert.equal(s.pending, '{"b"');
  s.push(':2}\n\n{"c":3}\n');
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
  assert.equal(s.pending, '');
});

test('targetFromKubeconfig takes CA and basic credentials and refuses non-loopback servers', () => {
  const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  const kc = (server: string) => `apiVersion: v1
kind: Config
clusters:
- name: orrery
  cluster: { server: "${server}", certificate-authority-data: ${Buffer.from(ca).toString('base64')} }
users:
- name: admin
  user: { username: admin, password: orrery }
contexts:
- name: orrery
  context: { cluster: orrery, user: admin }
current-context: orrery
`;
  const t = targetFromKubeconfig(kc('https://127.0.0.1:6443'), 7000);
  assert.equal(t.host, '127.0.0.1');
  assert.equal(t.port, 7000);
  assert.equal(t.ca, ca);
  assert.equal(t.headers.authorization, `Basic ${Buffer.from('admin:orrery').toString('base64')}`);
  assert.throws(() => targetFromKubeconfig(kc('https://10.1.2.3:6443'), 7000), /refusing/);
});

test('the bare server answers over TLS on 127.0.0.1 with the requested status and body size', async () => {
  const pems = await generate([{ name: 'commonName', value: 'bench-test' }], {
    keyType: 'ec',
    curve: 'P-256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const { server, port } = await startBaselineServer({ cert: pems.cert, key: pems.private });
  try {
    assert.equal((server.address() as { address: string }).address, '127.0.0.1');
    const call = (method: string, path: string, body?: string) =>
      new Promise<{ status: number; text: string; type?: string }>((resolve, reject) => {
        const req = https.request({ host: '127.0.0.1', port, method, path, ca: pems.cert, agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text, type: res.headers['content-type'] }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const created = await call('POST', '/bytes/321?status=201', '{"metadata":{"name":"x"}}');
    assert.equal(created.status, 201);
    assert.equal(created.type, 'application/json');
    assert.equal(Buffer.byteLength(created.text), 321);
    assert.doesNotThrow(() => JSON.parse(created.text));
    assert.equal((await call('GET', '/api/v1/pods')).status, 404);
  } finally {
    server.close();
  }
});
