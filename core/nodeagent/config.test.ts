import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NodeAgentConfigInvalid, nodeAllocatable, parseNodeAgentConfig, type NodeAgentConfiguration } from './config.ts';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

function parseYaml(body: string, flags?: Record<string, string>): NodeAgentConfiguration {
  return parseNodeAgentConfig(HEADER + body, { flags });
}

function errorsOf(fn: () => unknown): { field: string; message: string }[] {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof NodeAgentConfigInvalid, `expected NodeAgentConfigInvalid, got ${e}`);
    assert.equal(e.code, 'NODE_AGENT_CONFIG_INVALID');
    return e.errors;
  }
  assert.fail('expected the configuration to be rejected');
}

test('an empty config yields the v1beta1 defaults of the seed table', () => {
  for (const text of ['', HEADER]) {
    const c = parseNodeAgentConfig(text);
    assert.equal(c.apiVersion, 'kubelet.config.k8s.io/v1beta1');
    assert.equal(c.kind, 'KubeletConfiguration');
    assert.equal(c.enableServer, true);
    assert.equal(c.syncFrequency, 60_000);
    assert.equal(c.fileCheckFrequency, 20_000);
    assert.equal(c.httpCheckFrequency, 20_000);
    assert.equal(c.address, '0.0.0.0');
    assert.equal(c.port, 10250);
    assert.equal(c.readOnlyPort, 0);
    assert.deepEqual(c.authentication, { x509: { clientCAFile: '' }, webhook: { enabled: true, cacheTTL: 120_000 }, anonymous: { enabled: false } });
    assert.deepEqual(c.authorization, { mode: 'Webhook', webhook: { cacheAuthorizedTTL: 300_000, cacheUnauthorizedTTL: 30_000 } });
    assert.equal(c.registryPullQPS, 5);
    assert.equal(c.registryBurst, 10);
    assert.equal(c.eventRecordQPS, 50);
    assert.equal(c.eventBurst, 100);
    assert.equal(c.healthzPort, 10248);
    assert.equal(c.healthzBindAddress, '127.0.0.1');
    assert.equal(c.oomScoreAdj, -999);
    assert.equal(c.streamingConnectionIdleTimeout, 4 * 60 * 60 * 1000);
    assert.equal(c.nodeStatusUpdateFrequency, 10_000);
    assert.equal(c.nodeStatusReportFrequency, 5 * 60_000);
    assert.equal(c.nodeLeaseDurationSeconds, 40);
    assert.equal(c.imageMinimumGCAge, 2 * 60_000);
    assert.equal(c.imageGCHighThresholdPercent, 85);
    assert.equal(c.imageGCLowThresholdPercent, 80);
    assert.equal(c.volumeStatsAggPeriod, 60_000);
    assert.equal(c.cgroupsPerQOS, true);
    assert.equal(c.cgroupDriver, 'cgroupfs');
    assert.equal(c.cpuManagerPolicy, 'none');
    assert.equal(c.cpuManagerReconcilePeriod, 10_000);
    assert.equal(c.topologyManagerPolicy, 'none');
    assert.equal(c.topologyManagerScope, 'container');
    assert.equal(c.runtimeRequestTimeout, 120_000);
    assert.equal(c.hairpinMode, 'promiscuous-bridge');
    assert.equal(c.maxPods, 110);
    assert.equal(c.podPidsLimit, -1);
    assert.equal(c.resolvConf, '/etc/resolv.conf');
    assert.equal(c.cpuCFSQuota, true);
    assert.equal(c.cpuCFSQuotaPeriod, 100);
    assert.equal(c.nodeStatusMaxImages, 50);
    assert.equal(c.maxOpenFiles, 1_000_000);
    assert.equal(c.contentType, 'application/vnd.kubernetes.protobuf');
    assert.equal(c.kubeAPIQPS, 50);
    assert.equal(c.kubeAPIBurst, 100);
    assert.equal(c.serializeImagePulls, true);
    assert.equal(c.maxParallelImagePulls, undefined);
    assert.deepEqual(c.evictionHard, { 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'imagefs.available': '15%' });
    assert.equal(c.evictionPressureTransitionPeriod, 5 * 60_000);
    assert.equal(c.evictionMaxPodGracePeriod, 0);
    assert.equal(c.podsPerCore, 0);
    assert.equal(c.iptablesMasqueradeBit, 14);
    assert.equal(c.iptablesDropBit, 15);
    assert.equal(c.failSwapOn, true);
    assert.equal(c.containerLogMaxSize, '10Mi');
    assert.equal(c.parsed.containerLogMaxSize.value, 10 * 1024 * 1024);
    assert.equal(c.containerLogMaxFiles, 5);
    assert.equal(c.configMapAndSecretChangeDetectionStrategy, 'Watch');
    assert.deepEqual(c.enforceNodeAllocatable, ['pods']);
    assert.deepEqual(c.allowedUnsafeSysctls, []);
    assert.equal(c.logging.format, 'text');
    assert.equal(c.enableSystemLogHandler, true);
    assert.equal(c.enableSystemLogQuery, false);
    assert.equal(c.shutdownGracePeriod, 0);
    assert.equal(c.enableProfilingHandler, true);
    assert.equal(c.enableDebugFlagsHandler, true);
    assert.equal(c.memoryThrottlingFactor, 0.9);
    assert.equal(c.registerNode, true);
    assert.equal(c.registerWithTaints, undefined);
    assert.equal(c.localStorageCapacityIsolation, true);
    assert.equal(c.containerRuntimeEndpoint, 'unix:///run/containerd/containerd.sock');
    assert.equal(c.imageServiceEndpoint, c.containerRuntimeEndpoint);
    assert.equal(c.kubeReserved, undefined);
    assert.equal(c.parsed.evictionHard['memory.available'] && 'quantity' in c.parsed.evictionHard['memory.available'] && c.parsed.evictionHard['memory.available'].quantity.value, 100 * 1024 * 1024);
  }
});

