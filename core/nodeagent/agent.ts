import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { Clock, TimerHandle } from '../machinery/clock.ts';
import type { Rng } from '../machinery/rng.ts';
import { parseQuantity } from '../machinery/quantity.ts';
import { isAlreadyExists, isConflict, isNotFound, type Client, type ResourceClient, type WriteOptions } from '../client/client.ts';
import { Informer } from '../client/informer.ts';
import { TokenBucketRateLimiter } from '../client/ratelimit.ts';
import { EventRecorder, type EventType, type ObjectReference } from '../client/events.ts';
import { WorkQueue, runWorkers, ItemExponentialFailureRateLimiter } from '../client/workqueue.ts';
import { nodeAllocatable, type NodeAgentConfiguration, type NodeAllocatable } from './config.ts';
import { formatDuration } from './duration.ts';
import { normalizeImage, type ContainerRuntime, type ProbeKind, type ProbeResult } from './runtime.ts';
import { fnv32 } from '../machinery/hash.ts';
import { formatMicroTime, formatTime } from '../machinery/time.ts';
import { deepEqual } from '../machinery/deepequal.ts';
import { createTwoWayMergePatch } from '../apiserver/strategicpatch.ts';

const POD_STATUS = 'k8s.io.api.core.v1.PodStatus';
const NODE_STATUS = 'k8s.io.api.core.v1.NodeStatus';

/** The kubelet version every simulated node reports. */
export const KUBELET_VERSION = 'v1.27.0';
/** The namespace of node heartbeat Leases. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** Annotation of a mirror pod: the hash of the static pod it mirrors. */
export const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

/** Container restart backoff: 10 s doubling to 5 min, reset after a container ran 10 min. */
export const RESTART_BACKOFF_INITIAL_MS = 10_000;
export const RESTART_BACKOFF_MAX_MS = 300_000;
/** How often the eviction manager samples usage (the kubelet's housekeeping period). */
export const EVICTION_MONITORING_PERIOD_MS = 10_000;

/** Reads static pod manifests (`staticPodPath`); injected so tests and simulations need no disk. */
export interface StaticPodFs {
  readdir(dir: string): string[] | Promise<string[]>;
  readFile(path: string): string | Promise<string>;
}

const HAND_OVER: WriteOptions = { handOver: true };

/** Options of a {@link NodeAgent}. */
export interface NodeAgentOptions {
  client: Client;
  clock: Clock;
  rng: Rng;
  nodeName: string;
  config: NodeAgentConfiguration;
  /** Machine capacity (pods defaults from maxPods / podsPerCore). */
  capacity: { cpu: string; memory: string; pods?: number; 'ephemeral-storage'?: string };
  /** Extra node labels (the well-known hostname/os/arch labels are always set). */
  labels?: Record<string, string>;
  runtime: ContainerRuntime;
  /** The node's InternalIP. Default: derived from the node name (pass one per node in large clusters). */
  nodeIP?: string;
  /** IPv4 range pod IPs come from. Default: `config.podCIDR`, else the Node's spec.podCIDR, else derived from the node name. */
  podCIDR?: string;
  /** Source of static pod manifests; static pods are off without it. */
  fs?: StaticPodFs;
  /** Concurrent pod syncs (each pod is synced by one worker at a time). Default 4. */
  podWorkers?: number;
  /** Told about failed API calls and syncs (which are retried, never fatal). */
  onError?(err: unknown): void;
  /**
   * Where the agent records Events (Pulling, Started, Unhealthy, NodeReady, …). Default: a recorder
   * of component `kubelet` on this node with `eventRecordQPS`/`eventBurst` from the config;
   * `false` records none (large simulations).
   */
  events?: EventRecorder | false;
}

type ContainerPhase = 'waiting' | 'running' | 'terminated';

interface Termination {
  exitCode: number;
  reason: string;
  message?: string;
  startedAt?: number;
  finishedAt: number;
  containerID?: string;
}

/** One probe of a running container, as the kubelet's prober worker keeps it. */
interface ProbeWorker {
  kind: ProbeKind;
  spec: any;
  timer?: TimerHandle;
  successRun: number;
  failureRun: number;
}

interface ContainerState {
  spec: any;
  /** An init container (run to completion before the app containers). */
  init: boolean;
  /** `spec.containers{name}` / `spec.initContainers{name}`, the Events' fieldPath. */
  fieldPath: string;
  /** Startup probe passed (true at start without one). */
  started: boolean;
  /** Readiness: started and, with a readiness probe, its last thresholded result succeeded. */
  ready: boolean;
  /** Probe workers of the current run; undefined for containers without probes. */
  probes?: ProbeWorker[];
  phase: ContainerPhase;
  waitingReason: string;
  waitingMessage?: string;
  busy: boolean;
  attempts: number;
  restartCount: number;
  containerID?: string;
  startedAt?: number;
  terminated?: Termination;
  lastTerminated?: Termination;
  backoffMs: number;
  nextStartAt: number;
  pullBackoffMs: number;
  nextPullAt: number;
  timer?: TimerHandle;
  memoryBytes: number;
}

interface PodState {
  key: string;
  uid: string;
  pod: any;
  gen: number;
  containers: ContainerState[];
  initContainers: ContainerState[];
  /** Init containers first, then app containers. */
  all: ContainerState[];
  /** Every init container completed successfully (never reset). */
  initialized: boolean;
  podIP?: string;
  startTime: number;
  terminating: boolean;
  evicted?: { message: string };
  deleteSent: boolean;
  /** The last status patched (see writeStatus). */
  lastStatus?: any;
  transitions: Map<string, { status: string; time: number }>;
  wakeTimer?: TimerHandle;
  wakeAt?: number;
}

const PODS = { group: '', version: 'v1', resource: 'pods' };
const NODES = { group: '', version: 'v1', resource: 'nodes' };
const LEASES = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' };

export { formatMicroTime, formatTime };


function ipToInt(ip: string): number {
  return ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
}

function intToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

/**
 * Host-local IPAM for one node's pod range: hands out the lowest free address after the last one
 * given (round robin), skipping the network, gateway (.1) and broadcast addresses.
 */
export class PodIPAllocator {
  private readonly base: number;
  private readonly size: number;
  private readonly used = new Set<number>();
  private cursor = 1;

  constructor(readonly cidr: string) {
    const m = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(cidr);
    if (!m) throw new Error(`podCIDR ${JSON.stringify(cidr)} is not an IPv4 CIDR`);
    const bits = Number(m[2]);
    this.size = 2 ** (32 - bits);
    this.base = ipToInt(m[1]!) - (ipToInt(m[1]!) % this.size);
  }

  /** A free address, or undefined when the range is exhausted. */
  allocate(): string | undefined {
    const span = this.size - 3;
    for (let i = 0; i < span; i++) {
      const off = 2 + ((this.cursor - 1 + i) % span);
      if (!this.used.has(off)) {
        this.used.add(off);
        this.cursor = off;
        return intToIp(this.base + off);
      }
    }
    return undefined;
  }

  /** Returns an address to the pool. */
  release(ip: string): void {
    this.used.delete(ipToInt(ip) - this.base);
  }
}

/**
 * Pulls images the way the kubelet's image manager does: one pull at a time with
 * `serializeImagePulls`, at most `maxParallelImagePulls` otherwise; each registry pull takes a
 * token of a `registryPullQPS`/`registryBurst` bucket on the clock and fails at once with
 * "pull QPS exceeded" when none is left; concurrent pulls of one image share one pull.
 */