test('accepts the seed name NodeAgentConfiguration of node.config.k8s.io/v1beta1, and rejects other types', () => {
  const c = parseNodeAgentConfig('apiVersion: node.config.k8s.io/v1beta1\nkind: NodeAgentConfiguration\nmaxPods: 20\n');
  assert.equal(c.kind, 'NodeAgentConfiguration');
  assert.equal(c.maxPods, 20);
  assert.deepEqual(errorsOf(() => parseNodeAgentConfig('apiVersion: v1\nkind: KubeletConfiguration\n')).map((e) => e.field), ['apiVersion']);
  assert.deepEqual(errorsOf(() => parseNodeAgentConfig('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: Pod\n')).map((e) => e.field), ['kind']);
  assert.deepEqual(errorsOf(() => parseNodeAgentConfig('maxPods: 3\n')).map((e) => e.field), ['apiVersion']);
});

test('YAML and JSON inputs decode to the same configuration', () => {
  const yaml = parseYaml('maxPods: 50\nsyncFrequency: 1m30s\nkubeReserved:\n  cpu: 100m\n  memory: 100Mi\nauthentication:\n  anonymous:\n    enabled: true\n');
  const json = parseNodeAgentConfig(
    JSON.stringify({
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      maxPods: 50,
      syncFrequency: '1m30s',
      kubeReserved: { cpu: '100m', memory: '100Mi' },
      authentication: { anonymous: { enabled: true } },
    }),
  );
  assert.equal(yaml.syncFrequency, 90_000);
  assert.equal(yaml.maxPods, 50);
  assert.equal(yaml.authentication.anonymous.enabled, true);
  assert.equal(yaml.authentication.webhook.enabled, true, 'sibling defaults kept');
  assert.equal(yaml.parsed.kubeReserved.cpu!.milli, 100);
  assert.deepEqual(JSON.parse(JSON.stringify(yaml)), JSON.parse(JSON.stringify(json)));
});