export class ImagePuller {
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly limiter?: TokenBucketRateLimiter;
  private readonly slots: number;
  private active = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly runtime: ContainerRuntime,
    clock: Clock,
    config: Pick<NodeAgentConfiguration, 'serializeImagePulls' | 'maxParallelImagePulls' | 'registryPullQPS' | 'registryBurst'>,
  ) {
    if (config.registryPullQPS > 0) this.limiter = new TokenBucketRateLimiter({ qps: config.registryPullQPS, burst: Math.max(1, config.registryBurst), clock });
    this.slots = config.serializeImagePulls ? 1 : config.maxParallelImagePulls && config.maxParallelImagePulls > 0 ? config.maxParallelImagePulls : Infinity;
  }

  /** Pulls `image` (sharing an in-flight pull of the same image). */
  pull(image: string): Promise<void> {
    const key = normalizeImage(image);
    const existing = this.inflight.get(key);
    if (existing) return existing;
    const p = this.run(image).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private async run(image: string): Promise<void> {
    if (this.active >= this.slots) await new Promise<void>((r) => this.waiters.push(r));
    this.active++;
    try {
      if (this.limiter && !this.limiter.tryAccept()) throw new Error('pull QPS exceeded');
      await this.runtime.pullImage(image);
    } finally {
      this.active--;
      this.waiters.shift()?.();
    }
  }
}

function podKey(pod: any): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}

function isTerminalPhase(phase: string | undefined): boolean {
  return phase === 'Succeeded' || phase === 'Failed';
}

function defaultPullPolicy(image: string): string {
  const name = image.replace(/@.*$/, '');
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const tag = colon > slash ? name.slice(colon + 1) : '';
  return image.includes('@') || (tag && tag !== 'latest') ? 'IfNotPresent' : 'Always';
}

function memoryRequest(container: any): number {
  const q = container?.resources?.requests?.memory ?? container?.resources?.limits?.memory;
  return q ? Number(parseQuantity(q).valueInt()) : 0;
}

/**
 * Why the pod's readiness gates keep it from Ready, in the kubelet's words: one message per gate
 * whose condition is missing or not True; empty when all are True (or there are none).
 */
export function unreadyGates(pod: any): string[] {
  const out: string[] = [];
  const conditions: any[] = pod?.status?.conditions ?? [];
  for (const gate of pod?.spec?.readinessGates ?? []) {
    const type = gate?.conditionType;
    const c = conditions.find((x) => x?.type === type);
    if (!c) out.push(`corresponding condition of pod readiness gate "${type}" does not exist.`);
    else if (c.status !== 'True') out.push(`the status of pod readiness gate "${type}" is not "True", but ${c.status}`);
  }
  return out;
}

/**
 * A simulated kubelet for one node, on an injected Clock, Rng and ContainerRuntime:
 *
 * - Registration: creates its Node (capacity/allocatable from `nodeAllocatable`, well-known
 *   labels, `registerWithTaints`, addresses, nodeInfo with kubeletVersion v1.27.0); if the Node
 *   exists, patches its labels and status instead.
 * - Heartbeats: the Lease `kube-node-lease/<node>` is renewed every `nodeLeaseDurationSeconds / 4`
 *   (renewTime a MicroTime, holderIdentity the node, owned by the Node); node status is computed
 *   every `nodeStatusUpdateFrequency` and patched when it changed (heartbeat times aside) or
 *   `nodeStatusReportFrequency` passed since the last report.
 * - Pods bound to the node (an informer on `spec.nodeName=<node>`) are synced one worker per pod
 *   at a time: image pulls through {@link ImagePuller}, container starts through the runtime,
 *   phases Pending → Running → Succeeded/Failed, restarts per restartPolicy with backoff
 *   (10 s doubling to 5 min, measured from the container's exit), status via `PATCH pods/x/status`.
 * - Init containers run one at a time in spec order, each to exit 0, before any app container;
 *   a failed one restarts with the same backoff unless restartPolicy is Never (the pod then fails).
 *   Until they are done the pod is Pending, `Initialized` is False (ContainersNotInitialized) and
 *   not-yet-started containers wait with reason PodInitializing; `initContainerStatuses` is reported.
 * - Probes (startup, liveness, readiness) of a running container are first run at
 *   startedAt + initialDelaySeconds, then every periodSeconds (from each probe's start), with
 *   outcomes from the runtime; a result counts after successThreshold/failureThreshold consecutive
 *   ones; a probe slower than timeoutSeconds fails at the timeout. The startup probe runs alone
 *   until it succeeds (`started`); readiness drives `ready` and the Ready/ContainersReady
 *   conditions (without one, a container is ready once started); a failed liveness or startup
 *   probe stops the container (exit 143, 137 past the grace period: the probe's
 *   terminationGracePeriodSeconds when set, else the pod's) and it restarts per restartPolicy
 *   with backoff. Containers without probes get no probe timers. Ready also waits for every
 *   `readinessGates` condition (set by other components) to be True.
 * - `stop()` ends every loop and resolves once the Events recorded so far are written.
 * - Events as the kubelet records them (Starting, Node* condition changes, Pulling, Pulled, Failed,
 *   BackOff, ErrImageNeverPull, Created, Started, Killing, Unhealthy, Evicted,
 *   EvictionThresholdMet) through an {@link EventRecorder}; `events: false` turns them off.
 * - Graceful deletion: containers stop after min(deletionGracePeriodSeconds, the runtime's stop
 *   time) and deletion is confirmed with `DELETE ?gracePeriodSeconds=0` and a uid precondition.
 * - Static pods from `staticPodPath` (through the injected fs) are published as mirror pods
 *   and run through the mirror pod.
 * - Eviction: when memory.available (capacity − usage of running containers) falls below the
 *   `evictionHard` threshold, one pod per monitoring period is evicted — pods using more than
 *   their request first, then lowest priority, then largest excess — ending Failed/Evicted.
 */
export class NodeAgent {
  readonly nodeName: string;
  private readonly o: NodeAgentOptions;
  private readonly clock: Clock;
  private readonly config: NodeAgentConfiguration;
  private readonly resources: NodeAllocatable;
  private readonly nodes: ResourceClient;
  private readonly leases: ResourceClient;
  private readonly podsClient: ResourceClient;
  private readonly informer: Informer;
  private readonly queue: WorkQueue<string>;
  private readonly puller: ImagePuller;
  /** The agent's Event recorder (undefined: events are off). */
  readonly recorder?: EventRecorder;
  private readonly nodeRef: ObjectReference;
  private readonly pods = new Map<string, PodState>();
  private readonly timers = new Set<TimerHandle>();
  // NOTE: the node loops' pending timers are kept apart from `timers`: they are rescheduled every
  // few seconds on every node, and a Set entry each time showed in idle-cluster profiles.
  private leaseTimer?: TimerHandle;
  private statusTimer?: TimerHandle;
  private evictionTimer?: TimerHandle;
  private ipam?: PodIPAllocator;
  private nodeUid = '';
  private lease?: any;
  private leaseBackoffMs = 0;
  private lastStatusKey?: string;
  /** What node status depended on when it was last built (see {@link statusInputsUnchanged}). */
  private lastStatusPressure?: boolean;
  private lastStatusImages?: number;
  private machineHash?: string;
  private lastStatusReport = -Infinity;
  /** The node status last sent, which the next status patch is a two-way patch from. */
  private lastStatusSent?: any;
  private nodeConditionTimes = new Map<string, { status: string; time: number }>();
  private memoryPressureSeen = -Infinity;
  private readonly staticMirrors = new Map<string, { hash: string; pod: any }>();
  private workers?: Promise<void>;
  private started = false;
  private stopped = false;
  /** Evictions done so far (namespace/name), in order. */
  readonly evictions: string[] = [];

  constructor(opts: NodeAgentOptions) {
    this.o = opts;
    this.nodeName = opts.nodeName;
    this.clock = opts.clock;
    this.config = opts.config;
    this.resources = nodeAllocatable(opts.config, opts.capacity);
    this.nodes = opts.client.resource(NODES);
    this.leases = opts.client.resource(LEASES).namespace(NODE_LEASE_NAMESPACE);
    this.podsClient = opts.client.resource(PODS);
    this.informer = new Informer(this.podsClient, { clock: this.clock, fieldSelector: `spec.nodeName=${opts.nodeName}`, onError: (e) => this.report(e) });
    this.queue = new WorkQueue<string>({ clock: this.clock, rateLimiter: new ItemExponentialFailureRateLimiter<string>(200, 10_000) });
    this.puller = new ImagePuller(opts.runtime, this.clock, opts.config);
    this.nodeRef = { kind: 'Node', name: opts.nodeName, uid: opts.nodeName };
    if (opts.events !== false) {
      this.recorder =
        opts.events ??
        new EventRecorder({
          client: opts.client,
          clock: this.clock,
          component: 'kubelet',
          host: opts.nodeName,
          qps: opts.config.eventRecordQPS,
          burst: opts.config.eventBurst,
          onError: (e) => this.report(e),
        });
    }
  }

  private nodeEvent(type: EventType, reason: string, message: string): void {
    this.recorder?.event(this.nodeRef, type, reason, message);
  }

  private podEvent(ps: PodState, c: ContainerState | undefined, type: EventType, reason: string, message: string): void {
    const r = this.recorder;
    if (!r) return;
    const m = ps.pod.metadata;
    const ref: ObjectReference = { apiVersion: 'v1', kind: 'Pod', namespace: m.namespace, name: m.name, uid: m.uid };
    if (m.resourceVersion) ref.resourceVersion = m.resourceVersion;
    if (c) ref.fieldPath = c.fieldPath;
    r.event(ref, type, reason, message);
  }

  private report(err: unknown): void {
    this.o.onError?.(err);
  }

  private after(ms: number, fn: () => void): TimerHandle {
    const h = this.clock.setTimer(ms, () => {
      this.timers.delete(h);
      if (!this.stopped) fn();
    });
    this.timers.add(h);
    return h;
  }

  private cancel(h: TimerHandle | undefined): void {
    if (!h) return;
    this.clock.clearTimer(h);
    this.timers.delete(h);
  }

  /** Registers the node, starts heartbeats, the pod informer and workers; resolves once registered. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.nodeEvent('Normal', 'Starting', 'Starting kubelet.');
    await this.registerWithRetry();
    if (this.stopped) return;
    this.ipam = new PodIPAllocator(this.o.podCIDR ?? (this.config.podCIDR || this.registeredPodCIDR || this.derivedPodCIDR()));
    await this.renewLease();
    this.statusTimer = this.clock.setTimer(this.config.nodeStatusUpdateFrequency, this.statusTick);
    this.evictionTimer = this.clock.setTimer(EVICTION_MONITORING_PERIOD_MS, this.evictionTick);
    this.informer.addEventHandler({
      onAdd: (p) => this.queue.add(podKey(p)),
      onUpdate: (_o, p) => this.queue.add(podKey(p)),
      onDelete: (p) => this.queue.add(podKey(p)),
    });
    this.informer.start();
    this.workers = runWorkers(this.queue, this.o.podWorkers ?? 4, (k) => this.syncPod(k), (_k, e) => this.report(e));
    if (this.o.fs && this.config.staticPodPath) void this.staticPodLoop();
  }

  /**
   * Stops every loop and timer (containers are not stopped; the node simply goes silent); resolves
   * once the pod workers are done and the Events recorded so far are written.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const h of this.timers) this.clock.clearTimer(h);
    this.timers.clear();
    for (const h of [this.leaseTimer, this.statusTimer, this.evictionTimer]) if (h) this.clock.clearTimer(h);
    this.leaseTimer = this.statusTimer = this.evictionTimer = undefined;
    this.queue.shutDown();
    await this.informer.stop();
    await this.workers;
    await this.recorder?.flush();
  }

  // ---- registration ----------------------------------------------------------------------------

  private registeredPodCIDR = '';

  /** The node's InternalIP. */
  get nodeIP(): string {
    if (this.o.nodeIP) return this.o.nodeIP;
    const h = fnv32(this.nodeName);
    return `10.${(h >>> 16) & 127}.${(h >>> 8) & 255}.${(h & 253) + 2}`;
  }

  private derivedPodCIDR(): string {
    const h = fnv32(`pods/${this.nodeName}`);
    return `10.${128 + ((h >>> 8) & 127)}.${h & 255}.0/24`;
  }

  private labels(): Record<string, string> {
    return {
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': this.nodeName,
      'kubernetes.io/os': 'linux',
      ...(this.o.labels ?? {}),
    };
  }

  private async registerWithRetry(): Promise<void> {
    let backoff = 100;
    while (!this.stopped) {
      try {
        await this.register();
        return;
      } catch (err) {
        this.report(err);
        await this.clock.sleep(backoff);
        backoff = Math.min(backoff * 2, 7000);
      }
    }
  }