test('unknown fields and wrong types are rejected naming the field, all at once', () => {
  const errs = errorsOf(() => parseYaml('maxPod: 3\nauthentication:\n  webhook:\n    cacheTtl: 2m\nport: "10250"\nsyncFrequency: 10\n'));
  assert.deepEqual(errs.map((e) => e.field).sort(), ['authentication.webhook.cacheTtl', 'maxPod', 'port', 'syncFrequency']);
  assert.match(errs.find((e) => e.field === 'maxPod')!.message, /unknown field "maxPod"/);
  assert.equal(errorsOf(() => parseYaml('maxPods: 1.5\n'))[0]!.field, 'maxPods');
  assert.equal(errorsOf(() => parseYaml('maxPods: 3\nmaxPods: 4\n'))[0]!.field, '(document)');
});

test('flags override file values', () => {
  const c = parseYaml('maxPods: 50\nkubeReserved:\n  cpu: 1\nevictionHard:\n  memory.available: 1Gi\nauthentication:\n  webhook:\n    cacheTTL: 1m\n', {
    '--max-pods': '30',
    '--pods-per-core': '10',
    '--node-status-update-frequency': '20s',
    '--register-with-taints': 'dedicated=infra:NoSchedule,gpu:NoExecute',
    '--kube-reserved': 'cpu=100m,memory=100Mi',
    '--eviction-hard': 'memory.available<200Mi,nodefs.available<5%',
    'anonymous-auth': 'true',
    '--feature-gates': 'NodeSwap=true',
    '--cluster-dns': '10.0.0.10,10.0.0.11',
    '--serialize-image-pulls': 'false',
    '--container-runtime-endpoint': 'unix:///var/run/crio/crio.sock',
  });
  assert.equal(c.maxPods, 30);
  assert.equal(c.podsPerCore, 10);
  assert.equal(c.nodeStatusUpdateFrequency, 20_000);
  assert.deepEqual(c.registerWithTaints, [
    { key: 'dedicated', value: 'infra', effect: 'NoSchedule' },
    { key: 'gpu', effect: 'NoExecute' },
  ]);
  assert.deepEqual(c.kubeReserved, { cpu: '100m', memory: '100Mi' });
  assert.deepEqual(c.evictionHard, { 'memory.available': '200Mi', 'nodefs.available': '5%' });
  assert.equal(c.authentication.anonymous.enabled, true);
  assert.equal(c.authentication.webhook.cacheTTL, 60_000, 'file value kept beside a flag in the same object');
  assert.deepEqual(c.featureGates, { NodeSwap: true });
  assert.deepEqual(c.clusterDNS, ['10.0.0.10', '10.0.0.11']);
  assert.equal(c.serializeImagePulls, false);
  assert.equal(c.imageServiceEndpoint, 'unix:///var/run/crio/crio.sock', 'image endpoint follows the runtime endpoint');
});

test('bad and unknown flags are errors naming the flag', () => {
  const errs = errorsOf(() => parseYaml('', { '--max-pods': 'many', '--no-such-flag': 'x', '--anonymous-auth': 'maybe' }));
  assert.deepEqual(errs.map((e) => e.field).sort(), ['--anonymous-auth', '--max-pods', '--no-such-flag']);
});