  private async register(): Promise<void> {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: this.nodeName,
        labels: this.labels(),
        annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
      },
      spec: {
        ...(this.config.registerWithTaints?.length ? { taints: this.config.registerWithTaints.map((t) => ({ ...t })) } : {}),
        ...(this.config.podCIDR ? { podCIDR: this.config.podCIDR, podCIDRs: [this.config.podCIDR] } : {}),
        ...(this.config.providerID ? { providerID: this.config.providerID } : {}),
      },
      status: this.nodeStatus(),
    };
    let created: any;
    try {
      created = await this.nodes.create(node);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      await this.nodes.patch(this.nodeName, { metadata: { labels: this.labels() } }, 'merge');
      created = await this.nodes.patch(this.nodeName, { status: node.status }, 'strategic', { subresource: 'status' });
    }
    this.nodeUid = created.metadata.uid;
    this.registeredPodCIDR = created.spec?.podCIDR ?? '';
    this.lastStatusKey = this.statusKey(node.status);
    this.lastStatusSent = node.status;
    this.lastStatusReport = this.clock.now();
  }

  // ---- lease -----------------------------------------------------------------------------------

  private leaseObject(now: number): any {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: this.nodeName,
        namespace: NODE_LEASE_NAMESPACE,
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: this.nodeUid }],
      },
      spec: { holderIdentity: this.nodeName, leaseDurationSeconds: this.config.nodeLeaseDurationSeconds, renewTime: formatMicroTime(now) },
    };
  }

  private async renewLease(): Promise<void> {
    if (this.stopped) return;
    const now = this.clock.now();
    try {
      if (!this.lease) {
        try {
          this.lease = await this.leases.get(this.nodeName);
        } catch (err) {
          if (!isNotFound(err)) throw err;
          this.lease = await this.leases.create(this.leaseObject(now));
          this.leaseBackoffMs = 0;
          this.scheduleLease(this.config.nodeLeaseDurationSeconds * 250);
          return;
        }
      }
      // NOTE: a shallow copy: only metadata and spec are replaced, never mutated in place.
      const next = { ...this.lease, metadata: { ...this.lease.metadata } };
      next.spec = { ...this.lease.spec, holderIdentity: this.nodeName, leaseDurationSeconds: this.config.nodeLeaseDurationSeconds, renewTime: formatMicroTime(now) };
      if (!next.metadata.ownerReferences?.length && this.nodeUid) next.metadata.ownerReferences = this.leaseObject(now).metadata.ownerReferences;
      // NOTE: `next` is built for this request alone and never touched again: handed over, not copied.
      this.lease = await this.leases.update(next, HAND_OVER);
      this.leaseBackoffMs = 0;
      this.scheduleLease(this.config.nodeLeaseDurationSeconds * 250);
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) this.lease = undefined;
      this.report(err);
      this.leaseBackoffMs = Math.min(this.leaseBackoffMs ? this.leaseBackoffMs * 2 : 200, 7000);
      this.scheduleLease(this.leaseBackoffMs);
    }
  }

  private scheduleLease(ms: number): void {
    if (this.stopped) return;
    this.leaseTimer = this.clock.setTimer(ms, this.leaseTick);
  }

  private readonly leaseTick = (): void => {
    this.leaseTimer = undefined;
    if (!this.stopped) void this.renewLease();
  };

  // ---- node status -----------------------------------------------------------------------------

  private condition(type: string, status: string, reason: string, message: string, now: number): any {
    const prev = this.nodeConditionTimes.get(type);
    const time = prev && prev.status === status ? prev.time : now;
    if (!prev || prev.status !== status) {
      const eventReason = reason.replace(/^Kubelet/, 'Node');
      this.nodeEvent('Normal', eventReason, `Node ${this.nodeName} status is now: ${eventReason}`);
    }
    this.nodeConditionTimes.set(type, { status, time });
    return { type, status, lastHeartbeatTime: formatTime(now), lastTransitionTime: formatTime(time), reason, message };
  }

  private memoryPressure(): boolean {
    return this.clock.now() - this.memoryPressureSeen < this.config.evictionPressureTransitionPeriod || this.memoryPressureSeen === this.clock.now();
  }

  private nodeStatus(): any {
    const now = this.clock.now();
    const mem = this.memoryPressure();
    const maxImages = this.config.nodeStatusMaxImages;
    let images = this.o.runtime.listImages().sort((a, b) => b.sizeBytes - a.sizeBytes);
    if (maxImages >= 0) images = images.slice(0, maxImages);
    const id = (this.machineHash ??= createHash('sha256').update(this.nodeName).digest('hex'));
    return {
      capacity: { ...this.resources.capacity },
      allocatable: { ...this.resources.allocatable },
      conditions: [
        mem
          ? this.condition('MemoryPressure', 'True', 'KubeletHasInsufficientMemory', 'kubelet has insufficient memory available', now)
          : this.condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available', now),
        this.condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure', now),
        this.condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available', now),
        this.condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', now),
      ],
      addresses: [
        { type: 'InternalIP', address: this.nodeIP },
        { type: 'Hostname', address: this.nodeName },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: this.config.port } },
      nodeInfo: {
        machineID: id.slice(0, 32),
        systemUUID: `${id.slice(32, 40)}-${id.slice(40, 44)}-${id.slice(44, 48)}-${id.slice(48, 52)}-${id.slice(52, 64)}`,
        bootID: `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`,
        kernelVersion: '6.1.0-orrery',
        osImage: 'orrery simulated node',
        containerRuntimeVersion: 'containerd://1.7.0',
        kubeletVersion: KUBELET_VERSION,
        kubeProxyVersion: KUBELET_VERSION,
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images,
    };
  }

  private statusKey(status: any): string {
    return JSON.stringify({ ...status, conditions: status.conditions.map((c: any) => ({ ...c, lastHeartbeatTime: undefined })) });
  }

  /**
   * One round of the node status loop (every `nodeStatusUpdateFrequency`, the next round timed from
   * the end of this one, as the kubelet's loop is). A round with nothing to do (see
   * {@link statusInputsUnchanged}) ends at once, without a promise: most rounds on an idle node.
   */
  private readonly statusTick = (): void => {
    this.statusTimer = undefined;
    if (this.stopped) return;
    if (this.statusInputsUnchanged(this.clock.now())) {
      this.statusTimer = this.clock.setTimer(this.config.nodeStatusUpdateFrequency, this.statusTick);
      return;
    }
    void this.nodeStatusLoop();
  };

  private async nodeStatusLoop(): Promise<void> {
    try {
      await this.syncNodeStatus();
    } catch (err) {
      this.report(err);
    }
    if (!this.stopped) this.statusTimer = this.clock.setTimer(this.config.nodeStatusUpdateFrequency, this.statusTick);
  }

  /**
   * Whether node status needs neither building nor sending at `now`: node status depends on time
   * only through memory pressure and the image list, so when neither moved since it was last
   * built and no report is due, building and comparing the whole status is skipped. Always false
   * for a runtime that does not count its image list changes.
   */
  private statusInputsUnchanged(now: number): boolean {
    const images = this.o.runtime.imagesGeneration?.();
    return images !== undefined && images === this.lastStatusImages && this.memoryPressure() === this.lastStatusPressure && now - this.lastStatusReport < this.config.nodeStatusReportFrequency;
  }

  /** Computes node status and patches it when it changed or the report frequency elapsed. */
  private async syncNodeStatus(): Promise<void> {
    const now = this.clock.now();
    if (this.statusInputsUnchanged(now)) return;
    const status = this.nodeStatus();
    const key = this.statusKey(status);
    this.lastStatusImages = this.o.runtime.imagesGeneration?.();
    this.lastStatusPressure = this.memoryPressure();
    if (key === this.lastStatusKey && now - this.lastStatusReport < this.config.nodeStatusReportFrequency) return;
    // As the kubelet does: a two-way strategic merge patch from the status last sent.
    const patch = this.lastStatusSent === undefined ? status : createTwoWayMergePatch(this.lastStatusSent, status, NODE_STATUS);
    await this.nodes.patch(this.nodeName, { status: patch }, 'strategic', { subresource: 'status', discardResult: true });
    this.lastStatusKey = key;
    this.lastStatusSent = status;
    this.lastStatusReport = now;
  }

  // ---- pods ------------------------------------------------------------------------------------

  private newContainerState(spec: any, init: boolean, waitingReason: string): ContainerState {
    return {
      spec,
      init,
      fieldPath: `${init ? 'spec.initContainers' : 'spec.containers'}{${spec.name}}`,
      started: false,
      ready: false,
      phase: 'waiting',
      waitingReason,
      busy: false,
      attempts: 0,
      restartCount: 0,
      backoffMs: RESTART_BACKOFF_INITIAL_MS,
      nextStartAt: 0,
      pullBackoffMs: RESTART_BACKOFF_INITIAL_MS,
      nextPullAt: 0,
      memoryBytes: 0,
    };
  }

  private newPodState(pod: any): PodState {
    const now = this.clock.now();
    const initSpecs: any[] = pod.spec?.initContainers ?? [];
    const waiting = initSpecs.length > 0 ? 'PodInitializing' : 'ContainerCreating';
    const initContainers = initSpecs.map((spec) => this.newContainerState(spec, true, waiting));
    const containers: ContainerState[] = (pod.spec?.containers ?? []).map((spec: any) => this.newContainerState(spec, false, waiting));
    const ps: PodState = {
      key: podKey(pod),
      uid: pod.metadata.uid,
      pod,
      gen: 0,
      containers,
      initContainers,
      all: initContainers.length ? [...initContainers, ...containers] : containers,
      initialized: initContainers.length === 0,
      startTime: pod.status?.startTime ? Date.parse(pod.status.startTime) : now,
      terminating: false,
      deleteSent: false,
      transitions: new Map(),
    };
    if (!pod.spec?.hostNetwork) ps.podIP = this.ipam?.allocate();
    this.pods.set(ps.key, ps);
    return ps;
  }

  private forgetPod(ps: PodState): void {
    ps.gen++;
    for (const c of ps.all) {
      this.cancel(c.timer);
      this.stopProbes(c);
    }
    this.cancel(ps.wakeTimer);
    this.releaseIP(ps);
    this.pods.delete(ps.key);
  }

  private releaseIP(ps: PodState): void {
    if (ps.podIP && !ps.pod.spec?.hostNetwork) this.ipam?.release(ps.podIP);
  }

  private wake(ps: PodState, at: number): void {
    if (ps.wakeAt !== undefined && ps.wakeAt <= at && ps.wakeAt > this.clock.now()) return;
    this.cancel(ps.wakeTimer);
    ps.wakeAt = at;
    ps.wakeTimer = this.after(Math.max(0, at - this.clock.now()), () => {
      ps.wakeAt = undefined;
      this.queue.add(ps.key);
    });
  }

  /** Reconciles one pod from the informer's current view and the agent's container state. */
  private async syncPod(key: string): Promise<void> {
    if (this.stopped) return;
    const pod = this.informer.store.getByKey(key);
    let ps = this.pods.get(key);
    if (!pod) {
      if (ps) this.forgetPod(ps);
      return;
    }
    if (ps && ps.uid !== pod.metadata.uid) {
      this.forgetPod(ps);
      ps = undefined;
    }
    if (!ps) {
      if (isTerminalPhase(pod.status?.phase)) {
        if (pod.metadata.deletionTimestamp) await this.confirmDeletion(pod);
        return;
      }
      ps = this.newPodState(pod);
    }
    ps.pod = pod;
    if (pod.metadata.deletionTimestamp && !ps.terminating) this.beginTermination(ps);
    const phase = this.podPhase(ps);
    if (!ps.terminating && !isTerminalPhase(phase)) this.ensureContainers(ps);
    const status = this.podStatus(ps);
    if (isTerminalPhase(status.phase) && !ps.terminating) this.releaseIP(ps);
    await this.writeStatus(ps, status);
    if (ps.terminating && ps.all.every((c) => c.phase !== 'running' && !c.busy) && !ps.deleteSent) {
      ps.deleteSent = true;
      await this.confirmDeletion(pod);
    }
  }

  private async confirmDeletion(pod: any): Promise<void> {
    try {
      await this.podsClient.namespace(pod.metadata.namespace).delete(pod.metadata.name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }

  private restartable(ps: PodState, c: ContainerState): boolean {
    const policy = ps.pod.spec?.restartPolicy ?? 'Always';
    const t = c.terminated ?? c.lastTerminated;
    if (!t) return true;
    if (c.init && t.exitCode === 0) return false;
    if (policy === 'Always') return true;
    if (policy === 'OnFailure') return t.exitCode !== 0;
    return false;
  }

  private static succeeded(c: ContainerState): boolean {
    return c.phase === 'terminated' && c.terminated!.exitCode === 0;
  }

  /** Starts what should run now: the first unfinished init container, else every app container. */
  private ensureContainers(ps: PodState): void {
    const now = this.clock.now();
    if (!ps.initialized) {
      for (const c of ps.initContainers) {
        if (NodeAgent.succeeded(c)) continue;
        if (c.phase === 'running' || c.busy) return;
        if (c.attempts > 0 && !this.restartable(ps, c)) return;
        this.ensureContainer(ps, c, now);
        return;
      }
      ps.initialized = true;
    }
    for (const c of ps.containers) {
      if (c.phase === 'running' || c.busy) continue;
      if (c.attempts > 0 && !this.restartable(ps, c)) continue;
      this.ensureContainer(ps, c, now);
    }
  }

  private ensureContainer(ps: PodState, c: ContainerState, now: number): void {
    if (now < c.nextStartAt) {
      if (c.terminated) {
        c.lastTerminated = c.terminated;
        c.terminated = undefined;
        c.phase = 'waiting';
      }
      c.waitingReason = 'CrashLoopBackOff';
      const podName = `${ps.pod.metadata.name}_${ps.pod.metadata.namespace}(${ps.uid})`;
      c.waitingMessage = `back-off ${Math.round(c.backoffMs / 2000)}s restarting failed container=${c.spec.name} pod=${podName}`;
      this.podEvent(ps, c, 'Warning', 'BackOff', `Back-off restarting failed container ${c.spec.name} in pod ${podName}`);
      this.wake(ps, c.nextStartAt);
      return;
    }
    void this.startContainer(ps, c);
  }

  private async startContainer(ps: PodState, c: ContainerState): Promise<void> {
    const gen = ps.gen;
    const image: string = c.spec.image;
    const policy: string = c.spec.imagePullPolicy ?? defaultPullPolicy(image);
    let requeue = true;
    c.busy = true;
    try {
      if (policy === 'Never' && !this.o.runtime.hasImage(image)) {
        c.phase = 'waiting';
        c.waitingReason = 'ErrImageNeverPull';
        c.waitingMessage = `Container image "${image}" is not present with pull policy of Never`;
        this.podEvent(ps, c, 'Warning', 'ErrImageNeverPull', c.waitingMessage);
        this.podEvent(ps, c, 'Warning', 'Failed', 'Error: ErrImageNeverPull');
        // NOTE: retried on the next sync or after the initial backoff, not by re-queueing at once (a hot loop).
        this.wake(ps, this.clock.now() + RESTART_BACKOFF_INITIAL_MS);
        requeue = false;
        return;
      }
      if (policy === 'Always' || !this.o.runtime.hasImage(image)) {
        const now = this.clock.now();
        if (now < c.nextPullAt) {
          c.waitingReason = 'ImagePullBackOff';
          c.waitingMessage = `Back-off pulling image "${image}"`;
          this.podEvent(ps, c, 'Normal', 'BackOff', c.waitingMessage);
          this.podEvent(ps, c, 'Warning', 'Failed', 'Error: ImagePullBackOff');
          this.wake(ps, c.nextPullAt);
          requeue = false;
          return;
        }
        if (this.recorder) this.podEvent(ps, c, 'Normal', 'Pulling', `Pulling image "${image}"`);
        try {
          await this.puller.pull(image);
          c.pullBackoffMs = RESTART_BACKOFF_INITIAL_MS;
          if (this.recorder) {
            const took = formatDuration(this.clock.now() - now);
            this.podEvent(ps, c, 'Normal', 'Pulled', `Successfully pulled image "${image}" in ${took} (${took} including waiting)`);
          }
        } catch (err) {
          if (gen !== ps.gen) return;
          c.phase = 'waiting';
          c.waitingReason = 'ErrImagePull';
          c.waitingMessage = (err as Error).message;
          this.podEvent(ps, c, 'Warning', 'Failed', `Failed to pull image "${image}": ${c.waitingMessage}`);
          this.podEvent(ps, c, 'Warning', 'Failed', 'Error: ErrImagePull');
          c.nextPullAt = this.clock.now() + c.pullBackoffMs;
          this.wake(ps, c.nextPullAt);
          c.pullBackoffMs = Math.min(c.pullBackoffMs * 2, RESTART_BACKOFF_MAX_MS);
          return;
        }
      } else if (this.recorder) {
        this.podEvent(ps, c, 'Normal', 'Pulled', `Container image "${image}" already present on machine`);
      }
      if (gen !== ps.gen) return;
      const attempt = c.attempts++;
      const res = await this.o.runtime.startContainer(ps.pod, c.spec, attempt);
      if (gen !== ps.gen) return;
      const now = this.clock.now();
      c.restartCount = attempt;
      if (c.terminated) c.lastTerminated = c.terminated;
      c.terminated = undefined;
      if (!res.ok) {
        this.podEvent(ps, c, 'Normal', 'Created', `Created container ${c.spec.name}`);
        this.podEvent(ps, c, 'Warning', 'Failed', `Error: ${res.message}`);
        this.containerExited(ps, c, { exitCode: 128, reason: res.reason, message: res.message, finishedAt: now });
        return;
      }
      c.phase = 'running';
      c.containerID = res.containerID;
      c.startedAt = now;
      c.waitingReason = '';
      c.waitingMessage = undefined;
      if (this.recorder) {
        this.podEvent(ps, c, 'Normal', 'Created', `Created container ${c.spec.name}`);
        this.podEvent(ps, c, 'Normal', 'Started', `Started container ${c.spec.name}`);
      }
      const run = this.o.runtime.containerRun(ps.pod, c.spec, attempt);
      if (run.durationMs !== undefined) {
        const exitCode = run.exitCode ?? 0;
        c.timer = this.after(run.durationMs, () => {
          c.timer = undefined;
          if (gen !== ps.gen || c.phase !== 'running') return;
          this.containerExited(ps, c, { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', finishedAt: this.clock.now() });
          this.queue.add(ps.key);
        });
      }
      this.startProbes(ps, c);
    } finally {
      c.busy = false;
      if (requeue && (gen === ps.gen || ps.terminating)) this.queue.add(ps.key);
    }
  }

  private containerExited(ps: PodState, c: ContainerState, t: Omit<Termination, 'startedAt' | 'containerID'>): void {
    const startedAt = c.phase === 'running' ? c.startedAt : undefined;
    this.stopProbes(c);
    c.phase = 'terminated';
    c.ready = false;
    c.started = false;
    c.terminated = { ...t, startedAt, containerID: c.containerID };
    if (startedAt !== undefined && t.finishedAt - startedAt >= 2 * RESTART_BACKOFF_MAX_MS) c.backoffMs = RESTART_BACKOFF_INITIAL_MS;
    if (!ps.terminating && this.restartable(ps, c)) {
      c.nextStartAt = t.finishedAt + c.backoffMs;
      c.backoffMs = Math.min(c.backoffMs * 2, RESTART_BACKOFF_MAX_MS);
    }
  }

  // ---- probes ----------------------------------------------------------------------------------

  /**
   * Starts the probe workers of a container that just started: the startup probe alone when there
   * is one (liveness and readiness wait for it), else liveness and readiness. A container without
   * probes gets no workers and no timers.
   */
  private startProbes(ps: PodState, c: ContainerState): void {
    const spec = c.spec;
    c.started = !spec.startupProbe;
    c.ready = c.started && !spec.readinessProbe;
    if (c.init || !(spec.startupProbe || spec.livenessProbe || spec.readinessProbe)) return;
    c.probes = [];
    if (spec.startupProbe) this.startProbe(ps, c, 'startup');
    else this.startLivenessAndReadiness(ps, c);
  }

  private startLivenessAndReadiness(ps: PodState, c: ContainerState): void {
    if (c.spec.livenessProbe) this.startProbe(ps, c, 'liveness');
    if (c.spec.readinessProbe) this.startProbe(ps, c, 'readiness');
  }

  private startProbe(ps: PodState, c: ContainerState, kind: ProbeKind): void {
    const spec = c.spec[`${kind}Probe`];
    const w: ProbeWorker = { kind, spec, successRun: 0, failureRun: 0 };
    c.probes!.push(w);
    const firstAt = c.startedAt! + (spec.initialDelaySeconds ?? 0) * 1000;
    this.scheduleProbe(ps, c, w, Math.max(0, firstAt - this.clock.now()));
  }

  private scheduleProbe(ps: PodState, c: ContainerState, w: ProbeWorker, ms: number): void {
    const gen = ps.gen;
    const run = c.attempts;
    w.timer = this.after(ms, () => {
      w.timer = undefined;
      if (gen !== ps.gen || run !== c.attempts || c.phase !== 'running' || !c.probes?.includes(w)) return;
      this.runProbe(ps, c, w);
    });
  }

  private stopProbes(c: ContainerState): void {
    if (!c.probes) return;
    for (const w of c.probes) this.cancel(w.timer);
    c.probes = undefined;
  }

  private runProbe(ps: PodState, c: ContainerState, w: ProbeWorker): void {
    const startedAt = this.clock.now();
    const periodMs = (w.spec.periodSeconds ?? 10) * 1000;
    const timeoutMs = (w.spec.timeoutSeconds ?? 1) * 1000;
    let result: ProbeResult = this.o.runtime.probe?.(ps.pod, c.spec, w.kind, c.restartCount) ?? { ok: true };
    const latency = result.latencyMs ?? 0;
    if (latency > timeoutMs) result = { ok: false, output: `probe timed out after ${w.spec.timeoutSeconds ?? 1}s` };
    const finish = () => {
      if (!c.probes?.includes(w)) return;
      const next = this.probeResult(ps, c, w, result);
      if (next) this.scheduleProbe(ps, c, w, Math.max(0, startedAt + periodMs - this.clock.now()));
    };
    if (latency > 0) {
      const gen = ps.gen;
      const run = c.attempts;
      w.timer = this.after(Math.min(latency, timeoutMs), () => {
        w.timer = undefined;
        if (gen === ps.gen && run === c.attempts && c.phase === 'running') finish();
      });
    } else finish();
  }

  /** Applies one probe outcome with the thresholds; returns whether this worker keeps probing. */
  private probeResult(ps: PodState, c: ContainerState, w: ProbeWorker, r: ProbeResult): boolean {
    const label = w.kind === 'startup' ? 'Startup' : w.kind === 'liveness' ? 'Liveness' : 'Readiness';
    if (r.ok) {
      w.successRun++;
      w.failureRun = 0;
    } else {
      w.failureRun++;
      w.successRun = 0;
      this.podEvent(ps, c, 'Warning', 'Unhealthy', `${label} probe failed: ${r.output ?? ''}`);
    }
    const success = r.ok && w.successRun >= (w.kind === 'readiness' ? (w.spec.successThreshold ?? 1) : 1);
    const failure = !r.ok && w.failureRun >= (w.spec.failureThreshold ?? 3);
    if (w.kind === 'readiness') {
      const ready = success ? true : failure ? false : c.ready;
      if (ready !== c.ready) {
        c.ready = ready;
        this.queue.add(ps.key);
      }
      return true;
    }
    if (failure) {
      this.killContainer(ps, c, `Container ${c.spec.name} failed ${w.kind} probe, will be restarted`, w.spec.terminationGracePeriodSeconds);
      return false;
    }
    if (w.kind === 'startup' && success) {
      this.cancel(w.timer);
      c.probes = c.probes!.filter((x) => x !== w);
      c.started = true;
      c.ready = !c.spec.readinessProbe;
      this.startLivenessAndReadiness(ps, c);
      this.queue.add(ps.key);
      return false;
    }
    return true;
  }

  /**
   * Stops a running container for a failed liveness/startup probe; it restarts per restartPolicy
   * with backoff. The grace period is the probe's `terminationGracePeriodSeconds` when set
   * (Kubernetes' ProbeTerminationGracePeriod), else the pod's.
   */
  private killContainer(ps: PodState, c: ContainerState, message: string, probeGraceSeconds?: number): void {
    this.podEvent(ps, c, 'Normal', 'Killing', message);
    this.stopProbes(c);
    this.cancel(c.timer);
    c.ready = false;
    const gen = ps.gen;
    const run = c.attempts;
    const graceMs = (typeof probeGraceSeconds === 'number' ? probeGraceSeconds : (ps.pod.spec?.terminationGracePeriodSeconds ?? 30)) * 1000;
    const stopMs = this.o.runtime.stopDuration(ps.pod, c.spec);
    const killed = stopMs > graceMs;
    c.timer = this.after(Math.min(stopMs, graceMs), () => {
      c.timer = undefined;
      if (gen !== ps.gen || run !== c.attempts || c.phase !== 'running') return;
      this.containerExited(ps, c, { exitCode: killed ? 137 : 143, reason: 'Error', finishedAt: this.clock.now() });
      this.queue.add(ps.key);
    });
    this.queue.add(ps.key);
  }

  // ---- termination and status ------------------------------------------------------------------

  private beginTermination(ps: PodState): void {
    ps.terminating = true;
    ps.gen++;
    this.cancel(ps.wakeTimer);
    const graceMs = (ps.pod.metadata.deletionGracePeriodSeconds ?? ps.pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
    const gen = ps.gen;
    for (const c of ps.all) {
      this.cancel(c.timer);
      this.stopProbes(c);
      if (c.phase !== 'running') {
        if (c.phase === 'waiting') {
          c.phase = 'terminated';
          c.terminated = { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', finishedAt: this.clock.now() };
        }
        continue;
      }
      this.podEvent(ps, c, 'Normal', 'Killing', `Stopping container ${c.spec.name}`);
      const stopMs = this.o.runtime.stopDuration(ps.pod, c.spec);
      const killed = stopMs > graceMs;
      c.timer = this.after(Math.min(stopMs, graceMs), () => {
        c.timer = undefined;
        if (gen !== ps.gen) return;
        this.containerExited(ps, c, { exitCode: killed ? 137 : 0, reason: killed ? 'Error' : 'Completed', finishedAt: this.clock.now() });
        this.queue.add(ps.key);
      });
    }
  }

  private podPhase(ps: PodState): string {
    if (ps.evicted) return 'Failed';
    if (ps.terminating) {
      if (ps.all.every((c) => c.phase !== 'running' && !c.busy)) {
        return ps.containers.every((c) => c.phase !== 'terminated' || c.terminated!.exitCode === 0) ? 'Succeeded' : 'Failed';
      }
    } else if (!ps.initialized) {
      const failed = ps.initContainers.some((c) => c.phase === 'terminated' && c.terminated!.exitCode !== 0 && !this.restartable(ps, c));
      return failed ? 'Failed' : 'Pending';
    }
    let running = 0;
    let waiting = 0;
    let stopped = 0;
    let succeeded = 0;
    for (const c of ps.containers) {
      if (c.phase === 'running') running++;
      else if (c.phase === 'terminated') {
        stopped++;
        if (c.terminated!.exitCode === 0) succeeded++;
      } else if (c.lastTerminated) stopped++;
      else waiting++;
    }
    if (waiting > 0) return 'Pending';
    if (running > 0) return 'Running';
    const policy = ps.pod.spec?.restartPolicy ?? 'Always';
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (policy === 'Never') return 'Failed';
    return 'Running';
  }

  private podCondition(ps: PodState, type: string, status: string, now: number, reason?: string, message?: string): any {
    const existing = (ps.pod.status?.conditions ?? []).find((c: any) => c.type === type);
    let rec = ps.transitions.get(type);
    if (!rec) {
      rec = existing && existing.status === status && existing.lastTransitionTime ? { status, time: Date.parse(existing.lastTransitionTime) } : { status, time: now };
    } else if (rec.status !== status) rec = { status, time: now };
    ps.transitions.set(type, rec);
    return { type, status, lastProbeTime: null, lastTransitionTime: formatTime(rec.time), ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
  }

  private containerStatus(c: ContainerState): any {
    let state: any;
    if (c.phase === 'running') state = { running: { startedAt: formatTime(c.startedAt!) } };
    else if (c.phase === 'terminated') state = terminatedState(c.terminated!);
    else state = { waiting: { reason: c.waitingReason || 'ContainerCreating', ...(c.waitingMessage ? { message: c.waitingMessage } : {}) } };
    const cs: any = {
      name: c.spec.name,
      state,
      lastState: c.lastTerminated ? terminatedState(c.lastTerminated) : {},
      ready: c.init ? NodeAgent.succeeded(c) : c.phase === 'running' && c.ready,
      restartCount: c.restartCount,
      image: c.spec.image,
      imageID: c.attempts > 0 ? this.o.runtime.imageID(c.spec.image) : '',
      started: !c.init && c.phase === 'running' && c.started,
    };
    if (c.containerID) cs.containerID = c.containerID;
    return cs;
  }

  private podStatus(ps: PodState): any {
    const now = this.clock.now();
    const phase = this.podPhase(ps);
    const statuses = ps.containers.map((c) => this.containerStatus(c));
    const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
    const terminal = isTerminalPhase(phase);
    const allReady = unready.length === 0 && !terminal;
    const notReadyReason = terminal ? 'PodCompleted' : 'ContainersNotReady';
    const notReadyMessage = terminal ? undefined : `containers with unready status: [${unready.join(' ')}]`;
    let initialized: any;
    if (ps.initialized || (terminal && ps.initContainers.every((c) => NodeAgent.succeeded(c)))) {
      initialized = this.podCondition(ps, 'Initialized', 'True', now, terminal ? 'PodCompleted' : undefined);
    } else {
      const incomplete = ps.initContainers.filter((c) => !NodeAgent.succeeded(c)).map((c) => c.spec.name);
      initialized = this.podCondition(ps, 'Initialized', 'False', now, 'ContainersNotInitialized', `containers with incomplete status: [${incomplete.join(' ')}]`);
    }
    // Ready also needs every readiness gate's condition (set by others) to be True, as the kubelet's GeneratePodReadyCondition.
    const gates = allReady ? unreadyGates(ps.pod) : [];
    const conditions = [
      initialized,
      !allReady
        ? this.podCondition(ps, 'Ready', 'False', now, notReadyReason, notReadyMessage)
        : gates.length > 0
          ? this.podCondition(ps, 'Ready', 'False', now, 'ReadinessGatesNotReady', gates.join(', '))
          : this.podCondition(ps, 'Ready', 'True', now),
      allReady ? this.podCondition(ps, 'ContainersReady', 'True', now) : this.podCondition(ps, 'ContainersReady', 'False', now, notReadyReason, notReadyMessage),
      this.podCondition(ps, 'PodScheduled', 'True', now),
    ];
    if (ps.evicted) conditions.push(this.podCondition(ps, 'DisruptionTarget', 'True', now, 'TerminationByKubelet', ps.evicted.message));
    const status: any = {
      phase,
      conditions,
      hostIP: this.nodeIP,
      startTime: formatTime(ps.startTime),
      ...(ps.initContainers.length ? { initContainerStatuses: ps.initContainers.map((c) => this.containerStatus(c)) } : {}),
      containerStatuses: statuses,
      qosClass: ps.pod.status?.qosClass,
    };
    const ip = ps.pod.spec?.hostNetwork ? this.nodeIP : ps.podIP;
    if (ip) {
      status.podIP = ip;
      status.podIPs = [{ ip }];
    }
    if (ps.evicted) {
      status.reason = 'Evicted';
      status.message = ps.evicted.message;
    }
    return status;
  }

  private async writeStatus(ps: PodState, status: any): Promise<void> {
    // NOTE: podStatus builds fresh objects every time, so the last one sent stays as it was.
    if (ps.lastStatus !== undefined && deepEqual(status, ps.lastStatus)) return;
    // As the kubelet does: a two-way strategic merge patch from the status last sent (the whole
    // status the first time), with the pod's uid as a precondition.
    const patch = ps.lastStatus === undefined ? status : createTwoWayMergePatch(ps.lastStatus, status, POD_STATUS);
    try {
      await this.podsClient
        .namespace(ps.pod.metadata.namespace)
        .patch(ps.pod.metadata.name, { metadata: { uid: ps.uid }, status: patch }, 'strategic', { subresource: 'status', discardResult: true });
      ps.lastStatus = status;
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  // ---- eviction --------------------------------------------------------------------------------

  private memoryThresholdBytes?: { capacity: number; threshold: number | undefined };

  /** The `memory.available` eviction threshold in bytes for `capacity` (the configuration is fixed: computed once). */
  private memoryThreshold(capacity: number): number | undefined {
    const hit = this.memoryThresholdBytes;
    if (hit?.capacity === capacity) return hit.threshold;
    const t = this.config.parsed.evictionHard['memory.available'];
    const threshold = !t ? undefined : 'quantity' in t ? Number(t.quantity.valueInt()) : capacity * t.percentage;
    this.memoryThresholdBytes = { capacity, threshold };
    return threshold;
  }

  /** memory.available as the eviction manager sees it: capacity − memory used by running containers. */
  memoryAvailable(): number {
    const capacity = this.memoryCapacity();
    let used = 0;
    for (const ps of this.pods.values()) {
      for (const c of ps.all) {
        c.memoryBytes = c.phase === 'running' ? this.o.runtime.memoryUsage(ps.pod, c.spec) : 0;
        used += c.memoryBytes;
      }
    }
    return capacity - used;
  }

  private readonly evictionTick = (): void => {
    this.evictionTimer = undefined;
    if (this.stopped) return;
    try {
      this.synchronizeEviction();
    } catch (err) {
      this.report(err);
    }
    this.evictionTimer = this.clock.setTimer(EVICTION_MONITORING_PERIOD_MS, this.evictionTick);
  };

  private memoryCapacityBytes: number | undefined;

  /** The node's memory capacity in bytes (the capacity is fixed at construction). */
  private memoryCapacity(): number {
    return (this.memoryCapacityBytes ??= Number(parseQuantity(this.resources.capacity.memory).valueInt()));
  }

  private synchronizeEviction(): void {
    const capacity = this.memoryCapacity();
    const threshold = this.memoryThreshold(capacity);
    if (threshold === undefined) return;
    const available = this.memoryAvailable();
    if (available >= threshold) return;
    const wasUnderPressure = this.memoryPressure();
    this.memoryPressureSeen = this.clock.now();
    if (!wasUnderPressure) void this.syncNodeStatus().catch((e) => this.report(e));
    const candidates = [...this.pods.values()]
      .filter((ps) => !ps.terminating && !ps.evicted && !ps.pod.metadata.annotations?.[MIRROR_ANNOTATION] && ps.all.some((c) => c.phase === 'running'))
      .map((ps) => {
        const usage = ps.all.reduce((a, c) => a + c.memoryBytes, 0);
        const request = ps.containers.reduce((a, c) => a + memoryRequest(c.spec), 0);
        return { ps, usage, request, exceeds: usage > request, priority: ps.pod.spec?.priority ?? 0 };
      })
      .sort((a, b) => Number(b.exceeds) - Number(a.exceeds) || a.priority - b.priority || b.usage - b.request - (a.usage - a.request) || (a.ps.key < b.ps.key ? -1 : 1));
    const victim = candidates[0];
    if (!victim) return;
    const top = victim.ps.all.filter((c) => c.memoryBytes > 0).sort((a, b) => b.memoryBytes - a.memoryBytes)[0];
    const ki = (n: number) => `${Math.floor(n / 1024)}Ki`;
    let message = `The node was low on resource: memory. Threshold quantity: ${this.config.evictionHard['memory.available']}, available: ${ki(available)}. `;
    if (top) message += `Container ${top.spec.name} was using ${ki(top.memoryBytes)}, request is ${memoryRequest(top.spec) ? ki(memoryRequest(top.spec)) : '0'}, has larger consumption of memory. `;
    this.evictPod(victim.ps, message);
  }

  private evictPod(ps: PodState, message: string): void {
    ps.evicted = { message };
    ps.gen++;
    this.cancel(ps.wakeTimer);
    const now = this.clock.now();
    this.nodeEvent('Warning', 'EvictionThresholdMet', 'Attempting to reclaim memory');
    this.podEvent(ps, undefined, 'Warning', 'Evicted', message);
    for (const c of ps.all) {
      this.cancel(c.timer);
      c.timer = undefined;
      if (c.phase === 'running') {
        this.podEvent(ps, c, 'Normal', 'Killing', `Stopping container ${c.spec.name}`);
        this.containerExited(ps, c, { exitCode: 137, reason: 'Error', finishedAt: now });
      }
      c.nextStartAt = Infinity;
    }
    this.releaseIP(ps);
    this.evictions.push(ps.key);
    this.queue.add(ps.key);
  }

  // ---- static pods -----------------------------------------------------------------------------

  private async staticPodLoop(): Promise<void> {
    try {
      await this.syncStaticPods();
    } catch (err) {
      this.report(err);
    }
    if (!this.stopped) this.after(this.config.fileCheckFrequency, () => void this.staticPodLoop());
  }

  private async readStaticPods(): Promise<Map<string, { hash: string; pod: any }>> {
    const fs = this.o.fs!;
    const dir = this.config.staticPodPath;
    const out = new Map<string, { hash: string; pod: any }>();
    const files = (await fs.readdir(dir)).filter((f) => !f.startsWith('.')).sort();
    for (const f of files) {
      let doc: any;
      try {
        doc = parseYaml(await fs.readFile(`${dir.replace(/\/$/, '')}/${f}`));
      } catch (err) {
        this.report(err);
        continue;
      }
      if (!doc || doc.kind !== 'Pod' || !doc.metadata?.name) continue;
      const pod = structuredClone(doc);
      pod.metadata.namespace ??= 'default';
      pod.metadata.name = `${doc.metadata.name}-${this.nodeName}`;
      const hash = createHash('md5').update(JSON.stringify(doc)).update(this.nodeName).digest('hex');
      pod.metadata.annotations = {
        ...(pod.metadata.annotations ?? {}),
        'kubernetes.io/config.hash': hash,
        [MIRROR_ANNOTATION]: hash,
        'kubernetes.io/config.seen': new Date(this.clock.now()).toISOString(),
        'kubernetes.io/config.source': 'file',
      };
      pod.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: this.nodeUid, controller: true }];
      pod.spec = { ...(pod.spec ?? {}), nodeName: this.nodeName };
      delete pod.status;
      out.set(`${pod.metadata.namespace}/${pod.metadata.name}`, { hash, pod });
    }
    return out;
  }

  /** Creates, replaces and deletes mirror pods so they match the manifests in `staticPodPath`. */
  private async syncStaticPods(): Promise<void> {
    const wanted = await this.readStaticPods();
    for (const [key, { hash, pod }] of wanted) {
      const ns = pod.metadata.namespace;
      const current = this.informer.store.getByKey(key);
      if (current && current.metadata.annotations?.[MIRROR_ANNOTATION] === hash && !current.metadata.deletionTimestamp) continue;
      if (current && current.metadata.annotations?.[MIRROR_ANNOTATION] !== hash) {
        await this.podsClient.namespace(ns).delete(current.metadata.name, { gracePeriodSeconds: 0, preconditions: { uid: current.metadata.uid } }).catch((e) => {
          if (!isNotFound(e) && !isConflict(e)) throw e;
        });
      }
      if (current?.metadata.deletionTimestamp) continue;
      try {
        await this.podsClient.namespace(ns).create(pod);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      this.staticMirrors.set(key, { hash, pod });
    }
    for (const [key] of this.staticMirrors) {
      if (wanted.has(key)) continue;
      this.staticMirrors.delete(key);
      const [ns, name] = key.split('/') as [string, string];
      await this.podsClient.namespace(ns).delete(name, { gracePeriodSeconds: 0 }).catch((e) => {
        if (!isNotFound(e)) throw e;
      });
    }
  }
}

/** A container state `terminated` as the kubelet reports it. */
function terminatedState(t: Termination): any {
  return {
    terminated: {
      exitCode: t.exitCode,
      reason: t.reason,
      ...(t.message ? { message: t.message } : {}),
      ...(t.startedAt !== undefined ? { startedAt: formatTime(t.startedAt) } : {}),
      finishedAt: formatTime(t.finishedAt),
      ...(t.containerID ? { containerID: t.containerID } : {}),
    },
  };
}