// One row per validation rule of the seed's table (plus the related kubelet rules): a config that
// breaks it and the field the error must name.
const RULES: { rule: string; body?: string; flags?: Record<string, string>; field: string }[] = [
  { rule: 'port range 1-65535', body: 'port: 0', field: 'port' },
  { rule: 'port range upper bound', body: 'port: 65536', field: 'port' },
  { rule: 'readOnlyPort 0 or 1-65535', body: 'readOnlyPort: 70000', field: 'readOnlyPort' },
  { rule: 'healthzPort 0 or 1-65535', body: 'healthzPort: -1', field: 'healthzPort' },
  { rule: 'serverTLSBootstrap needs RotateKubeletServerCertificate', body: 'serverTLSBootstrap: true\nfeatureGates:\n  RotateKubeletServerCertificate: false', field: 'serverTLSBootstrap' },
  { rule: 'tlsMinVersion is a TLS version', body: 'tlsMinVersion: TLS1.2', field: 'tlsMinVersion' },
  { rule: 'tlsCipherSuites are known', body: 'tlsCipherSuites: [TLS_NOPE]', field: 'tlsCipherSuites[0]' },
  { rule: 'authorization mode Webhook or AlwaysAllow', body: 'authorization:\n  mode: RBAC', field: 'authorization.mode' },
  { rule: 'registryPullQPS not negative', body: 'registryPullQPS: -1', field: 'registryPullQPS' },
  { rule: 'registryBurst not negative', body: 'registryBurst: -1', field: 'registryBurst' },
  { rule: 'eventRecordQPS not negative', body: 'eventRecordQPS: -1', field: 'eventRecordQPS' },
  { rule: 'eventBurst not negative', body: 'eventBurst: -1', field: 'eventBurst' },
  { rule: 'oomScoreAdj range -1000..1000', body: 'oomScoreAdj: -1001', field: 'oomScoreAdj' },
  { rule: 'nodeLeaseDurationSeconds > 0', body: 'nodeLeaseDurationSeconds: 0', field: 'nodeLeaseDurationSeconds' },
  { rule: 'nodeStatusUpdateFrequency > 0', body: 'nodeStatusUpdateFrequency: 0s', field: 'nodeStatusUpdateFrequency' },
  { rule: 'imageGCHighThresholdPercent 0-100', body: 'imageGCHighThresholdPercent: 101', field: 'imageGCHighThresholdPercent' },
  { rule: 'imageGCLowThresholdPercent 0-100', body: 'imageGCLowThresholdPercent: -1', field: 'imageGCLowThresholdPercent' },
  { rule: 'low threshold below high threshold', body: 'imageGCHighThresholdPercent: 70\nimageGCLowThresholdPercent: 70', field: 'imageGCLowThresholdPercent' },
  { rule: 'cgroupDriver cgroupfs or systemd', body: 'cgroupDriver: openrc', field: 'cgroupDriver' },
  { rule: 'cpuManagerPolicy none or static', body: 'cpuManagerPolicy: dynamic', field: 'cpuManagerPolicy' },
  { rule: 'memoryManagerPolicy None or Static', body: 'memoryManagerPolicy: Dynamic', field: 'memoryManagerPolicy' },
  { rule: 'topologyManagerPolicy values', body: 'topologyManagerPolicy: strict', field: 'topologyManagerPolicy' },
  { rule: 'topologyManagerScope container or pod', body: 'topologyManagerScope: node', field: 'topologyManagerScope' },
  { rule: 'hairpinMode values', body: 'hairpinMode: veth', field: 'hairpinMode' },
  { rule: 'maxPods non-negative', body: 'maxPods: -1\npodsPerCore: 0', field: 'maxPods' },
  { rule: 'podsPerCore not negative', body: 'podsPerCore: -2', field: 'podsPerCore' },
  { rule: 'podsPerCore not above maxPods', body: 'maxPods: 10\npodsPerCore: 11', field: 'podsPerCore' },
  { rule: 'cpuCFSQuotaPeriod needs CustomCPUCFSQuotaPeriod', body: 'cpuCFSQuotaPeriod: 50ms', field: 'cpuCFSQuotaPeriod' },
  { rule: 'cpuCFSQuotaPeriod 1ms..1s', body: 'cpuCFSQuotaPeriod: 2s\nfeatureGates:\n  CustomCPUCFSQuotaPeriod: true', field: 'cpuCFSQuotaPeriod' },
  { rule: 'nodeStatusMaxImages > -2', body: 'nodeStatusMaxImages: -2', field: 'nodeStatusMaxImages' },
  { rule: 'kubeAPIBurst not negative', body: 'kubeAPIBurst: -1', field: 'kubeAPIBurst' },
  { rule: 'maxParallelImagePulls not with serializeImagePulls', body: 'maxParallelImagePulls: 3', field: 'maxParallelImagePulls' },
  { rule: 'maxParallelImagePulls positive', body: 'serializeImagePulls: false\nmaxParallelImagePulls: 0', field: 'maxParallelImagePulls' },
  { rule: 'evictionHard signal known', body: 'evictionHard:\n  cpu.available: 1', field: 'evictionHard[cpu.available]' },
  { rule: 'evictionHard percentage 0-100', body: 'evictionHard:\n  nodefs.available: 120%', field: 'evictionHard[nodefs.available]' },
  { rule: 'evictionHard quantity parses', body: 'evictionHard:\n  memory.available: lots', field: 'evictionHard[memory.available]' },
  { rule: 'evictionHard not negative', body: 'evictionHard:\n  memory.available: -1Mi', field: 'evictionHard[memory.available]' },
  { rule: 'evictionSoft needs a grace period', body: 'evictionSoft:\n  memory.available: 1Gi', field: 'evictionSoftGracePeriod[memory.available]' },
  { rule: 'evictionSoftGracePeriod durations', body: 'evictionSoft:\n  memory.available: 1Gi\nevictionSoftGracePeriod:\n  memory.available: soon', field: 'evictionSoftGracePeriod[memory.available]' },
  { rule: 'evictionMinimumReclaim thresholds', body: 'evictionMinimumReclaim:\n  memory.available: x', field: 'evictionMinimumReclaim[memory.available]' },
  { rule: 'iptablesMasqueradeBit 0-31', body: 'iptablesMasqueradeBit: 32', field: 'iptablesMasqueradeBit' },
  { rule: 'iptablesDropBit 0-31', body: 'iptablesDropBit: -1', field: 'iptablesDropBit' },
  { rule: 'iptables bits distinct', body: 'iptablesMasqueradeBit: 15', field: 'iptablesDropBit' },
  { rule: 'memorySwap.swapBehavior values', body: 'memorySwap:\n  swapBehavior: Always\nfeatureGates:\n  NodeSwap: true', field: 'memorySwap.swapBehavior' },
  { rule: 'memorySwap needs NodeSwap', body: 'memorySwap:\n  swapBehavior: LimitedSwap', field: 'memorySwap.swapBehavior' },
  { rule: 'containerLogMaxSize is a quantity', body: 'containerLogMaxSize: ten megs', field: 'containerLogMaxSize' },
  { rule: 'containerLogMaxFiles above 1', body: 'containerLogMaxFiles: 1', field: 'containerLogMaxFiles' },
  { rule: 'configMapAndSecretChangeDetectionStrategy values', body: 'configMapAndSecretChangeDetectionStrategy: Poll', field: 'configMapAndSecretChangeDetectionStrategy' },
  { rule: 'kubeReserved resources', body: 'kubeReserved:\n  gpu: 1', field: 'kubeReserved[gpu]' },
  { rule: 'kubeReserved quantities', body: 'kubeReserved:\n  memory: 1Zi', field: 'kubeReserved[memory]' },
  { rule: 'systemReserved not negative', body: 'systemReserved:\n  cpu: -100m', field: 'systemReserved[cpu]' },
  { rule: 'reservedSystemCPUs is a CPU list', body: 'reservedSystemCPUs: zero', field: 'reservedSystemCPUs' },
  { rule: 'reservedSystemCPUs not with reserved cgroups', body: 'reservedSystemCPUs: 0-1\nkubeReservedCgroup: /kube', field: 'reservedSystemCPUs' },
  { rule: 'showHiddenMetricsForVersion major.minor', body: 'showHiddenMetricsForVersion: v1.26.0', field: 'showHiddenMetricsForVersion' },
  { rule: 'systemReservedCgroup required when enforced', body: 'enforceNodeAllocatable: [pods, system-reserved]', field: 'systemReservedCgroup' },
  { rule: 'kubeReservedCgroup required when enforced', body: 'enforceNodeAllocatable: [kube-reserved]', field: 'kubeReservedCgroup' },
  { rule: 'enforceNodeAllocatable values', body: 'enforceNodeAllocatable: [everything]', field: 'enforceNodeAllocatable[0]' },
  { rule: 'enforceNodeAllocatable none excludes others', body: 'enforceNodeAllocatable: [none, pods]', field: 'enforceNodeAllocatable' },
  { rule: 'enforceNodeAllocatable needs cgroupsPerQOS', body: 'cgroupsPerQOS: false', field: 'enforceNodeAllocatable' },
  { rule: 'allowedUnsafeSysctls patterns', body: 'allowedUnsafeSysctls: ["net.*.foo"]', field: 'allowedUnsafeSysctls[0]' },
  { rule: 'logging format', body: 'logging:\n  format: xml', field: 'logging.format' },
  { rule: 'enableSystemLogQuery needs enableSystemLogHandler', body: 'enableSystemLogQuery: true\nenableSystemLogHandler: false\nfeatureGates:\n  NodeLogQuery: true', field: 'enableSystemLogQuery' },
  { rule: 'enableSystemLogQuery needs NodeLogQuery', body: 'enableSystemLogQuery: true', field: 'enableSystemLogQuery' },
  { rule: 'shutdownGracePeriodCriticalPods below the total', body: 'shutdownGracePeriod: 30s\nshutdownGracePeriodCriticalPods: 40s', field: 'shutdownGracePeriodCriticalPods' },
  { rule: 'shutdownGracePeriod not negative', body: 'shutdownGracePeriod: -1s', field: 'shutdownGracePeriod' },
  { rule: 'shutdownGracePeriod needs GracefulNodeShutdown', body: 'shutdownGracePeriod: 30s\nfeatureGates:\n  GracefulNodeShutdown: false', field: 'shutdownGracePeriod' },
  {
    rule: 'shutdownGracePeriodByPodPriority empty when the totals are set',
    body: 'shutdownGracePeriod: 30s\nshutdownGracePeriodByPodPriority:\n- priority: 100\n  shutdownGracePeriodSeconds: 10',
    field: 'shutdownGracePeriodByPodPriority',
  },
  {
    rule: 'shutdownGracePeriodByPodPriority needs GracefulNodeShutdown',
    body: 'featureGates:\n  GracefulNodeShutdown: false\nshutdownGracePeriodByPodPriority:\n- priority: 100\n  shutdownGracePeriodSeconds: 10',
    field: 'shutdownGracePeriodByPodPriority',
  },
  { rule: 'memoryThrottlingFactor in (0, 1]', body: 'memoryThrottlingFactor: 1.5', field: 'memoryThrottlingFactor' },
  { rule: 'registerWithTaints effect', body: 'registerWithTaints:\n- key: a\n  effect: Sometimes', field: 'registerWithTaints[0].effect' },
  { rule: 'registerWithTaints key', body: 'registerWithTaints:\n- key: "bad key"\n  effect: NoSchedule', field: 'registerWithTaints[0].key' },
  { rule: 'registerWithTaints from the flag', flags: { '--register-with-taints': 'a=b:Never' }, field: 'registerWithTaints[0].effect' },
  { rule: 'tracing sampling rate', body: 'tracing:\n  samplingRatePerMillion: 2000000', field: 'tracing.samplingRatePerMillion' },
  { rule: 'containerRuntimeEndpoint required', flags: { '--container-runtime-endpoint': '' }, field: 'containerRuntimeEndpoint' },
  { rule: 'containerRuntimeEndpoint scheme', body: 'containerRuntimeEndpoint: /run/containerd.sock', field: 'containerRuntimeEndpoint' },
  { rule: 'imageServiceEndpoint scheme', body: 'imageServiceEndpoint: http://images', field: 'imageServiceEndpoint' },
  { rule: 'enableServer is a bool (required)', body: 'enableServer: "yes"', field: 'enableServer' },
  { rule: 'logging is an object (required)', body: 'logging: text', field: 'logging' },
];

test('every validation rule has a config that fails it, naming the field', () => {
  for (const row of RULES) {
    const errs = errorsOf(() => parseYaml(row.body ? `${row.body}\n` : '', row.flags));
    assert.ok(
      errs.some((e) => e.field === row.field),
      `${row.rule}: expected an error on ${row.field}, got ${JSON.stringify(errs)}`,
    );
  }
});

test('valid edge values of the rules are accepted', () => {
  const c = parseYaml(
    [
      'port: 65535',
      'readOnlyPort: 10255',
      'healthzPort: 0',
      'oomScoreAdj: 1000',
      'imageGCHighThresholdPercent: 100',
      'imageGCLowThresholdPercent: 0',
      'nodeStatusMaxImages: -1',
      'serializeImagePulls: false',
      'maxParallelImagePulls: 5',
      'cpuCFSQuotaPeriod: 1s',
      'featureGates: {CustomCPUCFSQuotaPeriod: true}',
      'enforceNodeAllocatable: [none]',
      'cgroupsPerQOS: false',
      'allowedUnsafeSysctls: ["kernel.msg*", "net.core.somaxconn"]',
      'shutdownGracePeriod: 30s',
      'shutdownGracePeriodCriticalPods: 30s',
      'reservedSystemCPUs: "0-1,4"',
      'tlsMinVersion: VersionTLS12',
      'showHiddenMetricsForVersion: "1.26"',
    ].join('\n'),
  );
  assert.equal(c.maxParallelImagePulls, 5);
  assert.equal(c.cpuCFSQuotaPeriod, 1000);
  assert.equal(c.shutdownGracePeriodCriticalPods, 30_000);
});

test('allocatable = capacity − kubeReserved − systemReserved − hard eviction thresholds', () => {
  const c = parseYaml(
    'kubeReserved: {cpu: 100m, memory: 100Mi, ephemeral-storage: 1Gi}\nsystemReserved: {cpu: 200m, memory: 200Mi}\nevictionHard: {memory.available: 100Mi, nodefs.available: 10%}\n',
  );
  const r = nodeAllocatable(c, { cpu: '4', memory: '8Gi', 'ephemeral-storage': '100Gi' });
  assert.deepEqual(r.capacity, { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi' });
  // 4000m − 100m − 200m; 8192Mi − 100Mi − 200Mi − 100Mi; 100Gi − 1Gi − 10Gi
  assert.deepEqual(r.allocatable, { cpu: '3700m', memory: '7792Mi', pods: '110', 'ephemeral-storage': '89Gi' });

  const defaults = nodeAllocatable(parseYaml(''), { cpu: '2', memory: '1Gi' });
  assert.equal(defaults.allocatable.memory, '924Mi', 'default memory.available 100Mi');
  assert.equal(defaults.allocatable.cpu, '2');
  assert.equal(defaults.capacity['ephemeral-storage'], undefined);

  const tiny = nodeAllocatable(parseYaml('kubeReserved: {memory: 2Gi}\n'), { cpu: '1', memory: '1Gi' });
  assert.equal(tiny.allocatable.memory, '0', 'floored at zero');
});

test('pods capacity from maxPods and podsPerCore as the kubelet computes it', () => {
  assert.equal(nodeAllocatable(parseYaml('maxPods: 110\npodsPerCore: 10\n'), { cpu: '4', memory: '1Gi' }).capacity.pods, '40');
  assert.equal(nodeAllocatable(parseYaml('maxPods: 30\npodsPerCore: 10\n'), { cpu: '8', memory: '1Gi' }).capacity.pods, '30');
  assert.equal(nodeAllocatable(parseYaml('maxPods: 50\n'), { cpu: '8', memory: '1Gi' }).allocatable.pods, '50');
  assert.equal(nodeAllocatable(parseYaml('podsPerCore: 10\n'), { cpu: '3500m', memory: '1Gi' }).capacity.pods, '30', 'whole cores');
  assert.equal(nodeAllocatable(parseYaml(''), { cpu: '4', memory: '1Gi', pods: 7 }).capacity.pods, '7');
});
